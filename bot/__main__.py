"""``python -m bot`` is the ``turnited`` command."""

from bot.cli import main

raise SystemExit(main())
