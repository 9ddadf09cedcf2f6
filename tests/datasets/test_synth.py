"""Synthetic scenes: determinism, label files, corner order (the face's up), content, coverage."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from datasets import synth
from datasets.render_scene import Lighting, draw_slab, look_at
from datasets.render_textures import make_background
from datasets.render_tiles import EDITIONS, render_face, sample_style
from referee.sets import check_set
from referee.tiles import JOKER, Colour, Tile, parse_tile, parse_tiles

SIZE = 256  # small images keep the suite fast


@pytest.fixture(scope="module")
def small_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("synthetic")
    synth.generate(out, {"train": 6, "val": 2}, seed=7, size=SIZE, card=out / "card.md", progress=False)
    return out


def test_same_seed_same_image_and_record() -> None:
    a_img, a_rec = synth.render_scene(synth.image_seed(3, "train", 5), SIZE)
    b_img, b_rec = synth.render_scene(synth.image_seed(3, "train", 5), SIZE)
    assert np.array_equal(a_img, b_img)
    assert a_rec == b_rec


@pytest.mark.slow
def test_different_index_split_or_seed_gives_a_different_scene() -> None:
    base, _ = synth.render_scene(synth.image_seed(3, "train", 5), SIZE)
    for rng in (synth.image_seed(3, "train", 6), synth.image_seed(3, "val", 5), synth.image_seed(4, "train", 5)):
        other, _ = synth.render_scene(rng, SIZE)
        assert other.shape != base.shape or not np.array_equal(other, base)


def test_files_are_identical_when_rendered_again(small_set: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    synth.generate(again, {"train": 2}, seed=7, size=SIZE, card=None, progress=False)
    for name in ("images/000000.jpg", "images/000001.jpg", "labels/000001.txt", "tiles/000001.json"):
        assert (again / "train" / name).read_bytes() == (small_set / "train" / name).read_bytes(), name


def test_worker_count_does_not_change_the_output(small_set: Path, tmp_path: Path) -> None:
    par = tmp_path / "par"
    synth.generate(par, {"val": 2}, seed=7, size=SIZE, workers=2, card=None, progress=False)
    for i in range(2):
        for name in (f"images/{i:06d}.jpg", f"labels/{i:06d}.txt"):
            assert (par / "val" / name).read_bytes() == (small_set / "val" / name).read_bytes(), name


def test_layout_of_a_split_folder(small_set: Path) -> None:
    for split, n in (("train", 6), ("val", 2)):
        stems = sorted(p.stem for p in (small_set / split / "images").glob("*.jpg"))
        assert stems == [f"{i:06d}" for i in range(n)]
        assert sorted(p.stem for p in (small_set / split / "labels").glob("*.txt")) == stems
        assert sorted(p.stem for p in (small_set / split / "tiles").glob("*.json")) == stems
    yaml = (small_set / "data.yaml").read_text()
    assert "train: train/images" in yaml and "0: tile" in yaml
    card = (small_set / "card.md").read_text()
    assert "seed" in card.lower() and "| train | 6 |" in card


def test_labels_are_one_class_polygons_inside_the_image(small_set: Path) -> None:
    total = 0
    for label in sorted((small_set / "train" / "labels").glob("*.txt")):
        record = json.loads((small_set / "train" / "tiles" / (label.stem + ".json")).read_text())
        rows = [r.split() for r in label.read_text().splitlines()]
        shown = [t for t in record["tiles"] if not t["hidden"]]  # mostly hidden tiles get no label
        assert len(rows) == len(shown)
        image = cv2.imread(str(small_set / "train" / "images" / record["image"]))
        assert image.shape[:2] == (record["height"], record["width"])
        for row, tile in zip(rows, shown):
            assert row[0] == "0" and len(row) == 9
            values = [float(v) for v in row[1:]]
            assert all(0.0 <= v <= 1.0 for v in values)
            assert 0.4 <= tile["visible"] <= 1.0 and tile["font_family"]
            # The normalised corners are the JSON polygon (the visible part's box for a tile
            # partly behind another), clipped.
            corners = tile["polygon"]
            if tile["visible"] < 0.9:
                x1, y1, x2, y2 = tile["visible_box"]
                corners = [[x1, y1], [x2, y1], [x2, y2], [x1, y2]]
            for (x, y), (nx, ny) in zip(corners, zip(values[::2], values[1::2])):
                assert nx == pytest.approx(min(max(x / record["width"], 0), 1), abs=1e-5)
                assert ny == pytest.approx(min(max(y / record["height"], 0), 1), abs=1e-5)
            parse_tile(tile["code"])
            assert tile["edition"] in EDITIONS
            assert (tile["joker_colour"] in ("red", "black")) == (tile["code"] == "J")
            on_rack = tile["rack"] is not None
            assert on_rack == (tile["rack_row"] is not None) and (tile["set"] is None or not on_rack)
            total += 1
    assert total > 0


def test_set_membership_matches_the_scene_sets(small_set: Path) -> None:
    for path in (small_set / "train" / "tiles").glob("*.json"):
        record = json.loads(path.read_text())
        sets = {s["index"]: s["tiles"] for s in record["sets"]}
        for tile in record["tiles"]:
            if tile["set"] is not None:
                assert sets[tile["set"]][tile["order"]] == tile["code"]


def _single_tile(rotation_deg: float, tile: Tile = Tile(Colour.BLACK, 1)) -> tuple[np.ndarray, np.ndarray]:
    """A top-down picture of one Original tile turned ``rotation_deg`` (clockwise in the image)."""
    rng = np.random.default_rng(0)
    style = sample_style("original", rng, ["dejavu_sans"])  # a bold face: the ink test below needs ink
    cam = look_at(320, 320, 60, np.zeros(3), 0.0, 0.0, 300.0, 0.0)
    # Image up is world -x for this camera; a clockwise turn in the image is a turn towards +y.
    a = math.radians(rotation_deg)
    up2 = np.array([-math.cos(a), math.sin(a)])
    u, v = synth.flat_axes(up2)
    t = synth.SceneTile(tile, None, style, np.array([0, 0, 34 * style.thickness]), u, v, 34.0)
    canvas = np.full((320, 320, 3), 90, np.uint8)
    poly = draw_slab(canvas, cam, t.slab(render_face(tile, style, rng)), Lighting(np.array([0, 0, 1.0]), 0.6))
    assert poly is not None
    return canvas, poly


@pytest.mark.parametrize("rotation", [0, 37, 90, 180, 270, 313])
def test_corner_order_gives_the_up_direction_of_the_face(rotation: int) -> None:
    canvas, poly = _single_tile(rotation)
    assert synth._up_deg(poly) == pytest.approx(rotation % 360, abs=1.0)
    # Clockwise in image coordinates (y down): TL -> TR -> BR is a right turn, never mirrored.
    x, y = poly[:, 0], poly[:, 1]
    assert 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) > 0
    # The numeral sits in the upper part of an Original face (the wordmark below it): the dark ink
    # must be nearer the TL-TR edge than the BL-BR edge.
    mask = np.zeros(canvas.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round(poly).astype(np.int32), 255)
    mask = cv2.erode(mask, np.ones((5, 5), np.uint8))
    ink = (canvas.max(axis=2) < 90) & (mask > 0)
    ys, xs = np.nonzero(ink)
    assert len(xs) > 30
    centroid = np.array([xs.mean(), ys.mean()])
    top, bottom = (poly[0] + poly[1]) / 2, (poly[2] + poly[3]) / 2
    assert np.linalg.norm(centroid - top) < np.linalg.norm(centroid - bottom)


def test_record_up_angle_matches_polygon(small_set: Path) -> None:
    for path in (small_set / "train" / "tiles").glob("*.json"):
        for tile in json.loads(path.read_text())["tiles"]:
            assert tile["up_deg"] == pytest.approx(synth._up_deg(np.array(tile["polygon"])), abs=0.11)


def test_made_sets_are_legal_and_respect_the_two_copies() -> None:
    rng = np.random.default_rng(11)
    kinds: Counter = Counter()
    for _ in range(40):
        bag = synth.Bag(rng)
        used: Counter = Counter()
        while (made := synth.make_set(rng, bag, 13)) is not None:
            kind, tiles = made
            kinds[kind] += 1
            used.update(t for t, _ in tiles)
            if kind != "random":
                verdict = check_set([t for t, _ in tiles])
                assert verdict.valid, (kind, [t.code for t, _ in tiles], verdict.problem)
                assert verdict.kind is not None and verdict.kind.value == kind
            assert all((jc is not None) == t.is_joker for t, jc in tiles)
        assert max(used.values()) <= 2
    assert kinds["run"] > 0 and kinds["group"] > 0 and kinds["random"] > 0


def test_scatter_and_sets_cover_every_class() -> None:
    seen: set[str] = set()
    rng = np.random.default_rng(5)
    style = sample_style("original", rng)
    scene = synth.Scene("scatter")
    synth.layout_scatter(rng, [style], 34.0, np.zeros(2), np.array([0.0, 1.0]), (-2000, 2000, -2000, 2000), scene, 600)
    seen.update(t.tile.code for t in scene.tiles)
    assert seen == {t.code for t in parse_tiles("J")} | {f"{c.value}{n}" for c in Colour for n in range(1, 14)}


def test_small_run_shows_all_colours_numbers_and_several_editions(small_set: Path) -> None:
    # Over a short run: a wider look than one image, still seconds.
    codes: Counter = Counter()
    editions: set[str] = set()
    for i in range(10):
        _, rec = synth.render_scene(synth.image_seed(1, "train", i), 160)
        codes.update(t["code"] for t in rec["tiles"])
        editions.update(t["edition"] for t in rec["tiles"])
    tiles = [parse_tile(c) for c in codes]
    assert {t.colour for t in tiles if not t.is_joker} == set(Colour)
    assert {t.number for t in tiles if not t.is_joker} == set(range(1, 14))
    assert len(editions) >= 3


def test_every_edition_renders_every_tile_and_both_jokers() -> None:
    rng = np.random.default_rng(2)
    for name in EDITIONS:
        style = sample_style(name, rng)
        faces = [render_face(Tile.from_index(i), style, rng) for i in range(52)]
        faces += [render_face(JOKER, style, rng, "red"), render_face(JOKER, style, rng, "black")]
        for face in faces:
            assert face.shape[2] == 4 and face.dtype == np.uint8
            assert face[..., 3].max() == 255 and face[0, 0, 3] < 255  # rounded corners are transparent
        # Tiles must differ from each other, and 6 from an upside-down 9 (logo / marks).
        six, nine = faces[5], faces[8]
        assert not np.array_equal(six[..., :3], np.rot90(nine, 2)[..., :3])


def test_bad_arguments_are_named() -> None:
    with pytest.raises(ValueError, match="unknown edition"):
        sample_style("nope", np.random.default_rng(0))
    with pytest.raises(ValueError, match="joker colour"):
        render_face(JOKER, sample_style("original", np.random.default_rng(0)), np.random.default_rng(0), "green")
    with pytest.raises(SystemExit):
        synth.main(["--train", "-1", "--card", "none"])
    with pytest.raises(SystemExit):
        synth.main(["--workers", "0", "--card", "none"])


def test_distractors_render() -> None:
    rng = np.random.default_rng(0)
    paper = synth._paper(rng, 34.0)
    assert paper.dtype == np.uint8 and paper.shape[2] == 4 and paper[..., :3].min() < 200  # ruled and written on
    # Scenes with an empty table, face-down tiles and a score pad do occur and render.
    kinds = Counter()
    for i in range(400):
        rng = synth.image_seed(0, "train", i)
        synth._image_size(rng, 1024)
        kinds[synth.choose_weighted(rng, synth.SCENE_KINDS)] += 1
    assert kinds["empty"] > 0


def test_depth_of_field_follows_a_thin_lens() -> None:
    """In focus: no blur; farther: more, up to infinity's; a phone's tiers 3 cm apart stay sharp."""
    focal_px, aperture = 1600.0, 3.0
    sigma = synth.defocus_sigma(focal_px, aperture, 400.0, np.array([400.0, 430.0, 800.0, 1600.0, np.inf]))
    assert sigma[0] == 0.0
    assert list(sigma) == sorted(sigma)
    assert sigma[-1] == pytest.approx(focal_px * aperture / 400.0 / 4)
    assert sigma[1] < 0.5  # the tier behind: under half a pixel
    assert synth.defocus_sigma(focal_px, aperture, 400.0, 300.0) > 0  # nearer than focus blurs too


def test_rack_close_ups_record_their_blur_and_keep_the_focused_tier_sharp() -> None:
    blurred = 0
    for index in range(40):
        _, record = synth.render_scene(synth.image_seed(3, "train", index), 512, ["dejavu_sans", "roboto"],
                                       scene_weights={"rack": 1.0})
        by_row: dict[int, list[float]] = {}
        for t in record["tiles"]:
            assert t["defocus_px"] >= 0
            if t["rack_row"] is not None:
                by_row.setdefault(t["rack_row"], []).append(t["defocus_px"])
        if any(t["defocus_px"] > 0 for t in record["tiles"]):
            blurred += 1
            assert min(min(v) for v in by_row.values()) < 0.6  # the tier in focus
    assert blurred >= 1  # most phone close-ups are sharp throughout: the lens is small


def test_background_weights_choose_the_table_and_leave_the_default_scenes_unchanged() -> None:
    """--backgrounds draws the named tables (motif cloths are training's hard negatives); the motif
    cloth's default weight of 0 leaves every scene rendered before it the same."""
    _, record = synth.render_scene(synth.image_seed(3, "train", 5), SIZE, background_weights={"motifs": 1.0})
    assert record["background"] == "motifs"
    default = synth.render_scene(synth.image_seed(3, "train", 5), SIZE)[1]["background"]
    with_zero = synth.render_scene(synth.image_seed(3, "train", 5), SIZE,
                                   background_weights=dict(synth.BACKGROUND_WEIGHTS))[1]["background"]
    assert default == with_zero != "motifs"
    cloth = make_background("motifs", 256, 256, np.random.default_rng(0), 2.0)
    assert cloth.shape == (256, 256, 3) and cloth.dtype == np.uint8 and cloth.std() > 10  # printed, not plain
    with pytest.raises(SystemExit):
        synth.main(["--backgrounds", "tartan=1", "--card", "none"])
    with pytest.raises(SystemExit):
        synth.main(["--backgrounds", "dots", "--card", "none"])


def test_fonts_split_in_one_chosen_family_draws_the_same_scenes(tmp_path: Path) -> None:
    """``--fonts-family`` draws the fonts split in one family: the same scenes as in any other
    family of its kind (so the typeface can be told from the scenes), numerals in that family only."""
    for family in ("dejavu_serif", "stix"):  # two serifs of matplotlib's, always installed
        synth.generate(tmp_path / family, {"fonts": 2}, seed=5, size=SIZE, card=None, progress=False, fonts_family=family)
    for i in range(2):
        a = json.loads((tmp_path / "dejavu_serif" / "fonts" / "tiles" / f"{i:06d}.json").read_text())
        b = json.loads((tmp_path / "stix" / "fonts" / "tiles" / f"{i:06d}.json").read_text())
        assert a["tiles"] and {t["font_family"] for t in a["tiles"]} <= {"dejavu_serif"}
        assert {t["font_family"] for t in b["tiles"]} <= {"stix"}
        assert (a["scene"], a["camera"], [t["code"] for t in a["tiles"]]) == (b["scene"], b["camera"], [t["code"] for t in b["tiles"]])
    with pytest.raises(SystemExit):
        synth.main(["--fonts", "1", "--fonts-family", "nope", "--card", "none", "--out", str(tmp_path / "x")])
