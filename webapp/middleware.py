"""ASGI middleware: the request's language, and a cap on the request body.

Both are plain ASGI (not Starlette's BaseHTTPMiddleware) so that the language set here is the
one the route sees, and so that an oversized body is refused while it streams in, before the
multipart parser has spooled 50 MB to disk.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from referee.i18n import _, language_from_tag, negotiate_language, use_language

__all__ = ["LanguageMiddleware", "BodyLimitMiddleware", "pick_language"]


def pick_language(query_lang: str | None, accept_language: str | None) -> str:
    """``?lang=`` if it names a known language, else the best match of Accept-Language."""
    if query_lang:
        chosen = language_from_tag(query_lang)
        if chosen is not None:
            return chosen
    return negotiate_language(accept_language)


class LanguageMiddleware:
    """Translate every sentence of a request into the language it asks for."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        query = dict(_parse_query(scope.get("query_string", b"").decode("latin-1")))
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        with use_language(pick_language(query.get("lang"), headers.get("accept-language"))):
            await self.app(scope, receive, send)


def _parse_query(text: str) -> list[tuple[str, str]]:
    out = []
    for pair in text.split("&"):
        key, _sep, value = pair.partition("=")
        if key:
            out.append((key, value))
    return out


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

