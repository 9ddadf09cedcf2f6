"""Link a sample of rendered detector images into one training folder, as the detector recipes do.

``python models/recipes/link_mix.py OUT SEED PREFIX:SOURCE:COUNT ...`` draws COUNT images (with
their labels) of ``data/SOURCE/train`` at random (``random.Random(SEED)``, the sources in the
order given) and links them into ``OUT/train`` as ``PREFIX_<name>``; ``OUT/val`` links the rendered
rack val scenes (``data/s7_racks/val``). Run from the repository root.
"""

from __future__ import annotations

import os
import random
import shutil
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    """Build the linked folder; returns the process exit code."""
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    out, rng = Path(argv[0]), random.Random(int(argv[1]))
    shutil.rmtree(out, ignore_errors=True)
    for sub in ("images", "labels"):
        (out / "train" / sub).mkdir(parents=True)
    (out / "val").mkdir()
    total = 0
    for spec in argv[2:]:
        prefix, source, count = spec.split(":")
        images = sorted(Path("data", source, "train", "images").glob("*.jpg"))
        for image in rng.sample(images, int(count)):
            label = image.parent.parent / "labels" / (image.stem + ".txt")
            os.symlink(image.resolve(), out / "train" / "images" / f"{prefix}_{image.name}")
            os.symlink(label.resolve(), out / "train" / "labels" / f"{prefix}_{image.stem}.txt")
        total += int(count)
    for sub in ("images", "labels"):
        os.symlink(Path("data/s7_racks/val", sub).resolve(), out / "val" / sub)
    print(f"linked {total} training images into {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
