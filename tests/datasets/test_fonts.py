"""datasets.fonts: the numeral families the renderer draws from, and the held-out split."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from datasets import fonts
from datasets.render_tiles import EDITIONS, render_face, sample_style
from referee.tiles import parse_tile


def test_registry_is_consistent() -> None:
    assert set(fonts.HELD_OUT) <= set(fonts.FAMILIES)
    for fam in fonts.FAMILIES.values():
        assert fam.kind in fonts.KINDS and fam.files
        assert fam.source == "matplotlib" or fam.source == "opencv" or fam.source.split(":")[0] in ("pypi", "debian")
    # Clones are one family: no file name is listed under two families.
    names = [f for fam in fonts.FAMILIES.values() for f in fam.files]
    assert len(names) == len(set(names))
    # Every kind an edition asks for exists in the registry.
    for edition in EDITIONS.values():
        assert set(edition.font_kinds) <= set(fonts.KINDS)


def test_training_families_never_include_held_out_ones() -> None:
    train = fonts.training_families()
    assert train, "no font family installed: python -m datasets.fonts"
    assert not set(train) & set(fonts.HELD_OUT)
    rng = np.random.default_rng(0)
    for _ in range(60):
        style = sample_style(str(rng.choice(list(EDITIONS))), rng)
        assert style.font_family in train


def test_unknown_family_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown font family"):
        fonts.family("comic_sans")
    with pytest.raises(ValueError, match="unknown font family"):
        sample_style("original", np.random.default_rng(0), ["comic_sans"])


@pytest.mark.parametrize("family", fonts.available())
def test_every_installed_family_draws_every_numeral(family: str) -> None:
    rng = np.random.default_rng(1)
    style = sample_style("modern_white", rng, [family])
    assert style.font_family == family
    for code in ("K1", "B6", "O9", "R10", "K13", "J"):
        face = render_face(parse_tile(code), style, rng)
        far_from_body = np.abs(face[..., :3].astype(int) - np.array(style.body)).sum(axis=2) > 120
        ink = far_from_body & (face[..., 3] > 0)
        assert ink.sum() > 100, f"{family}: {code} drew no numeral"


def test_debian_package_list_names_every_debian_family() -> None:
    pkgs = set(fonts.DEBIAN_PACKAGES)
    for fam in fonts.FAMILIES.values():
        if fam.source.startswith("debian:"):
            assert fam.source.split(":", 1)[1] in pkgs


def test_font_file_finds_installed_files_and_names_a_missing_one() -> None:
    for name in fonts.available():
        for path in fonts.font_files(name):
            if not path.startswith("hershey:"):
                assert fonts.font_file(Path(path).name) == path
    with pytest.raises(FileNotFoundError, match="ComicSans.ttf"):
        fonts.font_file("ComicSans.ttf")
