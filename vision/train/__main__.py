"""``python -m vision.train all|detector|reader``: the command line of :mod:`vision.train.detector`."""

from vision.train.detector import main

raise SystemExit(main())
