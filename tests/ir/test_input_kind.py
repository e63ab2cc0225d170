"""lint and plan on the wrong input, and on a dump of another Triton release (alias_spec.ir.kind).

Another stage of the compiler (TTIR, asm["source"], LLVM IR, PTX) or the kernel's Python
source is one line and exit 2: lint used to print "0 findings in 0 views" and exit 0. A literal
MLIR's parser refuses is exit 2, not "not judged" (3). A dump whose ops point to another
release than the one that re-runs the allocation is judged with a one-line warning naming
--python, and a parse failure on such a dump names --python."""

from __future__ import annotations

import gzip
import importlib.util
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from alias_spec.ir import kind
from tests.paths import LINT_CASES, PLAN_CASES, ROOT

CASES = PLAN_CASES
CORPUS = CASES / "corpus"
RELEASES = {"3.6": "3.6.0", "3.7": "3.7.1", "3.8": "3.8.0", "3.9": "3.9.0"}


def _cli(*args: str) -> tuple[int, str, list[str]]:
    run = subprocess.run([sys.executable, "-m", "alias_spec", *args], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)  # fmt: skip
    return run.returncode, run.stdout, run.stderr.strip().splitlines()


@pytest.fixture(scope="module")
def stages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each text triton.compile returns for one small kernel, written to a file."""
    if importlib.util.find_spec("triton") is None:
        pytest.skip("triton is not installed")
    import triton
    import triton.language as tl
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    @triton.jit
    def row_sums(x_ptr, out_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs[:, None] * BLOCK + offs[None, :])
        tl.store(out_ptr + offs, tl.sum(x, axis=1))

    src = ASTSource(row_sums, signature={"x_ptr": "*fp32", "out_ptr": "*fp32",
                    "BLOCK": "constexpr"}, constexprs={"BLOCK": 32})  # fmt: skip
    compiled = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
    out = tmp_path_factory.mktemp("stages")
    paths = {}
    for key in ("source", "ttir", "ttgir", "llir", "ptx"):
        paths[key] = out / f"row_sums.{key}"
        paths[key].write_text(compiled.asm[key])
    return paths


WHAT = {"source": "TTIR", "ttir": "TTIR", "llir": "LLVM IR", "ptx": "PTX"}


@pytest.mark.parametrize("command", ["lint", "plan"])
@pytest.mark.parametrize("stage", sorted(WHAT))
def test_another_stage_is_one_line(stages: dict[str, Path], command: str, stage: str) -> None:
    code, out, err = _cli(command, str(stages[stage]))
    assert code == 2 and out == "" and len(err) == 1, (code, out, err)
    assert err[0].startswith(f"alias-spec: error: {stages[stage]}: {WHAT[stage]} "), err
    assert "not TTGIR" in err[0] and 'asm["ttgir"]' in err[0], err


def test_the_ttgir_of_the_same_kernel_is_read(stages: dict[str, Path]) -> None:
    assert kind.problem(stages["ttgir"].read_text()) is None
    code, _, err = _cli("lint", str(stages["ttgir"]))
    assert code == 0, err


@pytest.mark.parametrize("command", ["lint", "plan"])
@pytest.mark.parametrize(
    "given", ["examples/flagtree_alias.py", "tests/plan/cases/call_frame.llir"]
)
def test_python_source_and_llvm_ir_are_one_line(command: str, given: str) -> None:
    code, out, err = _cli(command, given)
    assert code == 2 and out == "" and len(err) == 1, (code, err)
    what = "Python source" if given.endswith(".py") else "LLVM IR"
    assert err[0].startswith(f"alias-spec: error: {given}: {what}"), err


ALIAS_OP = (
    "#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>\n"
    "#smem = #ttg.shared_memory\n"
    'module attributes {"ttg.num-warps" = 4 : i32} {\n'
    "  tt.func @f() {\n"
    "    %src = ttg.local_alloc : () -> !ttg.memdesc<64x64xbf16, #shared, #smem, mutable>\n"
    "    %a = tle.memdesc_alias %src {offset_bytes = OFFSET : i64} : "
    "!ttg.memdesc<64x64xbf16, #shared, #smem, mutable> -> "
    "!ttg.memdesc<32x64xbf16, #shared, #smem, mutable>\n"
    "    tt.return\n  }\n}\n"
)


@pytest.mark.parametrize(
    "offset, fits",
    [("99999999999999999999999", False), ("18446744073709551616", False),
     ("-9223372036854775809", False), ("0x10000000000000000", False),
     ("18446744073709551615", True), ("-9223372036854775808", True), ("128", True)],
)  # fmt: skip
def test_a_literal_no_i64_holds_is_malformed(tmp_path: Path, offset: str, fits: bool) -> None:
    """MLIR reads an iN attribute that fits N bits signed or unsigned; past that its parser
    rejects the module ("integer constant out of range for attribute")."""
    path = tmp_path / "alias.mlir"
    path.write_text(ALIAS_OP.replace("OFFSET", offset))
    code, _, err = _cli("lint", str(path))
    if fits:
        assert code in (0, 1, 3) and not err, err
        return
    assert code == 2 and len(err) == 1, (code, err)
    assert "line 6: integer literal" in err[0] and "does not fit in i64" in err[0], err


def _corpus() -> list[tuple[str, str]]:
    out = []
    for release in RELEASES:
        for path in sorted((CORPUS / release).glob("*.json.gz")):
            text = json.loads(gzip.decompress(path.read_bytes())).get("ttgir")
            if text:
                out.append((release, text))
    return out


def test_release_markers_on_every_dump_of_the_corpus() -> None:
    """Never a warning under the release that wrote a dump; always one between the releases
    before 3.8 and those from 3.8 (whose columns, barriers and descriptor types differ), and
    every dump that 3.6's parser cannot read (ttg.barrier) is placed after 3.6."""
    dumps = _corpus()
    assert len(dumps) >= 200
    for release, text in dumps:
        assert kind.problem(text) is None
        assert kind.release_warning(text, RELEASES[release]) is None, release
        early = release in ("3.6", "3.7")
        for other, version in RELEASES.items():
            if (other in ("3.6", "3.7")) != early:
                assert kind.release_warning(text, version) is not None, (release, other)
        if "ttg.barrier" in text:
            assert kind.release_warning(text, "3.6.0") is not None


def test_a_hand_written_module_claims_no_release() -> None:
    for path in sorted(LINT_CASES.glob("*.mlir")):
        found = kind.release_markers(path.read_text())
        assert found is None or found.low is None, (path.name, found)


def test_plan_of_a_later_dump_names_python() -> None:
    """3.6 cannot parse a 3.8 dump (ttg.barrier): the one line says to pass --python."""
    if importlib.util.find_spec("triton") is None:
        pytest.skip("triton is not installed")
    import triton

    if kind.version_of(triton.__version__) != (3, 6):
        pytest.skip("the dump's release is readable here")
    code, _, err = _cli("plan", str(CASES / "call_frame-3.8.ttgir"))
    assert code == 2 and len(err) == 1, err
    assert "ttg.barrier" in err[0] and "--python" in err[0] and "3.8 or later" in err[0], err


def test_check_plan_warns_when_another_release_allocated() -> None:
    """A 3.9 dump allocated by 3.6 (its allocation given, as a batch or the API gives it) is
    judged, with a ReleaseWarning naming --python."""
    from alias_spec.plan.plan import check_plan

    text = (CASES / "call_frame-3.9.ttgir").read_text()
    allocated = (CASES / "call_frame-3.9.alloc.ttgir").read_text()
    with pytest.warns(kind.ReleaseWarning, match=r"3\.9 or later.*Triton 3\.6\.0.*--python"):
        report, _, _ = check_plan(text, "k.ttgir", allocated=(allocated, "", "3.6.0"))
    assert report.plan_from == "triton 3.6.0"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_plan(text, "k.ttgir", allocated=(allocated, "", "3.9.0"))


def _pythons() -> dict[tuple[int, int], str]:
    """Interpreters of other releases (ALIAS_SPEC_TRITON_PYTHONS), by their release."""
    out = {}
    for python in filter(None, os.environ.get("ALIAS_SPEC_TRITON_PYTHONS", "").split(os.pathsep)):
        run = subprocess.run([python, "-c", "import triton; print(triton.__version__)"],
                             capture_output=True, text=True, timeout=120)  # fmt: skip
        version = kind.version_of(run.stdout) if run.returncode == 0 else None
        if version:
            out[version] = python
    return out


def test_plan_cli_warns_in_one_line_and_still_judges() -> None:
    """A 3.9 dump re-allocated by 3.7 (which reads it): the verdict, and one warning line."""
    python = _pythons().get((3, 7))
    if python is None:
        pytest.skip("no Triton 3.7 interpreter in ALIAS_SPEC_TRITON_PYTHONS")
    code, out, err = _cli("plan", str(CASES / "call_frame-3.9.ttgir"), "--python", python)
    assert code in (0, 1, 3) and "plan from triton 3.7" in out, (out, err)
    assert len(err) == 1 and err[0].startswith("alias-spec: warning: "), err
    assert "3.9 or later" in err[0] and "--python" in err[0], err


def test_lint_warns_when_the_profile_is_another_release_s() -> None:
    """A 3.9 dump judged by 3.6's verifiers: one warning line, the same verdict as without."""
    dump = str(CASES / "call_frame-3.9.ttgir")
    code, out, err = _cli("lint", dump, "--profile", "triton-3.6")
    assert len(err) == 1 and err[0].startswith(f"alias-spec: warning: {dump}: "), err
    assert "3.9 or later" in err[0] and "--profile triton-3.6" in err[0], err
    same = _cli("lint", dump, "--profile", "triton-3.9")
    assert same[2] == [] and (code, out.replace("3.6", "3.9")) == same[:2]


def test_hand_written_modules_warn_only_where_the_release_cannot_allocate() -> None:
    """Triton's own lit tests, written by hand for later releases (``gpu.barrier`` included):
    a release is named as the wrong one only where its allocator fails on the file."""
    import re

    paths = sorted((CASES / "triton_lit").rglob("*.ttgir"))
    assert len(paths) >= 20
    for path in paths:
        text = path.read_text()
        fails = set(re.findall(r"^// ALLOCATOR-FAILS (\S+):", text, re.M))
        for version in ("3.6.0", "3.9.0"):
            if kind.release_warning(text, version) is not None:
                assert version in fails, (path.name, version)


def test_plan_of_a_readable_later_dump_warns_and_judges(tmp_path: Path) -> None:
    """A 3.9 dump that 3.6 can read (no ttg.barrier): it used to say "proved clean ... plan from
    triton 3.6.0" with no word about the release; now the same verdict and one warning line."""
    if importlib.util.find_spec("triton") is None:
        pytest.skip("triton is not installed")
    import triton

    if kind.version_of(triton.__version__) not in ((3, 6), (3, 7)):
        pytest.skip("the warning is for a release before the dump's")
    record = json.loads(
        gzip.decompress((CORPUS / "3.9" / "attention_fwd_d64.json.gz").read_bytes())
    )
    assert "ttg.barrier" not in record["ttgir"]
    dump = tmp_path / "attention_fwd_d64.ttgir"
    dump.write_text(record["ttgir"])
    code, out, err = _cli("plan", str(dump))
    assert code in (0, 1, 3) and f"plan from triton {triton.__version__}" in out, (out, err)
    assert len(err) == 1 and err[0].startswith(f"alias-spec: warning: {dump}: "), err
    assert "3.9 or later" in err[0] and "--python" in err[0], err
