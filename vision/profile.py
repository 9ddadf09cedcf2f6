"""Taught profiles: the reader adapted to one player's tile edition by examples of its tiles.

A player whose tiles read badly lays some out in rows, photographs them and types them
(``python -m vision.teach``). Each tile's crop goes through the shipped reader, whose pooled
features (the 4th output of ``tile_reader.onnx``) become *prototypes*: examples of what that code
looks like in this edition. Reading with a profile, a tile's features are compared with the
prototypes (cosine similarity, nearest example per code) and the resulting distribution is mixed
into the reader's own probabilities; a code never taught keeps the reader's probability.

Why prototypes and not a new head (measured in models/README.md): a head trained on one photo's
50-odd crops has one example per class and overfits; nearest prototypes need no training, take
milliseconds, and a code's prototypes only pull readings towards codes that were taught.

The profile must never make a good reading worse: :func:`fit_profile` checks it on held-back
crops of the teaching photos (other box jitters, light and blur than the prototypes were made
from) and refuses a profile that reads them worse than the reader alone; one that reads them no
better gets weight 0 and changes no reading (``vision.teach.choose_weight``).

A profile folder holds ``profile.json`` (codes, photos, the check's figures, the mixing weight)
and ``prototypes.npy`` (float32, one L2-normalised feature row per taught crop).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from referee.tiles import Tile, parse_tile
from vision.detections import N_CODES

__all__ = ["Profile", "ProfileError", "load_profile", "profile_to_bytes", "profile_from_bytes", "reader_stamp",
           "check_reader", "PROFILE_FILE",
           "PROTOTYPES_FILE"]

PROFILE_FILE = "profile.json"
PROTOTYPES_FILE = "prototypes.npy"
TEMPERATURE = 0.05  # cosine similarity -> probability sharpness (features are L2-normalised)
NEAR_FROM, NEAR_FULL = 0.8, 0.9
"""A tile whose features are less similar than ``NEAR_FROM`` (cosine) to every prototype is read by
the reader alone; from ``NEAR_FULL`` up the profile has its full weight, in between a share. A tile
unlike every taught example (another angle, light or distance than the teaching photo) is where
prototypes mislead: without this, readers continued on more data (sessions 11 and 12) read
rendered racks and tables worse with a profile that passed its check (quicksand 0.9904 -> 0.9839);
with it, no family reads worse (models/README.md, session 12)."""


class ProfileError(ValueError):
    """A profile that cannot be taught, loaded or used, with a sentence saying why."""


@dataclass
class Profile:
    """Prototypes of one edition's tiles in the reader's feature space.

    Fields
    ------
    features: (M, D) float32, L2-normalised reader features of the taught crops.
    codes: (M,) int, the ``Tile.index`` (0-52) of each row.
    weight: how much of the reading comes from the prototypes where they are sure (0-1).
    photos: how many teaching photos went in.
    check: figures of the held-back check (reader alone vs with the profile).
    reader: the reader file's size and card date the features come from (a profile taught on
        another reader is refused: its feature space is another one).
    """

    features: np.ndarray
    codes: np.ndarray
    weight: float = 0.7
    photos: int = 0
    check: dict = field(default_factory=dict)
    reader: dict = field(default_factory=dict)
    created: str = ""
    held_back: dict = field(default_factory=dict)
    """The reader's outputs on the held-back check crops: ``features`` (K, D), ``probs`` (K, 53) of the
    reader alone and ``codes`` (K,). The app's database keeps them, so that a tile added to the
    profile later is checked on them too; a profile folder does not (empty when loaded from one)."""

    @property
    def taught(self) -> list[str]:
        """The tile codes with at least one prototype, in ``Tile.index`` order."""
        return [Tile.from_index(int(i)).code for i in sorted(set(self.codes.tolist()))]

    def apply(self, probs: np.ndarray, features: np.ndarray) -> np.ndarray:
        """Mix the prototypes' opinion into (N, 53) reading probabilities, given the (N, D) features."""
        if len(probs) == 0 or len(self.features) == 0:
            return probs
        proto = self.distribution(features)
        sure = proto.max(axis=1, keepdims=True)  # no code stands out: the reader keeps its say
        near = (_normalise(np.asarray(features, np.float32)) @ self.features.T).max(axis=1, keepdims=True)
        w = (self.weight * np.clip((sure - 0.3) / 0.5, 0.0, 1.0)
             * np.clip((near - NEAR_FROM) / (NEAR_FULL - NEAR_FROM), 0.0, 1.0))  # unlike every example: neither
        mixed = (1 - w) * probs + w * proto
        return (mixed / np.clip(mixed.sum(axis=1, keepdims=True), 1e-9, None)).astype(np.float32)

    def distribution(self, features: np.ndarray) -> np.ndarray:
        """(N, 53) probabilities from the nearest prototype of each taught code (0 for untaught codes)."""
        f = _normalise(np.asarray(features, np.float32))
        sim = f @ self.features.T  # (N, M)
        best = np.full((len(f), N_CODES), -np.inf, np.float32)
        for code in np.unique(self.codes):
            best[:, code] = sim[:, self.codes == code].max(axis=1)
        z = (best - best.max(axis=1, keepdims=True)) / TEMPERATURE
        e = np.where(np.isfinite(z), np.exp(z), 0.0)
        return (e / np.clip(e.sum(axis=1, keepdims=True), 1e-9, None)).astype(np.float32)

    def save(self, folder: Path | str) -> None:
        """Write ``profile.json`` and ``prototypes.npy`` into ``folder`` (created if needed)."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        np.save(folder / PROTOTYPES_FILE, np.column_stack([self.codes.astype(np.float32), self.features]))
        meta = {"version": 1, "taught": self.taught, "examples": int(len(self.codes)), "weight": self.weight,
                "photos": self.photos, "check": self.check, "reader": self.reader,
                "created": self.created or datetime.now(timezone.utc).isoformat(timespec="seconds")}
        tmp = folder / (PROFILE_FILE + ".tmp")
        tmp.write_text(json.dumps(meta, indent=1) + "\n")
        tmp.replace(folder / PROFILE_FILE)  # a profile is never left half written


def reader_stamp(card: dict) -> dict:
    """What a profile records of the reader it was taught on: its card's date and training command."""
    return {"date": card.get("date", ""), "command": card.get("command", "")}


def check_reader(profile: "Profile", card: dict, name: str = "") -> None:
    """Raise :class:`ProfileError` when ``profile`` was taught on another reader than the one whose
    card is ``card``: its prototypes live in that reader's feature space, and compared with this
    one's features they would pull readings at random. A profile or card that names no reader is
    let through (a profile folder written before profiles were stamped, a reader without a card)."""
    taught_on = profile.reader or {}
    if card and taught_on and (taught_on.get("date"), taught_on.get("command")) != (card.get("date", ""),
                                                                                    card.get("command", "")):
        from referee.i18n import _

        raise ProfileError(_('The profile "{name}" was taught on another version of the tile reader: teach it '
                             "again (delete it, then teach the same photos).").format(name=name or "?"))


def _normalise(f: np.ndarray) -> np.ndarray:
    return f / np.clip(np.linalg.norm(f, axis=1, keepdims=True), 1e-9, None)


def load_profile(folder: Path | str) -> Profile:
    """Read a profile folder written by :meth:`Profile.save`; a clear :class:`ProfileError` otherwise."""
    folder = Path(folder)
    meta_path, proto_path = folder / PROFILE_FILE, folder / PROTOTYPES_FILE
    if not meta_path.exists() or not proto_path.exists():
        raise ProfileError(f"{folder} is not a taught profile (no {PROFILE_FILE} and {PROTOTYPES_FILE}): "
                           "teach one with python -m vision.teach")
    try:
        meta = json.loads(meta_path.read_text())
        table = np.load(proto_path)
    except (OSError, ValueError) as exc:
        raise ProfileError(f"the profile in {folder} is damaged ({exc}): teach it again") from None
    if table.ndim != 2 or table.shape[1] < 2:
        raise ProfileError(f"the profile in {folder} is damaged (prototypes of shape {table.shape}): teach it again")
    codes = table[:, 0].astype(int)
    if codes.min(initial=0) < 0 or codes.max(initial=0) >= N_CODES:
        raise ProfileError(f"the profile in {folder} is damaged (tile codes out of range): teach it again")
    return Profile(_normalise(table[:, 1:].astype(np.float32)), codes, float(meta.get("weight", 0.7)),
                   int(meta.get("photos", 0)), meta.get("check", {}), meta.get("reader", {}), meta.get("created", ""))


def profile_to_bytes(profile: Profile) -> tuple[dict, bytes, bytes]:
    """What a database keeps of a profile: its ``profile.json`` as a dict, the prototypes as
    ``np.save`` bytes (the ``prototypes.npy`` table: code column, then the features) and the
    held-back crops as ``np.savez`` bytes (empty when there are none)."""
    import io

    table = io.BytesIO()
    np.save(table, np.column_stack([profile.codes.astype(np.float32), profile.features]).astype(np.float32))
    held = io.BytesIO()
    if profile.held_back:
        np.savez(held, **{k: np.asarray(profile.held_back[k]) for k in ("features", "probs", "codes")})
    meta = {"version": 1, "taught": profile.taught, "examples": int(len(profile.codes)), "weight": profile.weight,
            "photos": profile.photos, "check": profile.check, "reader": profile.reader,
            "created": profile.created or datetime.now(timezone.utc).isoformat(timespec="seconds")}
    return meta, table.getvalue(), held.getvalue()


def profile_from_bytes(meta: dict, prototypes: bytes, held_back: bytes = b"", where: str = "this profile") -> Profile:
    """The :class:`Profile` written by :func:`profile_to_bytes`; a clear :class:`ProfileError` when damaged."""
    import io

    try:
        table = np.load(io.BytesIO(prototypes), allow_pickle=False)
        held = {}
        if held_back:
            with np.load(io.BytesIO(held_back), allow_pickle=False) as z:
                held = {k: z[k] for k in ("features", "probs", "codes")}
    except (OSError, ValueError, KeyError) as exc:
        raise ProfileError(f"{where} is damaged ({exc}): teach it again") from None
    if table.ndim != 2 or table.shape[1] < 2 or len(table) == 0:
        raise ProfileError(f"{where} is damaged (prototypes of shape {table.shape}): teach it again")
    codes = table[:, 0].astype(int)
    if codes.min() < 0 or codes.max() >= N_CODES:
        raise ProfileError(f"{where} is damaged (tile codes out of range): teach it again")
    return Profile(_normalise(table[:, 1:].astype(np.float32)), codes, float(meta.get("weight", 0.7)),
                   int(meta.get("photos", 0)), dict(meta.get("check", {})), dict(meta.get("reader", {})),
                   str(meta.get("created", "")), held)


def codes_of(tiles: list[str]) -> np.ndarray:
    """``Tile.index`` of each code (raises the referee's TileError, naming a bad code)."""
    return np.array([parse_tile(c).index for c in tiles], int)
