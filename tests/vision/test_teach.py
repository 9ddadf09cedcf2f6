"""Taught profiles (vision.profile) and teaching (vision.teach), and decoding a JPEG at reading size."""

from __future__ import annotations

import io
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from referee.tiles import TileError, parse_tile
from tests.app.corpus import jpeg_of
from vision.detect import MODELS_DIR
from vision.image import decode_image, decode_photo
from vision.profile import Profile, ProfileError, load_profile
from vision.teach import parse_rows, rows_of


def _jpeg(width: int, height: int, orientation: int | None = None) -> bytes:
    image = np.zeros((height, width, 3), np.uint8)
    image[: height // 4, : width // 4] = (0, 0, 255)  # BGR red block top-left
    return jpeg_of(image, orientation, quality=90)


def test_decode_photo_decodes_a_large_jpeg_at_reading_size() -> None:
    photo = decode_photo(_jpeg(4624, 3468))
    assert (photo.width, photo.height) == (4624, 3468)
    assert photo.image.shape[:2] == (1734, 2312) and photo.scale == pytest.approx(2.0)
    # The same pixels as decoding whole and shrinking (the red block where it was).
    assert photo.image[100, 100, 2] > 200 and photo.image[1000, 1500, 2] < 50


def test_decode_photo_keeps_small_photos_and_png_whole() -> None:
    small = decode_photo(_jpeg(1600, 1200))
    assert small.image.shape[:2] == (1200, 1600) and small.scale == 1.0
    buf = io.BytesIO()
    Image.fromarray(np.zeros((3000, 4200, 3), np.uint8)).save(buf, format="PNG")
    png = decode_photo(buf.getvalue())
    assert png.image.shape[:2] == (3000, 4200) and png.scale == 1.0


def test_decode_photo_follows_exif_rotation() -> None:
    photo = decode_photo(_jpeg(4624, 3468, orientation=6))  # stored landscape, shown portrait
    assert (photo.width, photo.height) == (3468, 4624)
    assert photo.image.shape[:2] == (2312, 1734) and photo.scale == pytest.approx(2.0)
    assert decode_image(_jpeg(4624, 3468, orientation=6)).shape[:2] == (4624, 3468)


def test_parse_rows() -> None:
    assert parse_rows("R1 R2 | o3 J") == [["R1", "R2"], ["O3", "J"]]
    with pytest.raises(TileError, match="R14"):
        parse_rows("R1 R14")
    with pytest.raises(ProfileError, match="row 2"):
        parse_rows("R1 | | R2")


def test_rows_of_groups_boxes_top_to_bottom_left_to_right() -> None:
    boxes = np.array([[200, 12, 240, 62], [0, 0, 40, 50], [100, 5, 140, 55],  # a slightly tilted row
                      [50, 100, 90, 150], [0, 98, 40, 148]], np.float32)
    assert rows_of(boxes) == [[1, 2, 0], [4, 3]]
    assert rows_of(np.zeros((0, 4), np.float32)) == []


def test_rows_of_follows_rows_that_slope_across_the_photo() -> None:
    # Four rows of 13 tiles (40 x 54 px, 46 px apart, rows 70 px apart) photographed 10 degrees
    # askew: a row's last tile sits 100 px lower than its first, below the next row's first tile.
    # Grouping by height alone put 14 tiles in the first row (seen in vision.evaluate.teach).
    a = np.radians(10)
    boxes = []
    for r in range(4):
        for c in range(13):
            x, y = 46 * c, 70 * r
            cx, cy = x * np.cos(a) - y * np.sin(a), x * np.sin(a) + y * np.cos(a)
            boxes.append([cx - 20, cy - 27, cx + 20, cy + 27])
    rows = rows_of(np.array(boxes, np.float32))
    assert rows == [list(range(13 * r, 13 * r + 13)) for r in range(4)]


def _profile() -> Profile:
    feats = np.eye(4, 8, dtype=np.float32)  # four taught examples, orthogonal features
    codes = np.array([parse_tile(c).index for c in ("R1", "R7", "B4", "J")])
    return Profile(feats, codes, weight=0.9)


def test_profile_pulls_a_reading_towards_the_nearest_taught_tile() -> None:
    profile = _profile()
    probs = np.full((1, 53), 0.1 / 52, np.float32)
    probs[0, parse_tile("R4").index] = 0.9  # the reader says R4 ...
    feats = np.zeros((1, 8), np.float32)
    feats[0, 1] = 1.0  # ... but it looks exactly like the taught R7
    out = profile.apply(probs, feats)
    assert out.argmax() == parse_tile("R7").index and out.sum() == pytest.approx(1.0, abs=1e-5)


def test_profile_leaves_readings_far_from_every_prototype_alone() -> None:
    profile = _profile()
    probs = np.full((1, 53), 0.1 / 52, np.float32)
    probs[0, parse_tile("K9").index] = 0.9
    feats = np.zeros((1, 8), np.float32)
    feats[0, 6] = 1.0  # like none of them: equal similarity to all -> the prototypes are unsure
    out = profile.apply(probs, feats)
    assert out.argmax() == parse_tile("K9").index


def test_profile_leaves_a_tile_unlike_every_example_to_the_reader() -> None:
    """One prototype clearly nearest, yet the tile is not much like it (cosine 0.7): another view
    than the teaching photo's, where prototypes mislead. The reader's reading stands, unchanged."""
    profile = _profile()
    probs = np.full((2, 53), 0.1 / 52, np.float32)
    probs[:, parse_tile("R4").index] = 0.9
    feats = np.zeros((2, 8), np.float32)
    feats[0, 1], feats[0, 6] = 0.7, np.sqrt(1 - 0.7 ** 2)  # nearest the taught R7, but at 0.7
    feats[1, 1], feats[1, 6] = 0.95, np.sqrt(1 - 0.95 ** 2)  # very like the taught R7
    out = profile.apply(probs, feats)
    assert np.allclose(out[0], probs[0] / probs[0].sum(), atol=1e-6)
    assert out[1].argmax() == parse_tile("R7").index


def test_profile_round_trip_and_damaged_files(tmp_path: Path) -> None:
    profile = _profile()
    profile.save(tmp_path / "p")
    back = load_profile(tmp_path / "p")
    assert back.taught == ["B4", "R1", "R7", "J"] or set(back.taught) == {"B4", "R1", "R7", "J"}
    assert np.allclose(back.features, profile.features) and back.weight == 0.9
    with pytest.raises(ProfileError, match="not a taught profile"):
        load_profile(tmp_path / "nothing")
    (tmp_path / "p" / "prototypes.npy").write_bytes(b"garbage")
    with pytest.raises(ProfileError, match="damaged"):
        load_profile(tmp_path / "p")


HAVE_FEATURE_READER = False
if (MODELS_DIR / "tile_reader.onnx").exists():
    import onnxruntime as ort

    HAVE_FEATURE_READER = len(ort.InferenceSession(str(MODELS_DIR / "tile_reader.onnx")).get_outputs()) >= 4


@pytest.mark.model
@pytest.mark.skipif(not HAVE_FEATURE_READER, reason="the shipped reader does not export features")
def test_teach_a_rendered_layout_then_read_with_it(tmp_path: Path) -> None:
    from datasets.teach_scenes import FULL_SET_ROWS, render_layout
    from vision.teach import main as teach_main

    rng = np.random.default_rng(3)
    img, _ = render_layout(rng, FULL_SET_ROWS, family="dejavu_sans", size=1400)
    photo = tmp_path / "layout.jpg"
    cv2.imwrite(str(photo), img)
    rows = " | ".join(" ".join(r) for r in FULL_SET_ROWS)
    assert teach_main([str(photo), "--tiles", rows, "--profile", str(tmp_path / "prof")]) == 0
    profile = load_profile(tmp_path / "prof")
    assert len(profile.taught) == 53 and profile.check["with_profile"] >= profile.check["reader_alone"]
    # A count that does not match the photo is refused, naming the row; nothing is written.
    wrong = " | ".join(" ".join(r) for r in FULL_SET_ROWS[:-1]) + " | J"
    assert teach_main([str(photo), "--tiles", wrong, "--profile", str(tmp_path / "other")]) == 2
    assert not (tmp_path / "other").exists()


def test_teaching_needs_no_torch() -> None:
    """Teaching runs in the server, which never loads torch (40 s to import on a busy machine)."""
    import subprocess
    import sys

    code = "import sys, vision.teach, vision.teach_tile, vision.train.reader_data; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.train
def test_reader_data_class_numbers_are_the_networks() -> None:
    """reader_data keeps its own copy of the class numbers (importing reader_net would pull torch)."""
    from vision.train import reader_data, reader_net

    assert (reader_data.JOKER_CLASS, reader_data.NONE_CLASS) == (reader_net.JOKER_CLASS, reader_net.NONE_CLASS)


class _FlatModel:
    """A stand-in reader for the check's arithmetic: every crop gives the same ``feature``, and
    the reader alone is nearly unsure (R5 by a hair)."""

    reader_size = 16

    def __init__(self, feature: np.ndarray) -> None:
        self.feature = feature

    def crops(self, image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        return np.zeros((len(boxes), 16, 16, 3), np.uint8)

    def read_crops(self, crops: np.ndarray) -> tuple[np.ndarray, ...]:
        n = len(crops)
        number = np.full((n, 15), 1.0 / 15, np.float32)
        number[:, 13:] = 0.001  # neither a joker nor "not a tile"
        number[:, 4] += 0.01  # "5", barely
        colour = np.full((n, 4), 0.25, np.float32)
        colour[:, 3] += 0.01  # red, barely
        return number, colour, np.zeros((n, 2), np.float32), np.tile(self.feature, (n, 1))


def _held(reading: str, p: float, truth: str, look: int) -> dict:
    """One held-back crop whose features are the unit vector ``look``, read ``reading`` at ``p``."""
    probs = np.full((1, 53), (1 - p) / 52, np.float32)
    probs[0, parse_tile(reading).index] = p
    feats = np.zeros((1, 8), np.float32)
    feats[0, look] = 1.0
    return {"features": feats, "probs": probs, "codes": np.array([parse_tile(truth).index])}


def test_choose_weight_gives_a_profile_a_say_only_where_its_check_shows_it_helps() -> None:
    from vision.teach import choose_weight

    feats = np.eye(2, 8, dtype=np.float32)
    codes = np.array([parse_tile("R1").index, parse_tile("R7").index])
    # The reader misreads a taught R7 as R4: the smallest weight that fixes it (0.5) is chosen.
    assert choose_weight(feats, codes, _held("R4", 0.9, "R7", look=1)) == (0.5, 0.0, 1.0)
    # The reader already reads the check right: nothing to gain, so the profile changes no reading
    # (a profile that tied on its check made other photos worse, session 8).
    weight, alone, acc = choose_weight(feats, codes, _held("R7", 0.9, "R7", look=1))
    assert (weight, alone, acc) == (0.0, 1.0, 1.0)
    probs = _held("R4", 0.6, "R4", look=1)
    assert Profile(feats, codes, weight).apply(probs["probs"], probs["features"]).argmax() == parse_tile("R4").index
    # An R4 that looks like the taught R7, read R4 only at 0.4: every weight spoils it. Refused.
    with pytest.raises(ProfileError, match="refused"):
        choose_weight(feats, codes, _held("R4", 0.4, "R4", look=1))


def test_add_tile_is_refused_when_it_reads_the_held_back_crops_worse() -> None:
    from types import SimpleNamespace

    from vision.detect import combine
    from vision.image import DecodedPhoto
    from vision.teach_tile import add_tile

    look = np.array([1.0, 0.0, 0.0, 0.0], np.float32)  # what this R5 looks like
    near = np.array([0.9, 0.436, 0.0, 0.0], np.float32)  # the taught R5 prototypes: close to it
    r5, k9 = parse_tile("R5").index, parse_tile("K9").index
    model = _FlatModel(look)
    base = combine(*model.read_crops(np.zeros((8, 16, 16, 3), np.uint8))[:2])
    assert base[0].argmax() == r5
    profile = Profile(np.tile(near / np.linalg.norm(near), (4, 1)), np.full(4, r5), weight=0.9,
                      held_back={"features": np.tile(look, (8, 1)), "probs": base, "codes": np.full(8, r5)})
    photo = DecodedPhoto(np.zeros((200, 300, 3), np.uint8), 300, 200, 1.0)
    reader = SimpleNamespace(model=model)
    # The same look added as K9: the held-back R5 views would read K9. Refused, the profile untouched.
    with pytest.raises(ProfileError, match="refused"):
        add_tile(photo, (10, 10, 50, 70), "K9", profile, reader)
    assert len(profile.codes) == 4
    # Added as what it is: accepted, its views join the held-back check.
    grown, added = add_tile(photo, (10, 10, 50, 70), "r5", profile, reader)
    assert added.after >= added.before and added.tile == "R5" and len(grown.codes) == 8
    assert len(grown.held_back["codes"]) == 8 + 4 and grown.check["added_tiles"] == 1
    with pytest.raises(ProfileError, match="outside"):
        add_tile(photo, (10, 10, 500, 70), "R5", profile, reader)
    assert k9 != r5



def test_a_correction_gives_a_profile_that_changed_nothing_its_say() -> None:
    """A profile whose check showed nothing to fix reads as the reader alone (weight 0); a tile the
    player corrects, added to it, shows the profile helps, so the weight is chosen again."""
    from types import SimpleNamespace

    from vision.detect import combine
    from vision.image import DecodedPhoto
    from vision.teach_tile import add_tile

    look = np.array([1.0, 0.0, 0.0, 0.0], np.float32)  # the taught R5s, read right by the reader alone
    other = np.array([0.0, 1.0, 0.0, 0.0], np.float32)  # the tile the player corrects to K9
    r5, k9 = parse_tile("R5").index, parse_tile("K9").index
    base = combine(*_FlatModel(look).read_crops(np.zeros((8, 16, 16, 3), np.uint8))[:2])
    profile = Profile(np.tile(look, (4, 1)), np.full(4, r5), weight=0.0,
                      held_back={"features": np.tile(look, (8, 1)), "probs": base, "codes": np.full(8, r5)})
    photo = DecodedPhoto(np.zeros((200, 300, 3), np.uint8), 300, 200, 1.0)
    grown, added = add_tile(photo, (10, 10, 50, 70), "K9", profile, SimpleNamespace(model=_FlatModel(other)))
    assert grown.weight > 0 and added.tile_before == 0.0 and added.tile_after == 1.0
    assert added.after == added.before == 1.0  # the R5s still read right
    assert k9 != r5


@pytest.mark.model
def test_typed_row_counts_recover_tiles_the_detector_doubted() -> None:
    """A strict detector misses tiles of a teaching layout; the rows typed say how many there are,
    so the doubted ones are taken back - and the shared model's settings are left alone."""
    from dataclasses import replace

    from datasets.teach_scenes import FULL_SET_ROWS, render_layout
    from vision.detect import DetectorSettings, TileModel
    from vision.teach import rows_of, tiles_in_rows

    img, _ = render_layout(np.random.default_rng(3), FULL_SET_ROWS, family="dejavu_sans", size=1400)
    strict = replace(DetectorSettings(), min_score=0.97)
    model = TileModel(settings=strict)
    counts = [len(r) for r in FULL_SET_ROWS]
    assert [len(r) for r in rows_of(model.find_boxes(img)[0])] != counts  # the strict threshold loses tiles
    boxes, rows = tiles_in_rows(model, img, counts)
    assert [len(r) for r in rows] == counts and len(boxes) == sum(counts)
    assert model.settings == strict
    # a count the photo cannot give is not forced: the usual detection comes back for the error message
    _, rows = tiles_in_rows(model, img, counts[:-1] + [counts[-1] + 5])
    assert [len(r) for r in rows] != counts[:-1] + [counts[-1] + 5]
    # teaching looks with the float detector, also when the model serves the 8-bit one
    float_boxes, _ = tiles_in_rows(model.with_float_networks(), img, counts)
    assert model.detector_file.name != model.with_float_networks().detector_file.name
    assert np.array_equal(boxes, float_boxes)


def test_a_profile_taught_on_another_reader_is_refused() -> None:
    """Its prototypes live in another reader's feature space: reading or teaching more with it is a
    clear error; an unstamped profile or a reader without a card is let through."""
    from vision.profile import check_reader, reader_stamp

    card = {"date": "2026-11-25", "command": "python -m vision.train reader --crop-stretch 1.8"}
    profile = _profile()
    profile.reader = reader_stamp(card)
    check_reader(profile, card, "mine")  # the same reader
    profile.reader = {"date": "2026-11-25", "command": "python -m vision.train reader"}
    with pytest.raises(ProfileError, match='"mine" was taught on another version of the tile reader'):
        check_reader(profile, card, "mine")
    check_reader(profile, {}, "mine")
    profile.reader = {}
    check_reader(profile, card, "mine")


def test_read_refuses_a_profile_folder_taught_on_another_reader(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from tests.photos import sample_photos

    profile = _profile()
    profile.features = np.eye(4, 192, dtype=np.float32)
    profile.reader = {"date": "2026-01-01", "command": "an older reader"}
    profile.save(tmp_path / "old")
    run = subprocess.run([sys.executable, "-m", "vision.read", str(sample_photos()[0]), "--profile", str(tmp_path / "old"), "--json"],
                         capture_output=True, text=True, timeout=120, env={**os.environ, "YOLO_OFFLINE": "1"})
    assert run.returncode == 2
    assert "another version of the tile reader" in run.stderr and "Traceback" not in run.stderr
