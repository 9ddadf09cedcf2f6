"""Translation of player-facing sentences (stdlib gettext; catalogs in referee/locale).

Mark every sentence a player reads with ``_()`` and fill placeholders *after* translation, so the
translator sees the placeholder names: ``_("{tile} is not on your rack").format(tile="R7")``.
The language is per context (a web request, a CLI run): ``with use_language("ja"): ...``.

The catalogs are ``referee/locale/<lang>/LC_MESSAGES/rummikub.mo``, compiled from the ``.po``
files by Babel's ``pybabel compile`` (docs/i18n.md); at run time only the standard library
reads them. Nothing is loaded at import: ``gettext`` and a language's catalog load on the first
sentence translated into that language, which keeps ``import referee`` light.

Which language: :func:`negotiate_language` reads a browser's ``Accept-Language`` header,
:func:`language_from_locale` the POSIX locale variables (for the command lines); both map any tag
to one of :data:`LANGUAGES` via :func:`language_from_tag`.
"""

from __future__ import annotations

import os
from contextvars import ContextVar, Token
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for annotations only: gettext loads on first use
    import gettext
    from collections.abc import Iterable, Mapping
    from types import TracebackType

__all__ = [
    "_",
    "N_",
    "ngettext",
    "use_language",
    "current_language",
    "language_from_tag",
    "negotiate_language",
    "language_from_locale",
    "colour_name",
    "join_sentences",
    "LANGUAGES",
    "LANGUAGE_NAMES",
    "DOMAIN",
    "LOCALE_DIR",
]

DOMAIN = "rummikub"
LANGUAGES = ("en", "zh_Hans", "zh_Hant", "ja", "es")
"""The languages with a catalog, English first (the source language and the fallback)."""
LANGUAGE_NAMES = {"en": "English", "zh_Hans": "简体中文", "zh_Hant": "繁體中文", "ja": "日本語", "es": "Español"}
"""Each language's name in itself, for a language switch."""

# A plain string, not a pathlib.Path: pathlib costs a few milliseconds to import and the
# referee must import fast (tests/referee/test_package.py). ``LOCALE_DIR`` (a Path) is built
# on first access by the module __getattr__ below.
_LOCALE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "locale")
_language: ContextVar[str] = ContextVar("rummikub_language", default="en")
_catalogs: dict[str, gettext.NullTranslations] = {}


def __getattr__(name: str) -> Any:
    # PEP 562: the Path-typed LOCALE_DIR of the original API, without importing pathlib up front.
    if name == "LOCALE_DIR":
        from pathlib import Path

        value = Path(_LOCALE_DIR)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'referee.i18n' has no attribute {name!r}")


def _translations(language: str) -> gettext.NullTranslations:
    """The catalog of ``language``, read once; English text when the ``.mo`` file is absent."""
    catalog = _catalogs.get(language)
    if catalog is None:
        import gettext  # first translated sentence only

        path = os.path.join(_LOCALE_DIR, language, "LC_MESSAGES", DOMAIN + ".mo")
        try:
            with open(path, "rb") as fp:
                catalog = gettext.GNUTranslations(fp)
        except FileNotFoundError:
            catalog = gettext.NullTranslations()
        _catalogs[language] = catalog  # a race only reads the same file twice
    return catalog


def current_language() -> str:
    """The language of the current context (default ``en``)."""
    return _language.get()


class use_language:  # noqa: N801 - used like a function: ``with use_language("ja"):``
    """Translate sentences into ``language`` inside the block (this thread / task only).

    ``language`` is one of :data:`LANGUAGES` or any tag :func:`language_from_tag` understands
    (``"ja-JP"``, ``"zh-TW"``); anything else means English. A class rather than a
    ``contextlib.contextmanager`` generator only to keep the import light.
    """

    __slots__ = ("language", "_token")

    def __init__(self, language: str) -> None:
        self.language = language if language in LANGUAGES else (language_from_tag(language) or "en")
        self._token: Token[str] | None = None

    def __enter__(self) -> None:
        self._token = _language.set(self.language)

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._token is not None:
            _language.reset(self._token)
            self._token = None


def _(message: str) -> str:
    """Translate ``message`` into the current language (English if no translation)."""
    return _translations(_language.get()).gettext(message)


def N_(message: str) -> str:  # noqa: N802 - the gettext convention
    """Mark ``message`` for the catalogs without translating it (translate with ``_()`` when shown).

    For sentences defined at import time, e.g. in a module-level table, before any language is
    chosen.
    """
    return message


def ngettext(singular: str, plural: str, n: int) -> str:
    """Plural-aware translation: the form for ``n`` in the current language."""
    return _translations(_language.get()).ngettext(singular, plural, n)


# Scripts and regions of Chinese. A script subtag (Hans/Hant) wins over the region
# (zh-Hant-CN is traditional); without one, the region decides; bare "zh" is simplified.
_TRADITIONAL_REGIONS = frozenset({"tw", "hk", "mo"})
_SIMPLE = {"en": "en", "ja": "ja", "es": "es"}


def language_from_tag(tag: str) -> str | None:
    """One of :data:`LANGUAGES` for a BCP 47 or POSIX tag, or None when none fits.

    ``zh-CN``, ``zh-SG``, ``zh-Hans``, ``zh`` -> ``zh_Hans``; ``zh-TW``, ``zh-HK``, ``zh-MO``,
    ``zh-Hant`` -> ``zh_Hant``; ``ja*`` -> ``ja``; ``es*`` -> ``es``; ``en*`` -> ``en``.
    POSIX forms work too: ``zh_TW.UTF-8``, ``es_ES@euro``.
    """
    text = tag.strip().split(".")[0].split("@")[0].lower().replace("_", "-")
    parts = [p for p in text.split("-") if p]
    if not parts:
        return None
    if parts[0] != "zh":
        return _SIMPLE.get(parts[0])
    rest = parts[1:]
    if "hant" in rest:
        return "zh_Hant"
    if "hans" in rest:
        return "zh_Hans"
    return "zh_Hant" if any(p in _TRADITIONAL_REGIONS for p in rest) else "zh_Hans"


def negotiate_language(accept_language: str | None, default: str = "en") -> str:
    """The best of :data:`LANGUAGES` for an HTTP ``Accept-Language`` header (RFC 9110 12.5.4).

    Tags are tried by quality (``q``, default 1; ties keep the header's order); ``q=0`` means
    "not this one"; ``*`` and unknown tags are skipped. ``default`` when nothing fits.

    >>> negotiate_language("fr-FR, zh-TW;q=0.8, ja;q=0.9")
    'ja'
    """
    ranked: list[tuple[float, int, str]] = []
    for position, part in enumerate((accept_language or "").split(",")):
        tag, *params = (p.strip() for p in part.split(";"))
        quality = 1.0
        for param in params:
            key, _sep, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0  # a malformed weight: don't let it win
        if tag and tag != "*" and quality > 0:
            ranked.append((-quality, position, tag))
    for _q, _position, tag in sorted(ranked):
        language = language_from_tag(tag)
        if language is not None:
            return language
    return default


def language_from_locale(environ: Mapping[str, str] | None = None, default: str = "en") -> str:
    """The language of the POSIX locale, for the command lines.

    Looks at ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` in that order (the first one set decides,
    as in POSIX); like GNU gettext, the ``LANGUAGE`` priority list (``ja:en``) comes first unless
    that locale is ``C``/``POSIX``. ``environ`` defaults to ``os.environ``.
    """
    env = os.environ if environ is None else environ
    locale_name = next((env[k] for k in ("LC_ALL", "LC_MESSAGES", "LANG") if env.get(k)), "")
    if locale_name.split(".")[0] in ("", "C", "POSIX"):
        return default
    for tag in env.get("LANGUAGE", "").split(":"):
        language = language_from_tag(tag) if tag else None
        if language is not None:
            return language
    return language_from_tag(locale_name) or default


# Colour names as words (docs/rules.md section 1): K black, B blue, O orange (printed yellow in some
# editions; each catalog uses its own rule book's word), R red.
_COLOUR_WORDS = {"K": N_("black"), "B": N_("blue"), "O": N_("orange"), "R": N_("red")}


def colour_name(colour: Any) -> str:
    """The word for a tile colour in the current language; ``colour`` is a ``Colour`` or its
    letter (``"K"``, ``"B"``, ``"O"``, ``"R"``)."""
    letter = getattr(colour, "value", colour)
    try:
        return _(_COLOUR_WORDS[letter])
    except (KeyError, TypeError):
        raise ValueError(f"{colour!r} is not a tile colour: expected K, B, O or R") from None



# Chinese and Japanese end a sentence with a full-width 。 (or ！？) and start the next one
# without a space; English and Spanish put a space between sentences.
_RUN_TOGETHER = frozenset({"zh_Hans", "zh_Hant", "ja"})


def join_sentences(sentences: Iterable[str]) -> str:
    """Whole translated sentences one after another, as the current language writes them: with a
    space in English and Spanish, without one in Chinese and Japanese. Empty ones are skipped.

    Join only complete sentences, each translated on its own; never glue pieces of one sentence.
    """
    parts = [s.strip() for s in sentences if s and s.strip()]
    return ("" if _language.get() in _RUN_TOGETHER else " ").join(parts)
