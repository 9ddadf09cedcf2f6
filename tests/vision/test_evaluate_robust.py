"""vision.evaluate.robust: real photos read again under poor light and poor cameras."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.photos import SAMPLE
from vision.evaluate import robust


@pytest.fixture(scope="module")
def photo() -> np.ndarray:
    image = cv2.imread(str(sorted((SAMPLE / "test" / "images").glob("*.jpg"))[0]))
    assert image is not None
    return image


@pytest.mark.parametrize("name", [n for n in robust.PERTURBATIONS if n != "as taken"])
def test_every_perturbation_changes_the_photo_and_keeps_its_shape(photo: np.ndarray, name: str) -> None:
    out = robust.PERTURBATIONS[name](photo)
    assert out.shape == photo.shape and out.dtype == np.uint8
    assert np.abs(out.astype(int) - photo.astype(int)).mean() > 1.0
    assert np.array_equal(out, robust.PERTURBATIONS[name](photo))  # the same every run (noise has a seed)


def test_dim_and_glare_go_the_ways_they_say(photo: np.ndarray) -> None:
    assert robust.dim(photo).mean() < 0.6 * photo.mean() < robust.overexposed(photo).mean() * 0.6
    warm = robust.warm_light(photo).reshape(-1, 3).mean(axis=0)
    assert warm[2] > photo.reshape(-1, 3).mean(axis=0)[2] and warm[0] < photo.reshape(-1, 3).mean(axis=0)[0]


@pytest.mark.model
def test_the_command_reads_every_photo_under_each_perturbation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sheet = tmp_path / "sheet.png"
    assert robust.main([str(SAMPLE / "test"), "--only", "as taken,overexposed_hard", "--json", "--sheet", str(sheet)]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert list(figures) == ["as taken", "overexposed_hard"]
    assert figures["as taken"]["images"] == 5 and figures["as taken"]["tile_f1"] > 0.99
    assert figures["overexposed_hard"]["tile_f1"] < figures["as taken"]["tile_f1"]  # glare costs tiles here
    assert cv2.imread(str(sheet)).shape[1] == 4 * 360


def test_an_unknown_perturbation_is_named() -> None:
    with pytest.raises(SystemExit, match="unknown perturbation fog"):
        robust.main([str(SAMPLE / "test"), "--only", "fog"])
