"""Teach the reader a player's tiles: ``python -m vision.teach PHOTO --tiles "R1 R2 | O1 O2" --profile DIR``.

The player lays tiles out in rows (say 1-13 of each colour and the jokers), photographs them from
above, and types them row by row, top to bottom, with ``|`` between rows. Every tile found on the
photo is matched to what was typed (rows by height, tiles left to right); a count that does not
match is a clear error naming the row. The crops become prototypes of a profile
(:mod:`vision.profile`), checked on held-back crops before it is saved: a profile that would read
the teaching tiles worse than the reader alone is refused. Calling it again with the same ``--profile``
adds the new photo's tiles to the profile.

Read with it: ``python -m vision.read PHOTO --profile DIR [--rack] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from referee.i18n import _, ngettext
from referee.tiles import TileError, parse_tile
from vision.profile import Profile, ProfileError, check_reader, load_profile, reader_stamp

__all__ = ["TeachResult", "teach", "rows_of", "choose_weight", "fit_profile", "held_back_with", "main"]

# Crops per taught tile: prototypes are made from PROTOTYPE_VIEWS jittered views, the check reads
# CHECK_VIEWS others (different box jitter, light and blur), so it sees crops the prototypes never did.
PROTOTYPE_VIEWS = 4
CHECK_VIEWS = 4
WEIGHTS = (0.3, 0.5, 0.7, 0.9)  # mixing weights tried by the check; the smallest of the best wins, 0 if none beats the reader


@dataclass(frozen=True)
class TeachResult:
    """What a teaching call did: tiles taught from this photo, the check, the profile's size."""

    tiles: int
    rows: int
    reader_alone: float  # exact reading of the held-back crops by the reader alone
    with_profile: float  # ... and with the profile (all photos taught so far)
    weight: float
    examples: int  # prototypes in the profile after this photo
    codes: int  # distinct codes taught so far
    seconds: float

    def to_dict(self) -> dict:
        return {"tiles": self.tiles, "rows": self.rows, "reader_alone": round(self.reader_alone, 4),
                "with_profile": round(self.with_profile, 4), "weight": self.weight, "examples": self.examples,
                "codes": self.codes, "seconds": round(self.seconds, 2)}


def parse_rows(text: str) -> list[list[str]]:
    """``"R1 R2 | O1 O2"`` -> [["R1", "R2"], ["O1", "O2"]]; a bad code raises TileError naming it."""
    rows = [r.split() for r in text.split("|")]
    if not any(rows):
        raise ProfileError('type the tiles of the photo row by row, e.g. --tiles "R1 R2 R3 | O1 O2 O3"')
    for i, row in enumerate(rows, 1):
        if not row:
            raise ProfileError(f"row {i} of --tiles is empty: put one | between two rows of tiles")
        for code in row:
            parse_tile(code)
    return [[parse_tile(c).code for c in row] for row in rows]


def rows_of(boxes: np.ndarray) -> list[list[int]]:
    """Indices of ``boxes`` (xyxy) grouped in rows, top to bottom, each left to right.

    The rows may slope (a photo taken a little askew): their direction is the median direction
    from each tile to its nearest neighbour beside it in its row (tiles are taller than wide, so a
    tile's nearest neighbour is beside it, not in the next row). Along that direction, a new row starts
    where a box's centre lies more than 0.6 of the median tile height from the running centre of
    the current row.
    """
    if len(boxes) == 0:
        return []
    centres = np.column_stack([(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2]).astype(np.float64)
    h = float(np.median(boxes[:, 3] - boxes[:, 1]))
    slope = _row_slope(centres)
    cos, sin = np.cos(slope), np.sin(slope)
    along = cos * centres[:, 0] + sin * centres[:, 1]
    across = -sin * centres[:, 0] + cos * centres[:, 1]
    rows: list[list[int]] = []
    for i in np.argsort(across):
        if rows and abs(across[i] - np.mean(across[rows[-1]])) <= 0.6 * h:
            rows[-1].append(int(i))
        else:
            rows.append([int(i)])
    return [sorted(r, key=lambda k: float(along[k])) for r in rows]


def _row_slope(centres: np.ndarray) -> float:
    """The rows' angle to the photo's x axis (radians, within 45 degrees; 0 with fewer than 3 tiles)."""
    if len(centres) < 3:
        return 0.0
    d = np.linalg.norm(centres[:, None] - centres[None], axis=2)
    np.fill_diagonal(d, np.inf)
    v = centres[d.argmin(axis=1)] - centres
    v = v[np.abs(v[:, 0]) >= np.abs(v[:, 1])]  # neighbours beside, not above or below
    if len(v) == 0:
        return 0.0
    v = np.where(v[:, :1] < 0, -v, v)  # pointing right
    return float(np.median(np.arctan2(v[:, 1], v[:, 0])))


TEACH_FLOOR = 0.15
"""Lowest detector score considered when the tiles found at the usual threshold do not match the
rows typed: the player said how many tiles each row holds."""


def tiles_in_rows(model, image: np.ndarray, counts: list[int]) -> tuple[np.ndarray, list[list[int]]]:  # noqa: ANN001
    """Tile boxes of a teaching photo and their rows (:func:`rows_of`), matching the typed row
    ``counts`` when the detector allows it.

    With the float networks (:meth:`vision.detect.TileModel.with_float_networks`). First the
    usual detection; if its rows do not match, the boxes down to :data:`TEACH_FLOOR` that
    the reader takes for tiles are ranked by score and the best ``sum(counts)`` kept: a tile the
    detector half-doubted is taken because the player said it is there. If that does not match
    either, the usual detection is returned and the caller names the row that differs."""
    import copy
    from dataclasses import replace

    model = model.with_float_networks() if hasattr(model, "with_float_networks") else model
    boxes, _ = model.find_boxes(image)
    found = rows_of(boxes)
    if [len(r) for r in found] == counts:
        return boxes, found
    lenient = copy.copy(model)  # same networks; the shared model's settings stay as they are for other requests
    lenient.settings = replace(model.settings, min_score=TEACH_FLOOR, confirm_below=0.0)
    more, scores = lenient.find_boxes(image)
    read = lenient.read_detections(image, more, scores)
    best = np.argsort(-read.scores)[: sum(counts)]
    chosen = read.boxes_xyxy[best]
    rows = rows_of(chosen)
    if [len(r) for r in rows] == counts:
        return chosen, rows
    return boxes, found


def jittered_views(image: np.ndarray, boxes: np.ndarray, model, rng: np.random.Generator, count: int) -> np.ndarray:
    """``count`` jittered crops of each box: (len(boxes) * count, S, S, 3), box-major order."""
    import cv2

    from vision.crops import photometric

    out = []
    for box in boxes:
        w, h = box[2] - box[0], box[3] - box[1]
        for _ in range(count):
            jit = rng.normal(0, 0.05, 4) * np.array([w, h, w, h])
            crop = model.crops(image, (box + jit)[None])[0]
            crop = photometric(crop, rng) if rng.random() < 0.8 else crop
            if rng.random() < 0.2:
                crop = cv2.GaussianBlur(crop, (3, 3), 0)
            out.append(crop)
    return np.stack(out)


def choose_weight(features: np.ndarray, codes: np.ndarray, held: dict) -> tuple[float, float, float]:
    """The mixing weight of prototypes (``features`` L2-normalised, ``codes``) chosen on held-back
    crops ``held`` (:attr:`Profile.held_back`): (weight, reader-alone accuracy, accuracy with it).

    The weight is the smallest of :data:`WEIGHTS` that reads the most crops right, and 0 (the
    profile changes no reading) when none reads more of them right than the reader alone: a
    profile that cannot show it fixes something only has readings to spoil (measured in session 8:
    a profile that tied on its check made 2 of 156 tiles of other photos read worse). Raises
    :class:`ProfileError` when every weight reads the crops worse than the reader alone.
    """
    truth = np.asarray(held["codes"])
    probs, feats = np.asarray(held["probs"]), np.asarray(held["features"])
    alone = float((probs.argmax(axis=1) == truth).mean())
    weight, best, tried = 0.0, alone, []
    for w in WEIGHTS:
        acc = float((Profile(features, codes, w).apply(probs, feats).argmax(axis=1) == truth).mean())
        tried.append(acc)
        if acc > best + 1e-9:
            weight, best = w, acc
    if max(tried) < alone - 1e-9:
        raise ProfileError(_("refused: with this profile {with_profile} of the held-back crops read right, against "
                             "{alone} with the reader alone; check the typed tiles against the photo").format(
            with_profile=f"{max(tried):.1%}", alone=f"{alone:.1%}"))
    return weight, alone, best


def fit_profile(model, views: np.ndarray, codes: np.ndarray, check_views: np.ndarray, check_codes: np.ndarray,
                previous: Profile | None = None) -> tuple[Profile, float, float]:
    """A profile from prototype ``views`` (plus a ``previous`` profile's), its weight chosen
    (:func:`choose_weight`) on the held-back ``check_views`` and the previous profile's held-back
    crops; returns (profile, reader-alone accuracy, accuracy with the profile) on those crops.

    Raises :class:`ProfileError` when every weight reads the held-back crops worse than the
    reader alone: that profile would make good readings worse.
    """
    from vision.detect import combine

    number, colour, _up, feats = model.read_crops(views)
    if feats.shape[1] == 0:
        raise ProfileError("this reader gives no features, so no profile can be taught: use models/tile_reader.onnx "
                           "as shipped (it exports them)")
    features, proto_codes = feats, codes
    if previous is not None:
        if previous.features.shape[1] != feats.shape[1]:
            raise ProfileError("the profile was taught on another reader (its features differ): teach it again "
                               "into a new folder")
        features, proto_codes = np.vstack([previous.features, feats]), np.concatenate([previous.codes, codes])
    features = features / np.linalg.norm(features, axis=1, keepdims=True)
    cn, cc, _cup, cf = model.read_crops(check_views)
    held = held_back_with(previous.held_back if previous else {}, cf, combine(cn, cc), check_codes)
    weight, alone, acc = choose_weight(features, proto_codes, held)
    photos = (previous.photos if previous else 0) + 1
    profile = Profile(features, proto_codes, weight, photos,
                      {"reader_alone": round(alone, 4), "with_profile": round(acc, 4), "check_crops": int(len(held["codes"]))})
    profile.held_back = held
    return profile, alone, acc


def held_back_with(held: dict, features: np.ndarray, probs: np.ndarray, codes: np.ndarray) -> dict:
    """``held`` (a profile's held-back crops, see :attr:`Profile.held_back`) with more crops added."""
    new = {"features": np.asarray(features, np.float32), "probs": np.asarray(probs, np.float32),
           "codes": np.asarray(codes, np.int64)}
    if not held or len(held.get("codes", ())) == 0 or held["features"].shape[1] != new["features"].shape[1]:
        return new
    return {k: np.concatenate([np.asarray(held[k]), new[k]]) for k in new}


def teach(photo_bytes: bytes, rows_text: str, profile_dir: Path | str | None, reader=None, seed: int = 0,
          save: bool = True, previous: Profile | None = None) -> tuple[Profile, TeachResult]:
    """Teach one photo's typed tiles into the profile at ``profile_dir`` (created or extended).

    ``previous``: the profile to extend when it is kept elsewhere (the app's database; then
    ``profile_dir`` is None)."""
    from vision.image import decode_photo
    from vision.pipeline import load_reader

    t0 = time.perf_counter()
    rows = parse_rows(rows_text)
    reader = reader or load_reader()
    model = reader.model
    model = model.with_float_networks() if hasattr(model, "with_float_networks") else model  # the profile's features: the float reader's
    photo = decode_photo(photo_bytes)
    image = photo.image
    boxes, found = tiles_in_rows(model, image, [len(r) for r in rows])
    if len(found) != len(rows):
        raise ProfileError(ngettext(
            "you typed {typed} row of tiles, the photo shows {found}: lay the tiles in clear rows, photograph them "
            "from above, and type the rows top to bottom with | between them",
            "you typed {typed} rows of tiles, the photo shows {found}: lay the tiles in clear rows, photograph them "
            "from above, and type the rows top to bottom with | between them", len(rows)).format(
            typed=len(rows), found=len(found)))
    for i, (typed, seen) in enumerate(zip(rows, found), 1):
        if len(typed) != len(seen):
            raise ProfileError(_("row {row}: you typed {typed} tiles, the photo shows {found} there").format(
                row=i, typed=len(typed), found=len(seen)))
    order = [k for row in found for k in row]
    codes = np.array([parse_tile(c).index for row in rows for c in row], int)
    chosen = boxes[order]
    rng = np.random.default_rng(seed)
    views = jittered_views(image, chosen, model, rng, PROTOTYPE_VIEWS)
    check = jittered_views(image, chosen, model, np.random.default_rng(seed + 1), CHECK_VIEWS)
    card = model.cards.get("tile_reader", {})
    if previous is None and profile_dir is not None and (Path(profile_dir) / "profile.json").exists():
        previous = load_profile(profile_dir)
    if previous is not None:  # a photo added to a profile taught on another reader would mix two feature spaces
        check_reader(previous, card, str(profile_dir or ""))
    profile, alone, acc = fit_profile(model, views, np.repeat(codes, PROTOTYPE_VIEWS), check,
                                      np.repeat(codes, CHECK_VIEWS), previous)
    profile.reader = reader_stamp(card)
    if save and profile_dir is not None:
        profile.save(profile_dir)
    result = TeachResult(len(codes), len(rows), alone, acc, profile.weight, len(profile.codes), len(set(profile.codes.tolist())),
                         time.perf_counter() - t0)
    return profile, result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision.teach", description=__doc__.split("\n\n")[0].split(": ", 1)[0])
    p.add_argument("photo", type=Path, help="photo of the tiles laid out in rows")
    p.add_argument("--tiles", required=True, help='the tiles row by row, top to bottom, | between rows: "R1 R2 R3 | O1 O2 O3"')
    p.add_argument("--profile", required=True, type=Path, help="profile folder (created, or extended if it exists)")
    p.add_argument("--models", type=Path, default=None, help="folder of the shipped models (default models/)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    args = p.parse_args(argv)
    from vision.image import ImageError
    from vision.pipeline import load_reader

    try:
        data = args.photo.read_bytes()
    except OSError as exc:
        print(f"error: cannot read {args.photo}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    try:
        _profile, result = teach(data, args.tiles, args.profile, load_reader(args.models))
    except (ProfileError, TileError, ImageError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        print(f"taught {result.tiles} tiles in {result.rows} rows into {args.profile} ({result.codes} codes, "
              f"{result.examples} examples); held-back check: {result.reader_alone:.1%} read right by the reader alone, "
              f"{result.with_profile:.1%} with the profile; {result.seconds:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
