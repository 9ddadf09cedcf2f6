"""``python -m vision.evaluate FOLDER``: the command line of :mod:`vision.evaluate.tiles`."""

from vision.evaluate.tiles import main

raise SystemExit(main())
