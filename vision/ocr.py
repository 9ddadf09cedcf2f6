"""A second opinion on a tile's number from a general text recogniser shipped inside a wheel.

``rapidocr-onnxruntime`` carries PP-OCRv4's recognition network (ONNX, trained on a vast variety
of real print). Given the numeral of an upright tile, its per-step character probabilities are
restricted to the ten digits (and CTC's blank), and the probability of each number 1-13 is the
CTC likelihood of its digit string: a distribution over numbers, never a free-text guess (a
lone "1" read as a letter elsewhere is still a "1" here).

:class:`NumberOCR` is consulted only for tiles the reader is unsure of (``vision.detect``), so it
costs nothing on a photo the reader reads confidently; the mixing weight and the doubt threshold
were chosen on the rendered validation scenes (models/README.md).
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import cv2
import numpy as np

__all__ = ["NumberOCR", "ocr_available", "upright_numeral"]

REC_FILE = "ch_PP-OCRv4_rec_infer.onnx"
HEIGHT = 48  # the network's input height
NUMBERS = [str(n) for n in range(1, 14)]


def _model_path() -> Path | None:
    spec = importlib.util.find_spec("rapidocr_onnxruntime")
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / "models" / REC_FILE
    return path if path.exists() else None


def ocr_available() -> bool:
    """Whether the recogniser's weights are installed (the ``rapidocr-onnxruntime`` wheel)."""
    return _model_path() is not None


def upright_numeral(image_bgr: np.ndarray, box_xyxy: np.ndarray, up_xy: np.ndarray) -> np.ndarray:
    """The numeral part of a tile, turned upright by the reader's up vector: the box's content
    rotated so that ``up`` points to the top, then its upper 70% (the logo sits below)."""
    x1, y1, x2, y2 = [float(v) for v in box_xyxy]
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    angle = math.degrees(math.atan2(float(up_xy[0]), -float(up_xy[1])))  # 0 when up points to -y
    quarter = round(angle / 90.0) * 90.0  # tiles lie in rows: turn by quarters, keep the box's frame
    w, h = x2 - x1, y2 - y1
    if int(quarter) % 180 != 0:
        w, h = h, w
    side = int(math.ceil(max(w, h) * 1.1)) + 2
    m = cv2.getRotationMatrix2D((cx, cy), quarter, 1.0)
    m[:, 2] += (side / 2 - cx, side / 2 - cy)
    patch = cv2.warpAffine(image_bgr, m, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    ox, oy = (side - w) / 2, (side - h) / 2
    top = int(max(0, oy + 0.02 * h))
    bottom = int(min(side, oy + 0.72 * h))
    left, right = int(max(0, ox)), int(min(side, ox + w))
    return patch[top:max(bottom, top + 2), left:max(right, left + 2)]


class NumberOCR:
    """PP-OCRv4 recognition restricted to the numbers 1-13 (onnxruntime, loaded once)."""

    def __init__(self, threads: int | None = None) -> None:
        import onnxruntime as ort

        path = _model_path()
        if path is None:
            raise FileNotFoundError("the text recogniser is not installed: pip install rapidocr-onnxruntime")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads or 2
        opts.log_severity_level = 3
        self.session = ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
        chars = self.session.get_modelmeta().custom_metadata_map["character"].splitlines()
        # Column 0 is CTC's blank; the dictionary follows from column 1.
        self.digit_cols = np.array([chars.index(str(d)) + 1 for d in range(10)])

    def number_probs(self, crops_bgr: list[np.ndarray]) -> np.ndarray:
        """(N, 13) probabilities of the numbers 1-13 for upright numeral crops (see :func:`upright_numeral`)."""
        if not crops_bgr:
            return np.zeros((0, 13), np.float32)
        widths = [max(8, int(math.ceil(HEIGHT * c.shape[1] / max(c.shape[0], 1)))) for c in crops_bgr]
        width = max(max(widths) + 16, 64)
        batch = np.zeros((len(crops_bgr), 3, HEIGHT, width), np.float32)
        for i, (crop, w) in enumerate(zip(crops_bgr, widths)):
            img = cv2.resize(crop, (w, HEIGHT), interpolation=cv2.INTER_AREA if crop.shape[0] > HEIGHT else cv2.INTER_LINEAR)
            x0 = 8  # a little margin before the text, as in printed lines
            batch[i, :, :, x0:x0 + w] = (img.astype(np.float32).transpose(2, 0, 1) / 255.0 - 0.5) / 0.5
        probs = self.session.run(None, {self.session.get_inputs()[0].name: batch})[0]  # (N, T, C)
        cols = np.concatenate([[0], self.digit_cols])
        p = probs[:, :, cols]  # blank + 10 digits, renormalised per step
        p = p / np.clip(p.sum(axis=2, keepdims=True), 1e-9, None)
        logs = np.stack([_ctc_log_scores(seq) for seq in p])
        logs = logs - logs.max(axis=1, keepdims=True)
        out = np.exp(logs)
        return (out / out.sum(axis=1, keepdims=True)).astype(np.float32)


def _ctc_log_scores(p: np.ndarray) -> np.ndarray:
    """CTC log-likelihood of each number's digit string under per-step probabilities ``p`` (T, 11):
    column 0 blank, columns 1-10 the digits 0-9. Returns (13,) for "1" .. "13"."""
    T = len(p)
    scores = np.full(13, -1e9)
    for k, text in enumerate(NUMBERS):
        labels = [int(c) + 1 for c in text]
        ext = [0]
        for lab in labels:
            ext += [lab, 0]
        S = len(ext)
        alpha = np.zeros(S)
        alpha[0] = p[0, 0]
        alpha[1] = p[0, ext[1]]
        scale = 0.0
        for t in range(1, T):
            new = alpha.copy()
            new[1:] += alpha[:-1]
            for s in range(2, S):
                if ext[s] != 0 and ext[s] != ext[s - 2]:
                    new[s] += alpha[s - 2]
            alpha = new * p[t, ext]
            c = alpha.sum()
            if c <= 0:
                alpha[:] = 0
                break
            alpha /= c
            scale += math.log(c)
        total = alpha[-1] + alpha[-2]
        if total > 0:
            scores[k] = scale + math.log(total)
    return scores
