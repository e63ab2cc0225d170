"""GPU test (marker ``gpu``) of what ``alias-spec plan`` claims about the call-frame kernels.

``tests/plan/cases/kernels.py`` holds three Gluon kernels that fill a 4 KiB shared buffer, call
a function whose body needs scratch, then read the buffer back. The validator flags
``call_frame`` (the callee is not inlined and, up to Triton 3.8, addresses its scratch from the
shared base instead of its frame) and proves ``call_frame_dead`` (the buffer is read back before
the call) and ``call_inlined`` (the callee is inlined) clean; ``tests/plan/test_plan_api.py`` asserts
those verdicts on the CPU. Here the kernels run: the flagged one must corrupt its buffer, the
clean ones must return it byte-exact.

Needs only torch, Triton and ``kernels.py`` (no solver, no validator). Set TLE_PLAN_GPU_OUT to a
file path to keep the measured counts as JSON.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
triton = pytest.importorskip("triton")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

from tests.plan.cases import kernels  # noqa: E402

pytestmark = pytest.mark.gpu
RESULTS: dict[str, Any] = {}


def _run(name: str) -> dict[str, Any]:
    """Launch one kernel on a known input; count the buffer values it did not read back."""
    fn, _ = kernels.KERNELS[name]
    n = int(kernels.N)
    x = torch.arange(n, dtype=torch.float32, device="cuda") * 0.25 + 1.0  # all distinct
    y = torch.zeros(n, dtype=torch.float32, device="cuda")
    out = torch.full((n,), float("nan"), dtype=torch.float32, device="cuda")
    fn[(1,)](x, y, out, num_warps=4)
    torch.cuda.synchronize()
    # Byte-exact: compare the bit patterns, not the float values.
    wrong = int((out.view(torch.int32) != x.view(torch.int32)).sum().item())
    # The callee ran: y = 2x + sum(2x) (its own result, whatever happened to the buffer).
    y_ok = bool(torch.allclose(y, 2 * x + (2 * x).sum(), rtol=1e-4))
    rec = {"values": n, "overwritten": wrong, "callee_result_ok": y_ok}
    RESULTS[name] = rec
    _keep()
    return rec


def _keep() -> None:
    path = os.environ.get("TLE_PLAN_GPU_OUT")
    if not path:
        return
    doc = {
        "device": torch.cuda.get_device_name(0),
        "capability": list(torch.cuda.get_device_capability(0)),
        "torch": torch.__version__,
        "triton": triton.__version__,
        "kernels": RESULTS,
    }
    Path(path).write_text(json.dumps(doc, indent=1) + "\n")


def _fixed_release() -> bool:
    """Triton 3.9 addresses the callee's scratch from its frame: the bug is gone there."""
    major, minor = (int(p) for p in triton.__version__.split(".")[:2])
    return (major, minor) >= (3, 9)


def test_flagged_kernel_corrupts_its_buffer() -> None:
    rec = _run("call_frame")
    assert rec["callee_result_ok"]
    if _fixed_release():
        assert rec["overwritten"] == 0, rec
    else:
        # Measured on an H200 with Triton 3.6.0: 512 of the 1024 values.
        assert rec["overwritten"] > 0, rec


@pytest.mark.parametrize("name", ["call_frame_dead", "call_inlined"])
def test_clean_variants_are_byte_exact(name: str) -> None:
    rec = _run(name)
    assert rec["callee_result_ok"]
    assert rec["overwritten"] == 0, rec
