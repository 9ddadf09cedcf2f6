"""Translation of player-facing sentences (stdlib gettext; catalogs in referee/locale).

Mark every sentence a player reads with ``_()`` and fill placeholders *after* translation, so the
translator sees the placeholder names: ``_("{tile} is not on your rack").format(tile="R7")``.
The language is per context (a web request, a CLI run): ``with use_language("ja"): ...``.
"""

from __future__ import annotations

import gettext
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path

__all__ = ["_", "ngettext", "use_language", "current_language", "LANGUAGES", "DOMAIN", "LOCALE_DIR"]

DOMAIN = "rummikub"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
LANGUAGES = ("en", "zh_Hans", "zh_Hant", "ja", "es")
_language: ContextVar[str] = ContextVar("rummikub_language", default="en")


@lru_cache(maxsize=None)
def _translations(language: str) -> gettext.NullTranslations:
    return gettext.translation(DOMAIN, localedir=LOCALE_DIR, languages=[language], fallback=True)


def current_language() -> str:
    """The language of the current context (default ``en``)."""
    return _language.get()


@contextmanager
def use_language(language: str) -> Iterator[None]:
    """Translate sentences into ``language`` inside the block (this thread / task only)."""
    token = _language.set(language if language in LANGUAGES else "en")
    try:
        yield
    finally:
        _language.reset(token)


def _(message: str) -> str:
    """Translate ``message`` into the current language (English if no translation)."""
    return _translations(_language.get()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """Plural-aware translation."""
    return _translations(_language.get()).ngettext(singular, plural, n)
