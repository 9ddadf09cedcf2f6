"""The referee package stays pure Python and quick to import (docs/design.md, STYLE.md)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import referee

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "referee"

# Import direction is app -> vision -> referee: the referee never imports vision, numpy or web code.
FORBIDDEN = {
    "numpy", "cv2", "PIL", "torch", "torchvision", "ultralytics", "onnxruntime", "onnx",
    "fastapi", "starlette", "pydantic", "uvicorn", "httpx", "multipart",
    "vision", "webapp", "app", "datasets",
}  # fmt: skip


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_heavy_or_upward_imports(path: Path) -> None:
    bad = _imports(path) & FORBIDDEN
    assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


def test_the_ast_check_catches_a_bad_import(tmp_path: Path) -> None:
    sample = tmp_path / "bad.py"
    sample.write_text("import numpy as np\nfrom vision.read import read_table\n")
    assert _imports(sample) & FORBIDDEN == {"numpy", "vision"}


def test_import_is_light_and_fast() -> None:
    """``import referee`` loads no heavy module and takes well under 100 ms.

    Measured in a fresh interpreter, start-up excluded, best of 5. CPU time rather than wall time:
    the machines this runs on are often busy (training, parallel tests), which stretches wall time
    but not the work the import does.
    """
    probe = (
        "import sys, time, json\n"
        "t = time.process_time()\n"
        "import referee\n"
        "ms = (time.process_time() - t) * 1000\n"
        "print(json.dumps({'ms': ms, 'modules': sorted(sys.modules)}))\n"
    )
    runs = []
    for _ in range(5):
        done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
        runs.append(json.loads(done.stdout))
    modules = set(runs[0]["modules"])
    assert not {m.split(".")[0] for m in modules} & FORBIDDEN
    assert "referee.solver" not in modules and "referee.dice" not in modules and "referee.cli" not in modules
    best = min(r["ms"] for r in runs)
    assert best < 100, f"import referee took {best:.1f} ms of CPU time"


def test_public_api() -> None:
    for name in referee.__all__:
        assert getattr(referee, name) is not None, name
    assert referee.check_set(referee.parse_tiles("R1 R2 J")).points == 6


def test_lazy_features() -> None:
    # best_arrangement / best_move load on first use (import referee stays light).
    from referee import dice

    assert referee.best_arrangement is dice.best_arrangement
    with pytest.raises(AttributeError, match="no_such_thing"):
        referee.no_such_thing  # noqa: B018


def test_highspy_only_for_the_exact_tiebreak() -> None:
    """The solver stays pure Python: highspy (HiGHS) is loaded only when the exact tie-break runs."""
    probe = (
        "import sys\n"
        "from referee.solver import best_move\n"
        "best_move('K1 K2 K3 K4 K5 K6 K7', 'B4 O4')\n"
        "print('highspy' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
