"""``python -m benchmarks.bench_plan --cache --compile-times`` and what
``tools/plan/realworld/capture.py`` records for it: each kernel's whole compile as Triton's
listener times it, set against the kernel's plan."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import tarfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.paths import PLAN_CASES, ROOT, TOOLS

REALWORLD = PLAN_CASES / "realworld"
BENCH_PLAN = [sys.executable, "-m", "benchmarks.bench_plan"]  # run with cwd=ROOT


def _capture() -> Any:
    spec = importlib.util.spec_from_file_location(
        "_capture", TOOLS / "plan" / "realworld" / "capture.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_listener_keys_a_compile_by_its_cache_folder_and_name() -> None:
    cap = _capture()
    times = SimpleNamespace(ir_initialization=40_000, store_results=5_000,
                            lowering_stages=[("ttir", 10_000), ("ttgir", 20_000),
                                             ("llir", 100_000)])  # fmt: skip
    group = {"k.json": "/c/ABC/k.json", "k.ttgir": "/c/ABC/k.ttgir"}
    cap._listen(src=None, metadata={"name": "k"}, metadata_group=group, times=times,
                cache_hit=False)  # fmt: skip
    cap._listen(src=None, metadata={"name": "hit"}, metadata_group={"h.json": "/c/D/h.json"},
                times=times, cache_hit=True)  # fmt: skip
    assert set(cap.TIMES) == {"ABC/k"}  # a cache hit compiled nothing
    got = cap.TIMES["ABC/k"]
    assert got["compile_s"] == pytest.approx(0.175)  # 40 + 10 + 20 + 100 + 5 ms
    assert got["frontend_s"] == pytest.approx(0.04)
    assert got["stages_s"]["llir"] == pytest.approx(0.1)


@pytest.mark.slow
def test_plan_against_recorded_compile_times(tmp_path: Path) -> None:
    """Two kernels of the Liger capture, one with a recorded compile time: the row is that
    kernel's, its ratio its plan's seconds over the recorded ones; the other is left out."""
    with tarfile.open(REALWORLD / "h200" / "liger.tar.xz") as tar:
        names = sorted({m.name.split("/")[0] for m in tar.getmembers()})[:2]
        tar.extractall(tmp_path / "cache", members=[m for m in tar.getmembers()
                                                    if m.name.split("/")[0] in names])  # fmt: skip
    folder = tmp_path / "cache" / names[0]
    name = next(folder.glob("*.ttgir")).stem
    times = tmp_path / "compile_times.json"
    times.write_text(json.dumps({"kernels": {f"{names[0]}/{name}": {"compile_s": 2.0}}}))
    out = tmp_path / "rows.json"
    run = subprocess.run([*BENCH_PLAN, "--cache",
                          str(tmp_path / "cache"), "--compile-times", str(times), "--out",
                          str(out)], cwd=ROOT, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "1 of 2 kernels have a recorded compile time" in run.stdout
    rows = json.loads(out.read_text())["cache"]
    assert [(r["kernel"], r["compile_s"]) for r in rows] == [(name, 2.0)]
    assert rows[0]["status"] in ("clean", "partial", "findings")
    assert "p99" in run.stdout


def test_bad_compile_times_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "times.json"
    bad.write_text("[1, 2]")
    run = subprocess.run([*BENCH_PLAN, "--cache",
                          str(tmp_path), "--compile-times", str(bad)], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)  # fmt: skip
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1 and "not a compile_times.json" in run.stderr


@pytest.mark.skipif(importlib.util.find_spec("triton") is None, reason="needs triton")
def test_races_time_the_race_check_apart_with_its_verdict(tmp_path: Path) -> None:
    """--races: each kernel judged twice, the plan and the plan with the race check, each with
    its verdict. The relayout kernel as built is clean both ways; with its CTA barrier deleted
    (a race the H200 showed in every launch) it is clean without the race check, a finding
    with it."""
    from tests.plan.cases import race_truth

    built = race_truth.compile_cpu()
    kernels = {}
    for folder, llir in (("BUILT", built.asm["llir"]),
                         ("MUTANT", race_truth.without_barrier(built.asm["llir"]))):  # fmt: skip
        (tmp_path / "cache" / folder).mkdir(parents=True)
        (tmp_path / "cache" / folder / "relayout.ttgir").write_text(built.asm["ttgir"])
        (tmp_path / "cache" / folder / "relayout.llir").write_text(llir)
        kernels[f"{folder}/relayout"] = {"compile_s": 1.0}
    times = tmp_path / "compile_times.json"
    times.write_text(json.dumps({"kernels": kernels}))
    out = tmp_path / "rows.json"
    run = subprocess.run([*BENCH_PLAN, "--cache",
                          str(tmp_path / "cache"), "--compile-times", str(times), "--races",
                          "--out", str(out)], cwd=ROOT, capture_output=True, text=True,
                         timeout=600)  # fmt: skip
    assert run.returncode == 0, run.stderr
    rows = {r["ttgir"].split("/")[0]: r for r in json.loads(out.read_text())["cache"]}
    assert {k: (r["status"], r["races_status"]) for k, r in rows.items()} == {
        "BUILT": ("clean", "clean"), "MUTANT": ("clean", "findings")}  # fmt: skip
    assert all(r["races_s"] > 0 for r in rows.values())
    assert "plan --races / compile over 2 kernels" in run.stdout
    assert "1 clean -> findings" in run.stdout


def test_repeat_below_one_is_one_line(tmp_path: Path) -> None:
    run = subprocess.run([*BENCH_PLAN, "--cache",
                          str(tmp_path), "--repeat", "0"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)  # fmt: skip
    assert run.returncode == 2 and "--repeat must be at least 1" in run.stderr
    assert "Traceback" not in run.stderr


SCRIPT = TOOLS / "plan" / "realworld" / "capture_and_bench.sh"


def test_capture_and_bench_without_a_step_is_usage(tmp_path: Path) -> None:
    run = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, timeout=60,
                         env={"PATH": "/usr/bin:/bin", "OUT": str(tmp_path / "out"),
                              "WORK": str(tmp_path / "work")})  # fmt: skip
    assert run.returncode == 2 and run.stderr.strip().startswith("usage:")


@pytest.mark.slow
def test_capture_and_bench_merges_each_library_s_times(tmp_path: Path) -> None:
    """The bench step on a capture laid out as the capture step leaves it (one cache and one
    compile_times.json a library): the recorded times of both libraries are merged and each
    kernel set against its own."""
    import os

    work = tmp_path / "work"
    with tarfile.open(REALWORLD / "h200" / "liger.tar.xz") as tar:
        names = sorted({m.name.split("/")[0] for m in tar.getmembers()})[:2]
        for lib, name in zip(("liger", "other"), names, strict=True):
            tar.extractall(work / "c" / lib, members=[m for m in tar.getmembers()
                                                      if m.name.startswith(name + "/")])  # fmt: skip
            stem = next((work / "c" / lib / name).glob("*.ttgir")).stem
            (work / "cap" / lib).mkdir(parents=True)
            (work / "cap" / lib / "compile_times.json").write_text(
                json.dumps(
                    {"kernels": {f"{name}/{stem}": {"compile_s": 3.0 if lib == "liger" else 5.0}}}
                )
            )
    out = tmp_path / "out"
    env = {**os.environ, "WORK": str(work), "OUT": str(out), "JOBS": "1", "RACES": "",
           "PYTHON": sys.executable}  # fmt: skip
    run = subprocess.run(["bash", str(SCRIPT), "bench"], capture_output=True, text=True,
                         timeout=900, env=env)  # fmt: skip
    assert run.returncode == 0 and "bench exit 0" in run.stdout, run.stdout + run.stderr
    rows = json.loads((out / "bench.json").read_text())["cache"]
    assert sorted(r["compile_s"] for r in rows) == [3.0, 5.0]
    assert json.loads((out / "machine_bench.json").read_text())["cores"] >= 1
