"""vision.image.decode_image: upright BGR out, a clear ImageError (with HTTP status) for bad bytes."""

from __future__ import annotations

import io

import cv2
import numpy as np
import pytest
from PIL import Image, UnidentifiedImageError

from tests.app.corpus import bad_uploads, jpeg_of, sample_jpeg, with_garbage_exif, with_orientation
from tests.photos import sample_photos
from vision.image import (
    CorruptImageError,
    EmptyImageError,
    FileTooLargeError,
    ImageError,
    NotAnImageError,
    TooManyPixelsError,
    decode_image,
    decode_photo,
)


def _marked_image() -> np.ndarray:
    """200 wide x 100 high, a red block in the top-left corner, to see where rotation puts it."""
    image = np.zeros((100, 200, 3), np.uint8)
    image[:30, :30] = (0, 0, 255)  # BGR red
    return image


def _jpeg_of(image_bgr: np.ndarray, orientation: int | None = None) -> bytes:
    return jpeg_of(image_bgr, orientation, quality=95)


def _red_corner(image: np.ndarray) -> str:
    h, w = image.shape[:2]
    corners = {"top-left": image[5, 5], "top-right": image[5, w - 6], "bottom-left": image[h - 6, 5],
               "bottom-right": image[h - 6, w - 6]}
    return max(corners, key=lambda k: int(corners[k][2]) - int(corners[k][1]))


def test_decodes_real_photo_to_bgr() -> None:
    data = sample_jpeg()
    image = decode_image(data)
    reference = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert image.dtype == np.uint8 and image.shape == reference.shape
    # Same pixels as OpenCV's decoder up to JPEG decoder rounding: channels are in BGR order.
    assert np.abs(image.astype(int) - reference.astype(int)).mean() < 2.0


@pytest.mark.parametrize(
    ("orientation", "shape", "corner"),
    [
        (1, (100, 200), "top-left"),
        (3, (100, 200), "bottom-right"),  # stored upside down
        (6, (200, 100), "top-right"),  # phone held upright: rotate 90 degrees clockwise
        (8, (200, 100), "bottom-left"),
    ],
)
def test_exif_orientation_is_applied(orientation: int, shape: tuple[int, int], corner: str) -> None:
    image = decode_image(_jpeg_of(_marked_image(), orientation))
    assert image.shape[:2] == shape
    assert _red_corner(image) == corner


def test_real_photo_with_orientation_six_is_turned() -> None:
    original = decode_image(sample_jpeg())
    turned = decode_image(with_orientation(sample_jpeg(), 6))
    assert turned.shape[:2] == original.shape[1::-1]


def _heic_of(image_bgr: np.ndarray, orientation: int | None = None) -> bytes:
    """``image_bgr`` as an iPhone would store it: HEIC (HEVC inside), with an EXIF orientation."""
    import pillow_heif

    pillow_heif.register_heif_opener()
    out = io.BytesIO()
    exif = Image.Exif()
    if orientation:
        exif[0x0112] = orientation
    Image.fromarray(cv2.cvtColor(image_bgr, cv2.COLOR_BGR2RGB)).save(out, format="HEIF", quality=95, exif=exif.tobytes())
    return out.getvalue()


@pytest.mark.parametrize(("orientation", "shape", "corner"),
                         [(None, (100, 200), "top-left"), (6, (200, 100), "top-right"), (3, (100, 200), "bottom-right")])
def test_heic_photos_decode_upright(orientation: int | None, shape: tuple[int, int], corner: str) -> None:
    """An iPhone's photos are HEIC: read through pillow-heif, turned once (its rotation boxes,
    not the EXIF orientation again)."""
    data = _heic_of(_marked_image(), orientation)
    assert data[4:12] == b"ftypheic"
    image = decode_image(data)
    assert image.shape[:2] == shape and image.dtype == np.uint8
    assert _red_corner(image) == corner


def test_a_real_photo_as_heic_has_the_jpegs_pixels() -> None:
    reference = decode_image(sample_jpeg())
    image = decode_image(_heic_of(reference))
    assert image.shape == reference.shape
    assert np.abs(image.astype(int) - reference.astype(int)).mean() < 4.0  # HEVC at quality 95


def test_without_pillow_heif_a_heic_photo_is_named_in_the_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    import vision.image

    data = _heic_of(_marked_image())
    monkeypatch.setattr(vision.image, "_heif_registered", False)
    monkeypatch.setitem(sys.modules, "pillow_heif", None)  # import fails
    monkeypatch.setattr(Image, "OPEN", {k: v for k, v in Image.OPEN.items() if k != "HEIF"})
    monkeypatch.setattr(Image, "ID", [k for k in Image.ID if k != "HEIF"])
    with pytest.raises(NotAnImageError) as info:
        decode_image(data)
    assert "HEIC" in str(info.value) and info.value.status == 415


def test_garbage_exif_keeps_the_pixels() -> None:
    image = decode_image(with_garbage_exif(sample_jpeg()))
    assert image.shape == decode_image(sample_jpeg()).shape


@pytest.mark.parametrize("upload", bad_uploads(), ids=lambda u: u.name)
def test_bad_upload_corpus(upload) -> None:  # noqa: ANN001 - corpus.Upload
    if 200 in upload.statuses:
        decode_image(upload.data)  # must simply work
        return
    with pytest.raises(ImageError) as info:
        decode_image(upload.data)
    assert info.value.status in upload.statuses
    message = str(info.value)
    assert message.endswith(".") and len(message) > 20 and "Traceback" not in message


@pytest.mark.parametrize(
    ("data_maker", "error", "words"),
    [
        (lambda: b"", EmptyImageError, "empty"),
        (lambda: sample_jpeg() + b"\0" * 2_000_000, FileTooLargeError, "limit is 1 MB"),
        (lambda: b"hello world" * 50, NotAnImageError, "not a photo"),
        (lambda: b"%PDF-1.4\n" * 50, NotAnImageError, "PDF"),
        (lambda: b"\x00\x00\x00\x18ftypheic" + b"\0" * 100, CorruptImageError, "damaged"),
        (lambda: sample_jpeg()[:5000], CorruptImageError, "cut off"),
    ],
)
def test_errors_name_the_problem(data_maker, error: type[ImageError], words: str) -> None:  # noqa: ANN001
    with pytest.raises(error) as info:
        decode_image(data_maker(), max_bytes=1024 * 1024)
    assert words in str(info.value)


def test_not_a_photo_even_with_ultralytics_patching_pil(monkeypatch: pytest.MonkeyPatch) -> None:
    # ultralytics, once imported, replaces Image.open with one that imports a HEIF plugin when
    # Pillow cannot identify a file: without the plugin that is an ImportError, not a decode error
    original = Image.open

    def patched(fp, *args, **kwargs):  # noqa: ANN001, ANN202
        try:
            return original(fp, *args, **kwargs)
        except UnidentifiedImageError:
            raise ModuleNotFoundError("No module named 'pi_heif'") from None

    monkeypatch.setattr(Image, "open", patched)
    with pytest.raises(NotAnImageError) as info:
        decode_image(b"not a photo at all" * 10)
    assert info.value.status == 415
    assert decode_image(sample_jpeg()).ndim == 3


def test_pixel_limit_is_checked_before_decoding() -> None:
    data = _jpeg_of(np.zeros((400, 600, 3), np.uint8))
    assert decode_image(data, max_pixels=240_000).shape == (400, 600, 3)
    with pytest.raises(TooManyPixelsError) as info:
        decode_image(data, max_pixels=239_999)
    assert info.value.status == 413 and "600 x 400" in str(info.value)


def test_side_limit_stops_panoramas() -> None:
    data = _jpeg_of(np.zeros((50, 3000, 3), np.uint8))
    with pytest.raises(TooManyPixelsError):
        decode_image(data, max_side=2999)


@pytest.mark.parametrize("mode", ["L", "RGBA", "P", "CMYK", "LA"])
def test_any_colour_mode_becomes_bgr(mode: str) -> None:
    image = Image.new("RGB", (64, 48), (255, 0, 0)).convert(mode)
    out = io.BytesIO()
    image.save(out, format="TIFF" if mode == "CMYK" else "PNG")
    decoded = decode_image(out.getvalue())
    assert decoded.shape == (48, 64, 3) and decoded.dtype == np.uint8


def test_every_real_test_photo_decodes() -> None:
    paths = sample_photos()
    assert len(paths) == 6
    for path in paths:
        image = decode_image(path.read_bytes())
        assert image.ndim == 3 and min(image.shape[:2]) >= 700


@pytest.mark.parametrize("orientation", range(1, 9))
@pytest.mark.parametrize("size", [(640, 480), (4624, 3468)])
def test_opencv_and_pillow_decode_the_same_upright_pixels(orientation: int, size: tuple[int, int]) -> None:
    # A JPEG with bytes after its end marker (some phones append a trailer) is decoded by Pillow;
    # the same JPEG without them by OpenCV (the fast path): same size, orientation and pixels.
    w, h = size
    image = cv2.resize(_marked_image(), (w, h), interpolation=cv2.INTER_NEAREST)
    data = _jpeg_of(image, orientation)
    fast, pillow = decode_photo(data), decode_photo(data + b"TRAILER")
    assert (fast.width, fast.height, fast.scale) == (pillow.width, pillow.height, pillow.scale)
    assert fast.image.shape == pillow.image.shape
    assert _red_corner(fast.image) == _red_corner(pillow.image)
    assert np.abs(fast.image.astype(int) - pillow.image.astype(int)).mean() < 2.0


def test_a_cut_off_jpeg_is_refused_not_filled_with_grey() -> None:
    data = _jpeg_of(cv2.resize(_marked_image(), (4624, 3468)))
    with pytest.raises(CorruptImageError):
        decode_photo(data[: len(data) // 2])


@pytest.mark.parametrize("mode", ["L", "CMYK"])
def test_grey_and_cmyk_jpegs_decode_alike_on_both_paths(mode: str) -> None:
    image = Image.new("RGB", (640, 480), (200, 30, 20)).convert(mode)
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=95)
    fast, pillow = decode_photo(out.getvalue()).image, decode_photo(out.getvalue() + b"TRAILER").image
    assert fast.shape == pillow.shape == (480, 640, 3)
    assert np.abs(fast.astype(int) - pillow.astype(int)).max() <= 2


@pytest.mark.parametrize("orientation", range(1, 9))
def test_orient_turns_as_pillows_exif_transpose(orientation: int) -> None:
    from PIL import ImageOps

    from vision.image import _orient

    rng = np.random.default_rng(orientation)
    pixels = rng.integers(0, 255, (30, 50, 3), dtype=np.uint8)
    image = Image.fromarray(pixels)
    exif = image.getexif()
    exif[0x0112] = orientation
    out = io.BytesIO()
    image.save(out, format="PNG", exif=exif.tobytes())
    expected = np.asarray(ImageOps.exif_transpose(Image.open(io.BytesIO(out.getvalue()))))
    assert np.array_equal(_orient(pixels, orientation), expected)
