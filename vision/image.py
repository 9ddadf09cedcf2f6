"""Photo bytes in, upright BGR image out: the one door every photo goes through.

Phones store rotation in EXIF instead of turning the pixels, so :func:`decode_image` turns the
decoded pixels by the EXIF orientation (:func:`_orient`) before anything measures a box. JPEGs are
decoded by OpenCV, everything else (and a JPEG OpenCV would fill in) by Pillow. It also
guards the server: a file that is too big, an image with too many pixels (a decompression bomb),
something that is not an image, or a cut-off file each raise an :class:`ImageError` subclass whose
message is a sentence a player understands and whose ``status`` is the HTTP status to answer with.
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image, ImageFile, UnidentifiedImageError

from referee.i18n import _

__all__ = [
    "DecodedPhoto",
    "decode_photo",
    "WORKING_SIDE",
    "ImageError",
    "EmptyImageError",
    "FileTooLargeError",
    "TooManyPixelsError",
    "NotAnImageError",
    "CorruptImageError",
    "decode_image",
    "MAX_BYTES",
    "MAX_PIXELS",
    "MAX_SIDE",
]

MAX_BYTES = 25 * 1024 * 1024
"""Largest upload accepted: a 50-megapixel phone JPEG is 15-25 MB."""
MAX_PIXELS = 60_000_000
"""Most pixels accepted: 48/50-megapixel phone modes fit, a decompression bomb does not."""
MAX_SIDE = 16_384
"""Longest side accepted: wider than any phone sensor; stops huge panoramas before decoding."""
MIN_SIDE = 16
"""Shortest side accepted: below this no tile can be read."""

# HEIF brands (the first box of the file): an iPhone's photos are HEIC by default. Pillow reads
# them through pillow-heif's plugin, registered on the first such file (:func:`_heif_plugin`).
_HEIF_BRANDS = (b"ftypheic", b"ftypheix", b"ftyphevc", b"ftypheim", b"ftypheis", b"ftyphevm", b"ftyphevs",
                b"ftypmif1", b"ftypmsf1")

# Signatures of formats people send by mistake and Pillow can't read: name them in the message.
_KNOWN_UNSUPPORTED = {
    b"ftypheic": "HEIC",
    b"ftypheix": "HEIC",
    b"ftypmif1": "HEIF",
    b"ftypavif": "AVIF",
    b"ftypmp42": "MP4 video",
    b"ftypisom": "MP4 video",
    b"ftypqt  ": "QuickTime video",
}


class ImageError(ValueError):
    """A photo the server refuses; ``str(error)`` is a sentence for the player.

    Attributes:
        status: the HTTP status to answer with (413 too large, 415 not an image, 422 unreadable).
    """

    status: int = 422

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        if status is not None:
            self.status = status


class EmptyImageError(ImageError):
    """The upload holds no bytes at all."""

    status = 422


class FileTooLargeError(ImageError):
    """The file is bigger than the byte limit."""

    status = 413


class TooManyPixelsError(ImageError):
    """The image's width x height (or one side) is over the limit: a bomb or a huge panorama."""

    status = 413


class NotAnImageError(ImageError):
    """The bytes are not a picture format the server reads (text, PDF, HEIC ...)."""

    status = 415


class CorruptImageError(ImageError):
    """The file starts like a picture but can't be decoded (cut off, damaged)."""

    status = 422


def _megabytes(n: int) -> str:
    return f"{n / (1024 * 1024):.0f}"


def _unsupported_format(data: bytes) -> str | None:
    head = data[:64]
    for signature, name in _KNOWN_UNSUPPORTED.items():
        if signature in head:
            return name
    if head.lstrip().startswith(b"%PDF"):
        return "PDF"
    return None


_heif_registered = False


def _heif_plugin(data: bytes) -> None:
    """Let Pillow open HEIC/HEIF photos (an iPhone's default format) when ``data`` is one:
    pillow-heif's opener (libheif inside its wheel), imported and registered on the first such
    file only, so reading a JPEG never pays for it. libheif turns the pixels by the file's own
    rotation and mirror boxes and resets the EXIF orientation to 1, so :func:`_orient` does not
    turn them twice. Without pillow-heif the file stays unreadable and the error names HEIC."""
    global _heif_registered
    if _heif_registered or not any(brand in data[:16] for brand in _HEIF_BRANDS):
        return
    try:
        import pillow_heif
    except ImportError:
        return
    pillow_heif.register_heif_opener()
    _heif_registered = True


def decode_image(
    data: bytes,
    max_bytes: int = MAX_BYTES,
    max_pixels: int = MAX_PIXELS,
    max_side: int = MAX_SIDE,
) -> np.ndarray:
    """Decode photo bytes (JPEG, PNG, WebP, HEIC, AVIF, BMP, GIF, TIFF) into an upright BGR uint8 image.

    EXIF orientation is applied; a damaged EXIF block is ignored (the pixels are still good).
    Raises an :class:`ImageError` subclass, with a sentence and an HTTP status, for an empty or
    oversized file, too many pixels, bytes that are not an image, or a cut-off image.
    """
    return decode_photo(data, max_bytes, max_pixels, max_side, working_side=None).image


@dataclass(frozen=True)
class DecodedPhoto:
    """An upright BGR photo, perhaps decoded smaller than it is (see :func:`decode_photo`).

    ``width`` and ``height`` are the full upright photo's; ``scale`` = full size / ``image`` size
    (1.0 when decoded whole), so a box measured on ``image`` times ``scale`` is in photo pixels.
    """

    image: np.ndarray
    width: int
    height: int
    scale: float


WORKING_SIDE = 2000
"""Long side, in pixels, a JPEG is at least decoded to for reading: a phone's 12-MP photo decodes
at half size (2312 px), where a tile a tenth of the photo's height is still 100+ px, well above
the reader's 64 px crops; decoding at half size costs about half the time (models/README.md)."""


def decode_photo(
    data: bytes,
    max_bytes: int = MAX_BYTES,
    max_pixels: int = MAX_PIXELS,
    max_side: int = MAX_SIDE,
    working_side: int | None = WORKING_SIDE,
) -> DecodedPhoto:
    """Like :func:`decode_image`, but a large JPEG is decoded straight at 1/2, 1/4 or 1/8 of its
    size (the JPEG decoder's own scaling, far cheaper than decoding whole and resizing), as long as
    its long side stays at least ``working_side`` pixels (None: always whole). Same checks, errors
    and EXIF handling; boxes found on the result scale back with :attr:`DecodedPhoto.scale`."""
    if not data:
        raise EmptyImageError(_("The photo is empty (0 bytes): take or choose the photo again."))
    if len(data) > max_bytes:
        raise FileTooLargeError(
            _("The photo is {size} MB; the limit is {limit} MB. Take it at the camera's normal size.").format(
                size=_megabytes(len(data)), limit=_megabytes(max_bytes)
            )
        )
    _heif_plugin(data)
    try:
        # Image.open reads only the header, so the size checks below run before any pixel is
        # decoded: that is what stops a decompression bomb (a tiny file declaring 100k x 100k).
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # odd EXIF and the like: judged below, not warned about
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
    # ImportError: once ultralytics is imported in the same process (training, vision.evaluate.bench, the
    # test run), it patches Image.open to import an optional HEIF plugin whenever Pillow cannot
    # identify a file; without that plugin, bytes that are no picture raise ImportError instead.
    except (UnidentifiedImageError, ImportError, Image.DecompressionBombWarning, Image.DecompressionBombError) as exc:
        if isinstance(exc, (Image.DecompressionBombWarning, Image.DecompressionBombError)):
            raise TooManyPixelsError(_too_many_pixels_message(None, max_pixels)) from None
        name = _unsupported_format(data)
        if name in ("HEIC", "HEIF") and _heif_registered:  # a HEIC we can read, but not this one
            raise CorruptImageError(_("The photo is damaged and can't be opened: take or choose it again.")) from None
        if name:
            raise NotAnImageError(
                _("This is a {format} file, which the server can't read: send a JPEG or PNG photo.").format(format=name)
            ) from None
        raise NotAnImageError(_("This file is not a photo: send a JPEG or PNG picture of the tiles.")) from None
    except Exception:  # noqa: BLE001 - any header parser failure means "not a readable picture"
        raise CorruptImageError(_("The photo is damaged and can't be opened: take or choose it again.")) from None

    width, height = image.size
    if width * height > max_pixels or max(width, height) > max_side:
        raise TooManyPixelsError(_too_many_pixels_message((width, height), max_pixels, max_side))
    if min(width, height) < MIN_SIDE:
        raise CorruptImageError(
            _("The picture is only {width} x {height} pixels: no tile can be read at that size.").format(
                width=width, height=height
            )
        )

    k = 1  # JPEG reduction: 1/2, 1/4 or 1/8, the largest whose long side stays >= working_side
    if working_side and image.format == "JPEG" and max(width, height) >= 2 * working_side:
        k = 2
        while k < 8 and max(width, height) // (2 * k) >= working_side:
            k *= 2
    if image.format == "JPEG":
        fast = _decode_jpeg(data, k, image)
        if fast is not None:
            return _decoded(fast, width, height)
    if k > 1:
        try:
            image.draft("RGB", (width // k, height // k))
        except Exception:  # noqa: BLE001 - a decoder that cannot scale decodes whole
            pass
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Pillow warns about odd EXIF; we handle it below
            image.load()
    except Exception:  # noqa: BLE001 - Pillow raises OSError, SyntaxError, ValueError... for cut-off data
        raise CorruptImageError(
            _("The photo is cut off or damaged and can't be decoded: take or choose it again.")
        ) from None
    # Pillow decodes a cut-off JPEG without error only when LOAD_TRUNCATED_IMAGES is set; the
    # project never sets it, but another library might, so refuse explicitly.
    if ImageFile.LOAD_TRUNCATED_IMAGES and image.format == "JPEG" and not data.rstrip(b"\0").endswith(b"\xff\xd9"):
        raise CorruptImageError(_("The photo is cut off or damaged and can't be decoded: take or choose it again."))

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rgb = image if image.mode == "RGB" else image.convert("RGB")  # convert() always copies
    except Exception:  # noqa: BLE001 - exotic modes Pillow can't convert
        raise CorruptImageError(_("The photo's colour format can't be read: send a JPEG or PNG photo.")) from None
    array = np.asarray(rgb, dtype=np.uint8)
    # RGB -> BGR, the OpenCV order vision/ uses; cvtColor is some 30x faster than numpy's reversed copy.
    return _decoded(_orient(cv2.cvtColor(array, cv2.COLOR_RGB2BGR), _orientation(image)), width, height)


def _decoded(bgr: np.ndarray, width: int, height: int) -> DecodedPhoto:
    """The :class:`DecodedPhoto` of an upright ``bgr`` decoded from a ``width`` x ``height`` file."""
    # EXIF may have turned the picture a quarter: the full upright size follows the decoded one.
    turned = (bgr.shape[1] >= bgr.shape[0]) != (width >= height)
    full_w, full_h = (height, width) if turned else (width, height)
    return DecodedPhoto(bgr, full_w, full_h, full_w / bgr.shape[1])


_REDUCED = {1: cv2.IMREAD_COLOR, 2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4,
            8: cv2.IMREAD_REDUCED_COLOR_8}


def _decode_jpeg(data: bytes, k: int, header: Image.Image) -> np.ndarray | None:
    """A whole JPEG decoded by OpenCV at 1/``k`` of its size, straight to BGR and turned upright
    by the EXIF orientation ``header`` (Pillow's parse) gives; None when OpenCV can't, and
    Pillow's path (with its error messages) decodes it instead.

    Measured on the speed bench's 12-MP JPEGs (session 17, models/README.md): median 34 ms at
    1/2 against 66 ms for Pillow's draft mode, its array copy and the RGB -> BGR swap. OpenCV
    fills a cut-off JPEG with grey instead of failing, so only a file whose data ends with the
    JPEG end marker comes here; anything after it (some phones append a trailer) goes to Pillow.
    """
    if not data.rstrip(b"\0").endswith(b"\xff\xd9"):
        return None
    bgr = cv2.imdecode(np.frombuffer(data, np.uint8), _REDUCED[k] | cv2.IMREAD_IGNORE_ORIENTATION)
    if bgr is None or bgr.ndim != 3:
        return None
    return _orient(bgr, _orientation(header))


def _orient(image: np.ndarray, orientation: int) -> np.ndarray:
    """``image`` turned and mirrored as EXIF ``orientation`` (1-8) says, as
    Pillow's ``ImageOps.exif_transpose`` does (tested against it); an unknown value leaves it as
    stored. Both decoding paths turn the pixels here, after decoding them to BGR."""
    if orientation == 2:
        return cv2.flip(image, 1)
    if orientation == 3:
        return cv2.rotate(image, cv2.ROTATE_180)
    if orientation == 4:
        return cv2.flip(image, 0)
    if orientation == 5:
        return cv2.transpose(image)
    if orientation == 6:
        return cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
    if orientation == 7:
        return cv2.flip(cv2.transpose(image), -1)
    if orientation == 8:
        return cv2.rotate(image, cv2.ROTATE_90_COUNTERCLOCKWISE)
    return image


ORIENTATION_TAG = 0x0112  # EXIF Orientation: 1 upright, 2-8 mirrored and/or turned


def _orientation(image: Image.Image) -> int:
    """The EXIF orientation of ``image`` (1 upright, 2-8 mirrored and/or turned); 1 when the EXIF
    block is damaged (garbage EXIF must not cost the player the photo: its pixels as stored)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return int(image.getexif().get(ORIENTATION_TAG, 1))
    except Exception:  # noqa: BLE001 - any EXIF parser failure
        return 1


def _too_many_pixels_message(size: tuple[int, int] | None, max_pixels: int, max_side: int = MAX_SIDE) -> str:
    megapixels = f"{max_pixels / 1e6:.0f}"
    if size is None:
        return _("The picture declares too many pixels (over {limit} megapixels): send an ordinary photo.").format(
            limit=megapixels
        )
    width, height = size
    return _(
        "The picture is {width} x {height} pixels; the limit is {limit} megapixels and {side} pixels a side. "
        "Send an ordinary photo, not a panorama."
    ).format(width=width, height=height, limit=megapixels, side=max_side)
