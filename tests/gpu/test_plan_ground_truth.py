"""What the ground-truth kernels of ``tests/plan/cases/ground_truth.py`` do on a GPU.

Two parts. On a CUDA GPU (marker ``gpu``; skipped without one), each kernel is launched by
``tools/plan/ground_truth_gpu.py`` and must show what its case says: wrong values where Triton's code
corrupts a buffer (the wrong-clean classes), none where it is correct (the false-alarm classes
and the control). On any machine, the committed result of that script, measured on an H200
(``tests/plan/cases/gpu_ground_truth_h200.json``), must say the same of every case: skipped
while the file does not exist. The verdicts themselves are ``tests/plan/test_plan_ground_truth.py``.

Needs only Triton and torch for the GPU part (no solver, no validator).
"""

from __future__ import annotations

import importlib.util
import json
from typing import Any

import pytest

from tests.paths import PLAN_CASES

COMMITTED = PLAN_CASES / "gpu_ground_truth_h200.json"
HAS_TRITON = importlib.util.find_spec("triton") is not None


def _cases() -> dict[str, Any]:
    from tests.plan.cases import ground_truth

    return ground_truth.CASES


def _names() -> list[str]:
    return list(_cases()) if HAS_TRITON else []


def _gpu_torch() -> Any:
    if importlib.util.find_spec("torch") is None or not HAS_TRITON:
        return None
    import torch

    return torch if torch.cuda.is_available() else None


def _check(name: str, rec: dict[str, Any]) -> None:
    """The measured counts of one kernel say what its case claims."""
    case = _cases()[name]
    assert "error" not in rec, rec
    assert rec["values"] > 0 and rec["bytes"] == 4 * rec["values"], rec
    if case.corrupts:
        assert rec["values_wrong"] > 0 and rec["bytes_wrong"] > 0, rec
    else:
        assert rec["values_wrong"] == 0 and rec["bytes_wrong"] == 0, rec
    # Wrong only where the case says: the callee of the frame bug computes its own result
    # right, the buffer that takes a pending TMA store's bytes holds its own values.
    assert rec.get("callee_result_ok", True), rec
    assert rec.get("second_buffer_values_wrong", 0) == 0, rec
    if name.startswith("asm_"):
        assert rec["wrong_at"] == [4], rec  # the element the asm's address names


@pytest.mark.gpu
@pytest.mark.skipif(_gpu_torch() is None, reason="needs a CUDA GPU, torch and triton")
@pytest.mark.parametrize("name", _names())
def test_gpu_ground_truth(name: str) -> None:
    from tools.plan import ground_truth_gpu

    _check(name, ground_truth_gpu.run_case(_gpu_torch(), name))


@pytest.mark.skipif(not COMMITTED.is_file(), reason="no committed GPU result yet")
def test_committed_result_shows_every_case() -> None:
    doc = json.loads(COMMITTED.read_text())
    assert "H200" in doc["device"] and doc["capability"] == [9, 0], doc["device"]
    assert doc["triton"].startswith("3.6"), doc["triton"]  # the release the kernels target
    kernels = doc["kernels"]
    if HAS_TRITON:
        assert sorted(kernels) == sorted(_cases()), "the result is older than the cases"
    for name, rec in kernels.items():
        assert rec["agrees"] is True, (name, rec)
        if HAS_TRITON:
            _check(name, rec)
        else:  # the cases are not importable here: the file's own claims
            assert (rec["values_wrong"] > 0) == rec["corrupts"], (name, rec)
