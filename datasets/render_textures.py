"""Procedural textures for the synthetic scenes: tables, cloths, rack plastic, room backdrops.

Everything is made from seeded noise with numpy and OpenCV (no image files, nothing downloaded),
so a scene is reproducible from its seed. Textures are BGR ``uint8`` images; sizes of features are
given in texture pixels by the caller, who knows how many millimetres a texture pixel covers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import cv2
import numpy as np

__all__ = [
    "BACKGROUNDS",
    "value_noise",
    "fbm",
    "lerp_colours",
    "make_background",
    "plastic_texture",
    "backdrop",
]

Rng = np.random.Generator


def value_noise(h: int, w: int, cells_y: float, cells_x: float, rng: Rng, clip: bool = True) -> np.ndarray:
    """Smooth noise in [0, 1] of shape (h, w): a random grid of about ``cells`` cells, upsampled.

    ``clip=False`` keeps the cubic upsampling's small overshoot past 0 and 1 (the dice scenes' noise
    is drawn so: clipping it would change every dice photo, the held-out test split's too).
    """
    gy = max(2, int(round(cells_y)) + 1)
    gx = max(2, int(round(cells_x)) + 1)
    grid = rng.random((gy, gx), dtype=np.float32)
    noise = cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC)
    return noise.clip(0.0, 1.0) if clip else noise


def fbm(h: int, w: int, cells: float, rng: Rng, octaves: int = 4, persistence: float = 0.5,
        aspect: float = 1.0) -> np.ndarray:
    """Fractal noise in about [0, 1]: ``octaves`` layers of value noise, each twice as fine.

    ``aspect`` > 1 stretches features along x (grain, threads): fewer cells across than down.
    """
    total = np.zeros((h, w), np.float32)
    amp, norm, c = 1.0, 0.0, cells
    for _ in range(octaves):
        cy = min(c, h / 2)
        cx = min(c / aspect, w / 2)
        total += amp * value_noise(h, w, cy, cx, rng)
        norm += amp
        amp *= persistence
        c *= 2.0
    return total / norm


def _stretch(a: np.ndarray) -> np.ndarray:
    """Rescale to [0, 1] (fractal sums bunch around 0.5)."""
    lo, hi = float(a.min()), float(a.max())
    return (a - lo) / max(hi - lo, 1e-6)


def lerp_colours(t: np.ndarray, c0: Sequence[float] | np.ndarray, c1: Sequence[float] | np.ndarray) -> np.ndarray:
    """Per pixel, colour ``c0`` where ``t`` (h, w) is 0 and ``c1`` where it is 1, float (h, w, 3).

    Colours given as arrays keep their dtype (the tables' float64 jittered colours stay float64);
    tuples become float32.
    """
    c0 = c0 if isinstance(c0, np.ndarray) else np.array(c0, np.float32)
    c1 = c1 if isinstance(c1, np.ndarray) else np.array(c1, np.float32)
    return c0[None, None, :] * (1.0 - t[..., None]) + c1[None, None, :] * t[..., None]


def _jitter(rng: Rng, bgr: tuple[float, float, float], amount: float) -> np.ndarray:
    return np.clip(np.array(bgr, np.float32) * rng.uniform(1 - amount, 1 + amount, 3), 0, 255)


def _to_u8(img: np.ndarray) -> np.ndarray:
    return np.clip(img, 0, 255).astype(np.uint8)


# --------------------------------------------------------------------------- table surfaces
# Palettes are (dark, light) BGR pairs measured by eye from typical furniture.
_WOODS = [
    ((40, 62, 95), (80, 115, 160)),     # walnut (like the real photo set's table)
    ((60, 95, 140), (120, 170, 215)),   # oak
    ((30, 45, 80), (60, 90, 140)),      # dark stained
    ((95, 120, 140), (165, 185, 200)),  # grey-washed / white oak
    ((35, 50, 110), (70, 95, 170)),     # mahogany / cherry
    ((110, 150, 185), (170, 205, 230)),  # birch / maple
]


def wood(h: int, w: int, rng: Rng, px_per_mm: float) -> np.ndarray:
    """Planks with growth rings, fine grain, seams and the odd knot (planks run along x)."""
    dark, light = (_jitter(rng, c, 0.12) for c in _WOODS[rng.integers(len(_WOODS))])
    plank_px = max(12.0, rng.uniform(80, 240) * px_per_mm)
    yy = np.arange(h, dtype=np.float32)[:, None]
    xx = np.arange(w, dtype=np.float32)[None, :]
    plank = np.floor(yy / plank_px).astype(np.int32)  # (h,1)
    n_planks = int(plank.max()) + 1
    offsets = rng.uniform(0, 1000, n_planks).astype(np.float32)
    tones = rng.uniform(-0.18, 0.18, n_planks).astype(np.float32)
    warp = fbm(h, w, 3, rng, octaves=3, aspect=6.0)
    ring_px = rng.uniform(4, 14) * px_per_mm
    # Rings: distance from a far-away pith, bent by the warp noise, so lines run roughly along x.
    t = yy / ring_px + warp * rng.uniform(3, 9) + offsets[plank] + \
        0.15 * np.sin(xx / max(plank_px * rng.uniform(1.5, 4), 1) + offsets[plank])
    rings = np.abs(np.sin(np.pi * t)) ** rng.uniform(0.6, 2.5)
    grain = fbm(h, w, max(8.0, h / max(1.0, 0.8 * px_per_mm)), rng, octaves=2, aspect=25.0)
    mix = 0.55 * rings + 0.35 * _stretch(grain) + 0.25 * fbm(h, w, 6, rng, octaves=3, aspect=4)
    mix = _stretch(mix) * 0.85 + 0.05 + tones[plank]
    img = lerp_colours(np.clip(mix, 0, 1), dark, light)
    # Seams between planks and butt joints: thin dark lines.
    seam = (np.abs(yy - np.round(yy / plank_px) * plank_px) < max(0.6, 0.5 * px_per_mm)).astype(np.float32)
    img *= (1.0 - 0.45 * seam)[..., None]
    for p in range(n_planks):
        if rng.random() < 0.5:
            x0 = int(rng.uniform(0, w))
            y0, y1 = int(p * plank_px), int(min(h, (p + 1) * plank_px))
            img[y0:y1, max(0, x0 - 1):x0 + 1] *= 0.6
    for _ in range(int(rng.poisson(0.8))):  # knots
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        r = rng.uniform(3, 12) * px_per_mm
        d = np.sqrt(((xx - cx) / 2.2) ** 2 + (yy - cy) ** 2) / max(r, 1)
        knot = np.exp(-d ** 2) * (0.6 + 0.4 * np.cos(d * 9))
        img *= (1.0 - 0.45 * knot)[..., None]
    if rng.random() < 0.6:  # varnish sheen varies along the planks
        img *= (0.9 + 0.2 * fbm(h, w, 2, rng, octaves=2))[..., None]
    return _to_u8(img)


_MARBLES = [
    ((228, 230, 232), (120, 120, 125)),  # white Carrara, grey veins
    ((215, 222, 228), (90, 110, 140)),   # warm white, brown veins
    ((40, 40, 42), (200, 200, 205)),     # black marble, white veins
    ((170, 175, 180), (70, 70, 75)),     # grey
    ((190, 205, 220), (110, 130, 160)),  # beige
    ((120, 140, 110), (230, 235, 230)),  # green
]


def marble(h: int, w: int, rng: Rng, px_per_mm: float) -> np.ndarray:
    """Stone: soft mottled base and thin branching veins from turbulent noise ridges."""
    base, vein_c = (_jitter(rng, c, 0.06) for c in _MARBLES[rng.integers(len(_MARBLES))])
    cells = max(2.0, h / max(8.0, rng.uniform(150, 500) * px_per_mm))
    img = base[None, None, :] * (0.93 + 0.1 * fbm(h, w, cells, rng, octaves=5))[..., None]
    yy = np.arange(h, dtype=np.float32)[:, None]
    xx = np.arange(w, dtype=np.float32)[None, :]
    for k in range(int(rng.integers(1, 4))):
        n = fbm(h, w, cells * rng.uniform(0.6, 1.5), rng, octaves=5, persistence=0.55)
        width = rng.uniform(0.004, 0.02) * (1.0 if k == 0 else 0.6)
        if rng.random() < 0.6:
            # Classic turbulence marble: veins run diagonally and meander with the noise.
            ang = rng.uniform(0, np.pi)
            period = rng.uniform(120, 400) * px_per_mm
            phase = (xx * np.cos(ang) + yy * np.sin(ang)) / period + n * rng.uniform(2, 5)
            n = 0.5 + 0.5 * np.sin(2 * np.pi * phase) * 0.5
            width *= 0.5
        ridge = np.exp(-((n - rng.uniform(0.4, 0.6)) / width) ** 2)
        strength = rng.uniform(0.35, 0.85) * (1.0 if k == 0 else 0.5)
        ridge = cv2.GaussianBlur(ridge, (0, 0), max(0.4, 0.3 * px_per_mm)) * strength
        img = img * (1 - ridge[..., None]) + vein_c[None, None, :] * ridge[..., None]
    speck = (rng.random((h, w)) < 0.002).astype(np.float32)
    img -= 40 * cv2.GaussianBlur(speck, (0, 0), 0.7)[..., None]
    return _to_u8(img)


_FELTS = [(40, 110, 25), (110, 60, 20), (30, 30, 130), (60, 60, 60), (90, 40, 70), (30, 80, 40), (120, 110, 40)]


def felt(h: int, w: int, rng: Rng, px_per_mm: float) -> np.ndarray:
    """Card-table felt or baize: saturated colour, fibre noise, faint mottling."""
    base = _jitter(rng, _FELTS[rng.integers(len(_FELTS))], 0.25)
    fib = rng.normal(0, 1, (h, w)).astype(np.float32)
    fib = cv2.GaussianBlur(fib, (0, 0), max(0.5, 0.15 * px_per_mm))
    fib /= max(float(fib.std()), 1e-6)
    mott = fbm(h, w, max(2.0, h / max(8.0, 60 * px_per_mm)), rng, octaves=3)
    img = base[None, None, :] * (1 + 0.06 * fib + 0.15 * (mott - 0.5))[..., None]
    return _to_u8(img)


_SOLIDS = [(235, 235, 235), (200, 200, 200), (120, 120, 125), (35, 35, 38), (190, 205, 215),
           (215, 200, 180), (170, 200, 170), (230, 225, 250), (60, 90, 120), (235, 215, 200)]


def solid(h: int, w: int, rng: Rng, px_per_mm: float) -> np.ndarray:
    """Laminate, painted or plastic table tops: one colour, a faint texture, maybe speckles."""
    base = _jitter(rng, _SOLIDS[rng.integers(len(_SOLIDS))], 0.12)
    img = base[None, None, :] * (0.97 + 0.05 * fbm(h, w, 4, rng, octaves=4))[..., None]
    if rng.random() < 0.4:  # countertop speckles (granite-like laminate)
        dots = (rng.random((h, w)) < rng.uniform(0.005, 0.04)).astype(np.float32)
        dots = cv2.GaussianBlur(dots, (0, 0), max(0.5, 0.3 * px_per_mm))
        tint = _jitter(rng, (90, 90, 90), 0.5) - base
        img += (dots / max(float(dots.max()), 1e-6) * rng.uniform(0.3, 0.8))[..., None] * tint[None, None, :]
    return _to_u8(img + rng.normal(0, 1.5, img.shape).astype(np.float32))


def _threads(h: int, w: int, period: float, rng: Rng, aspect: float) -> np.ndarray:
    xx = np.arange(w, dtype=np.float32)[None, :]
    yy = np.arange(h, dtype=np.float32)[:, None]
    # Threads wander a little: warp threads along y, weft threads along x.
    wander_x = fbm(h, w, 6, rng, octaves=2, aspect=1.0 / aspect) * period * 0.6
    wander_y = fbm(h, w, 6, rng, octaves=2, aspect=aspect) * period * 0.6
    warp = 0.5 + 0.5 * np.sin(2 * np.pi * (xx + wander_x) / period)
    weft = 0.5 + 0.5 * np.sin(2 * np.pi * (yy + wander_y) / period)
    checker = (np.floor(xx / period) + np.floor(yy / period)) % 2
    return np.where(checker > 0, warp ** 0.7, weft ** 0.7).astype(np.float32)


def fabric(h: int, w: int, rng: Rng, px_per_mm: float) -> np.ndarray:
    """Woven cloth: a thread weave with plain, striped, plaid or rug-like colouring."""
    period = max(2.5, rng.uniform(1.0, 6.0) * px_per_mm)
    weave = _threads(h, w, period, rng, aspect=rng.uniform(1, 8))
    kind = rng.choice(["plain", "stripes", "plaid", "rug"])
    c0 = _jitter(rng, tuple(rng.uniform(30, 240, 3)), 0.0)
    c1 = _jitter(rng, tuple(rng.uniform(30, 240, 3)), 0.0)
    xx = np.arange(w, dtype=np.float32)[None, :]
    yy = np.arange(h, dtype=np.float32)[:, None]
    if kind == "plain":
        t = np.zeros((h, w), np.float32)
    elif kind == "stripes":
        sp = rng.uniform(5, 40) * px_per_mm
        t = np.broadcast_to(((yy / sp) % 1.0 < rng.uniform(0.2, 0.6)).astype(np.float32), (h, w))
    elif kind == "plaid":  # gingham / tablecloth checks
        sp = rng.uniform(6, 30) * px_per_mm
        a = ((xx / sp) % 1.0 < 0.5).astype(np.float32)
        b = ((yy / sp) % 1.0 < 0.5).astype(np.float32)
        t = (a + b) / 2.0
    else:  # rug: pale wool with dark streaks running down, like the real photo set's rug
        c0 = _jitter(rng, (205, 205, 200), 0.08)
        c1 = _jitter(rng, (70, 70, 75), 0.3)
        streak = fbm(h, w, 10, rng, octaves=3, aspect=0.06)
        t = np.clip((streak - rng.uniform(0.55, 0.7)) * 5, 0, 1)
        t = np.maximum(t, (rng.random((h, w)) < 0.05).astype(np.float32) * 0.6)
        period2 = max(4.0, rng.uniform(4, 8) * px_per_mm)
        weave = 0.6 * weave + 0.4 * _threads(h, w, period2, rng, aspect=0.2)
    colour = lerp_colours(np.asarray(t, np.float32), c0, c1)
    shade = 0.72 + 0.38 * weave + 0.08 * (fbm(h, w, 5, rng, octaves=3) - 0.5)
    img = colour * shade[..., None]
    fuzz = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 0.8)
    return _to_u8(img + 6 * fuzz[..., None])


def noise_texture(h: int, w: int, rng: Rng, px_per_mm: float) -> np.ndarray:
    """Coloured noise: blotches (camouflage-like prints) or terrazzo / granite speckle."""
    if rng.random() < 0.5:
        cols = [_jitter(rng, tuple(rng.uniform(20, 240, 3)), 0.0) for _ in range(3)]
        n1 = fbm(h, w, max(2.0, h / max(8.0, rng.uniform(20, 120) * px_per_mm)), rng, octaves=4)
        n2 = fbm(h, w, max(2.0, h / max(8.0, rng.uniform(20, 120) * px_per_mm)), rng, octaves=4)
        img = lerp_colours(np.clip((n1 - 0.5) * 4 + 0.5, 0, 1), cols[0], cols[1])
        m = np.clip((n2 - 0.55) * 6, 0, 1)
        img = img * (1 - m[..., None]) + cols[2][None, None, :] * m[..., None]
    else:
        base = _jitter(rng, tuple(rng.uniform(60, 230, 3)), 0.0)
        img = np.broadcast_to(base, (h, w, 3)).astype(np.float32).copy()
        for _ in range(int(rng.integers(2, 5))):
            c = _jitter(rng, tuple(rng.uniform(0, 255, 3)), 0.0)
            chips = (rng.random((h, w)) < rng.uniform(0.002, 0.02)).astype(np.uint8)
            k = max(1, int(rng.uniform(0.5, 4) * px_per_mm))
            chips = cv2.dilate(chips, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * k + 1, 2 * k + 1)))
            m = cv2.GaussianBlur(chips.astype(np.float32), (0, 0), 0.7)
            img = img * (1 - m[..., None]) + c[None, None, :] * m[..., None]
    return _to_u8(img + rng.normal(0, 3, (h, w, 1)).astype(np.float32))


def dots(h: int, w: int, rng: Rng, px_per_mm: float) -> np.ndarray:
    """Printed tablecloth: polka dots or small motifs on a plain ground."""
    base = _jitter(rng, tuple(rng.uniform(80, 250, 3)), 0.0)
    ink = _jitter(rng, tuple(rng.uniform(0, 200, 3)), 0.0)
    img = np.broadcast_to(base, (h, w, 3)).astype(np.float32).copy()
    sp = rng.uniform(10, 40) * px_per_mm
    r = sp * rng.uniform(0.12, 0.3)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    stagger = (np.floor(yy / sp) % 2) * sp / 2
    d = np.hypot((xx + stagger) % sp - sp / 2, yy % sp - sp / 2)
    m = np.clip(r - d + 0.5, 0, 1)
    img = img * (1 - m[..., None]) + ink[None, None, :] * m[..., None]
    weave = _threads(h, w, max(2.5, 1.5 * px_per_mm), rng, aspect=2)
    return _to_u8(img * (0.88 + 0.14 * weave)[..., None])


def motifs(h: int, w: int, rng: Rng, px_per_mm: float) -> np.ndarray:
    """Printed cloth or oilcloth with tile-sized motifs: rounded squares, bars, rings and crosses
    in one to three inks, in a grid or scattered, light on dark or dark on light.

    The hardest table for a tile detector (a pale rounded rectangle with a mark inside is what a
    tile looks like from afar), so it is drawn for training as a hard negative; its default weight
    in :data:`BACKGROUND_WEIGHTS` is 0, which leaves every earlier scene's random draws unchanged.
    """
    dark_ground = rng.random() < 0.4
    lo, hi = (20, 110) if dark_ground else (150, 250)
    base = _jitter(rng, tuple(rng.uniform(lo, hi, 3)), 0.0)
    img = np.broadcast_to(base, (h, w, 3)).astype(np.float32).copy()
    inks = [_jitter(rng, tuple(rng.uniform(*((170, 255) if dark_ground else (0, 200)), 3)), 0.0)
            for _ in range(int(rng.integers(1, 4)))]
    size = rng.uniform(12, 45) * px_per_mm  # a Rummikub tile is about 30 mm tall
    pitch = size * rng.uniform(1.3, 2.6)
    grid = rng.random() < 0.6
    n = int((h / pitch + 1) * (w / pitch + 1)) if grid else int(h * w / pitch ** 2 * rng.uniform(0.5, 1.2))
    mask = np.zeros((h, w), np.uint8)
    for i in range(min(n, 4000)):
        if grid:
            gy, gx = divmod(i, int(w / pitch + 1))
            cx, cy = (gx + 0.5 * (gy % 2)) * pitch, (gy + 0.5) * pitch
        else:
            cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        ink = inks[i % len(inks)]
        shape = int(rng.integers(0, 4))
        s = size * rng.uniform(0.8, 1.1)
        mask[:] = 0
        if shape == 0:  # rounded rectangle, upright like a tile
            a, b = s * rng.uniform(0.55, 0.8) / 2, s / 2
            r = int(max(1, s * 0.12))
            cv2.rectangle(mask, (int(cx - a + r), int(cy - b)), (int(cx + a - r), int(cy + b)), 255, -1)
            cv2.rectangle(mask, (int(cx - a), int(cy - b + r)), (int(cx + a), int(cy + b - r)), 255, -1)
        elif shape == 1:  # a bar or stripe segment
            cv2.line(mask, (int(cx - s / 2), int(cy)), (int(cx + s / 2), int(cy)), 255, max(1, int(s * 0.25)))
        elif shape == 2:  # a ring
            cv2.circle(mask, (int(cx), int(cy)), int(s / 2), 255, max(1, int(s * 0.12)))
        else:  # a cross or flower
            t = max(1, int(s * 0.18))
            cv2.line(mask, (int(cx - s / 2), int(cy)), (int(cx + s / 2), int(cy)), 255, t)
            cv2.line(mask, (int(cx), int(cy - s / 2)), (int(cx), int(cy + s / 2)), 255, t)
        x0, y0 = max(0, int(cx - s)), max(0, int(cy - s))
        x1, y1 = min(w, int(cx + s) + 1), min(h, int(cy + s) + 1)
        if x1 <= x0 or y1 <= y0:
            continue
        m = mask[y0:y1, x0:x1].astype(np.float32)[..., None] / 255
        img[y0:y1, x0:x1] = img[y0:y1, x0:x1] * (1 - m) + ink[None, None, :] * m
    img = cv2.GaussianBlur(img, (0, 0), max(0.5, 0.25 * px_per_mm))
    weave = _threads(h, w, max(2.5, 1.5 * px_per_mm), rng, aspect=2)
    return _to_u8(img * (0.9 + 0.12 * weave)[..., None])


BACKGROUNDS: dict[str, Callable[[int, int, Rng, float], np.ndarray]] = {
    "wood": wood,
    "marble": marble,
    "felt": felt,
    "solid": solid,
    "fabric": fabric,
    "noise": noise_texture,
    "dots": dots,
    "motifs": motifs,
}
# How often each kind appears: wood and plain tops are the commonest game tables.
BACKGROUND_WEIGHTS: dict[str, float] = {
    "wood": 0.27, "marble": 0.14, "felt": 0.1, "solid": 0.2, "fabric": 0.15, "noise": 0.07, "dots": 0.07,
    "motifs": 0.0,  # training's hard negatives only (python -m datasets.synth --backgrounds)
}


def make_background(kind: str, h: int, w: int, rng: Rng, px_per_mm: float) -> np.ndarray:
    """A table texture of the named kind (a key of :data:`BACKGROUNDS`), BGR uint8 (h, w, 3)."""
    try:
        maker = BACKGROUNDS[kind]
    except KeyError:
        raise ValueError(f'unknown background "{kind}": choose one of {", ".join(BACKGROUNDS)}') from None
    return maker(h, w, rng, px_per_mm)


def plastic_texture(h: int, w: int, rng: Rng, px_per_mm: float, base: float) -> np.ndarray:
    """Dark rack plastic: a fine embossed hatch with slight sheen, around grey level ``base``."""
    period = max(1.5, rng.uniform(0.6, 1.4) * px_per_mm)
    weave = _threads(h, w, period, rng, aspect=1.5)
    sheen = fbm(h, w, 3, rng, octaves=2)
    g = base * (0.85 + 0.3 * weave) + 18 * (sheen - 0.5)
    tint = np.array([1.0, 1.0, 1.0], np.float32) * rng.uniform(0.95, 1.05, 3)
    return _to_u8(g[..., None] * tint[None, None, :])


def backdrop(h: int, w: int, rng: Rng) -> np.ndarray:
    """Out-of-focus room behind the table (walls, furniture): soft colour blobs."""
    cols = [_jitter(rng, tuple(rng.uniform(30, 230, 3)), 0.0) for _ in range(2)]
    t = fbm(h, w, 2, rng, octaves=2)
    img = lerp_colours(t, cols[0], cols[1])
    img *= np.linspace(rng.uniform(0.6, 1.1), 1.0, h, dtype=np.float32)[:, None, None]
    return _to_u8(img)
