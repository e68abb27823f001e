"""`ragjudge label`: a local review page that asks people for the rows that teach the most,
and appends every answer to a gold file the other commands read."""

from ragjudge.label._open import open_session
from ragjudge.label._session import Answer, Session, read_answers
from ragjudge.label._strategy import STRATEGIES

__all__ = ["STRATEGIES", "Answer", "Session", "open_session", "read_answers"]
