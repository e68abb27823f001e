"""`python -m ragjudge` runs the command line."""

from ragjudge.cli import main

raise SystemExit(main())
