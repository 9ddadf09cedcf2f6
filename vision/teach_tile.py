"""Add one corrected tile to a taught profile: the photo, the tile's box and the code the player chose.

After a tap-to-correct on a photo read with a profile, the player may add that tile to the profile
(on the page: "Add this tile to my profile"). Its crop becomes prototypes as in teaching
(:mod:`vision.teach`: jittered views of the box), and the addition is checked like teaching: the
profile's held-back crops (:attr:`vision.profile.Profile.held_back`, other views of every tile taught
so far) must read at least as well with the tile added as without it, else it is refused. The
tile's own held-back views join the check for later additions.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np

from referee.i18n import _
from referee.tiles import parse_tile
from vision.profile import Profile, ProfileError
from vision.teach import CHECK_VIEWS, PROTOTYPE_VIEWS, choose_weight, held_back_with, jittered_views

__all__ = ["TileAdded", "add_tile"]


@dataclass(frozen=True)
class TileAdded:
    """What adding one tile did: the check on the held-back crops before and after, the tile's own views."""

    tile: str
    held_back: int  # held-back crops checked (the tiles taught before)
    before: float  # exact reading of them with the profile as it was
    after: float  # ... and with the tile added
    tile_before: float  # the new tile's own held-back views read as its code, with the profile as it was
    tile_after: float  # ... and with the tile added
    examples: int  # prototypes in the profile after the addition
    seconds: float

    def to_dict(self) -> dict:
        return {"tile": self.tile, "held_back": self.held_back, "before": round(self.before, 4),
                "after": round(self.after, 4), "tile_before": round(self.tile_before, 4),
                "tile_after": round(self.tile_after, 4), "examples": self.examples, "seconds": round(self.seconds, 2)}


def add_tile(photo, box_xyxy: tuple[float, float, float, float], code: str, profile: Profile, reader,
             seed: int = 0) -> tuple[Profile, TileAdded]:
    """The profile with the tile at ``box_xyxy`` (the photo's full-size pixels) taught as ``code``.

    ``photo`` is the photo's bytes or a :class:`~vision.image.DecodedPhoto`. Raises
    :class:`ProfileError` (a sentence) for a box outside the photo, a profile without held-back
    crops, or an addition that reads the held-back crops worse; the referee's TileError for a bad code.
    """
    from vision.detect import combine
    from vision.image import DecodedPhoto, decode_photo

    t0 = time.perf_counter()
    tile = parse_tile(code)
    if not profile.held_back or len(profile.held_back.get("codes", ())) == 0:
        raise ProfileError("this profile keeps no held-back crops to check a new tile against: teach it again from a photo")
    photo = photo if isinstance(photo, DecodedPhoto) else decode_photo(photo)
    box = np.asarray(box_xyxy, np.float32).reshape(4)
    if not np.isfinite(box).all() or box[2] - box[0] < 4 or box[3] - box[1] < 4:
        raise ProfileError(_("the tile's box {box} is not a box: x1 y1 x2 y2 with x2 > x1 and y2 > y1").format(
            box=" ".join(f"{v:g}" for v in box.round(1).tolist())))
    if box[0] < -1 or box[1] < -1 or box[2] > photo.width + 1 or box[3] > photo.height + 1:
        raise ProfileError(_("the tile's box lies outside the {width} x {height} photo").format(
            width=photo.width, height=photo.height))
    scaled = (box / np.float32(photo.scale))[None]
    model = reader.model
    model = model.with_float_reader() if hasattr(model, "with_float_reader") else model  # the reader the profile was taught with
    views = jittered_views(photo.image, scaled, model, np.random.default_rng(seed), PROTOTYPE_VIEWS)
    check = jittered_views(photo.image, scaled, model, np.random.default_rng(seed + 1), CHECK_VIEWS)
    feats = model.read_crops(views)[3]
    cn, cc, _up, cf = model.read_crops(check)
    if feats.shape[1] != profile.features.shape[1]:
        raise ProfileError("the profile was taught on another reader (its features differ): teach it again")
    feats = feats / np.linalg.norm(feats, axis=1, keepdims=True)
    features = np.vstack([profile.features, feats])
    codes = np.concatenate([profile.codes, np.full(len(feats), tile.index)])
    held = profile.held_back
    base = combine(cn, cc)
    grown_held = held_back_with(held, cf, base, np.full(len(cf), tile.index))
    # The weight is chosen again with the new tile's own held-back views among the crops: a
    # profile that changed nothing before (weight 0) starts to count once a correction shows it helps.
    weight = choose_weight(features, codes, grown_held)[0]
    grown = replace(profile, features=features, codes=codes, weight=weight)
    right_before = int((profile.apply(held["probs"], held["features"]).argmax(axis=1) == held["codes"]).sum())
    right_after = int((grown.apply(held["probs"], held["features"]).argmax(axis=1) == held["codes"]).sum())
    n = len(held["codes"])
    if right_after < right_before:
        raise ProfileError(_("refused: with this tile added, {after} of the held-back crops read right, against "
                             "{before} without it; check the tile you chose").format(
            after=f"{right_after / n:.1%}", before=f"{right_before / n:.1%}"))
    tile_before = float((profile.apply(base, cf).argmax(axis=1) == tile.index).mean())
    tile_after = float((grown.apply(base, cf).argmax(axis=1) == tile.index).mean())
    grown.held_back = grown_held
    grown.check = {**profile.check, "added_tiles": int(profile.check.get("added_tiles", 0)) + 1}
    return grown, TileAdded(tile.code, n, right_before / n, right_after / n, tile_before, tile_after, len(grown.codes),
                            time.perf_counter() - t0)
