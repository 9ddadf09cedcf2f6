"""A live server for the load test: the real app with a stand-in reader that takes 0.25 s a photo.

Run as ``python -m tests.app.slow_app PORT DB`` (a subprocess, so the test's 20 client threads
don't share the server's interpreter lock and the timings are the server's own).
"""

from __future__ import annotations

import sys
from pathlib import Path

import uvicorn

import app as app_module
from tests.app.conftest import BlankReader
from webapp.runtime import Settings


def main() -> None:
    port, db = int(sys.argv[1]), Path(sys.argv[2])
    application = app_module.create_app(Settings(db_path=db, load_models=False, workers=2),
                                        reader=BlankReader(delay_s=0.25))
    uvicorn.run(application, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
