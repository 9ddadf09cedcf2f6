"""Training samples for the reader: tile patches from real and rendered photos, augmented.

Every sample ends in ``vision.crops.crop_square`` - the very function inference applies to the
detector's boxes - so training and serving see crops made the same way. What varies is the tile
under the crop: any rotation, a box as loose or tight as a real detector's, light, blur, noise.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from referee.tiles import Tile
from vision.boxes import iou_matrix
from vision.crops import photometric

# The reader's class numbers (vision.train.reader_net's; a test checks they agree). Not imported from
# there: it pulls torch.
JOKER_CLASS = 13
NONE_CLASS = 14

PATCH_DIAG = 80.0  # tiles are rescaled so that their box diagonal is about this many pixels
PATCH_SIDE = 192  # room to rotate the tile and still cut a loose box around it
PARTLY_HIDDEN_BELOW = 0.9  # as datasets.synth: below this share of the face seen, the label is the visible box


@dataclass
class Sample:
    """A patch around one tile (or a non-tile box) and what the heads must say about it."""

    patch: np.ndarray  # (PATCH_SIDE, PATCH_SIDE, 3) uint8 BGR
    polygon: np.ndarray  # (K, 2) float32 outline in patch pixels (for "none": the box corners)
    number: int  # 0-12 numbers, 13 joker, 14 none
    colour: int  # 0-3, or -1 when it does not apply
    up: np.ndarray  # (2,) unit vector in patch pixels, NaN when unknown
    source: str
    box_only: bool = False  # the polygon is a detector's axis-aligned box, not the tile outline


def tile_targets(tile: Tile | None) -> tuple[int, int]:
    """(number class, colour class) of a tile; None means "not a tile"."""
    if tile is None:
        return NONE_CLASS, -1
    if tile.is_joker:
        return JOKER_CLASS, -1
    assert tile.colour is not None and tile.number is not None
    return tile.number - 1, tile.colour.index


def _extract(image: np.ndarray, polygon: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Patch of PATCH_SIDE pixels centred on the polygon, scaled so its box diagonal ~ PATCH_DIAG."""
    x1, y1 = polygon.min(axis=0)
    x2, y2 = polygon.max(axis=0)
    diag = max(math.hypot(x2 - x1, y2 - y1), 4.0)
    s = PATCH_DIAG / diag
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    m = np.array([[s, 0, PATCH_SIDE / 2 - s * cx], [0, s, PATCH_SIDE / 2 - s * cy]], dtype=np.float32)
    interp = cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR
    patch = cv2.warpAffine(image, m, (PATCH_SIDE, PATCH_SIDE), flags=interp, borderMode=cv2.BORDER_REPLICATE)
    poly = polygon * s + m[:, 2]
    return patch, poly.astype(np.float32)


def samples_from_photo(
    image: np.ndarray, tiles: list[tuple[Tile, np.ndarray, np.ndarray | None]], rng: np.random.Generator,
    source: str, negatives: float = 0.15,
) -> list[Sample]:
    """Samples for every tile of one photo plus some "none" boxes that cover no whole tile.

    ``tiles`` holds (tile, polygon (K, 2) pixels, up vector or None).
    """
    out: list[Sample] = []
    boxes = []
    for tile, poly, up in tiles:
        poly = np.asarray(poly, dtype=np.float32)
        patch, ppoly = _extract(image, poly)
        number, colour = tile_targets(tile)
        u = np.full(2, np.nan, dtype=np.float32) if up is None else np.asarray(up, dtype=np.float32)
        out.append(Sample(patch, ppoly, number, colour, u, source))
        boxes.append([*poly.min(axis=0), *poly.max(axis=0)])
    if not boxes:
        return out
    boxes_arr = np.array(boxes, dtype=np.float32)
    sizes = boxes_arr[:, 2:] - boxes_arr[:, :2]
    h, w = image.shape[:2]
    wanted = max(1, int(round(len(tiles) * negatives)))
    for _ in range(wanted * 20):
        if wanted == 0:
            break
        bw, bh = sizes[rng.integers(len(sizes))] * rng.uniform(0.6, 1.6, size=2)
        if rng.random() < 0.5:  # near a tile: half tiles and gaps between neighbours
            ref = boxes_arr[rng.integers(len(boxes_arr))]
            cx = (ref[0] + ref[2]) / 2 + rng.uniform(-1, 1) * bw
            cy = (ref[1] + ref[3]) / 2 + rng.uniform(-1, 1) * bh
        else:
            cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        box = np.array([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], dtype=np.float32)
        if box[0] < 0 or box[1] < 0 or box[2] > w or box[3] > h:
            continue
        if iou_matrix(box, boxes_arr).max() > 0.3:
            continue
        poly = np.array([[box[0], box[1]], [box[2], box[1]], [box[2], box[3]], [box[0], box[3]]], dtype=np.float32)
        patch, ppoly = _extract(image, poly)
        out.append(Sample(patch, ppoly, NONE_CLASS, -1, np.full(2, np.nan, dtype=np.float32), source))
        wanted -= 1
    return out


def load_real_samples(split: str, rng: np.random.Generator) -> list[Sample]:
    from datasets import real

    samples: list[Sample] = []
    for photo in real.load_split(split):
        image = cv2.imread(str(photo.image_path))
        tiles = [(t.tile, np.array(t.polygon_xy, dtype=np.float32), None) for t in photo.tiles]
        samples += samples_from_photo(image, tiles, rng, "real")
    return samples


def load_detector_box_samples(split: str, models_dir: Path, rng: np.random.Generator) -> list[Sample]:
    """Real tiles cropped around the boxes the trained detector draws for them.

    Training on these teaches the reader the boxes it will get at inference (looser, shifted,
    clipped) rather than only the labelled outlines.
    """
    from datasets import real
    from vision.detect import TileModel
    from vision.boxes import match_boxes

    model = TileModel(models_dir)
    samples: list[Sample] = []
    for photo in real.load_split(split):
        image = cv2.imread(str(photo.image_path))
        boxes, _ = model.find_boxes(image)
        truth = np.array([t.box_xyxy for t in photo.tiles], np.float32).reshape(-1, 4)
        for p, t in match_boxes(boxes, truth):
            x1, y1, x2, y2 = boxes[p]
            corners = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float32)
            patch, ppoly = _extract(image, corners)
            number, colour = tile_targets(photo.tiles[t].tile)
            samples.append(Sample(patch, ppoly, number, colour, np.full(2, np.nan, np.float32), "real-detector", True))
    return samples


MINED_MAX_IOU = 0.1
"""A detector box overlapping every tile of the scene less than this (IoU) is a mined "not a tile"."""


def mined_negatives(image: np.ndarray, record: dict, detector) -> list[Sample]:
    """"Not a tile" samples from the boxes a trained detector draws where a rendered scene has no
    tile: the cloth patterns, rack bars and face-down tiles it actually mistakes for tiles (hard
    negatives, which random boxes rarely hit). Boxes touching the picture's edge are skipped: a
    tile cut by the edge is not in the scene's record but is still a tile.

    ``detector`` is a :class:`vision.detect.TileModel` (its settings set how doubtful a box may be).
    """
    h, w = image.shape[:2]
    boxes, _ = detector.find_boxes(image)
    tiles = np.array([t["box"] for t in record["tiles"]], np.float32).reshape(-1, 4)
    out: list[Sample] = []
    for box in boxes:
        x1, y1, x2, y2 = (float(v) for v in box)
        if x1 <= 2 or y1 <= 2 or x2 >= w - 2 or y2 >= h - 2 or x2 - x1 < 6 or y2 - y1 < 6:
            continue
        if len(tiles) and float(iou_matrix(np.asarray(box, np.float32), tiles).max()) >= MINED_MAX_IOU:
            continue
        corners = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float32)
        patch, ppoly = _extract(image, corners)
        out.append(Sample(patch, ppoly, NONE_CLASS, -1, np.full(2, np.nan, np.float32), "synthetic-mined", True))
    return out


def load_synthetic_samples(folder: Path, rng: np.random.Generator, max_images: int | None = None,
                           detector=None) -> list[Sample]:
    """Samples from rendered scenes (``datasets.synth`` output: images/ and tiles/*.json).

    With ``detector`` (a :class:`vision.detect.TileModel`), the boxes it draws where the scene has
    no tile are added as "not a tile" (:func:`mined_negatives`).
    """
    from referee.tiles import parse_tile
    from vision.evaluate.tiles import legible

    samples: list[Sample] = []
    labels = sorted((folder / "tiles").glob("*.json"))
    if max_images is not None:
        labels = labels[:max_images]
    for label in labels:
        data = json.loads(label.read_text())
        image_path = folder / "images" / (label.stem + ".jpg")
        image = cv2.imread(str(image_path))
        if image is None:
            continue
        tiles = []
        partial = []
        for t in data["tiles"]:
            if t.get("hidden"):
                continue  # mostly behind the tier in front: no reading to learn (the detector skips it too)
            if not legible(t):
                continue  # too thin or blurred for anyone to read: learning it would teach guessing
            poly = np.array(t["polygon"], dtype=np.float32)
            # corners are top-left, top-right, bottom-right, bottom-left of the upright face
            up = (poly[0] + poly[1]) / 2 - (poly[3] + poly[2]) / 2
            up = up / (np.linalg.norm(up) + 1e-6)
            if t.get("visible", 1.0) < PARTLY_HIDDEN_BELOW:
                # The detector boxes what shows (datasets.synth labels the same): crop around that.
                x1, y1, x2, y2 = t["visible_box"]
                box = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float32)
                partial.append((parse_tile(t["code"]), box, up))
            else:
                tiles.append((parse_tile(t["code"]), poly, up))
        samples += samples_from_photo(image, tiles, rng, "synthetic")
        if detector is not None:
            samples += mined_negatives(image, data, detector)
        for tile, box, up in partial:
            patch, ppoly = _extract(image, box)
            number, colour = tile_targets(tile)
            samples.append(Sample(patch, ppoly, number, colour, up.astype(np.float32), "synthetic-partial", True))
    return samples


def _shape_warp(rng: np.random.Generator) -> np.ndarray:
    """A 2x3 affine about the patch centre: aspect change and shear (numerals of other type designs)."""
    sx = rng.uniform(0.8, 1.2)
    shear = rng.uniform(-0.2, 0.2)
    a = np.array([[sx, shear], [0.0, 1.0 / math.sqrt(sx)]], dtype=np.float64)
    c = np.array([PATCH_SIDE / 2, PATCH_SIDE / 2])
    return np.hstack([a, (c - a @ c)[:, None]])


def _compose(outer: np.ndarray, inner: np.ndarray) -> np.ndarray:
    """The 2x3 affine applying ``inner`` first, then ``outer``."""
    o = np.vstack([outer, [0, 0, 1]])
    i = np.vstack([inner, [0, 0, 1]])
    return (o @ i)[:2]


def _stroke_weight(patch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Numerals a little bolder (grey erosion: dark ink spreads) or lighter (dilation)."""
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    op = cv2.erode if rng.random() < 0.5 else cv2.dilate
    return op(patch, kernel, iterations=int(rng.integers(1, 3)))


def augment(sample: Sample, rng: np.random.Generator, size: int, strong: bool = True,
            stretch_at: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """One training crop (size x size x 3 uint8) and its up vector in crop pixels (``stretch_at``:
    the crop rule of :func:`vision.crops.crop_square`)."""
    from vision.crops import crop_square, window_sides

    patch, poly = sample.patch, sample.polygon
    if strong:
        # A detector's box stays the box of the same tile only under quarter turns.
        angle = 90.0 * rng.integers(4) if sample.box_only else rng.uniform(0, 360)
        scale = rng.uniform(0.8, 1.2)
        m = cv2.getRotationMatrix2D((PATCH_SIDE / 2, PATCH_SIDE / 2), angle, scale)
        if rng.random() < 0.5:  # other editions' numerals: narrower, wider, slanted
            m = _compose(m, _shape_warp(rng))
        patch = cv2.warpAffine(patch, m, (PATCH_SIDE, PATCH_SIDE), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        if rng.random() < 0.3:  # lighter or bolder strokes than the rendered font
            patch = _stroke_weight(patch, rng)
        poly = poly @ m[:, :2].T + m[:, 2]
        up = m[:, :2] @ sample.up if not np.isnan(sample.up).any() else sample.up
    else:
        up = sample.up
    x1, y1 = poly.min(axis=0)
    x2, y2 = poly.max(axis=0)
    if strong:  # a detector's box is rarely exact
        bw, bh = x2 - x1, y2 - y1
        jit = rng.normal(0, 0.02 if sample.box_only else 0.08, size=4) * np.array([bw, bh, bw, bh])
        x1, y1, x2, y2 = x1 + jit[0], y1 + jit[1], x2 + jit[2], y2 + jit[3]
    box = (float(x1), float(y1), float(x2), float(y2))
    crop = crop_square(patch, box, size, stretch_at=stretch_at)
    if stretch_at > 1.0 and not np.isnan(up).any():  # into the stretched crop's axes
        up = up / np.array(window_sides(box, stretch_at=stretch_at))
    if strong and rng.random() < 0.2:  # a small tile far from the camera: few pixels, enlarged
        low = int(rng.integers(size // 3, size * 3 // 4))
        crop = cv2.resize(cv2.resize(crop, (low, low), interpolation=cv2.INTER_AREA), (size, size),
                          interpolation=cv2.INTER_LINEAR)
    if strong:
        crop = photometric(crop, rng)
    if not np.isnan(up).any():
        up = up / (np.linalg.norm(up) + 1e-6)
    return crop, up.astype(np.float32)


def load_dice_samples(folder: Path, rng: np.random.Generator, max_images: int | None = None,
                      side_share: float = 0.35) -> list[Sample]:
    """Samples from rendered dice scenes (``datasets.synth_dice`` output: images/ and dice/*.json).

    Every die's TOP face is a sample read like a tile (same heads, same crop). Visible side faces
    of at least ``side_share`` of a top face's area become "none" samples: a box on a side face
    must never be read as the die's top face (RULES.md section 8 scores the faces that show up).
    Blank squares lying on the table (``blanks`` in the scene file) are "none" samples too.
    """
    from referee.tiles import parse_tile

    samples: list[Sample] = []
    labels = sorted((folder / "dice").glob("*.json"))
    if max_images is not None:
        labels = labels[:max_images]
    for label in labels:
        data = json.loads(label.read_text())
        image = cv2.imread(str(folder / "images" / data["image"]))
        if image is None or not data["dice"]:
            continue
        tops = [(parse_tile(d["code"]), np.array(d["polygon"], dtype=np.float32), np.array(d["up"], dtype=np.float32))
                for d in data["dice"]]
        samples += samples_from_photo(image, tops, rng, "dice")
        top_area = float(np.median([cv2.contourArea(p) for _, p, _ in tops]))
        for side in data.get("side_faces", []):
            if side["area"] < side_share * top_area:
                continue  # a sliver seen edge-on: no detector mistakes it for a top face
            patch, ppoly = _extract(image, np.array(side["polygon"], dtype=np.float32))
            samples.append(Sample(patch, ppoly, NONE_CLASS, -1, np.full(2, np.nan, dtype=np.float32), "dice-side"))
        h, w = image.shape[:2]
        for blank in data.get("blanks", []):  # die-sized blank squares on the table: not dice either
            poly = np.array(blank, dtype=np.float32)
            if poly.min() < 0 or poly[:, 0].max() > w or poly[:, 1].max() > h:
                continue
            patch, ppoly = _extract(image, poly)
            samples.append(Sample(patch, ppoly, NONE_CLASS, -1, np.full(2, np.nan, dtype=np.float32), "dice-blank"))
    return samples
