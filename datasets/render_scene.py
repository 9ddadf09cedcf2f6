"""Geometry and compositing for the synthetic scenes: a pinhole camera over a table, tiles and rack
parts as textured 3D slabs, shadows, uneven light and the artefacts of a phone camera.

World units are millimetres; the table is the plane z = 0 and z points up. Image coordinates are
pixels with x to the right and y down (OpenCV). A slab's textured face is its "top": for a tile
that is the face with the numeral, whose corners are returned in the label order top-left,
top-right, bottom-right, bottom-left of the upright tile.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from datasets.render_textures import fbm

__all__ = ["Camera", "look_at", "Lighting", "Slab", "draw_slab", "shadow_polygon", "render_ground", "camera_effects"]

Rng = np.random.Generator


@dataclass
class Camera:
    """A pinhole camera: intrinsics ``K``, world-to-camera rotation ``R`` (rows: right, down,
    forward) and centre ``C`` in world millimetres, for an image of ``width`` x ``height``."""

    K: np.ndarray
    R: np.ndarray
    C: np.ndarray
    width: int
    height: int

    @property
    def focal(self) -> float:
        return float(self.K[0, 0])

    def project(self, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """World points (N, 3) -> image points (N, 2) and depths along the optical axis (N,)."""
        cam = (np.asarray(pts, np.float64) - self.C) @ self.R.T
        z = cam[:, 2]
        zs = np.where(np.abs(z) < 1e-9, 1e-9, z)
        uv = (cam[:, :2] / zs[:, None]) * self.focal + self.K[:2, 2]
        return uv, z

    def ground_homography(self) -> np.ndarray:
        """3x3 matrix taking table points (x, y, 1) on z = 0 to homogeneous image points."""
        P = self.K @ np.hstack([self.R, (-self.R @ self.C)[:, None]])
        return P[:, [0, 1, 3]]

    def rays(self, uv: np.ndarray) -> np.ndarray:
        """World directions (N, 3) of the rays through image points (N, 2)."""
        pts = np.hstack([np.asarray(uv, np.float64), np.ones((len(uv), 1))])
        return (np.linalg.inv(self.K) @ pts.T).T @ self.R

    def to_ground(self, uv: np.ndarray, height: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
        """Where rays through image points meet the plane z = ``height``: points (N, 2), hit mask (N,)."""
        d = self.rays(uv)
        ok = d[:, 2] < -1e-6
        t = np.where(ok, (height - self.C[2]) / np.where(ok, d[:, 2], -1.0), 0.0)
        return (self.C[None, :2] + t[:, None] * d[:, :2]), ok


def look_at(width: int, height: int, fov_x_deg: float, target: np.ndarray, tilt_deg: float,
            azimuth_deg: float, distance: float, roll_deg: float = 0.0) -> Camera:
    """A camera ``distance`` mm from ``target``, tilted ``tilt_deg`` from looking straight down.

    The camera stands on the side of the target given by ``azimuth_deg`` (0 = +x); in its image
    the table direction pointing away from it is "up", and ``roll_deg`` turns the picture.
    """
    th, ph = math.radians(tilt_deg), math.radians(azimuth_deg)
    target = np.asarray(target, np.float64)
    C = target + distance * np.array([math.sin(th) * math.cos(ph), math.sin(th) * math.sin(ph), math.cos(th)])
    f = (target - C) / np.linalg.norm(target - C)
    right = np.array([-math.sin(ph), math.cos(ph), 0.0])
    down = np.cross(f, right)
    ps = math.radians(roll_deg)
    r2 = math.cos(ps) * right + math.sin(ps) * down
    d2 = -math.sin(ps) * right + math.cos(ps) * down
    focal = (width / 2) / math.tan(math.radians(fov_x_deg) / 2)
    K = np.array([[focal, 0, width / 2], [0, focal, height / 2], [0, 0, 1]], np.float64)
    return Camera(K, np.stack([r2, d2, f]), C, width, height)


@dataclass
class Lighting:
    """One distant light (unit vector towards it) plus ambient light, as a fraction of the total."""

    direction: np.ndarray
    ambient: float

    def shade(self, normal: np.ndarray) -> float:
        """Brightness of a surface with this normal relative to the table top (which gets 1.0)."""
        lit = self.ambient + (1 - self.ambient) * max(0.0, float(np.dot(normal, self.direction)))
        table = self.ambient + (1 - self.ambient) * max(0.0, float(self.direction[2]))
        return lit / table


@dataclass
class Slab:
    """A box whose "top" face (the one with ``texture``) is centred at ``centre``.

    ``u`` and ``v`` are unit vectors along the face's width (right) and height (up, the top of
    the upright tile); the outward normal is ``u x v`` and the box extends ``t`` mm behind the face.
    """

    centre: np.ndarray
    u: np.ndarray
    v: np.ndarray
    w: float
    h: float
    t: float
    colour: tuple[int, int, int]
    texture: np.ndarray | None = None  # BGRA, row 0 = top of the face
    side_gain: float = 0.9  # sides of moulded tiles look a little darker than the face

    @property
    def n(self) -> np.ndarray:
        return np.cross(self.u, self.v)

    def corners(self) -> np.ndarray:
        """(8, 3): top face TL, TR, BR, BL, then the back face in the same order."""
        c, hu, hv = self.centre, self.u * self.w / 2, self.v * self.h / 2
        top = np.stack([c - hu + hv, c + hu + hv, c + hu - hv, c - hu - hv])
        return np.vstack([top, top - self.n * self.t])


# Side faces as corner indices with the direction of their outward normal (+-u, +-v).
_SIDES = (((1, 2, 6, 5), "u", 1.0), ((0, 3, 7, 4), "u", -1.0), ((0, 1, 5, 4), "v", 1.0), ((3, 2, 6, 7), "v", -1.0))


def _fill(img: np.ndarray, pts: np.ndarray, value: float | tuple[float, ...], aa: bool = False) -> None:
    cv2.fillConvexPoly(img, np.round(pts * 16).astype(np.int32), value, cv2.LINE_AA if aa else cv2.LINE_8, 4)


def draw_slab(canvas: np.ndarray, cam: Camera, slab: Slab, light: Lighting,
              mask: np.ndarray | None = None) -> np.ndarray | None:
    """Draw ``slab`` over ``canvas`` (BGR uint8, in place) and return its top face in image
    pixels (4, 2) in the order TL, TR, BR, BL, or None when it is behind the camera or off-screen.

    ``mask`` (uint8, image sized), if given, receives the slab's coverage (for glare on plastic).
    """
    pts3 = slab.corners()
    uv, z = cam.project(pts3)
    if np.any(z < 1.0):
        return None
    H, W = canvas.shape[:2]
    x0, y0 = np.floor(uv.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(uv.max(axis=0)).astype(int) + 2
    xa, ya, xb, yb = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
    if xa >= xb or ya >= yb:
        return None
    local = uv - (xa, ya)
    ph, pw = yb - ya, xb - xa
    body = np.array(slab.colour, np.float32)
    # Start from a side colour, not black: anti-aliased alpha reaches a little past the filled
    # polygons and would otherwise pull dark fringes in between touching tiles.
    patch = np.empty((ph, pw, 3), np.float32)
    patch[:] = body * 0.8 * slab.side_gain
    alpha = np.zeros((ph, pw), np.uint8)
    n = slab.n
    for idx, axis, sign in _SIDES:
        normal = (slab.u if axis == "u" else slab.v) * sign
        centre = pts3[list(idx)].mean(axis=0)
        if np.dot(normal, cam.C - centre) <= 0:
            continue  # facing away
        poly = local[list(idx)]
        # Light scattered inside the plastic keeps the walls from going as dark as plain shading says.
        shade = (0.55 + 0.45 * min(1.2, light.shade(normal))) * slab.side_gain
        _fill(patch, poly, tuple(float(c) for c in body * shade))
        _fill(alpha, poly, 255, aa=True)
    top = local[:4]
    if np.dot(n, cam.C - slab.centre) > 0:
        shade = light.shade(n)
        if slab.texture is None:
            _fill(patch, top, tuple(float(c) for c in body * shade))
            _fill(alpha, top, 255, aa=True)
        else:
            tex = slab.texture
            th, tw = tex.shape[:2]
            size = max(np.linalg.norm(top[0] - top[3]), np.linalg.norm(top[0] - top[1]))
            scale = min(1.0, 1.6 * size / max(th, tw))
            if scale < 0.9:  # shrink first: warpPerspective does not filter when minifying
                tex = cv2.resize(tex, (max(2, int(tw * scale)), max(2, int(th * scale))), interpolation=cv2.INTER_AREA)
                th, tw = tex.shape[:2]
            src = np.float32([[0, 0], [tw, 0], [tw, th], [0, th]])
            M = cv2.getPerspectiveTransform(src, top.astype(np.float32))
            warped = cv2.warpPerspective(tex, M, (pw, ph), flags=cv2.INTER_LINEAR,
                                         borderMode=cv2.BORDER_CONSTANT,
                                         borderValue=(float(body[0]), float(body[1]), float(body[2]), 0.0))
            fa = warped[..., 3:].astype(np.float32) / 255.0
            patch = patch * (1 - fa) + warped[..., :3].astype(np.float32) * shade * fa
            alpha = np.maximum(alpha, warped[..., 3])
    a = alpha.astype(np.float32)[..., None] / 255.0
    roi = canvas[ya:yb, xa:xb]
    roi[:] = np.clip(roi.astype(np.float32) * (1 - a) + patch * a, 0, 255).astype(np.uint8)
    if mask is not None:
        mroi = mask[ya:yb, xa:xb]
        np.maximum(mroi, alpha, out=mroi)
    return uv[:4]


def shadow_polygon(slab: Slab, light: Lighting) -> np.ndarray:
    """World points (8, 2) on the table whose convex hull is the slab's shadow under ``light``."""
    pts = slab.corners()
    L = light.direction
    tz = pts[:, 2] / max(L[2], 0.05)
    return (pts[:, :2] - tz[:, None] * L[None, :2])


def render_ground(cam: Camera, texture: np.ndarray, px_per_mm: float, origin_xy: tuple[float, float],
                  backdrop_img: np.ndarray, far_mm: float, edge_dir: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The table seen by ``cam``: ``texture`` laid on z = 0 with its pixel (0, 0) at ``origin_xy``
    and ``px_per_mm`` texture pixels per millimetre, repeated by mirroring.

    The table ends along a straight edge ``far_mm`` from the camera in the horizontal direction
    ``edge_dir`` (default: the camera's own); beyond it, and above the horizon, ``backdrop_img`` shows.
    Returns the image (BGR uint8) and the ground distance per pixel in mm (inf off the table).
    """
    W, H = cam.width, cam.height
    # Distance to the ground per pixel, from the ray through each pixel (linear in u, v).
    M_ray = cam.R.T @ np.linalg.inv(cam.K)
    uu = np.arange(W, dtype=np.float32)[None, :]
    vv = np.arange(H, dtype=np.float32)[:, None]
    d = [np.broadcast_to((M_ray[i, 0] * uu + M_ray[i, 1] * vv + M_ray[i, 2]).astype(np.float32), (H, W)) for i in range(3)]
    length = np.sqrt(d[0] ** 2 + d[1] ** 2 + d[2] ** 2)
    hits = d[2] < -1e-6
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(hits, -cam.C[2] / np.where(hits, d[2], -1.0), np.inf).astype(np.float32)
    dist = np.where(hits, t * length, np.inf).astype(np.float32)
    # Texture minification per pixel (texture pixels per image pixel, along the stretched axis):
    # choose a level of a mip pyramid so far and grazing parts do not alias into moire.
    cos_inc = np.abs(d[2]) / np.maximum(length, 1e-9)
    with np.errstate(divide="ignore", invalid="ignore"):
        minif = px_per_mm * dist / (cam.focal * np.maximum(cos_inc, 0.08))
    level = np.clip(np.log2(np.where(np.isfinite(minif), np.maximum(minif, 1e-3), 64.0)), 0, 5).astype(np.float32)
    s = 1.0 / px_per_mm
    G = cam.ground_homography()
    out = np.zeros((H, W, 3), np.float32)
    weight_sum = np.zeros((H, W), np.float32)
    tex = texture
    for lvl in range(int(np.ceil(level.max())) + 1):
        wgt = np.clip(1.0 - np.abs(level - lvl), 0, 1)
        if wgt.max() > 0:
            k = 2 ** lvl
            A = np.array([[s * k, 0, origin_xy[0]], [0, s * k, origin_xy[1]], [0, 0, 1]], np.float64)
            img_l = cv2.warpPerspective(tex, G @ A, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
            out += img_l.astype(np.float32) * wgt[..., None]
            weight_sum += wgt
        if min(tex.shape[:2]) > 16:
            tex = cv2.pyrDown(tex)
    img = out / np.maximum(weight_sum, 1e-6)[..., None]
    # Straight far edge of the table.
    fwd = cam.R[2].copy()
    fwd[2] = 0.0
    e = edge_dir if edge_dir is not None else fwd
    e = np.asarray(e, np.float64)[:2] / max(np.linalg.norm(np.asarray(e, np.float64)[:2]), 1e-9)
    along = t * (d[0] * e[0] + d[1] * e[1])
    off = np.clip((along - far_mm) / (0.02 * far_mm), 0, 1)
    off[~hits] = 1.0
    if off.max() > 0:
        off = cv2.GaussianBlur(off, (0, 0), 1.0)[..., None]
        back = cv2.resize(backdrop_img, (W, H), interpolation=cv2.INTER_LINEAR).astype(np.float32)
        img = img * (1 - off) + back * off
        dist = np.where(off[..., 0] > 0.5, np.inf, dist).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8), dist


def _gauss_blob(h: int, w: int, cx: float, cy: float, sx: float, sy: float, angle: float) -> np.ndarray:
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    c, s = math.cos(angle), math.sin(angle)
    dx, dy = xx - cx, yy - cy
    a = (c * dx + s * dy) / sx
    b = (-s * dx + c * dy) / sy
    return np.exp(-0.5 * (a * a + b * b))


def camera_effects(img: np.ndarray, rng: Rng, plastic_mask: np.ndarray, dist: np.ndarray,
                   focus_mm: float, tile_px: float) -> tuple[np.ndarray, dict[str, float]]:
    """Uneven light, colour cast, glare, exposure, blur, noise and resampling, as a phone adds them.

    ``plastic_mask`` marks glossy tiles (glare is stronger there); ``dist`` is the ground distance
    per pixel (for depth of field); ``tile_px`` the typical tile height (blur stays readable-ish).
    Returns the image (BGR uint8) and the parameters drawn (for the scene record).
    """
    H, W = img.shape[:2]
    f = img.astype(np.float32)
    info: dict[str, float] = {}
    # Depth of field: far table parts soften (also hides texture aliasing near the horizon).
    finite = np.where(np.isfinite(dist), dist, dist[np.isfinite(dist)].max() if np.isfinite(dist).any() else 1.0)
    far = np.clip((finite / max(focus_mm, 1.0) - rng.uniform(1.2, 1.8)) / 1.5, 0, 1)
    if far.max() > 0.01:
        blurred = cv2.GaussianBlur(f, (0, 0), max(1.0, rng.uniform(1.0, 3.0)))
        f = f * (1 - far[..., None]) + blurred * far[..., None]
    # Uneven light: smooth gain field, a gradient across the table and vignetting.
    small = fbm(max(8, H // 16), max(8, W // 16), 2, rng, octaves=2)
    gain = cv2.resize(small, (W, H), interpolation=cv2.INTER_CUBIC)
    amp = rng.uniform(0.05, 0.35)
    g = 1 + amp * (gain - 0.5) * 2
    ang = rng.uniform(0, 2 * math.pi)
    xx = (np.arange(W, dtype=np.float32)[None, :] / W - 0.5)
    yy = (np.arange(H, dtype=np.float32)[:, None] / H - 0.5)
    g = g * (1 + rng.uniform(0, 0.35) * (math.cos(ang) * xx + math.sin(ang) * yy))
    g = g * (1 - rng.uniform(0, 0.45) * (xx ** 2 + yy ** 2) * 2)
    if rng.random() < 0.3:  # a lamp's pool of light
        g = g * (1 + rng.uniform(0.1, 0.5) * _gauss_blob(H, W, rng.uniform(0, W), rng.uniform(0, H),
                                                        rng.uniform(0.2, 0.6) * W, rng.uniform(0.2, 0.6) * H, 0.0))
    info["light_amp"] = float(amp)
    f *= g[..., None]
    # White balance: tungsten (warm) to shade (cool).
    temp = rng.normal(0, 0.08)
    wb = np.array([1 - temp, 1 + rng.normal(0, 0.02), 1 + temp], np.float32)
    f *= wb[None, None, :]
    info["white_balance"] = float(temp)
    # Glare: specular patches, much stronger on glossy tiles than on the table.
    if rng.random() < 0.35:
        pm = cv2.GaussianBlur(plastic_mask.astype(np.float32) / 255.0, (0, 0), 1.0)
        for _ in range(int(rng.integers(1, 4))):
            blob = _gauss_blob(H, W, rng.uniform(0, W), rng.uniform(0, H), rng.uniform(0.5, 3) * tile_px,
                               rng.uniform(0.3, 1.5) * tile_px, rng.uniform(0, math.pi))
            k = rng.uniform(0.3, 0.95) * blob * (0.15 + 0.85 * pm)
            f = f + (255 - f) * k[..., None]
        info["glare"] = 1.0
    # Exposure and contrast curve.
    expo = math.exp(rng.normal(0, 0.18))
    gamma = math.exp(rng.normal(0, 0.12))
    f = 255.0 * np.power(np.clip(f * expo / 255.0, 0, 1), gamma)
    # Blur: defocus or camera shake.
    r = rng.random()
    if r < 0.3:
        sigma = rng.uniform(0.4, 1.0 + 0.015 * tile_px)
        f = cv2.GaussianBlur(f, (0, 0), sigma)
        info["defocus"] = float(sigma)
    elif r < 0.42:
        length = int(rng.integers(3, max(4, int(3 + 0.08 * tile_px))))
        k = np.zeros((length, length), np.float32)
        k[length // 2, :] = 1.0 / length
        M = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1.0)
        k = cv2.warpAffine(k, M, (length, length))
        f = cv2.filter2D(f, -1, k / max(float(k.sum()), 1e-6))
        info["motion"] = float(length)
    # Sensor noise: luminance plus low-frequency chroma noise, heavier in the dark.
    sigma_n = rng.uniform(0.5, 7.0)
    lum = rng.normal(0, 1, (H, W, 1)).astype(np.float32)
    chroma = cv2.resize(rng.normal(0, 1, (H // 4 + 1, W // 4 + 1, 3)).astype(np.float32), (W, H))
    dark = 1.0 + (1.0 - f.mean(axis=2, keepdims=True) / 255.0)
    f = f + sigma_n * dark * (lum + 0.4 * chroma)
    info["noise"] = float(sigma_n)
    out = np.clip(f, 0, 255).astype(np.uint8)
    if rng.random() < 0.25:  # a soft phone picture: lower resolution sensor or digital zoom
        s = rng.uniform(0.45, 0.85)
        out = cv2.resize(cv2.resize(out, (max(8, int(W * s)), max(8, int(H * s))), interpolation=cv2.INTER_AREA),
                         (W, H), interpolation=cv2.INTER_LINEAR)
        info["resample"] = float(s)
    if rng.random() < 0.3:  # saved twice (messaging apps recompress)
        q = int(rng.integers(30, 80))
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
        if ok:
            out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
            info["jpeg_first"] = float(q)
    return out, info
