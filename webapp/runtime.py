"""What the server holds between requests: settings, the loaded models, the worker pool, the store.

Photo readings are CPU work (decode, two networks, rule-aware decoding); they run on a small
thread pool of their own, never on the event loop, so the server keeps answering (health checks,
score sheets, the page) while photos are read. The pool is small on purpose: with 2 cores more
workers would only queue inside onnxruntime and multiply memory.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from fastapi import Request

from referee.i18n import _
from vision.image import MAX_BYTES, MAX_PIXELS
from webapp.store import Store, default_db_path

if TYPE_CHECKING:
    from webapp.access import JoinCodes

__all__ = ["Settings", "Runtime", "LazySentence", "get_runtime", "off_loop"]

log = logging.getLogger("rummikub.app")
T = TypeVar("T")


@dataclass(frozen=True)
class Settings:
    """How the server was started (``python app.py --help`` sets these)."""

    db_path: Path = field(default_factory=default_db_path)
    """The SQLite file with the score sheets."""
    models_dir: Path | None = field(default_factory=lambda: _env_path("RUMMIKUB_MODELS"))
    """Folder with the tile models (``--models`` or ``$RUMMIKUB_MODELS``); None = the shipped ``models/``."""
    load_models: bool = True
    """False starts without the tile models (typed tiles only), e.g. for quick tests."""
    max_upload_bytes: int = MAX_BYTES
    """Largest photo accepted."""
    max_pixels: int = MAX_PIXELS
    """Most pixels a photo may have (decompression-bomb guard)."""
    workers: int = max(1, min(2, os.cpu_count() or 1))
    """Threads reading photos at the same time."""
    https: bool = False
    """True when served over HTTPS (live camera mode works on a phone)."""
    join: JoinCodes | None = None
    """The join codes when served beyond this computer (:mod:`webapp.access`); None lets everyone in."""
    share_urls: tuple[str, ...] = ()
    """The server's addresses on the network (``http://192.168.1.5:8000/``), for the QR code."""


@dataclass(frozen=True)
class LazySentence:
    """A sentence kept untranslated and translated each time it is shown, into the language of
    the request showing it. For sentences made once at start-up (why the models are missing),
    when no request and so no language exists yet.

    ``msgid`` is marked with ``N_()`` where it is written, so the catalogs have it;
    ``values`` fill its placeholders after translation.
    """

    msgid: str
    values: Mapping[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return _(self.msgid).format(**self.values)


def _text(sentence: LazySentence | str | None) -> str | None:
    return None if sentence is None else str(sentence)


@dataclass
class Runtime:
    """Everything the routes share; one per app, kept in ``app.state.runtime``."""

    settings: Settings
    store: Store
    executor: ThreadPoolExecutor
    reader: Any | None = None
    """The loaded :class:`vision.pipeline.TableReader`, or None when the models are missing."""
    model_problem: LazySentence | str | None = None
    """Why ``reader`` is None, as a sentence (translated when shown: :meth:`model_problem_text`)."""
    dice_reader: Any | None = None
    """The loaded :class:`vision.dice.DiceModel` (``read_dice(image)``), or None."""
    dice_problem: LazySentence | str | None = None
    """Why ``dice_reader`` is None, as a sentence (:meth:`dice_problem_text`)."""

    def model_problem_text(self) -> str | None:
        """Why the tile models are missing, in the current request's language (None when loaded)."""
        return _text(self.model_problem)

    def dice_problem_text(self) -> str | None:
        """Why dice photos can't be read, in the current request's language (None when they can)."""
        return _text(self.dice_problem)

    def taught_profile(self, name: str) -> Any:
        """The taught profile ``name`` from the store as a :class:`vision.profile.Profile`.

        Raises NotFoundError (404) for an unknown name, and ProfileError (422) for one taught on
        another reader than the one loaded: its features would be compared in another space."""
        from vision.profile import check_reader, profile_from_bytes

        record = self.store.get_profile(name)
        profile = profile_from_bytes(record.meta, record.prototypes, record.held_back,
                                     where=f'the profile "{record.name}"')
        cards = getattr(getattr(self.reader, "model", None), "cards", None)
        check_reader(profile, cards.get("tile_reader", {}) if isinstance(cards, dict) else {}, record.name)
        return profile

    def reader_with(self, reader: Any, name: str | None) -> Any:
        """``reader`` reading with the taught profile ``name`` (None or blank: as it is)."""
        if name is None or not name.strip():
            return reader
        profile = self.taught_profile(name)
        if not hasattr(reader, "with_profile"):
            return reader  # a stand-in reader of the tests: nothing to adapt
        return reader.with_profile(profile)

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run CPU work on the photo pool (with the request's language) and await the answer."""
        return await off_loop(fn, *args, executor=self.executor, **kwargs)


async def off_loop(fn: Callable[..., T], *args: Any, executor: ThreadPoolExecutor | None = None, **kwargs: Any) -> T:
    """Run ``fn`` in a worker thread, carrying the context (the request's language) along."""
    context = contextvars.copy_context()  # run_in_executor alone would drop contextvars
    call = functools.partial(context.run, fn, *args, **kwargs)
    return await asyncio.get_running_loop().run_in_executor(executor, call)


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name)
    return Path(value).expanduser() if value else None


def get_runtime(request: Request) -> Runtime:
    """FastAPI dependency: the app's :class:`Runtime`."""
    return request.app.state.runtime
