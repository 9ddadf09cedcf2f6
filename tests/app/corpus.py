"""A corpus of bad uploads built in memory (never files in the repo), shared by the image and API tests.

Each case is a file name, its bytes and the HTTP statuses a correct server may answer with. The
bytes are made from one of the real photos in ``tests/fixtures`` (the decoder's guards don't depend on
what the photo shows).
"""

from __future__ import annotations

import io
import struct
import zlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

from tests.photos import sample_photos



@dataclass(frozen=True)
class Upload:
    """One file a player (or an attacker) might send."""

    name: str
    filename: str
    data: bytes
    statuses: tuple[int, ...]
    """Acceptable answers: a 4xx with a clear message, or 200 where the picture is still usable."""


@lru_cache(maxsize=1)
def sample_jpeg() -> bytes:
    """A real photo's bytes (the first of the six in ``tests/fixtures``)."""
    return sample_photos()[0].read_bytes()


def png_bomb(side: int = 30_000) -> bytes:
    """A valid 1-bit PNG of ``side`` x ``side`` black pixels: a few kB that decode to gigapixels."""
    row = b"\x00" + b"\x00" * ((side + 7) // 8)
    compressor = zlib.compressobj(9)
    chunks = [compressor.compress(row) for _ in range(side)]
    idat = b"".join(chunks) + compressor.flush()

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def panorama_jpeg(width: int = 20_000, height: int = 500) -> bytes:
    """A real, decodable JPEG far wider than any phone photo (a stitched panorama)."""
    photo = cv2.imdecode(np.frombuffer(sample_jpeg(), np.uint8), cv2.IMREAD_COLOR)
    wide = cv2.resize(photo, (width, height), interpolation=cv2.INTER_NEAREST)
    ok, buf = cv2.imencode(".jpg", wide, [cv2.IMWRITE_JPEG_QUALITY, 60])
    assert ok
    return buf.tobytes()


def with_garbage_exif(jpeg: bytes) -> bytes:
    """The JPEG with an APP1 'Exif' segment of random bytes inserted after the start marker."""
    rng = np.random.default_rng(7)
    junk = b"Exif\x00\x00" + b"MM\x00\x2a\x00\x00\x00\x08" + rng.integers(0, 256, 600, dtype=np.uint8).tobytes()
    segment = b"\xff\xe1" + struct.pack(">H", len(junk) + 2) + junk
    return jpeg[:2] + segment + jpeg[2:]


def jpeg_of(image_bgr: np.ndarray, orientation: int | None = None, quality: int = 92) -> bytes:
    """A JPEG of a BGR array, optionally with an EXIF orientation tag (the pixels as stored)."""
    kwargs = {}
    if orientation is not None:
        exif = Image.Exif()
        exif[0x0112] = orientation
        kwargs["exif"] = exif.tobytes()
    out = io.BytesIO()
    Image.fromarray(image_bgr[:, :, ::-1].copy()).save(out, format="JPEG", quality=quality, **kwargs)
    return out.getvalue()


def with_orientation(jpeg: bytes, orientation: int) -> bytes:
    """The photo re-saved with an EXIF orientation tag (pixels unchanged)."""
    image = Image.open(io.BytesIO(jpeg))
    exif = Image.Exif()
    exif[0x0112] = orientation
    out = io.BytesIO()
    image.save(out, format="JPEG", exif=exif.tobytes(), quality=92)
    return out.getvalue()


def bad_uploads() -> list[Upload]:
    """Every bad upload the server must answer with a clear 4xx (or 200 where still usable)."""
    jpeg = sample_jpeg()
    return [
        Upload("zero bytes", "empty.jpg", b"", (422,)),
        Upload("text named .jpg", "table.jpg", b"these are not the tiles you are looking for\n" * 20, (415,)),
        Upload("truncated JPEG", "cut.jpg", jpeg[: len(jpeg) // 2], (422,)),
        Upload("JPEG header only", "header.jpg", jpeg[:300], (422,)),
        Upload("image bomb", "bomb.png", png_bomb(), (413,)),
        Upload("huge panorama", "pano.jpg", panorama_jpeg(), (413,)),
        Upload("garbage EXIF", "exif.jpg", with_garbage_exif(jpeg), (200, 422)),
        Upload("50 MB upload", "big.jpg", jpeg + b"\0" * (50 * 1024 * 1024), (413,)),
        Upload("PDF named .jpg", "scan.jpg", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n" * 10, (415,)),
        Upload("damaged HEIC photo", "IMG_0001.heic", b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + b"\0" * 200, (422,)),
        Upload("one pixel", "dot.png", _png_of(np.zeros((1, 1, 3), np.uint8)), (422,)),
        Upload("PNG with bad checksum", "crc.png", _break_png_crc(_png_of(np.zeros((64, 64, 3), np.uint8))), (422,)),
    ]


def _png_of(image: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".png", image)
    assert ok
    return buf.tobytes()


def _break_png_crc(png: bytes) -> bytes:
    # Flip one byte inside the first IDAT chunk's data: the CRC no longer matches.
    at = png.index(b"IDAT") + 8
    return png[:at] + bytes([png[at] ^ 0xFF]) + png[at + 1 :]


def photo_labels(photo: Path) -> tuple[np.ndarray, list[str]]:
    """Ground truth of a real photo: boxes ``xyxy`` in pixels and tile codes in notation."""
    from datasets.real import class_names
    from referee.tiles import parse_tile

    names = class_names(photo.parents[2])
    label = photo.parent.parent / "labels" / (photo.stem + ".txt")
    width, height = Image.open(photo).size
    boxes, codes = [], []
    for line in label.read_text().split("\n"):
        parts = line.split()
        if len(parts) < 5:
            continue
        xy = np.array([float(v) for v in parts[1:]], dtype=np.float64).reshape(-1, 2) * (width, height)
        if len(xy) == 2:  # a plain YOLO box: centre x, centre y, width, height
            (cx, cy), (w, h) = xy
            xy = np.array([[cx - w / 2, cy - h / 2], [cx + w / 2, cy + h / 2]])
        boxes.append([*xy.min(axis=0), *xy.max(axis=0)])
        codes.append(parse_tile(names[int(parts[0])]).code)
    return np.array(boxes, dtype=np.float32).reshape(-1, 4), codes
