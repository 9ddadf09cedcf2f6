"""Imports go one way between vision and datasets (docs/design.md): checked on the source with ``ast``.

The serving path (``vision`` outside ``vision.train`` and ``vision.evaluate``) imports neither
``datasets`` nor the tools nor a training library, so the app runs from it alone; ``datasets`` may
use the serving path's crop and geometry, never the tools that import ``datasets`` in turn.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ("vision.train", "vision.evaluate")
SERVING = sorted(p for p in (ROOT / "vision").rglob("*.py") if p.parent == ROOT / "vision")
DATASETS = sorted((ROOT / "datasets").rglob("*.py"))

# What the serving path may not import: the data tools, the training and evaluation tools, and
# the training libraries (the app is installed without them).
SERVING_FORBIDDEN = ("datasets", *TOOLS, "torch", "torchvision", "ultralytics", "onnx", "matplotlib")


def imported_modules(path: Path) -> set[str]:
    """Every absolute module name a file imports, at any depth (lazy imports inside functions too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def offending(names: set[str], forbidden: tuple[str, ...]) -> list[str]:
    """The names that are one of ``forbidden`` or inside one of them."""
    return sorted(n for n in names if any(n == f or n.startswith(f + ".") for f in forbidden))


def _id(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("path", SERVING, ids=_id)
def test_serving_path_imports_no_tools_and_no_datasets(path: Path) -> None:
    bad = offending(imported_modules(path), SERVING_FORBIDDEN)
    assert not bad, f"{_id(path)} imports {bad}"


@pytest.mark.parametrize("path", DATASETS, ids=_id)
def test_datasets_import_only_the_serving_path_of_vision(path: Path) -> None:
    bad = offending(imported_modules(path), TOOLS)
    assert not bad, f"{_id(path)} imports {bad}"


def test_the_check_sees_every_module_and_catches_bad_imports(tmp_path: Path) -> None:
    assert {p.name for p in SERVING} >= {"detect.py", "crops.py", "boxes.py", "pipeline.py"}
    assert "train" not in {p.parent.name for p in SERVING}
    sample = tmp_path / "bad.py"
    sample.write_text("import numpy as np\n\ndef f():\n    from datasets.crops import export_crops\n"
                      "    from vision import train\n    import vision.evaluate.tiles\n")
    assert offending(imported_modules(sample), SERVING_FORBIDDEN) == [
        "datasets.crops", "datasets.crops.export_crops", "vision.evaluate.tiles", "vision.train"]
