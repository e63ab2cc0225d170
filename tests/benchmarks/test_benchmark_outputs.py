"""A benchmark run to try it writes a scratch file; the committed results change only when
``--out`` names them. Before, ``bench_reuse_price.py`` rewrote ``results/reuse_price.json`` and
``tests/benchmarks/test_benchmarks_doc.py`` then failed on the numbers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT

BENCH = ROOT / "benchmarks"
WRITERS = ["bench_reuse_price.py", "bench_reuse_code.py", "bench_reuse_gpu.py",
           "bench_reuse_attention_gpu.py"]  # fmt: skip


def _env(tmp: Path) -> dict[str, str]:
    return {**os.environ, "TMPDIR": str(tmp)}


def test_price_benchmark_leaves_the_committed_result_alone(tmp_path: Path) -> None:
    committed = BENCH / "results" / "reuse_price.json"
    before = committed.read_bytes()
    run = subprocess.run([sys.executable, "-m", "benchmarks.bench_reuse_price", "--repeat", "1"],
                         cwd=ROOT, env=_env(tmp_path), capture_output=True, text=True,
                         timeout=600)  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    assert committed.read_bytes() == before
    wrote = Path(run.stdout.strip().splitlines()[-1].removeprefix("wrote "))
    assert wrote.is_relative_to(tmp_path), run.stdout[-500:]
    assert set(json.loads(wrote.read_text())) >= {"planning", "greedy", "compile"}


@pytest.mark.parametrize("script", WRITERS)
def test_every_writer_defaults_to_scratch(script: str, tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-m", f"benchmarks.{Path(script).stem}", "--help"], cwd=ROOT,
                         env=_env(tmp_path), capture_output=True, text=True, timeout=300)  # fmt: skip
    if run.returncode != 0 and "No module named" in run.stderr:
        pytest.skip(run.stderr.strip().splitlines()[-1])
    assert run.returncode == 0, run.stderr[-1000:]
    text = " ".join(run.stdout.split())
    assert "default: a scratch file" in text, text
