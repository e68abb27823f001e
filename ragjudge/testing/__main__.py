"""`python -m ragjudge.testing`: run the OpenAI-compatible test server."""

from ragjudge.testing._server import main

raise SystemExit(main())
