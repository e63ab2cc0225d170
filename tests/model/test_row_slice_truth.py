"""Where a row slice of a column-major buffer writes: the physical model against an H200.

``tests/physical_gpu/row_slice_kernel.py`` writes rows [32, 64) of a 128x64 f16 buffer
through ``slice`` and reads the buffer back, logically and as raw bytes, for two column-major
layouts (a swizzled ``order = [0, 1]`` one and a transposed NVMMA one with the 128-byte swizzle).
Its result, measured on an H200 with Triton 3.6.0, is committed beside it. The model's
footprint of that slice (``physical.footprint`` on ``layouts.axes_of``, what every engine
judges) must be the elements it wrote: exactly for the swizzled layout (no swizzle: maxPhase
1), per 128-byte row for the NVMMA one (its swizzle permutes 16-byte chunks inside a row,
below the model). The GPU part reruns the kernel (marker ``gpu``, skipped without CUDA).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from typing import Any

import pytest

from alias_spec.model.layouts import axes_of, parse_layout
from alias_spec.model.physical import footprint
from tests.paths import PHYSICAL_GPU

HERE = PHYSICAL_GPU
MEASURED = json.loads((HERE / "row_slice_h200.json").read_text())
ROW_ELEMS = 64  # f16 elements in a 128-byte row


def _model(run: dict[str, Any], shape: list[int], start: int, rows: int) -> set[int]:
    """The physical elements (from the buffer's base) the model says the slice covers."""
    lay = parse_layout(run["layout"], "layout")
    axes = axes_of(lay, shape, 16, 2)
    fp = footprint([rows, shape[1]], shape, [start, 0], axes)
    return {fp.start + e for e in fp.elements()}


def _check(result: dict[str, Any]) -> None:
    shape, sl = result["shape"], result["slice"]
    start, rows = sl["start"], sl["rows"]
    assert set(result["runs"]) == {"swizzled_col_major", "nvmma_transposed_128"}
    for name, run in result["runs"].items():
        logical = run["logical_written"]
        # Logically the slice's rows, each element with its own index, nothing else.
        assert len(logical) == rows * shape[1], name
        assert all(start <= i < start + rows and v == (i - start) * shape[1] + j
                   for i, j, v in logical), name  # fmt: skip
        written = {k for k, _ in run["physical_written"]}
        model = _model(run, shape, start, rows)
        assert len(model) == len(written) == rows * shape[1], name
        if name.startswith("swizzled"):
            assert written == model, name
            # Column-major: slice element (r, c) lies at c * 128 + 32 + r.
            assert all(k == j * shape[0] + start + v // shape[1]
                       for k, v in run["physical_written"] for j in [v % shape[1]]), name  # fmt: skip
        else:
            assert {k // ROW_ELEMS for k in written} == {k // ROW_ELEMS for k in model}, name
            per_row = {r: sum(1 for k in written if k // ROW_ELEMS == r) for r in
                       {k // ROW_ELEMS for k in written}}  # fmt: skip
            assert set(per_row.values()) == {rows}, name  # half of every row it touches


def test_committed_h200_result_is_the_models_footprint() -> None:
    assert MEASURED["triton"] == "3.6.0" and "H200" in MEASURED["device"] and MEASURED["date"]
    _check(MEASURED)


def test_a_dense_row_slice_would_not_match() -> None:
    # The check can fail: a model that took the row slice as one dense run of 2048 elements
    # (what the footprint said before it read the layout's order) disagrees with the GPU.
    run = MEASURED["runs"]["swizzled_col_major"]
    dense = set(range(32 * 64, 64 * 64))
    assert {k for k, _ in run["physical_written"]} != dense


@pytest.mark.gpu
def test_on_this_gpu() -> None:
    if importlib.util.find_spec("torch") is None:
        pytest.skip("needs torch and a CUDA GPU")
    import torch

    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    proc = subprocess.run([sys.executable, str(HERE / "row_slice_kernel.py")], capture_output=True,
                          text=True, timeout=600, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    _check(json.loads(proc.stdout))
