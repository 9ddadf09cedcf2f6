"""ASGI middleware: the request's language, and a cap on the request body.

Both are plain ASGI (not Starlette's BaseHTTPMiddleware) so that the language set here is the
one the route sees, and so that an oversized body is refused while it streams in, before the
multipart parser has spooled 50 MB to disk.
"""

from __future__ import annotations

import json
from http.cookies import CookieError, SimpleCookie
from typing import Any
from urllib.parse import parse_qsl

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from referee.i18n import LANGUAGES, _, language_from_tag, negotiate_language, use_language

__all__ = [
    "LanguageMiddleware",
    "BodyLimitMiddleware",
    "pick_language",
    "request_language",
    "html_lang",
    "LANG_COOKIE",
    "SCOPE_KEY",
]

LANG_COOKIE = "lang"
"""The cookie the page's language switch sets (one of the language codes, e.g. ``zh_Hant``)."""
SCOPE_KEY = "rummikub.language"
"""Where the middleware leaves the chosen language in the ASGI scope (for handlers outside it)."""
_HTML_LANG = {"en": "en", "zh_Hans": "zh-Hans", "zh_Hant": "zh-Hant", "ja": "ja", "es": "es"}


def html_lang(language: str) -> str:
    """The BCP 47 tag of one of :data:`referee.i18n.LANGUAGES` (``zh_Hant`` -> ``zh-Hant``), for
    ``<html lang>`` and the ``Content-Language`` header."""
    return _HTML_LANG.get(language, "en")


def _known(value: str | None) -> str | None:
    # A code of ours ("zh_Hant") or any tag ("zh-TW", "ja-JP"); None for nonsense.
    if not value:
        return None
    value = value.strip()
    return value if value in LANGUAGES else language_from_tag(value[:35])


def pick_language(query_lang: str | None, cookie_lang: str | None, accept_language: str | None) -> str:
    """The one negotiation path of the server: ``?lang=`` if it names a language we have, else the
    ``lang`` cookie the page's switch set, else the best match of the ``Accept-Language`` header
    (:func:`referee.i18n.negotiate_language`), else English."""
    return _known(query_lang) or _known(cookie_lang) or negotiate_language(accept_language)


def scope_headers(scope: Scope) -> dict[str, str]:
    """An ASGI request's headers by lower-case name."""
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}


def cookie_value(header: str | None, name: str) -> str | None:
    """The value of cookie ``name`` in a ``Cookie`` header, or None."""
    if not header:
        return None
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(header)
    except CookieError:
        # One malformed cookie (set by some other page on the host) must not hide ours.
        for part in header.split(";"):
            key, _sep, value = part.strip().partition("=")
            if key == name:
                return value
        return None
    morsel = jar.get(name)
    return morsel.value if morsel is not None else None


def _scope_language(scope: Scope) -> str:
    headers = scope_headers(scope)
    query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True))
    return pick_language(query.get("lang"), cookie_value(headers.get("cookie"), LANG_COOKIE), headers.get("accept-language"))


def request_language(request: Any) -> str:
    """The language of a request (a Starlette ``Request`` or an ASGI scope): the one the middleware
    chose, or negotiated afresh where the middleware did not run (the 500 handler runs outside it)."""
    scope = getattr(request, "scope", request)
    return scope.get(SCOPE_KEY) or _scope_language(scope)


class LanguageMiddleware:
    """Translate every sentence of a request into the language it asks for (:func:`pick_language`).

    The language is a context variable (:func:`referee.i18n.use_language`), so the route, the
    exception handlers inside the app, and the photo pool's threads (``Runtime.run`` copies the
    context) all see it. Answers say which language they are in (``Content-Language``) and that it
    depends on the cookie and the header (``Vary``), so no cache hands a Japanese verdict to a
    Spanish phone.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        language = _scope_language(scope)
        scope[SCOPE_KEY] = language

        async def send_with_language(message: Message) -> None:
            if message["type"] == "http.response.start":
                kept = [(k, v) for k, v in message.get("headers", []) if k.lower() not in (b"content-language", b"vary")]
                vary = [v.decode("latin-1") for k, v in message.get("headers", []) if k.lower() == b"vary"]
                kept.append((b"content-language", html_lang(language).encode()))
                kept.append((b"vary", ", ".join([*vary, "Accept-Language, Cookie"]).encode("latin-1")))
                message = {**message, "headers": kept}
            await send(message)

        with use_language(language):
            await self.app(scope, receive, send_with_language)


class _TooLarge(Exception):
    pass


class BodyLimitMiddleware:
    """Refuse a request body over ``max_bytes`` with 413 and a sentence, checked twice: the
    declared Content-Length up front, and the bytes actually received (chunked uploads)."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    def _message(self) -> str:
        return _("The upload is larger than {limit} MB: send smaller photos, one at a time.").format(
            limit=f"{self.max_bytes / (1024 * 1024):.0f}"
        )

    async def _refuse(self, send: Send) -> None:
        body = json.dumps({"detail": self._message()}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for key, value in scope.get("headers", []):
            if key.lower() == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = 0
                if declared > self.max_bytes:
                    await self._refuse(send)
                    return
        received = 0
        too_large = False
        started = False

        async def counting_receive() -> Message:
            nonlocal received, too_large
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    too_large = True
                    raise _TooLarge()
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if too_large:
                return  # the app's own answer to the aborted body is replaced by our 413
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counting_receive, guarded_send)
        except _TooLarge:
            pass
        except Exception:
            if not too_large:
                raise
        if too_large and not started:
            await self._refuse(send)
