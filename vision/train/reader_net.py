"""The reader network (PyTorch, training only): a small CNN on square tile crops.

Three heads share one trunk:

* ``number``: 15 classes, 1-13, joker, and "none" (the crop is not a tile: a detector false
  positive, half a tile, a gap between two tiles);
* ``colour``: 4 classes in ``Colour`` order K, B, O, R (ignored for jokers and "none");
* ``up``: a unit vector (x, y) in crop coordinates pointing to the top of the tile's face,
  which fixes 6/9 and the reading direction of a run (learned where labels know it).

Serving never imports this module: the network is exported to ONNX (``vision.reader``).
"""

from __future__ import annotations

import torch
from torch import nn

NUMBER_CLASSES = 15  # 0-12 -> numbers 1-13, 13 -> joker, 14 -> none
JOKER_CLASS = 13
NONE_CLASS = 14
COLOUR_CLASSES = 4


def _block(c_in: int, c_out: int, stride: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(c_in, c_out, 3, stride=stride, padding=1, bias=False),
        nn.BatchNorm2d(c_out),
        nn.SiLU(inplace=True),
    )


class ReaderNet(nn.Module):
    """Input: (N, 3, S, S) float BGR in [0, 1]. Output: number logits, colour logits, up vector."""

    def __init__(self, width: int = 24) -> None:
        super().__init__()
        w = width
        self.trunk = nn.Sequential(
            _block(3, w, 1),
            _block(w, w, 2),          # S/2
            _block(w, 2 * w, 1),
            _block(2 * w, 2 * w, 2),  # S/4
            _block(2 * w, 4 * w, 1),
            _block(4 * w, 4 * w, 2),  # S/8
            _block(4 * w, 6 * w, 1),
            _block(6 * w, 8 * w, 2),  # S/16
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
            nn.Dropout(0.1),
        )
        feat = 8 * w
        self.number = nn.Linear(feat, NUMBER_CLASSES)
        self.colour = nn.Linear(feat, COLOUR_CLASSES)
        self.up = nn.Linear(feat, 2)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        f = self.trunk(x)
        return self.number(f), self.colour(f), self.up(f)

    def features(self, x: torch.Tensor) -> torch.Tensor:
        """The trunk's pooled features (what the heads read): taught profiles compare tiles by them."""
        return self.trunk(x)


class ExportWrapper(nn.Module):
    """What ONNX carries: float input, probabilities out, unit up vector, and the features (for
    ``vision.teach``: a profile's prototypes of a player's own tiles live in this space)."""

    def __init__(self, net: ReaderNet) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        f = self.net.trunk(x)
        number, colour, up = self.net.number(f), self.net.colour(f), self.net.up(f)
        up = up / (up.norm(dim=1, keepdim=True) + 1e-6)
        return number.softmax(dim=1), colour.softmax(dim=1), up, f


def widen(state: dict[str, torch.Tensor], width: int, seed: int = 0, noise: float = 0.0) -> dict[str, torch.Tensor]:
    """A narrower reader's weights spread over ``ReaderNet(width)`` so that it computes the same
    function (Net2WiderNet, Chen, Goodfellow and Shlens, 2016): each new channel copies an old one,
    BatchNorm statistics included, and the next layer divides the weights it reads from a copied
    channel by how many copies there are. A wider reader then continues from everything the narrow
    one learnt instead of starting from scratch. ``noise`` (a fraction of each weight's spread) is
    added to the split incoming weights so that copies can drift apart while training."""
    gen = torch.Generator().manual_seed(seed)
    convs = sorted({int(k.split(".")[1]) for k in state if k.startswith("trunk.") and k.endswith(".0.weight")})
    out = {k: v.clone() for k, v in state.items()}
    mapping: torch.Tensor | None = None  # new input channel -> old one, for the layer being widened
    counts: torch.Tensor | None = None
    for i in convs:
        w = state[f"trunk.{i}.0.weight"]
        old_out = w.shape[0]
        new_out = old_out * width // width_of(state)
        extra = torch.randint(0, old_out, (new_out - old_out,), generator=gen)
        out_map = torch.cat([torch.arange(old_out), extra])
        if mapping is not None:  # the inputs were widened: split weights among copies
            w = w[:, mapping] / counts[mapping].view(1, -1, 1, 1)
            if noise:
                w = w + noise * w.std() * torch.randn(w.shape, generator=gen)
        out[f"trunk.{i}.0.weight"] = w[out_map].clone()
        for name in ("weight", "bias", "running_mean", "running_var"):
            out[f"trunk.{i}.1.{name}"] = state[f"trunk.{i}.1.{name}"][out_map].clone()
        mapping, counts = out_map, torch.bincount(out_map, minlength=old_out).float()
    for head in ("number", "colour", "up"):
        out[f"{head}.weight"] = (state[f"{head}.weight"][:, mapping] / counts[mapping].view(1, -1)).clone()
    return out


def width_of(state: dict[str, torch.Tensor]) -> int:
    """The ``width`` a reader's weights were built with (its first layer's channels)."""
    return int(state["trunk.0.0.weight"].shape[0])
