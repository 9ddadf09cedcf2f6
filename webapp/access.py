"""Who may use the server when it is served beyond this computer (``--host 0.0.0.0``).

On a club night any phone on the Wi-Fi could otherwise delete a match or add games to it. So a
server reachable from the network makes a join code at start-up: a long one inside the QR code's
URL (``/?join=...``) and a short one to type. A phone that shows either gets a cookie and may
read and write; this computer (a loopback client) always may; anyone else gets the page and its
strings, and a 403 with a sentence for everything else, so nothing changes. Served on 127.0.0.1
there is no code and nothing changes for the player.

The codes live only in the server's memory: a restart makes new ones (phones scan again).
"""

from __future__ import annotations

import hmac
import io
import json
import secrets
import time
from collections import defaultdict, deque
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from referee.i18n import _
from webapp.middleware import cookie_value, scope_headers
from webapp.runtime import Runtime, get_runtime
from webapp.schemas import JoinIn, JoinOut, ShareOut

__all__ = ["JoinCodes", "JoinMiddleware", "router", "access_of", "qr_svg", "JOIN_COOKIE", "ACCESS_KEY"]

JOIN_COOKIE = "rk_join"
"""The cookie a phone that joined carries (its value is the long join code)."""
ACCESS_KEY = "rummikub.access"
"""Where :class:`JoinMiddleware` leaves a request's access in the ASGI scope: ``"open"`` (no join
code on this server), ``"local"`` (this computer), ``"joined"`` or ``"guest"``."""
_SHORT_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud and typed on a phone
_LOOPBACK = ("127.", "::1", "::ffff:127.")
# What a guest may fetch: the page, its files and sentences, the health check (it tells the page
# to ask for the code), the join route itself, and the read-only API docs.
_GUEST_GET = ("/static/", "/docs", "/redoc", "/openapi.json")
_GUEST_EXACT = {"/", "/api/strings", "/api/health", "/favicon.ico"}
MAX_FAILURES = 10
"""Wrong codes one address may try per :data:`FAILURE_WINDOW_S` before it must wait (429)."""
FAILURE_WINDOW_S = 600.0


@dataclass(frozen=True)
class JoinCodes:
    """The two codes of one server run: ``token`` in the QR code's URL, ``short`` to type."""

    token: str
    short: str

    @classmethod
    def new(cls) -> JoinCodes:
        """Fresh random codes (``secrets``): 96 bits for the URL, 6 characters (30 bits) to type."""
        short = "".join(secrets.choice(_SHORT_ALPHABET) for _ in range(6))
        return cls(token=secrets.token_urlsafe(12), short=short)

    @property
    def short_display(self) -> str:
        """The short code as people read it: ``ABC-234``."""
        return f"{self.short[:3]}-{self.short[3:]}"

    def accepts(self, value: str | None) -> bool:
        """True for the long code, or the short one typed any case, with or without spaces and
        dashes. Only ``POST /api/join`` takes the short one: it counts wrong guesses."""
        if not value:
            return False
        typed = "".join(c for c in value.upper() if c.isalnum())
        return self.accepts_token(value.strip()) or hmac.compare_digest(typed.encode(), self.short.encode())

    def accepts_token(self, value: str | None) -> bool:
        """True for the long code only (the cookie, the QR code's link): 96 bits, nothing to guess."""
        # compare_digest: the time taken does not tell how many characters were right.
        return bool(value) and hmac.compare_digest(str(value).encode(), self.token.encode())

    def url(self, base: str) -> str:
        """``base`` (``http://192.168.1.5:8000/``) with the long code, for the QR code."""
        return f"{base.rstrip('/')}/?join={self.token}"


def _is_loopback(host: str | None) -> bool:
    return bool(host) and (host == "localhost" or host.startswith(_LOOPBACK))  # type: ignore[union-attr]


def access_of(request: Request | Scope) -> str:
    """A request's access (see :data:`ACCESS_KEY`); ``"open"`` where the middleware did not run."""
    scope = getattr(request, "scope", request)
    return str(scope.get(ACCESS_KEY, "open"))


def _guest_may(method: str, path: str) -> bool:
    if method == "POST" and path == "/api/join":
        return True
    return method in ("GET", "HEAD") and (path in _GUEST_EXACT or path.startswith(_GUEST_GET))


class JoinMiddleware:
    """Let in this computer and the phones that joined; refuse the rest with a 403 (see module).

    ``GET /?join=<long code>`` sets the cookie and sends the phone on to ``/`` (the code then leaves
    the address bar and the history). Plain ASGI, inside :class:`~webapp.middleware.LanguageMiddleware`
    so the 403's sentence is in the request's language.
    """

    def __init__(self, app: ASGIApp, join: JoinCodes | None) -> None:
        self.app = app
        self.join = join

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.join is None:
            scope[ACCESS_KEY] = "open"
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        headers = scope_headers(scope)
        if _is_loopback(client[0] if client else None):
            scope[ACCESS_KEY] = "local"
        elif self.join.accepts_token(cookie_value(headers.get("cookie"), JOIN_COOKIE)):
            scope[ACCESS_KEY] = "joined"
        else:
            scope[ACCESS_KEY] = "guest"
        method, path = scope["method"], scope["path"]
        if path == "/" and method == "GET":
            query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
            if self.join.accepts_token(query.get("join")):
                await _redirect_with_cookie(send, self.join.token, secure=scope.get("scheme") == "https")
                return
        if scope[ACCESS_KEY] == "guest" and not _guest_may(method, path):
            body = json.dumps({"detail": _(
                "This table lets in only the phones that joined it: scan the QR code on the computer that runs "
                "the server, or type its join code on this page. Nothing was changed."
            )}).encode()
            await send({"type": "http.response.start", "status": 403,
                        "headers": [(b"content-type", b"application/json"),
                                    (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)


def _cookie_header(token: str, secure: bool) -> bytes:
    # HttpOnly: the page's scripts never need it; SameSite=Lax: another site can't write with it.
    flags = "; Secure" if secure else ""
    return f"{JOIN_COOKIE}={token}; Path=/; Max-Age=604800; HttpOnly; SameSite=Lax{flags}".encode("latin-1")


async def _redirect_with_cookie(send: Send, token: str, secure: bool) -> None:
    await send({"type": "http.response.start", "status": 303,
                "headers": [(b"location", b"/"), (b"set-cookie", _cookie_header(token, secure)),
                            (b"content-length", b"0"), (b"cache-control", b"no-store")]})
    await send({"type": "http.response.body", "body": b""})


def qr_svg(text: str, scale: int = 4) -> str:
    """A QR code of ``text`` as inline SVG (segno; error correction M survives a glossy screen)."""
    import segno

    return segno.make(text, error="m").svg_inline(scale=scale, border=4, title=None, dark="#000", light="#fff")


def qr_terminal(text: str) -> str:
    """A QR code of ``text`` in block characters, two rows of modules per line, for the terminal."""
    import segno

    out = io.StringIO()
    segno.make(text, error="m").terminal(out=out, compact=True)
    return out.getvalue()


router = APIRouter(prefix="/api")

# Wrong codes per client address: times of the recent failures.
_failures: dict[str, deque[float]] = defaultdict(deque)


def _too_many_failures(host: str) -> bool:
    now = time.monotonic()
    recent = _failures[host]
    while recent and now - recent[0] > FAILURE_WINDOW_S:
        recent.popleft()
    return len(recent) >= MAX_FAILURES


@router.post("/join", response_model=JoinOut, responses={403: {"description": "Wrong code."},
                                                         429: {"description": "Too many wrong codes."}},
             summary="Join this table with its code")
async def join(body: JoinIn, request: Request, rt: Runtime = Depends(get_runtime)) -> Any:
    """Show the short code (or the long one) once: the answer sets the cookie that lets this
    browser read and write. Where no code is needed, says so."""
    codes: JoinCodes | None = rt.settings.join
    if codes is None or access_of(request) in ("local", "joined"):
        return {"joined": True}
    host = request.client.host if request.client else "?"
    if _too_many_failures(host):
        raise HTTPException(429, _("Too many wrong codes from this phone: wait ten minutes, then try again."))
    if not codes.accepts(body.code):
        _failures[host].append(time.monotonic())
        raise HTTPException(403, _("That is not this table's join code: read it again on the computer's screen."))
    response = JSONResponse({"joined": True})
    response.headers["set-cookie"] = _cookie_header(codes.token, secure=request.url.scheme == "https").decode()
    return response


@router.get("/join/share", response_model=ShareOut, summary="The QR code phones scan to join")
async def share(request: Request, rt: Runtime = Depends(get_runtime)) -> dict[str, Any]:
    """For this computer only: the address a phone opens (with the long code), its QR code as
    SVG, and the short code to type. ``url`` is null when the server is not reachable from the
    network (started on 127.0.0.1)."""
    codes: JoinCodes | None = rt.settings.join
    urls = list(rt.settings.share_urls)
    if access_of(request) not in ("local", "open"):
        raise HTTPException(403, _("Only the computer that runs the server shows the join code."))
    if codes is None or not urls:
        return {"url": None, "urls": urls, "code": None, "svg": None}
    url = codes.url(urls[0])
    return {"url": url, "urls": urls, "code": codes.short_display, "svg": qr_svg(url)}
