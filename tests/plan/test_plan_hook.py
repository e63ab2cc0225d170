"""``alias_spec.plan.install()``: every kernel Triton compiles is judged, one report each.

The kernels are compiled for sm_90 on the CPU by ``kernel.warmup(..., grid=(1,))``, Triton's
own path to ``knobs.runtime.jit_post_compile_hook``: a JIT function asks the active driver for
the device, the stream and the target, so ``alias_spec.plan.compile_only`` makes a stand-in
driver answering those three active (``triton.runtime.driver.set_active``); pointer arguments
are ``MockTensor``s. A launch fails there, in one line.

The verdicts (clean, findings, partial) are the ones ``tests/plan/cases/ground_truth.py``
writes for its kernels (``Case.expect``), checked against the GPU in
``tests/gpu/test_plan_ground_truth.py``.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.paths import ROOT, child_env

pytest.importorskip("triton")
pytest.importorskip("z3")

import triton  # noqa: E402
from triton import knobs  # noqa: E402
from triton.runtime import driver  # noqa: E402
from triton.runtime.jit import MockTensor  # noqa: E402

import alias_spec.plan as plan  # noqa: E402
from tests.plan.cases import ground_truth as gt  # noqa: E402

F32 = MockTensor(triton.language.float32)


@pytest.fixture(autouse=True)
def sm90() -> Iterator[None]:
    saved_driver, saved_hook = driver._active, knobs.runtime.jit_post_compile_hook
    try:
        with plan.compile_only(90):
            yield
    finally:
        while plan.hook._STACK:
            plan.uninstall()
        assert driver._active is saved_driver  # compile_only put it back
        knobs.runtime.jit_post_compile_hook = saved_hook


def warm(fn: Any, *args: Any) -> Any:
    """Compile ``fn`` as a launch would, through Triton's hooks; forget it first, so every call
    compiles (and calls the hook) again."""
    fn.device_caches.clear()
    return fn.warmup(*args, grid=(1,))


@triton.jit
def double(x_ptr, y_ptr, n, BLOCK: triton.language.constexpr):
    offs = triton.language.arange(0, BLOCK)
    mask = offs < n
    triton.language.store(y_ptr + offs, triton.language.load(x_ptr + offs, mask=mask) * 2,
                          mask=mask)  # fmt: skip


def test_a_report_per_kernel() -> None:
    err = io.StringIO()
    hook = plan.install("report", stream=err)
    assert knobs.runtime.jit_post_compile_hook is hook
    warm(double, F32, F32, 100, 128)
    warm(gt.if_branches, F32, F32, 2)
    warm(gt.frame_constexpr, F32, F32, F32)  # mode report: a finding does not raise
    assert [(r.name.split("[")[0], r.status) for r in hook.results] == [
        ("double", "clean"), ("if_branches", "clean"), ("frame_constexpr", "findings"),
    ]  # fmt: skip
    lines = err.getvalue().splitlines()
    assert lines[0].startswith(
        "alias-spec plan: double[num_warps=4](x_ptr: *fp32, "
        "y_ptr: *fp32, n: i32, BLOCK=128): clean: proved clean"
    )
    assert lines[1].startswith(
        "alias-spec plan: if_branches[num_warps=4](x_ptr: *fp32, "
        "out_ptr: *fp32, flag: i32): clean: proved clean: 3 buffers"
    )
    assert lines[2] == ("alias-spec plan: frame_constexpr[num_warps=4](x_ptr: *fp32, "
                        "y_ptr: *fp32, out_ptr: *fp32): findings:")  # fmt: skip
    assert "in its frame as placed by the call" in lines[3] and "_scaled_helper" in lines[3]
    # The table alias-spec plan DIR prints: a row per kernel name, then all, then the counts.
    table = hook.summary().splitlines()
    assert table[0].split() == ["kernel", "kernels", "clean", "partial", "findings", "error"]
    assert {ln.split()[0]: ln.split()[1:] for ln in table[1:-1]} == {
        "double": ["1", "1", "0", "0", "0"], "frame_constexpr": ["1", "0", "0", "1", "0"],
        "if_branches": ["1", "1", "0", "0", "0"], "all": ["3", "2", "0", "1", "0"],
    }  # fmt: skip
    assert table[-1] == "alias-spec plan: 3 kernels judged: 2 clean, 1 findings"


def test_compile_only_cannot_launch() -> None:
    hook = plan.install("report", stream=io.StringIO())
    with pytest.raises(RuntimeError, match=r"^compile_only: driver\.\w+ needs a GPU"):
        double.device_caches.clear()
        double[(1,)](F32, F32, 100, BLOCK=16)
    assert [r.status for r in hook.results] == ["clean"]  # compiled and judged before


def test_raise_names_the_kernel() -> None:
    hook = plan.install("raise", stream=io.StringIO())
    warm(gt.if_branches, F32, F32, 2)  # clean: no exception
    with pytest.raises(plan.PlanFindingsError) as info:
        warm(gt.frame_constexpr, F32, F32, F32)
    message = str(info.value)
    assert message.startswith("alias-spec plan: frame_constexpr[num_warps=4](")
    assert ": findings: " in message and "in its frame as placed by the call" in message
    assert info.value.result.status == "findings" and hook.results[-1] is info.value.result
    warm(gt.asm_shared_store, F32, F32)  # partial: raises only in mode strict
    assert hook.results[-1].status == "partial"


def test_strict_raises_on_partial() -> None:
    plan.install("strict", stream=io.StringIO())
    with pytest.raises(plan.PlanFindingsError, match=r"asm_shared_store\[.*: partial: "):
        warm(gt.asm_shared_store, F32, F32)


def test_uninstall_restores_the_hook_before() -> None:
    calls: list[str] = []

    def mine(**kwargs: Any) -> None:
        calls.append(kwargs["fn"].name)

    knobs.runtime.jit_post_compile_hook = mine
    outer = plan.install("report", stream=io.StringIO())
    inner = plan.install("report", stream=io.StringIO())
    assert inner.previous is outer and outer.previous is mine
    warm(double, F32, F32, 100, 64)
    assert calls == ["double"]  # chained: the hook installed first still runs
    assert len(outer.results) == len(inner.results) == 1
    plan.uninstall(outer)  # under another: stays in the chain, judging nothing
    warm(double, F32, F32, 100, 32)
    assert len(outer.results) == 1 and len(inner.results) == 2 and calls == ["double"] * 2
    plan.uninstall()  # the last one: both unwound, the program's own hook is back
    assert knobs.runtime.jit_post_compile_hook is mine
    plan.uninstall()  # nothing installed: no-op
    assert knobs.runtime.jit_post_compile_hook is mine
    with plan.installed("report", stream=io.StringIO()) as hook:
        warm(double, F32, F32, 100, 256)
    assert [r.status for r in hook.results] == ["clean"]
    assert knobs.runtime.jit_post_compile_hook is mine and calls == ["double"] * 3


def test_a_validator_failure_is_not_clean(monkeypatch: pytest.MonkeyPatch) -> None:
    import alias_spec.plan.api as api

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("solver gone")

    monkeypatch.setattr(api, "check_texts", broken)
    hook = plan.install("raise", stream=io.StringIO())
    warm(double, F32, F32, 100, 8)  # mode raise: reported, not raised
    assert hook.results[-1].status == "unreadable"
    assert hook.results[-1].message == (
        "not judged: the validator failed: RuntimeError: solver gone"
    )
    plan.install("strict", stream=io.StringIO())
    with pytest.raises(plan.PlanFindingsError, match="unreadable: not judged"):
        warm(double, F32, F32, 100, 4)


def test_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ALIAS_SPEC_PLAN", "raise")
    monkeypatch.setenv("ALIAS_SPEC_PLAN_OUT", str(tmp_path / "plans"))
    hook = plan.install(stream=io.StringIO())
    assert hook.mode == "raise" and hook.out == tmp_path / "plans"
    warm(gt.if_branches, F32, F32, 2)
    files = sorted(p.suffix for p in (tmp_path / "plans").iterdir())
    assert files == [".json", ".llir", ".ttgir"]
    (doc,) = [json.loads(p.read_text()) for p in (tmp_path / "plans").glob("*.json")]
    assert doc["status"] == "clean" and doc["kernel"].startswith("if_branches[")
    plan.uninstall()
    # The directory judged again as a whole (as the plan guide's CI recipe does): the kernel
    # is named by the label its JSON report carries, and is its row of the table.
    from alias_spec.plan import batch

    (kernel,) = batch.find_kernels(tmp_path / "plans")
    assert kernel.name == doc["kernel"] and kernel.llir is not None
    verdicts = batch.judge_dir(tmp_path / "plans", jobs=1)
    assert [(v.kernel, v.status) for v in verdicts] == [(doc["kernel"], "clean")]
    assert batch.to_text(verdicts).splitlines()[1].split() == ["if_branches", "1", "1", "0", "0",
                                                              "0"]  # fmt: skip
    monkeypatch.setenv("ALIAS_SPEC_PLAN", "1")  # switched on: mode report
    assert plan.install(stream=io.StringIO()).mode == "report"
    monkeypatch.setenv("ALIAS_SPEC_PLAN", "loud")
    with pytest.raises(ValueError, match="mode must be one of report, raise, strict"):
        plan.install()


def test_import_installs_nothing() -> None:
    code = ("import sys, alias_spec.plan, alias_spec.plan.hook; "
            "print('triton' in sys.modules, 'z3' in sys.modules)")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, cwd=ROOT)  # fmt: skip
    assert out.stdout.split() == ["False", "False"], out.stderr


# --- the pytest plugin and ``alias-spec plan-run``, in a subprocess ---------------------------

PROGRAM = """
import triton
from triton.runtime.jit import MockTensor
from alias_spec.plan import compile_only
from tests.plan.cases import ground_truth as gt

F32 = MockTensor(triton.language.float32)
"""


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> Any:
    """``python ARGS`` in ``cwd``, the checkout on its path (``PROGRAM`` imports the kernels from
    ``tests.plan.cases``)."""
    full = {k: v for k, v in child_env(ROOT).items() if not k.startswith("ALIAS_SPEC_PLAN")}
    full.update(env or {})
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=300,
                          cwd=cwd, env=full)  # fmt: skip


def _suite(tmp_path: Path) -> Path:
    (tmp_path / "test_kernels.py").write_text(
        PROGRAM
        + textwrap.dedent("""
        def test_clean():
            with compile_only(90):
                gt.if_branches.warmup(F32, F32, 2, grid=(1,))

        def test_frame():
            with compile_only(90):
                gt.frame_constexpr.warmup(F32, F32, F32, grid=(1,))
    """)
    )
    return tmp_path


PYTEST = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "alias_spec.plan.hook"]


def test_pytest_plugin(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    out = _run([*PYTEST, "--alias-spec-plan=report", "test_kernels.py"], suite)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "alias-spec plan: 2 kernels judged: 1 clean, 1 findings" in out.stdout
    assert "frame_constexpr        1      0        0         1      0" in out.stdout
    out = _run([*PYTEST, "--alias-spec-plan=raise", "test_kernels.py"], suite)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "1 failed, 1 passed" in out.stdout
    assert "PlanFindingsError: alias-spec plan: frame_constexpr[num_warps=4]" in out.stdout


def test_pytest_plugin_reads_the_environment(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    out = _run([*PYTEST, "test_kernels.py"], suite, {"ALIAS_SPEC_PLAN": "raise",
                                                     "ALIAS_SPEC_PLAN_OUT": "plans"})  # fmt: skip
    assert out.returncode == 1 and "1 failed, 1 passed" in out.stdout, out.stdout + out.stderr
    reports = [json.loads(p.read_text()) for p in (suite / "plans").glob("*.json")]
    assert sorted(r["status"] for r in reports) == ["clean", "findings"]
    out = _run([*PYTEST, "test_kernels.py"], suite, {"ALIAS_SPEC_PLAN": "0"})  # off
    assert out.returncode == 0 and "alias-spec plan" not in out.stdout + out.stderr


def test_run_a_program(tmp_path: Path) -> None:
    script = tmp_path / "prog.py"
    script.write_text(
        PROGRAM
        + textwrap.dedent("""
        with compile_only(90):
            gt.if_branches.warmup(F32, F32, 2, grid=(1,))
            gt.frame_constexpr.warmup(F32, F32, F32, grid=(1,))
        print("done")
    """)
    )
    hook = ["-m", "alias_spec", "plan-run"]
    out = _run([*hook, str(script)], tmp_path)
    assert out.returncode == 0 and out.stdout == "done\n", out.stderr
    assert out.stderr.splitlines()[-1] == "alias-spec plan: 2 kernels judged: 1 clean, 1 findings"
    out = _run([*hook, "--mode", "raise", str(script)], tmp_path)
    assert out.returncode == 1 and out.stdout == "", out.stderr
    assert "Traceback" not in out.stderr
    assert any(line.startswith("alias-spec plan: frame_constexpr[num_warps=4](")
               and ": findings: " in line for line in out.stderr.splitlines())  # fmt: skip
    out = _run([*hook, str(tmp_path / "absent.py")], tmp_path)
    assert out.returncode == 2
    assert out.stderr == f"alias-spec: error: no such file: {tmp_path}/absent.py\n"


def test_run_a_module_from_the_current_directory(tmp_path: Path) -> None:
    """``-m MODULE`` finds a module in the current directory, as ``python -m`` does, though the
    console script does not put that directory on the path (``-c`` does: it is taken off)."""
    (tmp_path / "prog_module.py").write_text("import sys\nprint('ran', sys.argv[1:])\n")
    console = ("import sys; del sys.path[0]; from alias_spec.entry import main; "
               "sys.exit(main(sys.argv[1:]))")  # fmt: skip
    out = _run(["-c", console, "plan-run", "-m", "prog_module", "arg"], tmp_path)
    assert out.returncode == 0 and out.stdout == "ran ['arg']\n", out.stderr
    assert out.stderr.splitlines()[-1] == "alias-spec plan: 0 kernels judged", out.stderr


def test_installed_plugin_needs_no_dash_p(tmp_path: Path) -> None:
    """The package declares the plugin as a pytest11 entry point: switched on by the
    environment alone, and inert without it."""
    from importlib.metadata import entry_points

    assert any(ep.value == "alias_spec.plan.hook" for ep in entry_points(group="pytest11"))
    suite = _suite(tmp_path)
    bare = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "test_kernels.py"]
    out = _run(bare, suite, {"ALIAS_SPEC_PLAN": "raise"})
    assert out.returncode == 1 and "1 failed, 1 passed" in out.stdout, out.stdout + out.stderr
    out = _run(bare, suite, {"ALIAS_SPEC_PLAN": "loud"})
    assert out.returncode == 4 and "Traceback" not in out.stdout + out.stderr, out.stderr
    assert "ALIAS_SPEC_PLAN='loud' is not one of" in out.stderr
