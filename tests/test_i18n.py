"""Every sentence in every language (issue 8): catalogs complete and compiled, placeholders intact,
the rule books' own terms, language picked from Accept-Language and the locale, the CLIs' --lang.

The catalog checks need Babel (the ``dev`` extra, as in CI) and skip without it; the runtime
checks need only the standard library, like the referee itself.
"""

from __future__ import annotations

import ast
import io
import json
import os
import string
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from referee import check_set, check_table, parse_table, parse_tiles, penalty_for_timeout
from referee.cli import main as referee_main
from referee.i18n import (
    LANGUAGES,
    _,
    colour_name,
    current_language,
    language_from_locale,
    language_from_tag,
    negotiate_language,
    ngettext,
    use_language,
)
from referee.tiles import Colour

ROOT = Path(__file__).resolve().parents[1]
SEEDS = Path(os.environ.get("RUMMIKUB_RULE_BOOKS") or ROOT.parent / "shared" / "seeds")
TRANSLATED = tuple(lang for lang in LANGUAGES if lang != "en")


# --------------------------------------------------------------------------- catalogs (Babel)


LOCALE = ROOT / "referee" / "locale"
TEMPLATE = LOCALE / "rummikub.pot"
SOURCES = ("app.py", "referee", "vision", "webapp")
"""What ``pybabel extract`` scans (docs/i18n.md), with babel.cfg's mapping."""
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}
UPDATE = "run the pybabel extract and update commands of docs/i18n.md"
COMPILE = "run: pybabel compile -d referee/locale -D rummikub"


def _msgid(message: Any) -> str:
    return message.id if isinstance(message.id, str) else message.id[0]


def _forms(message: Any) -> list[str]:
    return list(message.string) if isinstance(message.string, (list, tuple)) else [message.string]


def read_catalog(path: Path, language: str | None = None) -> Any:
    from babel.messages.pofile import read_po

    with path.open("rb") as fp:
        return read_po(fp, locale=language, domain="rummikub")


def po_path(language: str) -> Path:
    return LOCALE / language / "LC_MESSAGES" / "rummikub.po"


def placeholders(text: str) -> Counter[str]:
    """The ``str.format`` fields of ``text`` as written (``{score:+d}``, ``{value!r}``), counted.

    Raises ValueError for a stray brace, which ``.format()`` would also reject at run time.
    """
    fields: Counter[str] = Counter()
    for _literal, name, spec, conversion in string.Formatter().parse(text):
        if name is not None:
            fields["{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"] += 1
    return fields


def placeholder_problems(message: Any, num_plurals: int) -> list[str]:
    """Translations of ``message`` whose placeholders are not those of the English text.

    Each plural form is compared with the English form it stands for: with one form (Chinese,
    Japanese) the plural English text, with two (Spanish) singular then plural. Order may change
    (word order differs between languages); names, conversions and format specs may not, except
    that a singular form may leave out the count itself ("Draw one tile" for "{count} tiles").
    """
    ids = [message.id] if isinstance(message.id, str) else list(message.id)
    try:
        wanted = [placeholders(i) for i in ids]
    except ValueError as exc:
        return [f"{ids[0]!r}: the English text is not a valid format string ({exc})"]
    problems = []
    for index, form in enumerate(_forms(message)):
        if not form:
            continue  # reported as untranslated
        expected = wanted[0] if len(ids) == 1 else wanted[1] if num_plurals == 1 else wanted[min(index, 1)]
        try:
            found = placeholders(form)
        except ValueError as exc:
            problems.append(f"{ids[0]!r}: form {index} is not a valid format string ({exc}): {form!r}")
            continue
        missing = expected - found
        singular_without_count = (len(ids) > 1 and num_plurals > 1 and index == 0 and not (found - expected)
                                  and all(f.startswith(("{count", "{n")) for f in missing))
        if found != expected and not singular_without_count:
            problems.append(f"{ids[0]!r}: form {index} has {sorted(found)}, the English {sorted(expected)}: {form!r}")
    return problems


def untranslated(catalog: Any) -> list[Any]:
    """Entries with an empty form or marked fuzzy (a reworded English text to review)."""
    return [m for m in catalog if m.id and (m.fuzzy or not all(_forms(m)))]


@pytest.fixture(scope="module")
def source_ids() -> dict[str, Any]:
    """Every sentence marked in the code, extracted afresh (so a new ``_()`` needs a translation)."""
    pytest.importorskip("babel", reason="Babel (test extra) is needed to read and compile the catalogs")
    from babel.messages.extract import extract_from_dir, extract_from_file
    from babel.messages.frontend import parse_mapping_cfg

    with (ROOT / "babel.cfg").open(encoding="utf-8") as fp:
        method_map, options_map = parse_mapping_cfg(fp)
    found: dict[str, Any] = {}
    for source in SOURCES:
        path = ROOT / source
        if path.is_file():
            messages = ((m[1],) for m in extract_from_file("python", path, keywords=KEYWORDS))
        else:
            messages = ((m[2],) for m in extract_from_dir(path, method_map, options_map, keywords=KEYWORDS))
        for (message,) in messages:
            found[message if isinstance(message, str) else message[0]] = message
    return found


def test_sources_have_sentences(source_ids: dict[str, Any]) -> None:
    # Guards the other tests against passing on an empty extraction.
    assert len(source_ids) > 150
    assert "A set needs at least 3 tiles; this one has {count}." in source_ids
    assert "Only this computer can connect; use --host 0.0.0.0 for a phone on the same network." in source_ids


def test_template_is_up_to_date(source_ids: dict[str, Any]) -> None:
    template = {_msgid(m) for m in read_catalog(TEMPLATE) if m.id}
    assert sorted(set(source_ids) - template) == [], UPDATE
    assert sorted(template - set(source_ids)) == [], UPDATE


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_sentence_is_translated(source_ids: dict[str, Any], language: str) -> None:
    catalog = read_catalog(po_path(language), language)
    missing = [msgid for msgid, message in source_ids.items() if catalog.get(message) is None]
    assert missing == [], f"{language}: no entry ({UPDATE}, then translate): {missing}"
    todo = [m.id for m in untranslated(catalog)]
    if language == "en":
        return  # the code's own English: an empty entry falls back to it
    assert todo == [], f"{language}: empty or fuzzy translations: {todo}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_placeholders_survive_translation(language: str) -> None:
    pytest.importorskip("babel", reason="Babel (test extra) is needed to read the catalogs")
    catalog = read_catalog(po_path(language), language)
    problems = [p for m in catalog if m.id and not m.fuzzy for p in placeholder_problems(m, catalog.num_plurals)]
    assert problems == []


def _compiled(data: bytes) -> tuple[dict, dict]:
    """A compiled catalog's messages and header fields, less the compiler's version stamp
    ("Generated-By: Babel 2.18.0"), which changes with every Babel release, not with the catalog."""
    from babel.messages.mofile import read_mo

    catalog = read_mo(io.BytesIO(data))
    messages = {(m.id if isinstance(m.id, str) else tuple(m.id), m.context): m.string for m in catalog if m.id}
    headers = {k: v for k, v in catalog.mime_headers if k != "Generated-By"}
    return messages, headers


@pytest.mark.parametrize("language", LANGUAGES)
def test_mo_is_the_compiled_po(language: str) -> None:
    # Compile afresh (what pybabel compile writes: fuzzy entries left out) and compare what the
    # two files say (a byte comparison failed on a fresh install the day Babel 2.19 came out).
    pytest.importorskip("babel", reason="Babel (test extra) is needed to compile the catalogs")
    from babel.messages.mofile import write_mo

    fresh = io.BytesIO()
    write_mo(fresh, read_catalog(po_path(language), language), use_fuzzy=False)
    committed = po_path(language).with_suffix(".mo")
    assert committed.exists(), f"{committed} missing: {COMPILE}"
    assert _compiled(committed.read_bytes()) == _compiled(fresh.getvalue()), COMPILE


@pytest.mark.parametrize(
    ("msgid", "forms", "plurals", "ok"),
    [
        ("{tile} is not on your rack", ["{tile} 不在牌架上"], 1, True),
        ("{tile} is not on your rack", ["{tiles} 不在牌架上"], 1, False),  # renamed placeholder
        ("{tile} is not on your rack", ["不在牌架上"], 1, False),  # dropped placeholder
        ("{player}: score {score:+d}", ["{player}：得分 {score}"], 1, False),  # format spec lost
        ("{value!r} is bad", ["{value} es malo"], 1, False),  # conversion lost
        ("{a} then {b}", ["{b} 之前是 {a}"], 1, True),  # word order may change
        ("{n} dice", ["{n} 颗骰子 {"], 1, False),  # stray brace: .format() would raise
        (("Draw {count} tile.", "Draw {count} tiles."), ["抽{count}只牌。"], 1, True),
        (("Draw {count} tile.", "Draw {count} tiles."), ["抽牌。"], 1, False),  # one form must keep {count}
        (("Draw {count} tile.", "Draw {count} tiles."), ["Toma una ficha.", "Toma {count} fichas."], 2, True),
        (("Draw {count} tile.", "Draw {count} tiles."), ["Toma {count} ficha.", "Toma fichas."], 2, False),
    ],
)
def test_placeholder_check_catches_mistakes(msgid: Any, forms: list[str], plurals: int, ok: bool) -> None:
    catalog = pytest.importorskip("babel.messages.catalog", reason="Babel (test extra)")
    message = catalog.Message(msgid, tuple(forms) if isinstance(msgid, tuple) else forms[0])
    assert (placeholder_problems(message, plurals) == []) is ok


def test_untranslated_finds_empty_and_fuzzy() -> None:
    catalog = pytest.importorskip("babel.messages.catalog", reason="Babel (test extra)").Catalog(locale="ja")
    catalog.add("done", "済み")
    catalog.add("empty", "")
    catalog.add(("one", "many"), ("",))
    catalog.add("changed", "古い訳", flags=["fuzzy"])
    assert sorted(str(m.id) for m in untranslated(catalog)) == ["('one', 'many')", "changed", "empty"]


# Key terms, each language's own rule book's word (books 000 zh-Hans, 001 zh-Hant, 002 zh-Hant Dice,
# 003 ja, 004 es; docs/rules.md). The books are not in the repository: where a machine keeps their
# text ($RUMMIKUB_RULE_BOOKS), the word is also checked against the book itself.
TERMS = [
    # (msgid, language, term, seed)
    ("group", "zh_Hans", "群组", "000"),
    ("run", "zh_Hans", "顺组", "000"),
    ("group", "zh_Hant", "組牌", "001"),
    ("run", "zh_Hant", "順牌", "001"),
    ("group", "ja", "グループ", "003"),
    ("run", "ja", "ラン", "003"),
    ("group", "es", "grupo", "004"),
    ("run", "es", "secuencia", "004"),
    ("Valid initial meld: {points} points (at least {minimum} needed).", "zh_Hans", "破冰", "000"),
    ("Valid initial meld: {points} points (at least {minimum} needed).", "zh_Hant", "破冰行動", "001"),
    ("Valid initial meld: {points} points (at least {minimum} needed).", "es", "primera bajada", "004"),
    ("Jokers stand for: {tiles}", "zh_Hans", "百搭", "000"),
    ("Jokers stand for: {tiles}", "zh_Hant", "百搭", "001"),
    ("Jokers stand for: {tiles}", "ja", "ジョーカー", "003"),
    ("Jokers stand for: {tiles}", "es", "comodines", "004"),
    ("All 9 dice in one chain", "zh_Hant", "連鎖組合", "002"),
    ("Set {n}, group {dice}: {points} points.", "zh_Hant", "群組", "002"),
    ("Set {n}, run {dice}: {points} points.", "zh_Hant", "順組", "002"),
    ("{die} is in two runs: a die can be shared only by one run and one group.", "zh_Hant", "順組", "002"),
    ("Rummikub Dice", "zh_Hant", "拉密搖滾版", "002"),
    ("Loose tiles:", "zh_Hans", "独立的牌", "000"),
    ("Loose tiles:", "zh_Hant", "不能配對的牌", "001"),
    ("Initial meld: {points} points from the rack", "zh_Hant", "破冰行動", "001"),
    ("Your rack", "es", "porta-fichas", "004"),
    ("The player drew a tile.", "zh_Hans", "牌库", "000"),
    ("The player drew a tile.", "zh_Hant", "共用牌堆", "001"),
    ("The player drew a tile.", "es", "banco", "004"),
    ("Laid from the rack: {tiles}", "zh_Hans", "牌架", "000"),
    ("Laid from the rack: {tiles}", "es", "porta-fichas", "004"),
    ("orange", "zh_Hans", "橙色", "000"),
    ("orange", "zh_Hant", "黃", "001"),
    ("orange", "ja", "黄", "003"),
    ("orange", "es", "naranja", "004"),
    ("blue", "zh_Hans", "蓝色", "000"),
    ("red", "ja", "赤", "003"),
    ("black", "es", "negro", "004"),
]


@pytest.mark.parametrize(("msgid", "language", "term", "seed"), TERMS)
def test_rule_book_terms(msgid: str, language: str, term: str, seed: str) -> None:
    with use_language(language):
        assert term.lower() in _(msgid).lower()
    seed_files = sorted(SEEDS.glob(f"{seed}_*.txt")) if SEEDS.is_dir() else []
    if seed_files:  # the word really is the rule book's
        assert term.lower() in seed_files[0].read_text(encoding="utf-8").lower()


# --------------------------------------------------------------------------- runtime (stdlib only)


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "This is neither a group"),
        ("zh_Hans", "这既不是群组"),
        ("zh_Hant", "這既不是組牌"),
        ("ja", "これはグループ"),
        ("es", "No es un grupo"),
    ],
)
def test_verdict_in_each_language(language: str, expected: str) -> None:
    with use_language(language):
        verdict = check_set(parse_tiles("R1 R2 K3"))
        table = check_table(parse_table("R1 R2 R3"), parse_tiles("K7"))
    assert verdict.problem is not None and verdict.problem.startswith(expected)
    assert verdict.code == "mixed_colours_and_numbers"  # codes never change
    (loose,) = table.violations
    assert loose.code == "loose_tile" and "K7" in loose.message  # tile codes stay as they are
    assert (loose.message == "K7 lies on its own: every tile on the table must belong to a valid set.") is (language == "en")


@pytest.mark.parametrize(
    ("language", "one", "three"),
    [
        ("en", "Draw 1 tile as a penalty.", "Draw 3 tiles as a penalty."),
        ("es", "Toma 1 ficha del banco como penalización.", "Toma 3 fichas del banco como penalización."),
        ("ja", "ペナルティとして山から1枚取ります。", "ペナルティとして山から3枚取ります。"),
    ],
)
def test_plural_forms(language: str, one: str, three: str) -> None:
    with use_language(language):
        forms = [ngettext("Draw {count} tile as a penalty.", "Draw {count} tiles as a penalty.", n).format(count=n) for n in (1, 3)]
    assert forms == [one, three]


def test_penalty_sentence_is_translated() -> None:
    with use_language("zh_Hans"):
        penalty = penalty_for_timeout(parse_tiles("R5 R6"), (), True)
    assert "拿回 R5 R6" in penalty.message and "3" in penalty.message


def test_use_language_nests_and_restores() -> None:
    assert current_language() == "en"
    with use_language("ja"):
        with use_language("zh-TW"):  # a tag is mapped
            assert current_language() == "zh_Hant"
        assert current_language() == "ja"
        with use_language("klingon"):  # unknown: English
            assert current_language() == "en"
    assert current_language() == "en"


@pytest.mark.parametrize(
    ("colour", "language", "word"),
    [(Colour.ORANGE, "zh_Hant", "黃色"), ("O", "zh_Hans", "橙色"), (Colour.RED, "ja", "赤"), ("B", "es", "azul"), ("K", "en", "black")],
)
def test_colour_names(colour: Any, language: str, word: str) -> None:
    with use_language(language):
        assert colour_name(colour) == word


def test_colour_name_rejects_a_non_colour() -> None:
    with pytest.raises(ValueError, match="not a tile colour"):
        colour_name("X")


@pytest.mark.parametrize(
    ("tag", "language"),
    [
        ("zh-CN", "zh_Hans"), ("zh-SG", "zh_Hans"), ("zh-Hans", "zh_Hans"), ("zh", "zh_Hans"),
        ("zh-TW", "zh_Hant"), ("zh-HK", "zh_Hant"), ("zh-MO", "zh_Hant"), ("zh-Hant", "zh_Hant"),
        ("zh-Hant-CN", "zh_Hant"), ("zh-Hans-HK", "zh_Hans"), ("zh_TW.UTF-8", "zh_Hant"),
        ("ja", "ja"), ("ja-JP", "ja"), ("es", "es"), ("es-419", "es"), ("es_ES@euro", "es"),
        ("en-GB", "en"), ("fr-FR", None), ("", None), ("-", None),
    ],
)  # fmt: skip
def test_language_from_tag(tag: str, language: str | None) -> None:
    assert language_from_tag(tag) == language


@pytest.mark.parametrize(
    ("header", "language"),
    [
        ("zh-CN,zh;q=0.9,en;q=0.8", "zh_Hans"),
        ("zh-TW,zh;q=0.9", "zh_Hant"),
        ("ja-JP,ja;q=0.9,en-US;q=0.8", "ja"),
        ("es-MX,es;q=0.9", "es"),
        ("fr-FR, zh-HK;q=0.5, es;q=0.8", "es"),  # by quality, not by order
        ("fr-FR,de;q=0.9", "en"),  # nothing fits
        ("ja;q=0, es", "es"),  # q=0 means "not this one"
        ("*", "en"),
        ("de;q=abc, ja;q=0.1", "ja"),  # a malformed weight loses
        ("en-GB, ja", "en"),
        ("", "en"),
        (None, "en"),
    ],
)
def test_negotiate_language(header: str | None, language: str) -> None:
    assert negotiate_language(header) == language


@pytest.mark.parametrize(
    ("environ", "language"),
    [
        ({"LANG": "ja_JP.UTF-8"}, "ja"),
        ({"LANG": "zh_TW.UTF-8"}, "zh_Hant"),
        ({"LANG": "zh_HK.Big5HKSCS"}, "zh_Hant"),
        ({"LC_MESSAGES": "zh_CN.GB18030", "LANG": "en_US.UTF-8"}, "zh_Hans"),
        ({"LC_ALL": "es_ES@euro", "LC_MESSAGES": "ja_JP", "LANG": "ja_JP"}, "es"),  # LC_ALL wins
        ({"LANGUAGE": "ja:en", "LANG": "en_US.UTF-8"}, "ja"),  # GNU priority list
        ({"LANGUAGE": "ja", "LANG": "C"}, "en"),  # ...ignored in the C locale, as GNU gettext does
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "fr_FR.UTF-8"}, "en"),
        ({}, "en"),
    ],
)
def test_language_from_locale(environ: dict[str, str], language: str) -> None:
    assert language_from_locale(environ) == language


def test_import_loads_no_catalog() -> None:
    # gettext and the catalogs load on the first translated sentence, not at import time.
    probe = (
        "import sys, referee, referee.i18n as i\n"
        "before = 'gettext' in sys.modules\n"
        "with i.use_language('ja'):\n"
        "    text = i._('Legal turn.')\n"
        "print(before, 'gettext' in sys.modules, text)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True", "正しいターンです。"]


def _shadowing(path: Path, root: Path = ROOT) -> list[str]:
    """Functions that call ``_()`` but also bind ``_`` (``a, _, b = ...``): the call then fails."""
    found = []
    for fn in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        calls = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "_" for n in ast.walk(fn))
        binds = any(
            (isinstance(n, ast.Name) and n.id == "_" and isinstance(n.ctx, ast.Store)) or (isinstance(n, ast.arg) and n.arg == "_")
            for n in ast.walk(fn)
        )
        if calls and binds:
            found.append(f"{path.relative_to(root)}:{fn.lineno} {fn.name}")
    return found


def test_no_function_shadows_the_translation_function() -> None:
    files = [ROOT / "app.py", *[p for d in ("referee", "vision", "webapp") for p in sorted((ROOT / d).rglob("*.py"))]]
    assert [f for path in files if path.exists() for f in _shadowing(path)] == []


def test_shadowing_check_catches_it(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("def f(t):\n    a, _, b = t.partition('_')\n    return _('x')\n\ndef g():\n    return _('y')\n")
    assert _shadowing(sample, tmp_path) == ["sample.py:1 f"]


# --------------------------------------------------------------------------- command lines


def test_cli_lang_option(capsys: pytest.CaptureFixture[str]) -> None:
    assert referee_main(["--lang", "ja", "set", "R1", "R2", "K3"]) == 0
    out = capsys.readouterr().out
    assert "グループ" in out and "R1 R2 K3" in out and "[mixed_colours_and_numbers]" in out


def test_cli_lang_after_the_command_and_in_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert referee_main(["table", "R1 R2 R3", "--loose", "K7", "--json", "--lang", "es"]) == 0
    data = json.loads(capsys.readouterr().out)
    (violation,) = data["violations"]
    assert violation["code"] == "loose_tile" and violation["message"].startswith("K7 está suelta")


def test_cli_language_from_the_locale(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LC_ALL", "zh_TW.UTF-8")
    assert referee_main(["turn", "--before", "R1 R2 R3", "--after", "R1 R2 R3 R4", "--rack", "R4 K9"]) == 0
    assert "這一輪出牌有效。" in capsys.readouterr().out
    assert referee_main(["--lang", "en", "turn", "--before", "R1 R2 R3", "--after", "R1 R2 R3 R4", "--rack", "R4"]) == 0
    assert "Legal turn." in capsys.readouterr().out  # --lang beats the locale


def test_cli_errors_are_translated(capsys: pytest.CaptureFixture[str]) -> None:
    assert referee_main(["--lang", "zh_Hans", "set", "R1", "X9"]) == 2
    err = capsys.readouterr().err
    assert "错误：" in err and "“X9”不是牌" in err


def test_cli_rejects_an_unknown_language(capsys: pytest.CaptureFixture[str]) -> None:
    assert referee_main(["--lang", "xx", "set", "R1", "R2", "R3"]) == 2
    assert "unknown language 'xx'" in capsys.readouterr().err


def test_vision_read_lang(tmp_path: Path) -> None:
    # A photo that is not a photo: the error sentence comes from vision.image, in the chosen language.
    bad = tmp_path / "notes.jpg"
    bad.write_bytes(b"these are not the tiles you are looking for")
    env = {**os.environ, "LC_ALL": "C.UTF-8"}
    done = subprocess.run(
        [sys.executable, "-m", "vision.read", str(bad), "--lang", "ja"], cwd=ROOT, capture_output=True, text=True, env=env
    )
    assert done.returncode == 2
    assert "このファイルは写真ではありません" in done.stderr


def test_vision_read_summary_in_japanese() -> None:
    from vision.read import text_summary

    data = {
        "tiles": [{"tile": t} for t in ("R7", "R8", "R9", "K5", "B5", "K5", "J")],
        "sets": [
            {"tiles": ["R7", "R8", "R9"], "kind": "run", "valid": True, "points": 24},
            {"tiles": ["K5", "B5", "K5"], "kind": None, "valid": False, "points": 0, "problem": "P"},
        ],
        "loose": [6],
        "doubts": [{"message": "D"}],
        "timing_ms": {"total": 812.4},
    }
    with use_language("ja"):
        text = text_summary(data)
    assert text.splitlines() == [
        "7枚のタイルを812ミリ秒で読み取りました",
        "  組み合わせ1：R7 R8 R9  (ラン成立、24点)",
        "  組み合わせ2：K5 B5 K5  (不成立：P)",
        "  単独のタイル：J",
        "  要確認：D",
    ]


@pytest.mark.parametrize(
    ("language", "joined"),
    [("en", "Time is up. Take back R5."), ("es", "Time is up. Take back R5."), ("ja", "Time is up.Take back R5."),
     ("zh_Hans", "Time is up.Take back R5."), ("zh_Hant", "Time is up.Take back R5.")],
)
def test_join_sentences(language: str, joined: str) -> None:
    from referee.i18n import join_sentences

    with use_language(language):
        assert join_sentences(["Time is up.", "", " Take back R5. "]) == joined
