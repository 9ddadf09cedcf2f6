"""``python -m referee.i18n_tools``: keep the message catalogs in step with the code (docs/i18n.md).

Commands::

    python -m referee.i18n_tools extract   # sources -> referee/locale/rummikub.pot
    python -m referee.i18n_tools update    # extract, then merge into every <lang>.po (new ones created)
    python -m referee.i18n_tools compile   # every .po -> .mo (what the referee reads at run time)
    python -m referee.i18n_tools check     # exit 1, listing every problem, unless all is in step
    python -m referee.i18n_tools todo ja   # the entries of one language still to translate

This is a maintenance tool: it needs Babel (the ``dev`` extra), the running referee does not
(``referee.i18n`` reads the compiled ``.mo`` files with the standard library's gettext). Nothing
in ``referee`` imports this module.

``check`` (and tests/test_i18n.py) fails when a sentence in the code has no catalog entry, when
an entry of some language is empty or fuzzy, when a translation's ``{placeholders}`` differ from
the English ones, or when a ``.mo`` file is not the compilation of its ``.po`` file.
"""

from __future__ import annotations

import argparse
import copy
import io
import os
import string
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from referee.i18n import _LOCALE_DIR, DOMAIN, LANGUAGES

__all__ = [
    "ROOT",
    "LOCALE_DIR",
    "POT_PATH",
    "MAPPING_PATH",
    "KEYWORDS",
    "SOURCE_LANGUAGE",
    "extract",
    "update",
    "compile_catalogs",
    "compile_mo",
    "check",
    "po_path",
    "mo_path",
    "read_catalog",
    "placeholders",
    "placeholder_problems",
    "untranslated",
    "main",
]

ROOT = Path(__file__).resolve().parent.parent
"""The repository root: babel.cfg's paths are relative to it."""
LOCALE_DIR = Path(_LOCALE_DIR)
POT_PATH = LOCALE_DIR / f"{DOMAIN}.pot"
MAPPING_PATH = ROOT / "babel.cfg"
KEYWORDS: dict[str, tuple[int, ...] | None] = {"_": None, "N_": None, "ngettext": (1, 2)}
"""The marking functions of referee.i18n and which arguments are messages."""
COMMENT_TAG = "TRANSLATORS:"
"""A comment starting with this, just above a marked sentence, goes to the translators."""
SOURCE_LANGUAGE = "en"
"""The code is written in English; the ``en`` catalog starts as a copy of the source text."""
PROJECT = "rummikub-assistant"
WIDTH = 100
HEADER_COMMENT = (
    "# Player-facing sentences of the Rummikub assistant (docs/i18n.md).\n"
    "# Maintained with `python -m referee.i18n_tools update|compile|check`; terms follow the rule\n"
    "# books in ../shared/seeds (see the glossary in docs/i18n.md).\n"
    "#"
)
# Header fields that change on every run; ignored when deciding whether a file needs rewriting.
_VOLATILE = ("POT-Creation-Date:", "PO-Revision-Date:")


def po_path(language: str) -> Path:
    """Where the ``.po`` file of ``language`` lives."""
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def mo_path(language: str) -> Path:
    """Where the compiled ``.mo`` file of ``language`` lives (read by referee.i18n)."""
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.mo"


def _source_dirs(method_map: Iterable[tuple[str, str]]) -> set[str]:
    # The top-level folders named by babel.cfg's patterns: the walk goes into those only, not
    # into data/, models/ or logs/, which can be large.
    return {pattern.split("/")[0] for pattern, _method in method_map if "/" in pattern}


def extract() -> Catalog:
    """The template catalog: every marked sentence in the files babel.cfg names.

    Locations are kept as file names without line numbers, so that moving code does not touch
    the catalogs.
    """
    with MAPPING_PATH.open(encoding="utf-8") as fp:
        method_map, options_map = parse_mapping_cfg(fp, str(MAPPING_PATH))
    tops = _source_dirs(method_map)

    def enter(dirpath: str) -> bool:
        parts = Path(os.path.relpath(dirpath, ROOT)).parts
        return bool(parts) and parts[0] in tops and not any(p.startswith((".", "_")) for p in parts)

    catalog = Catalog(project=PROJECT, domain=DOMAIN, charset="utf-8", fuzzy=False, header_comment=HEADER_COMMENT)
    for filename, _lineno, message, comments, context in extract_from_dir(
        ROOT,
        method_map,
        options_map,
        keywords=KEYWORDS,
        comment_tags=(COMMENT_TAG,),
        strip_comment_tags=True,
        directory_filter=enter,
    ):
        catalog.add(message, None, [(filename.replace(os.sep, "/"), None)], auto_comments=comments, context=context)
    return catalog


def read_catalog(path: Path, language: str | None = None) -> Catalog:
    """Read a ``.po`` or ``.pot`` file."""
    with path.open("rb") as fp:
        return read_po(fp, locale=language, domain=DOMAIN)


def _render(catalog: Catalog) -> bytes:
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=WIDTH, ignore_obsolete=True, include_previous=True, include_lineno=False)
    return buffer.getvalue()


def _stable(text: bytes) -> list[bytes]:
    return [line for line in text.splitlines() if not line.strip(b'"').startswith(tuple(v.encode() for v in _VOLATILE))]


def _write_if_changed(path: Path, data: bytes) -> bool:
    # Rewriting only on a real change keeps dates in the headers (and git diffs) quiet.
    if path.exists() and _stable(path.read_bytes()) == _stable(data):
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return True


def _fill_source_language(catalog: Catalog) -> None:
    # English is the source text: an empty or fuzzy (reworded) entry takes the msgid itself, while a
    # hand-edited English wording is kept.
    for message in catalog:
        if not message.id:
            continue
        empty = not any(message.string) if isinstance(message.string, (list, tuple)) else not message.string
        if empty or message.fuzzy:
            message.string = tuple(message.id) if isinstance(message.id, (list, tuple)) else message.id
            message.flags.discard("fuzzy")
            message.previous_id = []


def update(languages: Sequence[str] = LANGUAGES) -> list[Path]:
    """Extract the template and merge it into each language's ``.po`` (created when missing).

    Changed sentences keep their old translation marked fuzzy (``check`` then reports them);
    sentences gone from the code are dropped. Returns the files written.
    """
    template = extract()
    written = [POT_PATH] if _write_if_changed(POT_PATH, _render(template)) else []
    for language in languages:
        path = po_path(language)
        # Catalog.update may adopt the template's Message objects: each language gets its own copy.
        fresh = copy.deepcopy(template)
        if path.exists():
            catalog = read_catalog(path, language)
            catalog.update(fresh, update_creation_date=False)
        else:
            catalog = Catalog(
                locale=language,
                domain=DOMAIN,
                project=PROJECT,
                charset="utf-8",
                fuzzy=False,
                header_comment=HEADER_COMMENT,
                last_translator=f"{PROJECT} maintainers",
            )
            catalog.update(fresh)
        catalog.language_team = f"{language} <{PROJECT}>"
        if language == SOURCE_LANGUAGE:
            _fill_source_language(catalog)
        if _write_if_changed(path, _render(catalog)):
            written.append(path)
    return written


def compile_mo(po: Path, language: str) -> bytes:
    """The ``.mo`` bytes for one ``.po`` file (fuzzy entries left out, as gettext's msgfmt does)."""
    buffer = io.BytesIO()
    write_mo(buffer, read_catalog(po, language), use_fuzzy=False)
    return buffer.getvalue()


def compile_catalogs(languages: Sequence[str] = LANGUAGES) -> list[Path]:
    """Compile every ``.po`` file to its ``.mo`` file; returns the files written."""
    written = []
    for language in languages:
        target = mo_path(language)
        data = compile_mo(po_path(language), language)
        if not target.exists() or target.read_bytes() != data:
            target.write_bytes(data)
            written.append(target)
    return written


def placeholders(text: str) -> Counter[str]:
    """The ``str.format`` fields of ``text`` as written (``{score:+d}``, ``{value!r}``), counted.

    Raises ValueError for a stray brace, which ``.format()`` would also reject at run time.
    """
    fields: Counter[str] = Counter()
    for _literal, name, spec, conversion in string.Formatter().parse(text):
        if name is not None:
            fields["{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"] += 1
    return fields


def _forms(message: Message) -> list[str]:
    return list(message.string) if isinstance(message.string, (list, tuple)) else [message.string]


def _ids(message: Message) -> list[str]:
    return list(message.id) if isinstance(message.id, (list, tuple)) else [message.id]


def _label(message: Message) -> str:
    return repr(_ids(message)[0])


def placeholder_problems(message: Message, num_plurals: int) -> list[str]:
    """Translations of ``message`` whose placeholders are not those of the English text.

    Each plural form is compared with the English form it stands for: with one form (Chinese,
    Japanese) the plural English text, with two (Spanish) singular then plural. Order may change
    (word order differs between languages); names, conversions and format specs may not.
    """
    ids = _ids(message)
    problems = []
    try:
        wanted = [placeholders(i) for i in ids]
    except ValueError as exc:
        return [f"{_label(message)}: the English text is not a valid format string ({exc})"]
    for index, form in enumerate(_forms(message)):
        if not form:
            continue  # reported by untranslated()
        if len(ids) == 1:
            expected = wanted[0]
        elif num_plurals == 1:
            expected = wanted[1]
        else:
            expected = wanted[min(index, 1)]
        try:
            found = placeholders(form)
        except ValueError as exc:
            problems.append(f"{_label(message)}: form {index} is not a valid format string ({exc}): {form!r}")
            continue
        singular = len(ids) > 1 and num_plurals > 1 and index == 0
        if found != expected and not (singular and _only_count(found, expected)):
            problems.append(
                f"{_label(message)}: form {index} has placeholders {sorted(found)}, the English {sorted(expected)}: {form!r}"
            )
    return problems


def _only_count(found: Counter[str], expected: Counter[str]) -> bool:
    # A singular form may leave out the number itself ("Draw one tile" for "{count} tiles"): the
    # plural's other placeholders must all be there.
    missing = expected - found
    return all(field.startswith("{count") or field.startswith("{n") for field in missing) and not (found - expected)


def untranslated(catalog: Catalog) -> list[Message]:
    """Entries with an empty form or marked fuzzy (a reworded English text to review)."""
    return [m for m in catalog if m.id and (m.fuzzy or not all(_forms(m)))]


def _keys(catalog: Catalog) -> set[tuple[str, str | None]]:
    return {(_ids(m)[0], m.context) for m in catalog if m.id}


def check(languages: Sequence[str] = LANGUAGES) -> list[str]:
    """Every problem with the catalogs, one sentence each; empty when all is in step."""
    problems: list[str] = []
    source = _keys(extract())
    if not POT_PATH.exists():
        return [f"{POT_PATH.relative_to(ROOT)} is missing: run `python -m referee.i18n_tools update`"]
    template = _keys(read_catalog(POT_PATH))
    for msgid, _context in sorted(source - template):
        problems.append(f"rummikub.pot lacks {msgid!r}: run `python -m referee.i18n_tools update`")
    for msgid, _context in sorted(template - source):
        problems.append(f"rummikub.pot still has {msgid!r}, which the code no longer uses: run update")
    for language in languages:
        path = po_path(language)
        if not path.exists():
            problems.append(f"{language}: {path.relative_to(ROOT)} is missing: run update")
            continue
        catalog = read_catalog(path, language)
        have = _keys(catalog)
        for msgid, _context in sorted(source - have):
            problems.append(f"{language}: no entry for {msgid!r}: run update, then translate")
        for message in untranslated(catalog):
            what = "fuzzy (the English changed: review)" if message.fuzzy else "not translated"
            problems.append(f"{language}: {_label(message)} is {what}")
        # Fuzzy entries are already reported, and the .mo leaves them out: their placeholders can wait.
        for message in catalog:
            if message.id and not message.fuzzy:
                problems.extend(f"{language}: {p}" for p in placeholder_problems(message, catalog.num_plurals))
        mo = mo_path(language)
        if not mo.exists() or mo.read_bytes() != compile_mo(path, language):
            problems.append(f"{language}: {mo.relative_to(ROOT)} is not the compiled {path.name}: run compile")
    return problems


def _print_todo(language: str) -> int:
    catalog = read_catalog(po_path(language), language)
    todo = untranslated(catalog)
    for message in todo:
        print(("#, fuzzy\n" if message.fuzzy else "") + "msgid " + " | ".join(repr(i) for i in _ids(message)))
    print(f"{len(todo)} of {len([m for m in catalog if m.id])} entries of {language} to translate", file=sys.stderr)
    return 0 if not todo else 1


def main(argv: Sequence[str] | None = None) -> int:
    """Run the maintenance command line; returns the exit code (1 when ``check`` finds problems)."""
    parser = argparse.ArgumentParser(prog="python -m referee.i18n_tools", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("extract", help="write referee/locale/rummikub.pot from the sources")
    sub.add_parser("update", help="extract, then merge into every language's .po")
    sub.add_parser("compile", help="compile every .po to .mo")
    sub.add_parser("check", help="report missing, fuzzy or broken translations and stale .mo files")
    todo = sub.add_parser("todo", help="list one language's entries still to translate")
    todo.add_argument("language", choices=LANGUAGES)
    args = parser.parse_args(argv)
    if args.command == "extract":
        changed = _write_if_changed(POT_PATH, _render(extract()))
        print(f"{POT_PATH.relative_to(ROOT)} {'written' if changed else 'unchanged'}")
    elif args.command == "update":
        for path in update():
            print(f"written {path.relative_to(ROOT)}")
    elif args.command == "compile":
        for path in compile_catalogs():
            print(f"written {path.relative_to(ROOT)}")
    elif args.command == "check":
        problems = check()
        for problem in problems:
            print(problem)
        print(f"{len(problems)} problem(s)" if problems else "catalogs in step", file=sys.stderr)
        return 1 if problems else 0
    elif args.command == "todo":
        return _print_todo(args.language)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
