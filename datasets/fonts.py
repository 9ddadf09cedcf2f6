"""Type families the tile renderer draws numerals with, found in installed font packages.

Real tile editions print their numerals in many typefaces: heavy grotesques, rounded sans, geometric
and condensed display faces, serifs, typewriter faces. The renderer draws from a registry of
families, each a typeface design (clones such as Liberation Sans, Arimo and Nimbus Sans, or Nimbus
Roman and TeX Gyre Termes, are *one* family: holding one out while training on its clone would
measure nothing).

Fonts come from packages the project's setup installs, never from the web:

- matplotlib's bundled DejaVu, STIX and Computer Modern files (always there with the training stack);
- PyPI font packages (the ``train`` extra of pyproject.toml): ``font-fredoka-one``,
  ``font-hanken-grotesk``, ``font-source-sans-pro``, ``font-source-serif-pro``;
- Debian font packages (:data:`DEBIAN_PACKAGES`, installed by ``.ci/run``; on another machine:
  ``apt-get install $(python -m datasets.fonts --debian-packages)``).

A family whose files are missing is simply not drawn; ``python -m datasets.fonts`` lists what is
found and what is missing. :data:`HELD_OUT` families are never drawn in training or validation
scenes: the ``fonts`` test split draws only them, so the reader's accuracy on typefaces it never saw
is measured per family (``python -m datasets.synth --held-out-fonts``).
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["FontFamily", "FAMILIES", "HELD_OUT", "KINDS", "DEBIAN_PACKAGES", "available", "family",
           "font_file", "font_files", "training_families"]

# Where Debian's font packages put their files, and TeX Gyre's OpenType folder.
SYSTEM_FONT_DIRS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"), Path("/usr/share/texmf/fonts/opentype"))

KINDS = ("grotesque", "humanist", "rounded", "geometric", "condensed", "serif", "slab", "mono", "display", "stroke")


@dataclass(frozen=True)
class FontFamily:
    """One typeface design.

    Fields
    ------
    name: identifier stored in the scene labels (``fredoka``, ``helvetica`` ...).
    kind: one of :data:`KINDS`; editions choose families by kind.
    files: file names of the heavy weights to draw with (any of them may be missing).
    source: where the files come from: ``matplotlib``, ``pypi:<package>`` or ``debian:<package>``.
    """

    name: str
    kind: str
    files: tuple[str, ...]
    source: str


FAMILIES: dict[str, FontFamily] = {f.name: f for f in (
    # Grotesques and neo-grotesques (the commonest tile numerals).
    FontFamily("dejavu_sans", "grotesque", ("DejaVuSans-Bold.ttf",), "matplotlib"),
    FontFamily("helvetica", "grotesque", ("NimbusSans-Bold.otf", "texgyreheros-bold.otf"), "debian:fonts-urw-base35"),
    FontFamily("arial", "grotesque", ("LiberationSans-Bold.ttf", "Arimo-Bold.ttf"), "debian:fonts-liberation2"),
    FontFamily("roboto", "grotesque", ("Roboto-Black.ttf", "Roboto-Bold.ttf"), "debian:fonts-roboto-unhinted"),
    FontFamily("inter", "grotesque", ("Inter-Black.otf", "Inter-ExtraBold.otf", "InterDisplay-Black.otf"), "debian:fonts-inter"),
    FontFamily("hanken", "grotesque", ("HankenGrotesk-Bold.otf",), "pypi:font-hanken-grotesk"),
    FontFamily("freesans", "grotesque", ("FreeSansBold.ttf",), "debian:fonts-freefont-ttf"),
    FontFamily("karla", "grotesque", ("Karla-ExtraBold.otf", "Karla-Bold.otf"), "debian:fonts-karla"),
    FontFamily("go", "grotesque", ("Go-Bold.ttf",), "debian:fonts-go"),
    FontFamily("clear_sans", "grotesque", ("ClearSans-Bold.ttf",), "debian:fonts-clear-sans"),
    FontFamily("universalis", "grotesque", ("UniversalisADFStd-Bold.otf",), "debian:fonts-adf-universalis"),
    # Humanist sans.
    FontFamily("open_sans", "humanist", ("OpenSans-ExtraBold.ttf", "OpenSans-Bold.ttf"), "debian:fonts-open-sans"),
    FontFamily("lato", "humanist", ("Lato-Black.ttf", "Lato-Heavy.ttf"), "debian:fonts-lato"),
    FontFamily("source_sans", "humanist", ("SourceSansPro-Black.ttf", "SourceSansPro-Bold.ttf"), "pypi:font-source-sans-pro"),
    FontFamily("noto_sans", "humanist", ("NotoSans-Bold.ttf",), "debian:fonts-noto-core"),
    FontFamily("cantarell", "humanist", ("Cantarell-ExtraBold.otf", "Cantarell-Bold.otf"), "debian:fonts-cantarell"),
    FontFamily("carlito", "humanist", ("Carlito-Bold.ttf",), "debian:fonts-crosextra-carlito"),
    FontFamily("cabin", "humanist", ("Cabin-Bold.otf",), "debian:fonts-cabin"),
    FontFamily("oxygen", "humanist", ("Oxygen-Sans-Bold.ttf",), "debian:fonts-oxygen"),
    FontFamily("b612", "humanist", ("B612-Bold.otf",), "debian:fonts-b612"),
    FontFamily("pt_sans", "humanist", ("PTS75F.ttf", "PTC75F.ttf"), "debian:fonts-paratype"),
    FontFamily("gillius", "humanist", ("GilliusADF-Bold.otf", "GilliusADFNo2-Bold.otf"), "debian:fonts-adf-gillius"),
    FontFamily("biolinum", "humanist", ("LinBiolinum_RB.otf",), "debian:fonts-linuxlibertine"),
    # Rounded sans (the modern white edition's heavy rounded digits).
    FontFamily("fredoka", "rounded", ("FredokaOne-Regular.ttf",), "pypi:font-fredoka-one"),
    FontFamily("comfortaa", "rounded", ("Comfortaa-Bold.ttf",), "debian:fonts-comfortaa"),
    FontFamily("quicksand", "rounded", ("Quicksand-Bold.ttf",), "debian:fonts-quicksand"),
    FontFamily("dosis", "rounded", ("Dosis-ExtraBold.otf", "Dosis-Bold.otf"), "debian:fonts-dosis"),
    FontFamily("eurofurence", "rounded", ("eurof75.ttf",), "debian:fonts-eurofurence"),
    FontFamily("mplus", "rounded", ("Mplus1-Black.otf", "Mplus2-Black.otf", "Mplus1-ExtraBold.otf"), "debian:fonts-mplus"),
    # Geometric sans.
    FontFamily("avant_garde", "geometric", ("URWGothic-Demi.otf", "texgyreadventor-bold.otf"), "debian:fonts-urw-base35"),
    FontFamily("league_spartan", "geometric", ("LeagueSpartan-Black.otf", "LeagueSpartan-ExtraBold.otf"), "debian:fonts-league-spartan"),
    FontFamily("manrope", "geometric", ("Manrope-ExtraBold.ttf",), "debian:fonts-manrope"),
    FontFamily("sora", "geometric", ("Sora-ExtraBold.otf", "Sora-Bold.otf"), "debian:fonts-sora"),
    # Condensed and display faces.
    FontFamily("bebas", "condensed", ("BebasNeue-Bold.otf",), "debian:fonts-bebas-neue"),
    FontFamily("roboto_condensed", "condensed", ("RobotoCondensed-Bold.ttf",), "debian:fonts-roboto-unhinted"),
    FontFamily("dejavu_condensed", "condensed", ("DejaVuSansCondensed-Bold.ttf",), "matplotlib"),
    FontFamily("helvetica_narrow", "condensed", ("NimbusSansNarrow-Bold.otf", "texgyreheroscn-bold.otf"), "debian:fonts-urw-base35"),
    FontFamily("play", "display", ("Play-Bold.ttf", "Play-Bold.otf"), "debian:fonts-play"),
    FontFamily("jura", "display", ("Jura-Bold.otf",), "debian:fonts-jura"),
    # Serifs. (EB Garamond, Vollkorn and Accanthis are left out: their default figures are old-style,
    # with descenders and ascenders no tile prints.)
    FontFamily("dejavu_serif", "serif", ("DejaVuSerif-Bold.ttf",), "matplotlib"),
    FontFamily("times", "serif", ("LiberationSerif-Bold.ttf", "Tinos-Bold.ttf", "NimbusRoman-Bold.otf", "texgyretermes-bold.otf"), "debian:fonts-liberation2"),
    FontFamily("century", "serif", ("C059-Bold.otf", "texgyreschola-bold.otf"), "debian:fonts-urw-base35"),
    FontFamily("palatino", "serif", ("P052-Bold.otf", "texgyrepagella-bold.otf"), "debian:fonts-urw-base35"),
    FontFamily("bookman", "serif", ("URWBookman-Demi.otf", "texgyrebonum-bold.otf"), "debian:fonts-urw-base35"),
    FontFamily("stix", "serif", ("STIXGeneralBol.ttf",), "matplotlib"),
    FontFamily("computer_modern", "serif", ("cmb10.ttf",), "matplotlib"),
    FontFamily("charis", "serif", ("CharisSIL-Bold.ttf",), "debian:fonts-sil-charis"),
    FontFamily("source_serif", "serif", ("SourceSerifPro-Black.ttf", "SourceSerifPro-Bold.ttf"), "pypi:font-source-serif-pro"),
    FontFamily("freeserif", "serif", ("FreeSerifBold.ttf",), "debian:fonts-freefont-ttf"),
    FontFamily("caladea", "serif", ("Caladea-Bold.ttf",), "debian:fonts-crosextra-caladea"),
    FontFamily("libertine", "serif", ("LinLibertine_RB.otf",), "debian:fonts-linuxlibertine"),
    FontFamily("baskervald", "serif", ("BaskervaldADFStd-Heavy.otf", "BaskervaldADFStd-Bold.otf"), "debian:fonts-adf-baskervald"),
    FontFamily("pt_serif", "serif", ("PTF75F.ttf",), "debian:fonts-paratype"),
    # Typewriter and code faces.
    FontFamily("dejavu_mono", "mono", ("DejaVuSansMono-Bold.ttf",), "matplotlib"),
    FontFamily("courier", "mono", ("NimbusMonoPS-Bold.otf", "LiberationMono-Bold.ttf", "Cousine-Bold.ttf", "texgyrecursor-bold.otf"), "debian:fonts-urw-base35"),
    FontFamily("fira_code", "mono", ("FiraCode-Bold.ttf",), "debian:fonts-firacode"),
    FontFamily("hack", "mono", ("Hack-Bold.ttf",), "debian:fonts-hack"),
    FontFamily("jetbrains_mono", "mono", ("JetBrainsMono-ExtraBold.ttf", "JetBrainsMono-Bold.ttf"), "debian:fonts-jetbrains-mono"),
    FontFamily("league_mono", "mono", ("LeagueMono-ExtraBold.otf", "LeagueMono-Bold.otf", "LeagueMono-WideBold.otf"), "debian:fonts-league-mono"),
    FontFamily("mononoki", "mono", ("mononoki-Bold.ttf",), "debian:fonts-mononoki"),
    FontFamily("pt_mono", "mono", ("PTM75F.ttf",), "debian:fonts-paratype"),
    # OpenCV's Hershey stroke fonts (drawn with cv2.putText; always there).
    FontFamily("hershey", "stroke", ("hershey:0", "hershey:1", "hershey:2", "hershey:3"), "opencv"),
)}

# Never drawn in training or validation scenes: one family of each common kind, so that the reader's
# accuracy on a typeface it never saw is measured (rendered split ``fonts``).
HELD_OUT: tuple[str, ...] = ("quicksand", "league_spartan", "bookman", "hack", "cantarell")

DEBIAN_PACKAGES: tuple[str, ...] = tuple(sorted({f.source.split(":", 1)[1] for f in FAMILIES.values()
                                                 if f.source.startswith("debian:")} | {"fonts-texgyre"}))


def _matplotlib_dir() -> Path | None:
    spec = importlib.util.find_spec("matplotlib")  # found without importing matplotlib (slow)
    if spec is None or spec.origin is None:
        return None
    folder = Path(spec.origin).parent / "mpl-data" / "fonts" / "ttf"
    return folder if folder.is_dir() else None


def _pypi_dirs() -> list[Path]:
    dirs = []
    for fam in FAMILIES.values():
        if fam.source.startswith("pypi:"):
            module = fam.source.split(":", 1)[1].replace("-", "_")
            spec = importlib.util.find_spec(module)
            if spec is not None and spec.origin is not None:
                dirs.append(Path(spec.origin).parent / "files")
    return dirs


@functools.lru_cache(maxsize=1)
def _index() -> dict[str, Path]:
    """File name -> path of every font file in the places fonts are installed."""
    found: dict[str, Path] = {}
    roots = [d for d in (_matplotlib_dir(), *_pypi_dirs()) if d is not None] + list(SYSTEM_FONT_DIRS)
    for root in roots:
        if not root.is_dir():
            continue
        for path in root.rglob("*"):
            if path.suffix.lower() in (".ttf", ".otf") and path.name not in found:
                found[path.name] = path
    return found


def font_files(name: str) -> list[str]:
    """The drawable files of family ``name``: absolute paths, or ``hershey:<n>`` OpenCV font ids."""
    fam = family(name)
    if fam.kind == "stroke":
        return list(fam.files)
    index = _index()
    return [str(index[f]) for f in fam.files if f in index]


def font_file(file_name: str) -> str:
    """The absolute path of the installed font file called ``file_name`` (``DejaVuSans-Bold.ttf``),
    from the places :func:`font_files` looks in (matplotlib's files first); a clear error if none."""
    path = _index().get(file_name)
    if path is None:
        raise FileNotFoundError(f'font file "{file_name}" is not installed (python -m datasets.fonts lists what is)')
    return str(path)


def family(name: str) -> FontFamily:
    """The family called ``name``; a clear error for an unknown name."""
    try:
        return FAMILIES[name]
    except KeyError:
        raise ValueError(f'unknown font family "{name}": choose one of {", ".join(FAMILIES)}') from None


def available() -> list[str]:
    """Names of the families with at least one installed file."""
    return [name for name in FAMILIES if font_files(name)]


def training_families() -> list[str]:
    """Installed families that training and validation scenes may draw (not :data:`HELD_OUT`)."""
    return [name for name in available() if name not in HELD_OUT]


def main(argv: list[str] | None = None) -> int:
    """``python -m datasets.fonts``: which families are installed, and how to install the rest."""
    p = argparse.ArgumentParser(prog="python -m datasets.fonts", description=__doc__.split("\n\n")[0])
    p.add_argument("--debian-packages", action="store_true", help="print the Debian font packages to install, one line")
    args = p.parse_args(argv)
    if args.debian_packages:
        print(" ".join(DEBIAN_PACKAGES))
        return 0
    have = set(available())
    for fam in FAMILIES.values():
        mark = "ok     " if fam.name in have else "MISSING"
        held = "  (held out of training)" if fam.name in HELD_OUT else ""
        print(f"{mark} {fam.name:18} {fam.kind:10} {fam.source}{held}")
    missing = [f for f in FAMILIES.values() if f.name not in have]
    print(f"\n{len(have)} of {len(FAMILIES)} families installed.")
    if missing:
        print("Install the rest with: apt-get install " + " ".join(DEBIAN_PACKAGES)
              + " and pip install -e '.[train]'", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
