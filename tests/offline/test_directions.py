"""Every fit of the offline answer model keeps each weight on the side its evidence points to
(`ragjudge.offline.directions`), and whole mode reads a contradiction as one."""

from __future__ import annotations

import numpy as np
import pytest

import ragjudge
from ragjudge.offline.directions import ANSWER_DIRECTIONS, directions
from ragjudge.offline.features import ANSWER_FEATURES
from ragjudge.offline.model import OfflineParams
from ragjudge.stats._logistic import fit_logistic


def test_every_feature_says_which_way_it_points() -> None:
    assert set(ANSWER_DIRECTIONS) == set(ANSWER_FEATURES)
    with pytest.raises(KeyError, match="no direction"):
        directions(["min_confidence", "a_new_feature"])


def test_a_bounded_weight_stops_at_zero_and_a_free_one_turns() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 2))
    y = (x[:, 0] + 0.8 * x[:, 1] + rng.normal(scale=0.5, size=400) > 0).astype(float)
    args = (x, y, np.ones(400), np.zeros(2), 0.0, 0.01)
    free, _ = fit_logistic(*args)
    bounded, _ = fit_logistic(*args, signs=[1, -1])
    assert free[0] > 1 and free[1] > 1  # both point towards 1
    assert bounded[0] == pytest.approx(free[0], rel=0.5) and bounded[1] == 0.0
    with pytest.raises(ValueError, match="1 signs for 2 features"):
        fit_logistic(*args, signs=[1])


def test_the_shipped_answer_weights_point_the_way_their_evidence_does() -> None:
    params = OfflineParams()
    for name, weight in zip(params.answer_features, params.answer_weights, strict=True):
        assert weight * ANSWER_DIRECTIONS[name] >= 0, f"{name}: {weight}"


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        (
            "The bridge does not carry trains. It carries cars and bicycles.",
            "The bridge carries trains.",
        ),
        (
            "Der Starter-Tarif enthält keinen Telefonsupport; Telefonsupport gibt es nur im "
            "Business-Tarif.",
            "Der Starter-Tarif enthält Telefonsupport.",
        ),
        ("The pool is open every day except Mondays.", "The pool is open on Mondays."),
        (
            "Ottawa is the capital of Canada. Toronto is the country's biggest city.",
            "Toronto is the capital of Canada.",
        ),
    ],
    ids=["negation", "negation-de", "exclusion", "entity-slot"],
)
def test_whole_mode_fails_an_answer_the_context_contradicts(context: str, answer: str) -> None:
    result = ragjudge.Faithfulness(mode="whole")(question="", contexts=[context], answer=answer)
    assert result.score is not None and result.score < 1.0
    assert result.passed is False
