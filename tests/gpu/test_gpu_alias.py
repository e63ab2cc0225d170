"""GPU tests (marker ``gpu``): the corpus byte-exact, FlagTree's scenario, the buffered-flush
pattern and the alias.base.aligned experiment. Skipped without torch or CUDA.

Set TLE_GPU_OUT to a folder to keep every result as JSON (docs/gpu-report.md is generated
from those files by tools/gpu/report.py).
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

# The examples are on the tests' path (pyproject.toml).
import alias_base_aligned  # noqa: E402
import flagtree_alias  # noqa: E402
import smem_flush  # noqa: E402

from tests.gpu import harness  # noqa: E402

pytestmark = pytest.mark.gpu


def _keep(name: str, data: object) -> None:
    out = os.environ.get("TLE_GPU_OUT")
    if out:
        Path(out, name).write_text(json.dumps(data, indent=1) + "\n")


def test_corpus_byte_exact() -> None:
    cases = harness.load_corpus()
    assert len(cases) >= 300
    results = harness.run_corpus(cases)
    _keep("corpus_results.json", results)
    failed = [r for r in results if not r["ok"]]
    assert not failed, f"{len(failed)} of {len(results)} cases failed, first: {failed[:3]}"


def test_flagtree_scenario_and_flush_pattern() -> None:
    results = {**flagtree_alias.run(), **smem_flush.run()}
    _keep("scenarios.json", results)
    assert all(results.values()), results


def test_alias_base_aligned_experiment(tmp_path: Path) -> None:
    out = tmp_path / "experiment.json"
    alias_base_aligned.main(str(out))
    records = json.loads(out.read_text())
    _keep("experiment.json", records)
    for r in records:
        if r["aligned"]:
            assert r.get("outcome") != "fault", r
            for consumer in ("tma_load", "tma_store", "wgmma"):
                assert r[consumer]["outcome"] == "ok", r
