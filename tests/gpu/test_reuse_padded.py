"""GPU test (marker ``gpu``) of the reuse planner on a padded layout (issue 18): two 64x64 f16
buffers of ``PaddedSharedLayout`` in use together, placed by ``tle.gpu.alloc_reuse`` at their
physical footprint, come back byte-exact; placed as the old planner placed them (by logical
bytes, the second at byte 8192) the first loses exactly the values the second overwrites.

Runs ``reuse_padded_kernel.py`` in-process; needs torch, Triton and CUDA (no z3). Set
TLE_REUSE_PADDED_OUT to a file path to keep the measured counts as JSON.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("triton")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

from tests.gpu import reuse_padded_kernel as rpk  # noqa: E402

pytestmark = pytest.mark.gpu


def test_padded_pair_planned_and_seeded() -> None:
    got = {mode: rpk.run(mode) for mode in rpk.MODES}
    if os.environ.get("TLE_REUSE_PADDED_OUT"):
        Path(os.environ["TLE_REUSE_PADDED_OUT"]).write_text(json.dumps(got, sort_keys=True))
    planned, seeded = got["planned"], got["seeded"]
    assert planned["compared"] == 2 * 64 * 64
    assert (planned["wrong_a"], planned["wrong_b"]) == (0, 0)
    assert planned["shared"] == 2 * 9200
    # The old placement: rows 57..63 of the first buffer lie under the second's rows; 56 of
    # their 448 values sit in the second's padding and survive.
    assert (seeded["wrong_a"], seeded["wrong_b"]) == (392, 0)
