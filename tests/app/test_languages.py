"""The app in the players' languages (issue 8): one negotiation path (?lang=, the switch's cookie,
Accept-Language), localized sentences beside stable codes, the page's strings from the catalogs."""

from __future__ import annotations

import re
import string
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient

import app as app_module
from referee import check_set, parse_tiles
from referee.i18n import LANGUAGE_NAMES, LANGUAGES, colour_name, current_language, use_language
from tests.app.conftest import BlankReading
from tests.app.corpus import sample_jpeg
from webapp.middleware import html_lang, pick_language
from webapp.page_strings import PAGE_STRINGS
from webapp.runtime import Settings

STATIC = Path(app_module.__file__).resolve().parent / "webapp" / "static"
ACCEPT = {"en": "en-US,en;q=0.9", "zh_Hans": "zh-CN,zh;q=0.9", "zh_Hant": "zh-TW,zh;q=0.9", "ja": "ja-JP,ja;q=0.9",
          "es": "es-ES,es;q=0.9"}
"""An Accept-Language header a browser set to each language sends."""


def _fields(text: str) -> set[str]:
    return {name for _lit, name, _spec, _conv in string.Formatter().parse(text) if name}


# --------------------------------------------------------------------------- negotiation


@pytest.mark.parametrize(
    ("query", "cookie", "header", "expected"),
    [
        (None, None, None, "en"),
        ("ja", None, None, "ja"),
        (None, None, "es-ES,es;q=0.9", "es"),
        (None, None, "zh-TW", "zh_Hant"),
        (None, None, "zh-CN,zh", "zh_Hans"),
        (None, None, "fr-FR,fr", "en"),
        (None, "zh_Hant", "ja-JP", "zh_Hant"),  # the switch's cookie beats the browser
        ("es", "zh_Hant", "ja-JP", "es"),  # ?lang= beats both
        ("xx", None, "ja", "ja"),  # an unknown ?lang= is ignored
        (None, "klingon", "es", "es"),  # ...and so is an unknown cookie
        ("zh-HK", None, None, "zh_Hant"),  # tags work in ?lang= too
        (None, "", "ja", "ja"),
    ],
)
def test_pick_language(query: str | None, cookie: str | None, header: str | None, expected: str) -> None:
    assert pick_language(query, cookie, header) == expected


def test_the_cookie_and_the_query_reach_the_server(client: TestClient) -> None:
    body = {"table": "R1 R2 K3"}
    problem = lambda r: r.json()["sets"][0]["problem"]  # noqa: E731
    ja = client.post("/api/table/check", json=body, headers={"Accept-Language": "ja-JP"})
    assert problem(ja).startswith("これはグループ") and ja.headers["content-language"] == "ja"
    assert "Accept-Language" in ja.headers["vary"] and "Cookie" in ja.headers["vary"]
    client.cookies.set("lang", "es")
    es = client.post("/api/table/check", json=body, headers={"Accept-Language": "ja-JP"})
    assert problem(es).startswith("No es un grupo") and es.headers["content-language"] == "es"
    hant = client.post("/api/table/check?lang=zh_Hant", json=body, headers={"Accept-Language": "ja-JP"})
    assert problem(hant).startswith("這既不是組牌") and hant.headers["content-language"] == "zh-Hant"
    client.cookies.clear()
    assert problem(client.post("/api/table/check", json=body)).startswith("This is neither")


# --------------------------------------------------------------------------- sentences and codes


@pytest.mark.parametrize("language", LANGUAGES)
def test_set_check_speaks_the_language_and_keeps_the_code(client: TestClient, language: str) -> None:
    r = client.post("/api/table/check", json={"table": "R1 R2 K3 | B5 B6 B7"}, headers={"Accept-Language": ACCEPT[language]})
    assert r.status_code == 200, r.text
    data = r.json()
    bad, good = data["sets"]
    with use_language(language):
        expected = check_set(parse_tiles("R1 R2 K3")).problem
    assert bad["code"] == "mixed_colours_and_numbers" and bad["problem"] == expected  # same code, its language's words
    assert bad["summary"] == expected and good["kind"] == "run" and good["code"] is None
    if language in ("zh_Hans", "zh_Hant", "ja"):
        assert not bad["problem"].isascii()
    assert "18" in good["summary"] and data["summary"]
    english = client.post("/api/table/check", json={"table": "R1 R2 K3 | B5 B6 B7"}).json()
    assert (data["summary"] == english["summary"]) is (language == "en")


@pytest.mark.parametrize(
    ("language", "illegal"),
    [
        ("en", "Not a legal turn."),
        ("zh_Hans", "本回合不合法。"),
        ("zh_Hant", "這一輪出牌無效。"),
        ("ja", "正しいターンではありません。"),
        ("es", "El turno no es válido."),
    ],
)
def test_turn_verdict_in_each_language(client: TestClient, language: str, illegal: str) -> None:
    headers = {"Accept-Language": ACCEPT[language]}
    ok = client.post("/api/turn/check", json={"before": "R1 R2 R3", "after": "R1 R2 R3 R4", "rack_before": "R4 K9"},
                     headers=headers).json()
    assert ok["ok"] and ok["summary"] == _in(language, "Legal turn: {tiles} laid.").format(tiles="R4")
    bad = client.post("/api/turn/check", json={"before": "R1 R2 R3", "after": "R1 R2 R3 R4", "rack_before": "K9"},
                      headers=headers).json()
    assert not bad["ok"] and bad["summary"].startswith(illegal)
    codes = [v["code"] for v in bad["violations"]]
    assert codes and all(re.fullmatch(r"[a-z_]+", c) for c in codes)  # codes never change
    # Whole sentences joined as the language writes them: no space after a full-width full stop.
    assert ("。 " in bad["summary"]) is False
    assert ("。" in bad["summary"]) is (language in ("zh_Hans", "zh_Hant", "ja"))


@pytest.mark.parametrize("language", LANGUAGES)
def test_errors_from_bad_input_are_in_the_language(client: TestClient, language: str) -> None:
    headers = {"Accept-Language": ACCEPT[language]}
    tile = client.post("/api/table/check", json={"table": "R1 X2 R3"}, headers=headers)
    invalid = client.post("/api/table/check", json={"tablex": "R1"}, headers=headers)
    photo = client.post("/api/photo/read", files={"photo": ("t.jpg", b"not a photo at all" * 10, "image/jpeg")},
                        headers=headers)
    missing = client.get("/api/matches/999", headers=headers)
    assert (tile.status_code, invalid.status_code, photo.status_code, missing.status_code) == (422, 422, 415, 404)
    assert "X2" in tile.json()["detail"] and "999" in missing.json()["detail"]
    english = [client.post("/api/table/check", json={"table": "R1 X2 R3"}).json()["detail"],
               client.post("/api/photo/read", files={"photo": ("t.jpg", b"not a photo at all" * 10, "image/jpeg")})
               .json()["detail"],
               client.get("/api/matches/999").json()["detail"]]
    localized = [tile.json()["detail"], photo.json()["detail"], missing.json()["detail"]]
    assert all((a == b) is (language == "en") for a, b in zip(localized, english)), localized
    assert invalid.json()["errors"][0]["type"] == "missing"  # machine-readable part unchanged


def test_upload_limit_sentence_is_in_the_language(tmp_path: Path) -> None:
    settings = Settings(db_path=tmp_path / "l.db", load_models=False, max_upload_bytes=1024 * 1024)
    with TestClient(app_module.create_app(settings)) as c:
        big = b"\xff" * (4 * 1024 * 1024)
        r = c.post("/api/photo/read", files={"photo": ("big.jpg", big, "image/jpeg")}, headers={"Accept-Language": "ja"})
    assert r.status_code == 413 and "MB" in r.json()["detail"] and not r.json()["detail"].isascii()


class _Crashing:
    def read_table(self, image: np.ndarray, rules: Any = None, mode: str = "table") -> Any:
        raise RuntimeError("a bug")


def test_a_server_error_is_said_in_the_language(tmp_path: Path) -> None:
    # Starlette runs the 500 handler outside the middleware: the language is chosen again there.
    application = app_module.create_app(Settings(db_path=tmp_path / "e.db", load_models=False), reader=_Crashing())
    with TestClient(application, raise_server_exceptions=False) as c:
        r = c.post("/api/photo/read", files={"photo": ("t.jpg", sample_jpeg(), "image/jpeg")}, headers={"Accept-Language": "es"})
    assert r.status_code == 500 and r.json()["detail"].startswith("Algo falló en el servidor")


@pytest.mark.parametrize("language", LANGUAGES)
def test_score_and_match_summaries(client: TestClient, language: str) -> None:
    headers = {"Accept-Language": ACCEPT[language]}
    score = client.post("/api/score", json={"racks": {"Ana": "", "Ben": "K5 R7"}, "winner": "Ana"}, headers=headers).json()
    assert score["scores"] == {"Ana": 12, "Ben": -12} and "Ana" in score["summary"] and "+12" in score["summary"]
    assert ("; " in score["summary"]) is (language in ("en", "es"))  # each language's own separator
    match = client.post("/api/matches", json={"players": ["Ana", "Ben"], "rounds": 2}, headers=headers).json()
    client.post(f"/api/matches/{match['id']}/games", json={"racks": {"Ana": "", "Ben": "K5"}, "winner": "Ana"})
    summary = client.get(f"/api/matches/{match['id']}", headers=headers).json()["summary"]
    assert "Ana" in summary and ("。 " not in summary)
    assert summary.count("。") == (2 if language in ("zh_Hans", "zh_Hant", "ja") else 0)
    penalty = client.post(f"/api/matches/{match['id']}/penalties", json={"player": "Ben", "touched_table": True},
                          headers=headers).json()
    assert penalty["penalty"]["code"] == "unfinished_manipulation"
    assert penalty["penalty"]["message"].isascii() is (language == "en")


# --------------------------------------------------------------------------- start-up sentences, worker threads


def test_model_problem_is_translated_per_request(tmp_path: Path) -> None:
    """Why the models are missing is decided at start-up, before any language: each request
    reads it in its own language (health, the 503 of a photo, the 501 of a dice photo)."""
    with TestClient(app_module.create_app(Settings(db_path=tmp_path / "m.db", load_models=False))) as c:
        answers = {lang: c.get("/api/health", headers={"Accept-Language": ACCEPT[lang]}).json()["model_problem"]
                   for lang in LANGUAGES}
        photo = c.post("/api/photo/read", files={"photo": ("t.jpg", b"x", "image/jpeg")}, headers={"Accept-Language": "ja"})
        dice = c.post("/api/dice/read", files={"photo": ("d.jpg", b"x", "image/jpeg")}, headers={"Accept-Language": "es"})
    assert answers["en"] == "The server was started without the tile models: type the tiles instead."
    assert len(set(answers.values())) == len(LANGUAGES)  # five different sentences
    assert photo.status_code == 503 and photo.json()["detail"] == answers["ja"]
    assert dice.status_code == 501 and dice.json()["detail"].startswith("Este servidor no puede leer los dados")


class _LanguageReader:
    """A stand-in reader that notes the language and the thread it ran in."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    def read_table(self, image: np.ndarray, rules: Any = None, mode: str = "table") -> Any:
        self.seen.append((current_language(), threading.current_thread().name))
        return BlankReading(image.shape[1], image.shape[0])


def test_photo_work_in_the_pool_sees_the_requests_language(tmp_path: Path) -> None:
    reader = _LanguageReader()
    application = app_module.create_app(Settings(db_path=tmp_path / "p.db", load_models=False), reader=reader)
    with TestClient(application) as c:
        for lang in ("ja", "es", "zh_Hant"):
            r = c.post("/api/photo/read", files={"photo": ("t.jpg", sample_jpeg(), "image/jpeg")},
                       headers={"Accept-Language": ACCEPT[lang]})
            assert r.status_code == 200, r.text
            assert r.json()["verdict"]["summary"] == _in(lang, "No sets on the table.")
    assert [lang for lang, _thread in reader.seen] == ["ja", "es", "zh_Hant"]
    assert all(thread.startswith("photo") for _lang, thread in reader.seen)  # really on the worker pool


def _in(language: str, msgid: str) -> str:
    from referee.i18n import _

    with use_language(language):
        return _(msgid)


# --------------------------------------------------------------------------- the page's strings


@pytest.mark.parametrize("language", LANGUAGES)
def test_strings_are_complete_in_every_language(client: TestClient, language: str) -> None:
    r = client.get(f"/api/strings?lang={language}")
    assert r.status_code == 200 and r.headers["content-language"] == html_lang(language)
    data = r.json()
    assert data["language"] == language and data["tag"] == html_lang(language)
    assert [(l["code"], l["name"]) for l in data["languages"]] == list(LANGUAGE_NAMES.items())
    strings = data["strings"]
    assert set(strings) == set(PAGE_STRINGS)
    for key, english in PAGE_STRINGS.items():
        assert strings[key].strip(), key
        if key != "table_typed":  # the page fills the other placeholders: they must survive
            assert _fields(strings[key]) == _fields(english), (key, strings[key])
    with use_language(language):
        words = [colour_name(c) for c in "KBOR"]
    assert all(w in strings["table_typed"] for w in words) and "{" not in strings["table_typed"]
    assert "K " + words[0] in strings["table_typed"]  # the letter stays, the word is the language's
    translated = sum(strings[k] != v for k, v in PAGE_STRINGS.items())
    if language == "en":
        assert translated == 1  # only the filled-in colour hint differs from the msgid
    else:
        assert translated >= len(PAGE_STRINGS) - 3  # e.g. "Export CSV" may stay nearly as it is


def test_strings_follow_the_cookie_and_the_browser(client: TestClient) -> None:
    assert client.get("/api/strings", headers={"Accept-Language": "ja-JP"}).json()["strings"]["table_title"] == "場をチェック"
    client.cookies.set("lang", "es")
    data = client.get("/api/strings", headers={"Accept-Language": "ja-JP"}).json()
    assert data["language"] == "es" and data["strings"]["table_title"] == "Comprobar la mesa"


@pytest.mark.parametrize(("header", "tag"), [("ja-JP", "ja"), ("zh-TW", "zh-Hant"), ("zh-CN", "zh-Hans"), ("es", "es"),
                                              ("fr", "en")])
def test_the_page_names_its_language(client: TestClient, header: str, tag: str) -> None:
    page = client.get("/", headers={"Accept-Language": header})
    assert page.status_code == 200 and f'<html lang="{tag}"' in page.text
    assert page.headers["cache-control"] == "no-cache"


def _page_sources() -> tuple[str, str]:
    """index.html and app.js without their comments (which may name keys and screens in English)."""
    html = re.sub(r"<!--.*?-->", "", (STATIC / "index.html").read_text(encoding="utf-8"), flags=re.S)
    js = (STATIC / "app.js").read_text(encoding="utf-8")
    js = re.sub(r"/\*.*?\*/", "", js, flags=re.S)
    js = re.sub(r"(?m)^\s*//.*$|\s//\s.*$", "", js)
    return html, js


def test_every_key_the_page_uses_exists_and_every_string_is_used() -> None:
    html, js = _page_sources()
    used = set(re.findall(r'data-i18n(?:-aria|-placeholder)?="([a-z0-9_]+)"', html))
    used |= set(re.findall(r'\bt\("([a-z0-9_]+)"', js))
    used |= set(re.findall(r'(?:dataset\.i18n|"data-i18n(?:-aria)?")\s*[:=]\s*"([a-z0-9_]+)"', js))
    dynamic = {"run", "group"}  # t(s.kind): the kinds of a dice arrangement
    assert used - set(PAGE_STRINGS) == set()
    assert set(PAGE_STRINGS) - used - dynamic == set()


def test_the_page_holds_no_english_of_its_own() -> None:
    """Every sentence comes from /api/strings: none of the English texts is written into the page
    or its script (where it could not be translated)."""
    html, js = _page_sources()
    page = html + js
    sentences = [v for v in PAGE_STRINGS.values() if len(v.split()) >= 2]
    assert [s for s in sentences if s in page] == []
    # No text between tags but symbols, and no English-looking literal in the script.
    text = re.sub(r"<(script|style)[^>]*>.*?</\1>", "", html, flags=re.S)
    words = [w for w in re.findall(r">([^<]+)<", text) if re.search(r"[A-Za-z]{2,}", w)]
    assert words == []
    literals = re.findall(r'"([^"\\]*)"|`([^`]*)`', js)
    english = [a or b for a, b in literals if re.search(r"\b[A-Z][a-z]+ [a-z]+ [a-z]+", a or b)]
    assert english == []


def test_no_strings_js_left(client: TestClient) -> None:
    assert client.get("/static/strings.js").status_code == 404  # the table is webapp/page_strings.py now


# --------------------------------------------------------------------------- python app.py


def test_start_up_lines_follow_lang(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import uvicorn

    served: list[Any] = []
    monkeypatch.setattr(uvicorn, "run", lambda application, **kw: served.append(kw))
    assert app_module.main(["--lang", "ja", "--no-models", "--db", str(tmp_path / "s.db"), "--port", "8123"]) == 0
    err = capsys.readouterr().err
    assert f"点数表：{tmp_path / 's.db'}" in err and "ブラウザで http://127.0.0.1:8123/ を開いてください" in err
    assert served and served[0]["port"] == 8123
    monkeypatch.setenv("LC_ALL", "es_ES.UTF-8")  # without --lang the locale decides
    assert app_module.main(["--no-models", "--db", str(tmp_path / "s.db")]) == 0
    assert "Abre http://127.0.0.1:8000/ en un navegador" in capsys.readouterr().err


def test_start_up_rejects_an_unknown_language(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        app_module.main(["--lang", "xx"])
    assert stop.value.code == 2 and "unknown language 'xx'" in capsys.readouterr().err
