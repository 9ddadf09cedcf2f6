"""Tile editions and the drawing of one tile face (upright, flat, before any perspective).

An :class:`Edition` describes a family of real tile sets (body colour, inks, fonts, logo, how 6
and 9 are marked); :func:`sample_style` draws one concrete, jittered look of an edition for a scene
and :func:`render_face` paints a tile's face with it. Numerals come in the type families of
:mod:`datasets.fonts` (installed font packages, rendered with Pillow, and OpenCV's Hershey fonts):
nothing is fetched from the web.

The face is BGRA, ``alpha`` = 0 outside the rounded corners. Its top row is the top of the upright
tile: the numeral reads upright and the logo sits at the bottom, so 6 and 9 stay distinguishable.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from datasets import fonts
from referee.tiles import Tile

__all__ = ["Edition", "TileStyle", "EDITIONS", "EDITION_WEIGHTS", "JOKER_COLOURS", "JOKER_FACES", "sample_style",
           "render_face", "render_back", "text_mask", "hershey_mask", "ink_crop", "paint", "jitter_colour"]

Rng = np.random.Generator
BGR = tuple[int, int, int]

JOKER_COLOURS = ("black", "red")
FACE_H = 160  # pixels of the canonical face height; faces are resized to their size on screen


@dataclass(frozen=True)
class Edition:
    """A family of tile sets as sold (the look, not the rules: every edition plays the same).

    Fields
    ------
    name: identifier stored in the labels (``original``, ``modern_white`` ...).
    body: BGR colour of the plastic (white, cream or ivory).
    aspect: face width / height.
    thickness: tile thickness / face height (side walls seen at an angle).
    inks: BGR per colour letter K, B, O, R (O may be yellow, B royal or teal in the edition).
    font_kinds: weight per :data:`datasets.fonts.KINDS` kind of the families its numerals come in.
    logo: what is printed under the numeral: ``wordmark`` (Original), ``ring``, ``dot``, ``bar``,
        ``smiley`` (a small face), ``none``.
    disc: a slightly different round patch behind the numeral (the cream Original has one).
    six_nine: how 6 and 9 are told apart besides the logo: ``plain``, ``underline``, ``dot``.
    number_height: numeral height / face height.
    joker: joker faces of the edition (see :data:`JOKER_FACES`).
    outline: share of sets with outlined (hollow) numerals.
    """

    name: str
    body: BGR
    aspect: float
    thickness: float
    inks: dict[str, BGR]
    font_kinds: dict[str, float]
    logo: tuple[str, ...]
    disc: bool
    six_nine: tuple[str, ...]
    number_height: float
    joker: tuple[str, ...]
    outline: float = 0.0


# ``face``: outlined smiley with features; ``filled``: coloured disc, light features; ``glyph``: a
# smiley character from a font; ``letter``: "J" or "JOKER" printed; ``jester``: a jester's cap over a face.
JOKER_FACES = ("face", "filled", "glyph", "letter", "jester")

_CLASSIC_INKS = {"K": (38, 36, 34), "B": (196, 92, 14), "O": (38, 128, 242), "R": (48, 32, 222)}
EDITIONS: dict[str, Edition] = {
    e.name: e
    for e in (
        # Cream "Original Rummikub": heavy sans numerals on a round patch, wordmark at the bottom.
        Edition("original", (205, 226, 236), 0.74, 0.2, _CLASSIC_INKS,
                {"grotesque": 0.5, "humanist": 0.25, "rounded": 0.15, "mono": 0.1},
                ("wordmark",), True, ("plain",), 0.36, ("face", "glyph")),
        # The modern white "Original": heavy rounded sans (the 1 has a flag), nothing under 6 or 9,
        # tiles often seen standing on a black rack.
        Edition("modern_white", (240, 244, 245), 0.72, 0.19,
                {"K": (30, 28, 28), "B": (185, 95, 10), "O": (20, 135, 245), "R": (40, 25, 215)},
                {"rounded": 0.55, "grotesque": 0.25, "geometric": 0.1, "humanist": 0.1},
                ("smiley", "none", "wordmark"), False, ("plain",), 0.46, ("face", "filled", "jester")),
        # Thin white tiles: yellow instead of orange, teal blue, small ring logo, underlined 6/9.
        Edition("white_thin", (244, 246, 246), 0.7, 0.11,
                {"K": (30, 30, 30), "B": (150, 130, 0), "O": (0, 190, 245), "R": (40, 30, 210)},
                {"grotesque": 0.35, "humanist": 0.25, "stroke": 0.15, "mono": 0.1, "condensed": 0.15},
                ("ring", "none"), False, ("underline", "plain"), 0.42, ("face", "filled", "letter")),
        # Ivory serif edition with underlined 6/9 and a dot logo.
        Edition("serif", (198, 222, 232), 0.76, 0.23,
                {"K": (25, 25, 25), "B": (170, 70, 20), "O": (30, 140, 240), "R": (30, 20, 190)},
                {"serif": 0.85, "slab": 0.05, "mono": 0.1},
                ("dot", "none"), False, ("underline", "dot"), 0.4, ("face", "jester")),
        # Budget / travel sets with stroke (Hershey) or plain numerals, a bar logo and a dot after 6/9.
        Edition("hershey", (228, 232, 232), 0.72, 0.16,
                {"K": (20, 20, 20), "B": (180, 110, 0), "O": (0, 165, 250), "R": (20, 20, 200)},
                {"stroke": 0.6, "mono": 0.2, "grotesque": 0.2},
                ("bar",), False, ("dot", "underline"), 0.42, ("face", "filled", "letter")),
        # Large-print edition: big numerals, sometimes outlined, no logo.
        Edition("large_print", (225, 240, 245), 0.72, 0.18,
                {"K": (20, 20, 25), "B": (200, 100, 30), "O": (20, 150, 250), "R": (45, 25, 235)},
                {"grotesque": 0.3, "geometric": 0.2, "rounded": 0.2, "serif": 0.15, "humanist": 0.15},
                ("none",), False, ("underline", "dot", "plain"), 0.5, ("filled", "face", "glyph"), outline=0.25),
        # Designer / travel editions: condensed, geometric and display faces, some outlined.
        Edition("display", (236, 238, 240), 0.7, 0.15,
                {"K": (35, 30, 30), "B": (170, 110, 20), "O": (10, 170, 245), "R": (50, 40, 215)},
                {"condensed": 0.35, "geometric": 0.3, "display": 0.25, "mono": 0.1},
                ("none", "dot", "ring"), False, ("underline", "plain", "dot"), 0.46, ("letter", "filled", "glyph"), outline=0.2),
    )
}
# The real photos we have are cream Originals and players own many more: keep it common, but give
# the rest (above all the modern white edition of the held-out racks) a fair share.
EDITION_WEIGHTS: dict[str, float] = {"original": 0.25, "modern_white": 0.25, "white_thin": 0.12, "serif": 0.1,
                                     "hershey": 0.08, "large_print": 0.1, "display": 0.1}
BODIES: dict[str, BGR] = {"white": (243, 245, 246), "cream": (205, 226, 236), "ivory": (214, 232, 240)}


@dataclass(frozen=True)
class TileStyle:
    """One concrete look of an edition, fixed for a scene (jittered colours, chosen font...)."""

    edition: str
    body: BGR
    aspect: float
    thickness: float
    inks: dict[str, BGR]
    joker_inks: dict[str, BGR]
    font: str  # a font file path, or ``hershey:<n>``
    stroke: int  # extra stroke width for TTF, thickness for Hershey, in canonical pixels
    number_height: float
    number_y: float  # centre of the numeral as a fraction of the face height
    squeeze: float  # horizontal scale of two-digit numbers
    logo: str
    logo_ink: BGR
    disc: bool
    six_nine: str
    joker: str
    bevel: float  # width of the raised rim, fraction of face width
    corner: float  # corner radius, fraction of face width
    font_family: str = "dejavu_sans"  # a key of datasets.fonts.FAMILIES
    tracking: float = 0.0  # space between the digits of 10-13, fraction of the numeral height (may be < 0)
    seven_bar: bool = False  # a 7 with a bar across its stem
    outline: bool = False  # hollow numerals


@functools.lru_cache(maxsize=128)
def _ttf(path: str, px: int) -> ImageFont.FreeTypeFont:
    """A TrueType/OpenType font: an absolute file path, or a family name of :mod:`datasets.fonts`."""
    if not Path(path).is_absolute():
        files = fonts.font_files(path)
        if not files:
            raise FileNotFoundError(f'font family "{path}" is not installed (python -m datasets.fonts)')
        path = files[0]
    return ImageFont.truetype(path, px)


def jitter_colour(rng: Rng, bgr: BGR, amount: float, spread: float = 3.0) -> BGR:
    """``bgr`` brighter or darker by up to ``amount`` (a share), plus per-channel noise of standard
    deviation ``255 * amount / spread``: the same ink or plastic differs a little from set to set."""
    c = np.array(bgr, np.float32) * rng.uniform(1 - amount, 1 + amount) + rng.normal(0, 255 * amount / spread, 3)
    return tuple(int(v) for v in np.clip(c, 0, 255))  # type: ignore[return-value]


def _family_for(edition: Edition, rng: Rng, families: list[str]) -> str:
    """A family for ``edition``'s numerals among ``families``, by the edition's kind weights."""
    by_kind: dict[str, list[str]] = {}
    for name in families:
        by_kind.setdefault(fonts.FAMILIES[name].kind, []).append(name)
    kinds = [k for k in edition.font_kinds if by_kind.get(k)]
    if not kinds:  # none of the edition's kinds allowed (a held-out family of another kind): any
        return str(rng.choice(families))
    w = np.array([edition.font_kinds[k] for k in kinds], np.float64)
    kind = kinds[int(rng.choice(len(kinds), p=w / w.sum()))]
    return str(rng.choice(by_kind[kind]))


def sample_style(edition: str, rng: Rng, families: list[str] | None = None) -> TileStyle:
    """Draw a jittered concrete look of ``edition`` (a key of :data:`EDITIONS`).

    ``families`` are the font families the numerals may come in (default: every installed family
    that is not held out of training, :func:`datasets.fonts.training_families`).
    """
    try:
        e = EDITIONS[edition]
    except KeyError:
        raise ValueError(f'unknown edition "{edition}": choose one of {", ".join(EDITIONS)}') from None
    if families is None:
        families = fonts.training_families()
    if not families:
        raise ValueError("no font family to draw numerals with: install the fonts (python -m datasets.fonts)")
    for name in families:
        fonts.family(name)  # a clear error for an unknown name
    inks = {k: jitter_colour(rng, v, 0.08) for k, v in e.inks.items()}
    if rng.random() < 0.25:  # the fourth colour: orange in some sets, yellow in others
        inks["O"] = jitter_colour(rng, (0, 185, 245) if rng.random() < 0.5 else (30, 120, 245), 0.06)
    if rng.random() < 0.2:  # blue: royal or teal
        inks["B"] = jitter_colour(rng, (150, 125, 0) if rng.random() < 0.5 else (200, 80, 20), 0.06)
    fam = _family_for(e, rng, families)
    files = fonts.font_files(fam)
    if not files:
        raise ValueError(f'font family "{fam}" is not installed (python -m datasets.fonts)')
    font = str(rng.choice(files))
    hershey = font.startswith("hershey:")
    body_base = e.body if rng.random() < 0.75 else BODIES[str(rng.choice(list(BODIES)))]
    body = jitter_colour(rng, body_base, 0.04)
    # Embossed logos are the body colour, a little darker and warmer.
    logo_ink = tuple(int(v) for v in np.clip(np.array(body) * rng.uniform(0.7, 0.85) * (0.9, 0.97, 1.0), 0, 255))
    tracking = float(rng.uniform(-0.04, 0.04) if rng.random() < 0.6 else rng.uniform(0.04, 0.22))
    return TileStyle(
        edition=e.name,
        body=body,
        aspect=float(e.aspect * rng.uniform(0.96, 1.04)),
        thickness=float(e.thickness * rng.uniform(0.85, 1.15)),
        inks=inks,
        joker_inks={"black": inks["K"], "red": inks["R"]},
        font=font,
        stroke=int(rng.integers(5, 11)) if hershey else int(rng.integers(0, 3)),
        number_height=float(e.number_height * rng.uniform(0.9, 1.1)),
        number_y=float(rng.uniform(0.36, 0.42) if e.logo != ("none",) else rng.uniform(0.42, 0.5)),
        squeeze=float(rng.uniform(0.72, 0.95)),
        logo=str(rng.choice(list(e.logo))),
        logo_ink=logo_ink,  # type: ignore[arg-type]
        disc=e.disc,
        six_nine=str(rng.choice(list(e.six_nine))),
        joker=str(rng.choice(list(e.joker))),
        bevel=float(rng.uniform(0.04, 0.08)),
        corner=float(rng.uniform(0.06, 0.14)),
        font_family=fam,
        tracking=tracking,
        seven_bar=bool(rng.random() < 0.12),
        outline=bool(not hershey and rng.random() < e.outline),
    )


# --------------------------------------------------------------------------- drawing helpers

def _rounded_mask(h: int, w: int, r: int) -> np.ndarray:
    m = np.zeros((h * 4, w * 4), np.uint8)  # drawn 4x larger and shrunk: smooth corners
    R = r * 4
    cv2.rectangle(m, (R, 0), (w * 4 - 1 - R, h * 4 - 1), 255, -1)
    cv2.rectangle(m, (0, R), (w * 4 - 1, h * 4 - 1 - R), 255, -1)
    for cx, cy in ((R, R), (w * 4 - 1 - R, R), (R, h * 4 - 1 - R), (w * 4 - 1 - R, h * 4 - 1 - R)):
        cv2.circle(m, (cx, cy), R, 255, -1, cv2.LINE_AA)
    return cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA)


def text_mask(text: str, font: str, px: int, stroke: int) -> np.ndarray:
    """White-on-black mask of ``text`` in ``font`` (a file path or a family name) at ``px`` pixels."""
    f = _ttf(font, px)
    left, top, right, bottom = f.getbbox(text, stroke_width=stroke)
    img = Image.new("L", (right - left + 4, bottom - top + 4), 0)
    ImageDraw.Draw(img).text((2 - left, 2 - top), text, font=f, fill=255, stroke_width=stroke, stroke_fill=255)
    return np.asarray(img)


def hershey_mask(text: str, font_id: int, px: int, thickness: int) -> np.ndarray:
    """White-on-black mask of ``text`` in OpenCV's Hershey font ``font_id``, ``px`` high, cropped to its ink."""
    scale = cv2.getFontScaleFromHeight(font_id, px, thickness)
    (tw, th), base = cv2.getTextSize(text, font_id, scale, thickness)
    pad = thickness + 4
    img = np.zeros((th + base + 2 * pad, tw + 2 * pad), np.uint8)
    cv2.putText(img, text, (pad, pad + th), font_id, scale, 255, thickness, cv2.LINE_AA)
    return ink_crop(img)


def ink_crop(mask: np.ndarray) -> np.ndarray:
    """``mask`` cut to the rows and columns where it has ink (values over 20)."""
    ys, xs = np.nonzero(mask > 20)
    return mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def _glyph_mask(text: str, style: TileStyle, height: int) -> np.ndarray:
    """White-on-black mask of ``text`` in the style's font, cropped to its ink, ``height`` rows."""
    if style.font.startswith("hershey:"):
        m = hershey_mask(text, int(style.font.split(":")[1]), height, style.stroke)
    else:
        m = ink_crop(text_mask(text, style.font, int(height * 1.4), style.stroke))
    scale = height / m.shape[0]
    return cv2.resize(m, (max(1, int(round(m.shape[1] * scale))), height), interpolation=cv2.INTER_AREA)


def _numeral_mask(text: str, style: TileStyle, height: int) -> np.ndarray:
    """White-on-black mask of the numeral, cropped to its ink, ``height`` pixels tall.

    Two-digit numbers are set digit by digit, ``style.tracking`` apart (the 1 and 0 of 10 tight or
    apart, as editions differ); a 7 may get a bar across its stem; outlined editions are hollow.
    """
    digits = [_glyph_mask(d, style, height) for d in text]
    if text == "7" and style.seven_bar:
        m = digits[0]
        lw = max(2, height // 11)
        y = int(height * 0.55)
        cv2.line(m, (int(m.shape[1] * 0.2), y), (int(m.shape[1] * 0.8), y), 255, lw, cv2.LINE_AA)
    if len(digits) == 1:
        m = digits[0]
    else:
        gap = int(round(style.tracking * height))
        width = sum(d.shape[1] for d in digits) + gap * (len(digits) - 1)
        m = np.zeros((height, max(width, max(d.shape[1] for d in digits))), np.uint8)
        x = 0
        for d in digits:
            x0 = max(0, min(x, m.shape[1] - d.shape[1]))
            m[:, x0:x0 + d.shape[1]] = np.maximum(m[:, x0:x0 + d.shape[1]], d)
            x += d.shape[1] + gap
        m = cv2.resize(m, (max(1, int(round(m.shape[1] * style.squeeze))), height), interpolation=cv2.INTER_AREA)
    if style.outline:
        lw = max(2, height // 14)
        inner = cv2.erode(m, np.ones((lw * 2 + 1, lw * 2 + 1), np.uint8))
        m = cv2.subtract(m, inner)
    return m


def paint(face: np.ndarray, mask: np.ndarray, x0: int, y0: int, colour: BGR, opacity: float = 1.0) -> None:
    """Alpha-blend ``colour`` through ``mask`` into ``face`` (BGR float) at (x0, y0), clipped."""
    h, w = mask.shape
    H, W = face.shape[:2]
    xa, ya, xb, yb = max(0, x0), max(0, y0), min(W, x0 + w), min(H, y0 + h)
    if xa >= xb or ya >= yb:
        return
    a = mask[ya - y0:yb - y0, xa - x0:xb - x0].astype(np.float32)[..., None] / 255.0 * opacity
    roi = face[ya:yb, xa:xb]
    roi[:] = roi * (1 - a) + np.array(colour, np.float32) * a


def _draw_joker(face: np.ndarray, style: TileStyle, colour: BGR, cx: float, cy: float, r: float, rng: Rng) -> None:
    """The joker of ``style.joker`` (one of :data:`JOKER_FACES`), centred at (cx, cy), about ``r`` in radius."""
    if style.joker == "glyph":  # a smiley character of a font
        m = ink_crop(text_mask(str(rng.choice(["\u263a", "\u263b"])), "dejavu_sans", int(r * 3), 0))
        side = int(r * 2)
        m = cv2.resize(m, (side, side), interpolation=cv2.INTER_AREA)
        paint(face, m, int(cx - side / 2), int(cy - side / 2), colour)
        return
    if style.joker == "letter":  # "J" or "JOKER" printed in the numerals' font
        word = "J" if rng.random() < 0.5 else "JOKER"
        h = int(r * (1.6 if word == "J" else 0.7))
        m = _glyph_mask(word, style, max(8, h))
        if m.shape[1] > face.shape[1] * 0.88:
            m = cv2.resize(m, (int(face.shape[1] * 0.88), m.shape[0]), interpolation=cv2.INTER_AREA)
        paint(face, m, int(cx - m.shape[1] / 2), int(cy - m.shape[0] / 2), colour)
        return
    if style.joker == "jester":  # a smaller face under a two-pointed cap with bells
        cap = np.zeros(face.shape[:2], np.uint8)
        top = cy - r * 1.05
        pts = np.array([[cx - r * 0.9, cy - r * 0.35], [cx - r * 0.8, top - r * 0.2], [cx, cy - r * 0.75],
                        [cx + r * 0.8, top - r * 0.2], [cx + r * 0.9, cy - r * 0.35]], np.int32)
        cv2.fillPoly(cap, [pts], 255, cv2.LINE_AA)
        for bx in (cx - r * 0.8, cx + r * 0.8):
            cv2.circle(cap, (int(bx), int(top - r * 0.25)), max(2, int(r * 0.13)), 255, -1, cv2.LINE_AA)
        paint(face, cap, 0, 0, colour)
        cy, r = cy + r * 0.3, r * 0.7
    S = 4
    size = int(r * 2.6 * S)
    m = np.zeros((size, size), np.uint8)
    c = (size // 2, size // 2)
    R = int(r * S)
    lw = max(S, int(R * rng.uniform(0.09, 0.14)))
    filled = style.joker == "filled"
    feat = 0 if filled else 255  # features are cut out of a filled disc, or drawn in ink
    if filled:
        cv2.circle(m, c, R, 255, -1, cv2.LINE_AA)
    else:
        cv2.circle(m, c, R, 255, lw, cv2.LINE_AA)
    ex, ey = int(R * 0.36), int(R * 0.22)
    er = (max(2, int(R * rng.uniform(0.09, 0.14))), max(3, int(R * rng.uniform(0.14, 0.2))))
    for sx in (-1, 1):
        cv2.ellipse(m, (c[0] + sx * ex, c[1] - ey), er, 0, 0, 360, feat, -1, cv2.LINE_AA)
        if rng.random() < 0.5:  # eyebrows
            cv2.ellipse(m, (c[0] + sx * ex, c[1] - ey - int(R * 0.12)), (int(R * 0.2), int(R * 0.1)), 0, 200, 340,
                        feat, max(2, lw // 2), cv2.LINE_AA)
    if rng.random() < 0.6:  # nose
        cv2.line(m, (c[0], c[1] - int(R * 0.05)), (c[0] - int(R * 0.06), c[1] + int(R * 0.18)), feat, max(2, lw // 2), cv2.LINE_AA)
    mouth_r = (int(R * rng.uniform(0.45, 0.6)), int(R * rng.uniform(0.28, 0.42)))
    cv2.ellipse(m, (c[0], c[1] + int(R * 0.12)), mouth_r, 0, 20, 160, feat, lw, cv2.LINE_AA)
    m = cv2.resize(m, (size // S, size // S), interpolation=cv2.INTER_AREA)
    paint(face, m, int(cx - m.shape[1] / 2), int(cy - m.shape[0] / 2), colour)


def _wordmark(face: np.ndarray, style: TileStyle, cy: float) -> None:
    """The "Original Rummikub" wordmark: light embossed text near the bottom."""
    W = face.shape[1]
    m = text_mask("Rummikub", "dejavu_serif", 40, 0)
    tw = int(W * 0.7)
    m = cv2.resize(m, (tw, max(4, int(m.shape[0] * tw / m.shape[1]))), interpolation=cv2.INTER_AREA)
    x0, y0 = (W - tw) // 2, int(cy - m.shape[0] / 2)
    lighter = tuple(int(min(255, v * 1.06)) for v in style.body)
    paint(face, m, x0 + 1, y0 + 1, lighter, 0.8)  # emboss highlight
    paint(face, m, x0, y0, style.logo_ink, 0.95)
    small = text_mask("Original", "dejavu_sans", 24, 0)
    sw = int(W * 0.22)
    small = cv2.resize(small, (sw, max(3, int(small.shape[0] * sw / small.shape[1]))), interpolation=cv2.INTER_AREA)
    paint(face, small, (W - sw) // 2, y0 - small.shape[0] - 2, style.logo_ink, 0.6)


def render_face(tile: Tile, style: TileStyle, rng: Rng, joker_colour: str = "black") -> np.ndarray:
    """Paint the upright face of ``tile`` in ``style``: BGRA uint8, :data:`FACE_H` rows tall.

    ``joker_colour`` ("black" or "red") is used for jokers only.
    """
    if joker_colour not in JOKER_COLOURS:
        raise ValueError(f'joker colour must be one of {", ".join(JOKER_COLOURS)}, not "{joker_colour}"')
    H = FACE_H
    W = int(round(H * style.aspect))
    body = np.array(style.body, np.float32)
    face = np.empty((H, W, 3), np.float32)
    face[:] = body
    # Raised rim: a slightly lighter band around a recessed field, with a soft inner shadow line.
    rim = max(2, int(W * style.bevel))
    field = np.zeros((H, W), np.uint8)
    cv2.rectangle(field, (rim, rim), (W - 1 - rim, H - 1 - rim), 255, -1)
    field = cv2.GaussianBlur(field, (0, 0), rim * 0.35).astype(np.float32) / 255.0
    face *= (1.03 - 0.05 * field)[..., None]
    edge = cv2.GaussianBlur(cv2.Canny((field * 255).astype(np.uint8), 50, 150).astype(np.float32), (0, 0), 1.5) / 255.0
    face *= (1.0 - 0.25 * np.clip(edge * 3, 0, 1))[..., None]
    # Gentle top-to-bottom shading of the moulded surface.
    face *= np.linspace(1.02, 0.97, H, dtype=np.float32)[:, None, None]
    cy = H * style.number_y
    nh = int(H * style.number_height)
    if style.disc:
        disc = np.zeros((H, W), np.uint8)
        cv2.circle(disc, (W // 2, int(cy)), int(W * rng.uniform(0.36, 0.42)), 255, -1, cv2.LINE_AA)
        disc = cv2.GaussianBlur(disc, (0, 0), 1.2)
        # Towards white, not a brighter multiple of the body (that would shift the hue when it clips).
        lift = body + (255.0 - body) * rng.uniform(0.2, 0.45)
        paint(face, disc, 0, 0, tuple(int(v) for v in lift), 0.9)
    if tile.is_joker:
        colour = style.joker_inks[joker_colour]
        _draw_joker(face, style, colour, W / 2, cy, min(W * 0.34, nh * 0.62), rng)
    else:
        assert tile.colour is not None and tile.number is not None
        ink = style.inks[tile.colour.value]
        text = str(tile.number)
        m = _numeral_mask(text, style, nh)
        if m.shape[1] > W * 0.86:  # very wide numerals (11 in a wide font): squeeze to fit
            m = cv2.resize(m, (int(W * 0.86), nh), interpolation=cv2.INTER_AREA)
        x0, y0 = int((W - m.shape[1]) / 2), int(cy - nh / 2)
        paint(face, m, x0, y0, ink)
        if tile.number in (6, 9) and style.six_nine != "plain":
            lw = max(3, nh // 12)
            if style.six_nine == "underline":
                bar = np.zeros((lw, int(m.shape[1] * 0.9)), np.uint8) + 255
                paint(face, bar, int(W / 2 - bar.shape[1] / 2), y0 + nh + lw, ink)
            else:
                dot = np.zeros((lw * 2 + 2, lw * 2 + 2), np.uint8)
                cv2.circle(dot, (lw + 1, lw + 1), lw, 255, -1, cv2.LINE_AA)
                paint(face, dot, x0 + m.shape[1] + lw // 2, y0 + nh - 2 * lw, ink)
    logo_y = H * rng.uniform(0.8, 0.86)
    if style.logo == "wordmark":
        _wordmark(face, style, logo_y)
    elif style.logo == "ring":
        ring = np.zeros((H // 8, H // 8), np.uint8)
        cv2.circle(ring, (H // 16, H // 16), H // 16 - 3, 255, max(2, H // 70), cv2.LINE_AA)
        paint(face, ring, W // 2 - H // 16, int(logo_y - H // 16), style.logo_ink)
    elif style.logo == "dot":
        d = np.zeros((H // 14, H // 14), np.uint8)
        cv2.circle(d, (H // 28, H // 28), H // 28 - 1, 255, -1, cv2.LINE_AA)
        paint(face, d, W // 2 - H // 28, int(logo_y - H // 28), style.logo_ink)
    elif style.logo == "smiley":  # the modern edition's small face
        d = np.zeros((H // 9, H // 9), np.uint8)
        c, R = H // 18, H // 18 - 2
        cv2.circle(d, (c, c), R, 255, max(2, H // 80), cv2.LINE_AA)
        cv2.ellipse(d, (c, c + R // 6), (R // 2, R // 3), 0, 20, 160, 255, max(2, H // 90), cv2.LINE_AA)
        paint(face, d, W // 2 - c, int(logo_y - c), style.logo_ink)
    elif style.logo == "bar":
        bar = np.zeros((max(3, H // 40), int(W * 0.35)), np.uint8) + 255
        paint(face, bar, int(W * 0.325), int(logo_y), style.logo_ink)
    alpha = _rounded_mask(H, W, max(2, int(W * style.corner)))
    return np.dstack([np.clip(face, 0, 255).astype(np.uint8), alpha])


def render_back(style: TileStyle) -> np.ndarray:
    """The blank back of a tile (face down on the table): body colour, rim, rounded corners."""
    H = FACE_H
    W = int(round(H * style.aspect))
    face = np.empty((H, W, 3), np.float32)
    face[:] = np.array(style.body, np.float32) * 0.97
    face *= np.linspace(1.02, 0.96, H, dtype=np.float32)[:, None, None]
    alpha = _rounded_mask(H, W, max(2, int(W * style.corner)))
    return np.dstack([np.clip(face, 0, 255).astype(np.uint8), alpha])

