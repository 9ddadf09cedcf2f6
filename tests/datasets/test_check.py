"""The label preview tool on synthetic folders, a real-style folder and (if present) the real set."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from datasets import check, synth
from tests.photos import SAMPLE


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("syn")
    synth.generate(out, {"train": 3, "val": 1}, seed=1, size=256, card=None, progress=False)
    return out


def test_preview_of_a_split_folder_is_a_png(synthetic: Path, tmp_path: Path) -> None:
    out = check.make_preview(synthetic / "train", tmp_path / "p.png", n=2)
    img = cv2.imread(str(out))
    assert img is not None and img.shape[0] > 100 and img.shape[1] >= 2 * 512


def test_preview_of_a_root_samples_across_splits_and_cli_works(synthetic: Path, tmp_path: Path) -> None:
    assert len(check.find_images(synthetic)) == 4
    assert check.main([str(synthetic), "--out", str(tmp_path / "q.png"), "--n", "8"]) == 0
    assert cv2.imread(str(tmp_path / "q.png")) is not None


def test_synthetic_labels_have_arrows_and_codes(synthetic: Path) -> None:
    image = sorted((synthetic / "train" / "images").glob("*.jpg"))[0]
    tiles, arrows = check.read_labels(image, 1, 1)
    assert arrows and all("code" in t and len(t["polygon"]) == 4 for t in tiles)


def test_real_style_folder_maps_alphabetical_names_and_draws_no_arrows(tmp_path: Path) -> None:
    root = tmp_path / "real"
    (root / "valid" / "images").mkdir(parents=True)
    (root / "valid" / "labels").mkdir(parents=True)
    names = sorted([f"{c}_{n}" for c in ("black", "blue", "orange", "red") for n in range(1, 14)] + ["joker"])
    (root / "data.yaml").write_text("names:\n" + "".join(f"- {n}\n" for n in names) + "nc: 53\n")
    cv2.imwrite(str(root / "valid" / "images" / "a.jpg"), np.full((60, 80, 3), 128, np.uint8))
    rows = [f"{names.index('red_7')} 0.1 0.1 0.1 0.5 0.4 0.5 0.4 0.1 0.25 0.05", f"{names.index('joker')} 0.6 0.6 0.2 0.3"]
    (root / "valid" / "labels" / "a.txt").write_text("\n".join(rows) + "\n")
    tiles, arrows = check.read_labels(root / "valid" / "images" / "a.jpg", 80, 60)
    assert [t["code"] for t in tiles] == ["R7", "J"] and not arrows
    assert len(tiles[0]["polygon"]) == 5 and len(tiles[1]["polygon"]) == 4
    assert check.make_preview(root / "valid", tmp_path / "r.png", n=1).exists()


def test_missing_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no images/ folder"):
        check.make_preview(tmp_path, tmp_path / "x.png")
    with pytest.raises(SystemExit):
        check.main([str(tmp_path / "nothing"), "--out", str(tmp_path / "x.png")])


def test_preview_of_real_photos(tmp_path: Path) -> None:
    out = check.make_preview(SAMPLE / "test", tmp_path / "real.png", n=2)
    assert cv2.imread(str(out)) is not None
