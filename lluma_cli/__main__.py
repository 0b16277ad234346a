"""`python -m lluma_cli ARGS` is `lluma ARGS`."""

from lluma_cli.main import main

raise SystemExit(main())
