"""The Rummikub table assistant for players: a web page and a JSON API, fully offline.

Run it::

    python app.py                       # http://127.0.0.1:8000 on this computer
    python app.py --host 0.0.0.0        # a phone on the same Wi-Fi: photos through the camera button
    python app.py --host 0.0.0.0 --https   # ... and live camera mode (self-signed certificate)

Served on the network, the server prints its address, a join code and a QR code holding both:
only phones that joined (and this computer) may read and write.

Score sheets are kept in SQLite (``--db PATH`` or ``$RUMMIKUB_DB``; default in the user's data
folder). The tile models in ``models/`` are loaded once at start-up. OpenAPI docs: ``/docs``.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from referee.i18n import LANGUAGES, N_, _, language_from_locale, language_from_tag, use_language
from referee.ruleset import RuleSetError
from referee.tiles import TileError
from vision.image import ImageError
from webapp import __version__
from webapp.access import JoinCodes, JoinMiddleware, qr_terminal
from webapp.access import router as access_router
from webapp.api import router as play_router
from webapp.api import tag_routes
from webapp.follow_api import router as referee_router
from webapp.middleware import BodyLimitMiddleware, LanguageMiddleware, html_lang, request_language
from webapp.page_strings import router as strings_router
from webapp.profiles import router as profiles_router
from webapp.runtime import LazySentence, Runtime, Settings
from webapp.sheets import router as sheets_router
from webapp.store import NotFoundError, Store, StoreError

__all__ = ["create_app", "main", "load_models", "load_dice_models", "Settings"]

log = logging.getLogger("rummikub.app")
STATIC_DIR = Path(__file__).resolve().parent / "webapp" / "static"


# Why a model is missing is decided once at start-up, before any request says which language it
# reads: the sentences stay untranslated (LazySentence) and each request translates them.


def load_models(settings: Settings) -> tuple[Any | None, LazySentence | None]:
    """The tile reader with the shipped models, or ``(None, why)`` when they can't be loaded."""
    if not settings.load_models:
        return None, LazySentence(N_("The server was started without the tile models: type the tiles instead."))
    try:
        from vision import load_reader

        reader = load_reader(settings.models_dir) if settings.models_dir else load_reader()
    except FileNotFoundError as exc:
        log.warning("tile models not loaded: %s", exc)
        return None, LazySentence(N_("The tile models are not installed (models/*.onnx), so photos can't be read: "
                                     "type the tiles instead."))
    except Exception as exc:  # noqa: BLE001 - a broken model file must not stop the score sheets
        log.exception("tile models failed to load")
        return None, LazySentence(N_("The tile models failed to load ({error}): type the tiles instead."),
                                  {"error": str(exc)})
    return reader, None


def load_dice_models(settings: Settings) -> tuple[Any | None, LazySentence | None]:
    """The dice reader (``vision.dice``) with its shipped models, or ``(None, why)``."""
    why = LazySentence(N_("Reading dice from a photo is not available on this server: type the nine faces instead."))
    if not settings.load_models:
        return None, why
    try:
        from vision.dice import load_dice_model
    except ImportError:
        return None, why  # the dice reader is not part of this version
    try:
        return (load_dice_model(settings.models_dir) if settings.models_dir else load_dice_model()), None
    except FileNotFoundError as exc:
        log.warning("dice models not loaded: %s", exc)
        return None, why
    except Exception:  # noqa: BLE001 - a broken dice model must not stop the rest of the app
        log.exception("dice models failed to load")
        return None, why


def _warm_solver() -> None:
    """Import the solver and highspy (the exact tie-break) off the request path, at start-up: the
    first suggestion would otherwise wait about half a second for them."""
    try:
        import referee.solver.least  # noqa: F401
        import referee.solver  # noqa: F401
        import highspy  # noqa: F401
    except ImportError:
        pass  # the first suggestion that needs it says so


def create_app(settings: Settings | None = None, reader: Any | None = None, dice_reader: Any | None = None) -> FastAPI:
    """The FastAPI app. ``reader`` / ``dice_reader`` replace the shipped models (tests pass stand-ins)."""
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if reader is not None:
            loaded, problem = reader, None
        else:
            loaded, problem = load_models(settings)
        dice, dice_problem = (dice_reader, None) if dice_reader is not None else load_dice_models(settings)
        executor = ThreadPoolExecutor(max_workers=settings.workers, thread_name_prefix="photo")
        executor.submit(_warm_solver)
        app.state.runtime = Runtime(
            settings=settings,
            store=Store(settings.db_path),
            executor=executor,
            reader=loaded,
            model_problem=problem,
            dice_reader=dice,
            dice_problem=dice_problem,
        )
        try:
            yield
        finally:
            executor.shutdown(wait=False, cancel_futures=True)

    docs_assets = _offline_docs_assets()
    app = FastAPI(
        title="Rummikub table assistant",
        version=__version__,
        description="Read Rummikub tiles from photos, referee sets, turns and scores, keep score sheets.",
        lifespan=lifespan,
        # With local Swagger UI files the docs work offline; without them FastAPI's CDN pages remain.
        docs_url=None if docs_assets else "/docs",
        redoc_url=None if docs_assets else "/redoc",
    )
    if docs_assets:
        _add_offline_docs(app, docs_assets)
    app.include_router(play_router)
    app.include_router(sheets_router)
    app.include_router(profiles_router)
    app.include_router(strings_router)
    app.include_router(tag_routes(access_router))
    app.include_router(referee_router)
    _add_error_handlers(app)
    # Photos for a turn check (before, after, rack) travel in one request: allow three of them.
    # Outermost last: the language is chosen first (the 403's sentence is translated), the body cap
    # and the join check run before any route.
    app.add_middleware(JoinMiddleware, join=settings.join)
    app.add_middleware(BodyLimitMiddleware, max_bytes=3 * settings.max_upload_bytes + 1024 * 1024)
    app.add_middleware(LanguageMiddleware)

    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    @app.get("/", include_in_schema=False)
    async def index(request: Request) -> HTMLResponse:
        # <html lang> is the request's language from the first byte (screen readers, fonts: CJK
        # glyphs differ between zh-Hans, zh-Hant and ja); the page fetches its sentences from
        # /api/strings. no-cache: a player who updates the app gets the new page, not yesterday's.
        page = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
        page = page.replace('<html lang="en"', f'<html lang="{html_lang(request_language(request))}"', 1)
        return HTMLResponse(page, headers={"Cache-Control": "no-cache"})

    return app


def _offline_docs_assets() -> Path | None:
    """Swagger UI's files shipped by the ``fastapi-offline`` package, if it is installed."""
    try:
        import fastapi_offline
    except ImportError:
        return None
    folder = Path(fastapi_offline.__file__).resolve().parent / "static"
    return folder if (folder / "swagger-ui-bundle.js").exists() else None


def _add_offline_docs(app: FastAPI, assets: Path) -> None:
    """/docs (Swagger UI) and /redoc served from local files: the OpenAPI docs work offline too."""
    from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
    from fastapi.responses import HTMLResponse

    app.mount("/docs-assets", StaticFiles(directory=assets), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def swagger() -> HTMLResponse:
        return get_swagger_ui_html(openapi_url="/openapi.json", title=f"{app.title} - API",
                                   swagger_js_url="/docs-assets/swagger-ui-bundle.js",
                                   swagger_css_url="/docs-assets/swagger-ui.css",
                                   swagger_favicon_url="/static/icon.svg")

    @app.get("/redoc", include_in_schema=False)
    async def redoc() -> HTMLResponse:
        return get_redoc_html(openapi_url="/openapi.json", title=f"{app.title} - API",
                              redoc_js_url="/docs-assets/redoc.standalone.js", redoc_favicon_url="/static/icon.svg",
                              with_google_fonts=False)


def _error(status: int, detail: str) -> JSONResponse:
    return JSONResponse({"detail": detail}, status_code=status)


def _add_error_handlers(app: FastAPI) -> None:
    """Every error leaves as ``{"detail": sentence}`` with a 4xx status; a 500 is a bug."""

    @app.exception_handler(ImageError)
    async def image_error(request: Request, exc: ImageError) -> JSONResponse:
        return _error(exc.status, str(exc))

    @app.exception_handler(NotFoundError)
    async def not_found(request: Request, exc: NotFoundError) -> JSONResponse:
        return _error(404, str(exc))

    @app.exception_handler(StoreError)
    async def store_error(request: Request, exc: StoreError) -> JSONResponse:
        return _error(409, str(exc))

    @app.exception_handler(TileError)
    async def tile_error(request: Request, exc: TileError) -> JSONResponse:
        return _error(422, str(exc))

    @app.exception_handler(RuleSetError)
    async def rules_error(request: Request, exc: RuleSetError) -> JSONResponse:
        return _error(422, _("Rule set: {problem}").format(problem=exc))

    @app.exception_handler(ValueError)
    async def value_error(request: Request, exc: ValueError) -> JSONResponse:
        # Referee and reader functions raise ValueError subclasses for bad input only.
        return _error(422, str(exc))

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        # A bug, not bad input: log it whole, tell the player in one sentence. Starlette runs this
        # handler outside the middleware (and so outside the request's language): choose it again.
        log.error("unexpected error on %s %s", request.method, request.url.path, exc_info=exc)
        with use_language(request_language(request)):
            return _error(500, _("Something went wrong on the server (it is logged): please try again."))

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = []
        for err in exc.errors():
            where = ".".join(str(p) for p in err.get("loc", ()) if p not in ("body", "query", "path"))
            problems.append(f"{where}: {err.get('msg', '')}" if where else str(err.get("msg", "")))
        detail = _("The request is not valid: {problems}.").format(problems="; ".join(problems) or "?")
        return JSONResponse({"detail": detail, "errors": _plain(exc.errors())}, status_code=422)


def _plain(errors: Any) -> Any:
    # Validation errors may carry exception objects in "ctx"; keep only JSON-safe values.
    import json

    return json.loads(json.dumps(errors, default=str))


def main(argv: list[str] | None = None) -> int:
    """``python app.py [--host 127.0.0.1] [--port 8000] [--https] [--db PATH]``."""
    parser = argparse.ArgumentParser(prog="python app.py", description="Serve the Rummikub table assistant.")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1; 0.0.0.0 lets phones on the LAN in: they "
                             "join with the QR code or the code it prints)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--https", action="store_true",
                        help="serve HTTPS with a self-signed certificate (live camera mode on a phone)")
    parser.add_argument("--cert-dir", type=Path, default=None,
                        help="where the self-signed certificate is kept (default: beside the database)")
    parser.add_argument("--db", type=Path, default=None, help="SQLite score-sheet file (default $RUMMIKUB_DB or "
                                                               "the user's data folder)")
    parser.add_argument("--models", type=Path, default=None,
                        help="folder with the tile models (default $RUMMIKUB_MODELS or models/)")
    parser.add_argument("--no-models", action="store_true", help="start without the tile models (typed tiles only)")
    parser.add_argument("--workers", type=int, default=Settings().workers, help="photos read at the same time")
    parser.add_argument("--lang", default=None,
                        help=f"language of these start-up lines: {', '.join(LANGUAGES)} or a tag such as zh-TW "
                             "(default: the locale); the page follows each browser's language")
    args = parser.parse_args(argv)
    if args.lang is not None and language_from_tag(args.lang) is None:
        parser.error(f"unknown language {args.lang!r}: choose one of {', '.join(LANGUAGES)}")

    import uvicorn

    from webapp.certs import ensure_certificate, lan_addresses
    from webapp.store import default_db_path

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    db_path = (args.db or default_db_path()).expanduser()
    scheme = "https" if args.https else "http"
    on_network = args.host not in ("127.0.0.1", "localhost", "::1")
    hosts = (lan_addresses() if args.host in ("0.0.0.0", "::") else [args.host]) if on_network else []
    share_urls = tuple(f"{scheme}://{host}:{args.port}/" for host in hosts)
    # Served beyond this computer: only phones that show the join code may read and write.
    join = JoinCodes.new() if on_network else None
    settings = Settings(db_path=db_path, models_dir=args.models or Settings().models_dir,
                        load_models=not args.no_models,
                        workers=max(1, args.workers), https=args.https, join=join, share_urls=share_urls)
    ssl: dict[str, str] = {}
    if args.https:
        cert, key = ensure_certificate(args.cert_dir or db_path.parent / "certificate", hosts=[args.host])
        ssl = {"ssl_certfile": str(cert), "ssl_keyfile": str(key)}
    with use_language(args.lang or language_from_locale()):
        print(_("Score sheets: {path}").format(path=db_path), file=sys.stderr)
        if args.host in ("0.0.0.0", "::", "127.0.0.1", "localhost"):
            local = f"{scheme}://127.0.0.1:{args.port}/"
        elif args.host == "::1":
            local = f"{scheme}://[::1]:{args.port}/"
        else:  # one network address only: this computer too comes from it, so it joins as a phone does
            local = join.url(share_urls[0]) if join is not None else f"{scheme}://{args.host}:{args.port}/"
        print(_("Open {url} in a browser").format(url=local), file=sys.stderr)
        if join is not None and share_urls:
            print(_("Phones on the same network: scan this QR code, or open {url} and type the join code {code}.")
                  .format(url=share_urls[0], code=join.short_display), file=sys.stderr)
            for url in share_urls[1:]:
                print(_("Also reachable at {url}").format(url=url), file=sys.stderr)
            print(qr_terminal(join.url(share_urls[0])), file=sys.stderr)
        elif join is not None:
            print(_("No network address of this computer was found: phones join at its address with the code {code}.")
                  .format(code=join.short_display), file=sys.stderr)
        if not on_network:
            print(_("Only this computer can connect; use --host 0.0.0.0 for a phone on the same network."),
                  file=sys.stderr)
    uvicorn.run(create_app(settings), host=args.host, port=args.port, log_level="info", **ssl)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", str(min(2, os.cpu_count() or 1)))
    raise SystemExit(main())
