"""Triton's own lit tests as a corpus (tests/plan/cases/triton_lit/, README.md there).

Every function file carries its expectations, in the format of ``tests/plan/expect.py`` (its
one parser reads them): from the lit file's CHECK lines (the verdict: these are correct
kernels, never findings; each buffer's offset and size; the total), or, for a lit file that
states no offsets (membar), no false alarm and the offsets the release itself printed; and
what each release's allocator printed (``ALLOCATOR-*`` lines). Each file is judged by the
Triton installed here and by every release whose allocator output is stored next to it
(``NAME.<version>.alloc.json``: releases CI does not install). Also: the runner's answers to
interpreters that are not Triton, and its temporary files.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest

from alias_spec.plan.plan import check_plan
from alias_spec.plan.runner import AllocationError, allocate
from tests.paths import PLAN_CASES
from tests.plan import expect

LIT = PLAN_CASES / "triton_lit"
FILES = sorted(LIT.glob("*/*.ttgir"))
_FUNC = re.compile(r"^(\s*)(?:tt\.func|func\.func)\b[^@]*@([\w.$-]+)")
_OFFSET = re.compile(r"allocation\.offset = (\d+) : i32")
# Triton's own test pass allocates the module as parsed, with no pass before the allocation
# (make_lit.py stores the other releases' output the same way).
PREPASSES = "none"


def _installed() -> str:
    try:
        return version("triton")
    except PackageNotFoundError:
        return "installed"


INSTALLED = _installed()
# (file, release): every file by the installed Triton, and by each release whose allocator
# output is stored next to it (NAME.<version>.alloc.json, for releases CI does not install).
CASES = [(path, INSTALLED) for path in FILES] + [
    (path, stored.name[len(path.stem) + 1 : -len(".alloc.json")])
    for path in FILES
    for stored in sorted(path.parent.glob(f"{path.stem}.*.alloc.json"))
]

# Disagreements found by this corpus, keyed "folder/function@release". A false alarm: a finding
# on a correct kernel (reported to the validator's owners); a strict xfail, so that a fix makes
# the test fail until the entry goes. A release difference: the release placed buffers other
# than the lit commit says; the case must then agree with the release's own offsets, with no
# finding, and must still differ from the lit file (else the entry goes).
# Both releases size a convert_layout's scratch otherwise than the lit commit (6da8a386, from
# before 3.5) says; the buffers after it move. What each release printed is in the file
# (ALLOCATOR-BUFFERS) and checked the same as for every file.
_SCRATCH = {
    "multi_color": "the 3 convert_layout scratch buffers are 1024 bytes, the lit commit's 1152: "
    "the allocations at 1152, 1344, 1472 sit at 1024, 1088, 1344 (total 1376, lit 1504)",
    "multi_color_multi_rounds": "the 2 convert_layout scratch buffers are 1024 bytes, the lit "
    "commit's 1152: the allocations at 9344, 9472 sit at 9216, 9344 (total 9376, lit 9504)",
    "reusable": "the 4 convert_layout scratch buffers are 8192 bytes each, the lit commit's "
    "4608, 1088, 4608, 1088 (total 8192, lit 4608)",
    "matmul_loop": "the 2 convert_layout scratch buffers are 8192 and 2048 bytes, the lit "
    "commit's 4608 and 4352 (total 8192, lit 4608)",
}
KNOWN = {
    f"allocation-6da8a386/{name}@{release}": f"release difference: {why}"
    for name, why in _SCRATCH.items()
    for release in ("3.6.0", "3.9.0")
}


def _case_id(case: tuple[Path, str]) -> str:
    path, release = case
    return f"{path.parent.name}/{path.stem}@{release}"


def _function_offsets(module: str, name: str) -> list[int]:
    """The allocation.offset values the allocator printed inside @name (not its callees)."""
    lines = module.splitlines()
    for i, line in enumerate(lines):
        fn = _FUNC.match(line)
        if fn and fn.group(2) == name:
            end = i
            while end < len(lines) and lines[end].rstrip() != fn.group(1) + "}":
                end += 1
            return sorted(int(o) for ln in lines[i : end + 1] for o in _OFFSET.findall(ln))
    raise AssertionError(f"@{name} is not in the allocated module")


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_lit_function(case: tuple[Path, str]) -> None:
    known = KNOWN.get(_case_id(case))
    if known is None:
        _judge(*case)
        return
    if known.startswith("release difference"):
        _judge(*case, against_release=True)
        with pytest.raises(AssertionError):
            _judge(*case)
        return
    try:
        _judge(*case)
    except AssertionError:
        pytest.xfail(known)
    pytest.fail(f"judged as the lit file says: remove it from KNOWN ({known})")


def _allocated(
    path: Path, text: str, want: expect.Expect, release: str
) -> tuple[str, str, str] | None:
    """The release's allocation of the file; None when the file says it cannot allocate it
    (and it indeed cannot)."""
    stored = path.with_name(f"{path.stem}.{release}.alloc.json")
    if stored.exists():
        record = json.loads(stored.read_text())
        assert record["version"] == release
        return record["module"], record["debug"], record["version"]
    pytest.importorskip("triton")
    if release in want.allocator_fails:
        with pytest.raises(AllocationError):
            allocate(text, prepasses=PREPASSES)
        return None
    done = allocate(text, prepasses=PREPASSES)
    return done.module, done.debug, done.version


def _judge(path: Path, release: str, against_release: bool = False) -> None:
    """Judge one file as one release allocated it. With ``against_release``, the buffers are
    compared with the offsets the release printed, not with the lit file's."""
    text = path.read_text()
    want = expect.read(path)
    assert want.verdict in expect.VERDICTS, f"the file states no verdict of these: {want.verdict}"
    allocated = _allocated(path, text, want, release)
    if allocated is None:
        return
    report, _, buffers = check_plan(text, path.name, allocated=allocated)
    assert not report.findings, [f.message for f in report.findings]
    if want.verdict == "no-false-alarm":
        assert report.status in ("clean", "partial"), report.status
    else:
        assert report.status == want.verdict, [n.message for n in report.notes]
    mine = [b for b in buffers if b.function == path.stem]
    # Every buffer as the release placed and sized it (its debug text, recorded in the file).
    printed = want.allocator_buffers.get(release)
    assert printed is not None, f"no ALLOCATOR-BUFFERS line for {release}"
    assert Counter((b.offset, b.size) for b in mine) == printed
    assert _function_offsets(allocated[0], path.stem) == sorted(o for o, _ in printed.elements())
    if against_release:
        return
    if want.buffers is not None or want.size is not None:
        # The lit file's CHECK lines: the same for every release, unless KNOWN says otherwise.
        # Offsets and sizes only: a remark does not tell a warp-specialize state byte from an
        # allocation, and make_lit.py writes both as alloc.
        lit = Counter((o, s) for _, o, s in (want.buffers or Counter()).elements())
        assert Counter((b.offset, b.size) for b in mine) == lit
    else:
        # No offsets in the lit file: those the release printed, recorded in the file.
        recorded = want.allocator_offsets.get(release)
        assert recorded is not None, f"no ALLOCATOR-OFFSETS line for {release}"
        assert _function_offsets(allocated[0], path.stem) == recorded
        assert sorted(b.offset for b in mine) == recorded
    if want.size is not None:
        assert report.shared == want.size


def test_corpus_is_there() -> None:
    assert len(FILES) >= 60
    for path in FILES:
        text = path.read_text()
        assert text.startswith("// Source: ") and "(MIT license)" in text.splitlines()[0], path
    # Every file of the newest lit commit is judged by 3.9 from stored output; a file of the
    # others without it says why 3.9 cannot allocate it.
    for path in FILES:
        stored = path.with_name(f"{path.stem}.3.9.0.alloc.json").exists()
        if path.parent.name == "membar-0202b1d9":
            assert stored, path
        assert stored or "3.9.0" in expect.read(path).allocator_fails, path


WS = sorted((LIT / "warp-specialize-tf-d44fedc4").glob("*.ttgir"))


@pytest.mark.parametrize("path", WS, ids=lambda p: p.stem)
def test_warp_groups_as_the_backend_pads_them(path: Path) -> None:
    """The backend's warp-group pass (run before the allocation when compiling, not by the lit
    test) pads the partitions to whole warp groups: more partition warps, so more state bytes
    (one per partition warp) than the lit file says. Still no finding, and the state is sized
    from the allocator's output."""
    pytest.importorskip("triton")
    text = path.read_text()
    done = allocate(text, prepasses="as_written")
    report, _, buffers = check_plan(text, path.name, allocated=(done.module, done.debug,
                                                                 done.version))  # fmt: skip
    assert not report.findings, [f.message for f in report.findings]
    states = [(b.size, b.size_from) for b in buffers if b.kind == "state"]
    warps = re.search(r'"ttg\.num-warps" = (\d+)', done.module)
    total = re.search(r'"ttg\.total-num-warps" = (\d+)', done.module)
    assert warps
    partition_warps = int(total.group(1)) - int(warps.group(1)) if total else 0
    assert states == ([(partition_warps, "allocator")] if partition_warps else [])


# --- the runner -------------------------------------------------------------------------------

_UNUSED = (LIT / "allocation-6da8a386" / "unused.ttgir").read_text()


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "alias_spec", "plan", *args],
                          capture_output=True, text=True, env=env, check=False)  # fmt: skip


def _script(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / name
    path.write_text(body)
    path.chmod(0o755)
    return path


@pytest.mark.parametrize(
    "name,body",
    [
        ("garbage.sh", "#!/bin/sh\ncat >/dev/null\necho 'hello, not json'\n"),
        ("silent.sh", "#!/bin/sh\ncat >/dev/null\nexit 0\n"),
        ("jsonish.sh", "#!/bin/sh\ncat >/dev/null\necho '{\"ok\": true}'\n"),
        ("listish.sh", "#!/bin/sh\ncat >/dev/null\necho '[1, 2]'\n"),
        ("notpython.bin", "\x7fELF this is not a program\n"),
    ],
)
def test_nonsense_interpreter_is_one_line_exit_2(tmp_path: Path, name: str, body: str) -> None:
    python = _script(tmp_path, name, body)
    kernel = tmp_path / "k.ttgir"
    kernel.write_text(_UNUSED)
    proc = _cli("--python", str(python), str(kernel))
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert name in lines[0]


def test_missing_interpreter_is_named(tmp_path: Path) -> None:
    with pytest.raises(AllocationError, match="nowhere-python: no such file"):
        allocate(_UNUSED, str(tmp_path / "nowhere-python"))


def test_runner_leaves_no_temporary_files(tmp_path: Path) -> None:
    pytest.importorskip("triton")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    kernel = tmp_path / "k.ttgir"
    kernel.write_text(_UNUSED)
    env = dict(os.environ, TMPDIR=str(tmp))
    assert _cli(str(kernel), env=env).returncode in (0, 3)
    bad = tmp_path / "bad.ttgir"
    bad.write_text("module {\n  tt.func @f() {\n    ttg.no_such_op\n  }\n}\n")
    assert _cli(str(bad), env=env).returncode == 2
    garbage = _script(tmp_path, "garbage.sh", "#!/bin/sh\ncat >/dev/null\necho nonsense\n")
    assert _cli("--python", str(garbage), str(kernel), env=env).returncode == 2
    assert list(tmp.iterdir()) == []


def test_prepasses_that_delete_allocations_are_not_silent() -> None:
    pytest.importorskip("triton")
    # The release's inliner canonicalizes: all three allocations of @unused are unused.
    release = allocate(_UNUSED, prepasses="release")
    assert "ttg.local_alloc" not in release.module
    assert release.removed == ["@unused: 3 of 3 ttg.local_alloc"]
    auto = allocate(_UNUSED)
    assert auto.prepasses == "as_written"
    assert auto.removed == ["@unused: 3 of 3 ttg.local_alloc"]
    report, _, buffers = check_plan(_UNUSED, "unused.ttgir",
                                    allocated=(auto.module, auto.debug, auto.version))  # fmt: skip
    assert len(buffers) == 3 and not report.findings


def test_plan_of_a_module_the_prepasses_emptied_is_partial() -> None:
    pytest.importorskip("triton")
    # Judged after the release's passes: no buffer is left, which is not "clean".
    report, _, buffers = check_plan(_UNUSED, "unused.ttgir", prepasses="release")
    assert buffers == [] and report.status == "partial"
    (note,) = [n for n in report.notes if n.kind == "plan.removed"]
    assert "@unused: 3 of 3 ttg.local_alloc" in note.message and "not judged" in note.message
    # By default the plan is of the module as written: its buffers, and the same note.
    report, _, buffers = check_plan(_UNUSED, "unused.ttgir")
    assert len(buffers) == 3 and report.status == "partial" and not report.findings
    assert [n.kind for n in report.notes] == ["plan.removed"]
    # As Triton's own test pass runs it: nothing removed, nothing to say.
    report, _, buffers = check_plan(_UNUSED, "unused.ttgir", prepasses="none")
    assert len(buffers) == 3 and report.status == "clean"
