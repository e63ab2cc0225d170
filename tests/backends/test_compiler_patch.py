"""compiler_patch/: the generated verifier built against real MLIR 19 and run there.

The testbed (``compiler_patch/testbed``) is built once per session into ``build/compiler_patch``
(again only when its sources' hash changes). Its driver runs every lit test with
``-verify-diagnostics`` and judges every stored case and compat request, compared with the
reference interpreter. Without MLIR 19 these tests skip with one line naming the apt-get line.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from alias_spec import gen
from alias_spec.backends import gen_patch
from alias_spec.difftest.request_cases import random_request
from alias_spec.engines import mlir_engine, registry
from alias_spec.model.errors import RequestError
from alias_spec.model.interp import check_facts
from alias_spec.model.request import parse_request
from alias_spec.model.unknown import unjudged_rules
from tests.paths import ROOT

# One worker builds the MLIR testbed and runs its tests; the other is not held on its lock.
pytestmark = pytest.mark.xdist_group("mlir_testbed")

PATCH = ROOT / gen_patch.ROOT
LIT = sorted((PATCH / "test").rglob("*.mlir"))
PROFILES = mlir_engine.PROFILES


@pytest.fixture(scope="session")
def driver() -> Path:
    """The testbed's driver, built once per session (cached across sessions by its sources'
    hash: a second run does not rebuild)."""
    why = mlir_engine.missing()
    if why is not None:
        pytest.skip(why)
    return mlir_engine.build(PATCH, mlir_engine.build_dir(PATCH))


def _profile(path: Path) -> str:
    """A lit test's profile: test/safe/ holds the safe profile's."""
    return "safe" if path.parent.name == "safe" else "flagtree"


def _run_lit(driver: Path, path: Path) -> subprocess.CompletedProcess[str]:
    """The file's RUN line with the testbed's driver for triton-opt (as a lit substitution
    would), the verifier built for the file's profile."""
    run = [line for line in path.read_text().splitlines() if line.startswith("// RUN:")]
    assert run == [gen_patch.RUN_LINE], path
    args = run[0].removeprefix("// RUN:").split()
    assert args[:2] == ["triton-opt", "%s"]
    cmd = [str(driver), f"--tle-alias-profile={_profile(path)}", str(path), *args[2:]]
    return subprocess.run([*cmd, "-o", "/dev/null"], capture_output=True, text=True, timeout=300)


# --- the generated files ----------------------------------------------------------------------


def test_generated_files_are_current_and_marked() -> None:
    targets = dict(gen_patch.targets(ROOT))
    rels = set(targets)
    assert rels <= {rel for rel, _ in gen._targets(ROOT)}
    assert set(gen_patch.OWNED) <= set(gen.OWNED)
    for rel, make in targets.items():
        text = (ROOT / rel).read_text()
        assert text == make(), f"{rel} is stale: run alias-spec gen"
        assert gen_patch.MARK in text.splitlines()[0], rel
    # Every file outside the hand-written testbed is generated.
    for path in PATCH.rglob("*"):
        rel = path.relative_to(ROOT).as_posix()
        if path.is_file() and not rel.startswith(f"{gen_patch.ROOT}/testbed/"):
            assert rel in rels, f"{rel} is in compiler_patch/ but no generator writes it"


def test_the_generated_verifier_is_the_packaged_one() -> None:
    for name in ("alias_rules.h", "MemDescAliasOpVerify.cpp"):
        packaged = (ROOT / "alias_spec" / "generated" / name).read_text()
        patched = (PATCH / "verifier" / name).read_text()
        assert patched.split("\n", 1)[1] == packaged, name


def test_flagtree_lit_cases_are_all_in_the_lit_tests() -> None:
    five = gen_patch.flagtree_lit_cases(ROOT)
    assert len(five) == 5
    for profile, path in (
        ("flagtree", PATCH / "test/memdesc_alias_flagtree.mlir"),
        ("safe", PATCH / "test/safe/memdesc_alias_flagtree.mlir"),
    ):
        text = path.read_text()
        for case in five:
            assert f"tt.func @{case.name.replace('-', '_')}(" in text, (profile, case.name)
            for message in gen_patch.expected_messages(case.expect[profile]):
                assert f"{{{{{message}}}}}" in text, (profile, case.name, message)


def test_every_stored_case_is_in_a_lit_test_or_listed_as_left_out() -> None:
    lit = (PATCH / "test/memdesc_alias_cases.mlir").read_text()
    readme = (PATCH / "README.md").read_text()
    for case in gen_patch.stored_cases(ROOT):
        held = f"tt.func @{case.name}(" in lit
        assert held != (f"- `{case.name}`: " in readme), case.name


def test_an_unreadable_case_is_one_line(tmp_path: Path) -> None:
    # A root with what the docs pages and the lit tests read, the patch folder and one broken
    # case.
    for rel in ("docs/guides/lowering-recipes.md", "docs/data/examples.json",
                "tests/compat/requests.json"):  # fmt: skip
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / rel, tmp_path / rel)
    (tmp_path / "compiler_patch").mkdir()
    (tmp_path / "tests" / "cases").mkdir(parents=True)
    (tmp_path / "tests" / "cases" / "bad.json").write_text("[1,")
    r = subprocess.run(
        [sys.executable, "-m", "alias_spec", "gen", "--check", "--root", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "bad.json" in r.stderr


# --- the lit tests through real MLIR ----------------------------------------------------------


@pytest.mark.parametrize("path", LIT, ids=[p.relative_to(PATCH).as_posix() for p in LIT])
def test_lit_test_passes_in_real_mlir(driver: Path, path: Path) -> None:
    r = _run_lit(driver, path)
    assert r.returncode == 0, r.stderr[-4000:]


def _break(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize(
    "mutation",
    ["another rule's id", "an expected error dropped", "an error expected on a valid op"],
)
def test_a_wrong_expected_diagnostic_fails(driver: Path, tmp_path: Path, mutation: str) -> None:
    path = PATCH / "test" / "memdesc_alias_flagtree.mlir"
    text = path.read_text()
    if mutation == "another rule's id":
        text = _break(text, "[alias.offset.nonneg]}}", "[alias.offset.i32]}}")
        want = "was not produced"
    elif mutation == "an expected error dropped":
        line = next(x for x in text.splitlines() if "[alias.mutability]}}" in x)
        text = _break(text, line + "\n", "")
        want = "unexpected error"
    else:
        text = _break(
            text,
            "    %alias = tle.memdesc_alias %src {offset_bytes = 128 : i64}",
            "    // expected-error @+1 {{expects non-negative offset_bytes}}\n"
            "    %alias = tle.memdesc_alias %src {offset_bytes = 128 : i64}",
        )
        want = "was not produced"
    broken = tmp_path / "broken.mlir"
    broken.write_text(text)
    r = _run_lit(driver, broken)
    assert r.returncode != 0 and want in r.stderr, r.stderr[-2000:]


def test_lit_ir_is_what_stock_triton_accepts() -> None:
    """Each chunk, its tle.memdesc_alias turned into Triton 3.6's unverified
    ttg.memdesc_reinterpret (so that both types are still parsed and verified), is accepted
    by stock Triton's parser and verifiers: the files run in FlagTree's tree unchanged."""
    pytest.importorskip("triton._C.libtriton", reason="needs Triton (pip install triton==3.6.0)")
    op = re.compile(r"tle\.memdesc_alias (%\w+) \{offset_bytes = -?\d+ : i64\}")
    chunks = []
    for path in LIT:
        for chunk in path.read_text().split(f"\n{gen_patch.SPLIT}\n"):
            assert op.search(chunk), path
            chunks.append(op.sub(r"ttg.memdesc_reinterpret \1", chunk))
    # A child process: Triton aborts on some malformed types instead of raising.
    script = (
        "import json, sys, tempfile\n"
        "from triton._C.libtriton import ir\n"
        "ctx = ir.context(); ir.load_dialects(ctx)\n"
        "bad = []\n"
        "for i, text in enumerate(json.load(sys.stdin)):\n"
        "    with tempfile.NamedTemporaryFile('w', suffix='.mlir', delete=False) as f:\n"
        "        f.write(text)\n"
        "    try:\n"
        "        ir.parse_mlir_module(f.name, ctx)\n"
        "    except Exception as exc:\n"
        "        bad.append([i, str(exc)])\n"
        "print(json.dumps(bad))\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", script],
        input=json.dumps(chunks),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    bad = json.loads(r.stdout)
    assert not bad, [(chunks[i][:300], why, r.stderr[-2000:]) for i, why in bad]


# --- the MLIR engine against the interpreter --------------------------------------------------


def _requests() -> list[tuple[str, Any]]:
    """Every stored case and compat request, as (name, request)."""
    out = [(c.name, c.request) for c in gen_patch.stored_cases(ROOT)]
    compat = json.loads((ROOT / "tests/compat/requests.json").read_text())["requests"]
    for entry in compat:
        if "request" in entry:
            out.append((entry["id"], entry["request"]))
        else:
            data = json.loads((ROOT / entry["file"]).read_text())
            out.append((entry["id"], data[entry["index"]] if "index" in entry else data))
    return out


def _reference(obj: Any, profile: str) -> list[str] | RequestError:
    """The interpreter's violations among the rules the spec judges for this request."""
    try:
        req = parse_request(obj)
    except RequestError as exc:
        return exc
    skipped = set(unjudged_rules(req.facts, profile, req.unknown))
    return [r for r in check_facts(req.facts, profile).rule_ids() if r not in skipped]


def _disagreements(named: list[tuple[str, Any]], profile: str, driver: Path) -> tuple[list, int]:
    """(name, engine's rules, interpreter's) per disagreement, and how many requests the
    real verifier judged (the rest are outside what the op can express)."""
    got = mlir_engine.judge([obj for _, obj in named], profile, driver)
    judged, wrong = 0, []
    for (name, obj), have in zip(named, got, strict=True):
        want = _reference(obj, profile)
        if isinstance(have, RequestError):
            if gen_patch.OUTSIDE not in str(have) and not isinstance(want, RequestError):
                wrong.append((name, str(have), want))
            continue
        if isinstance(want, RequestError):
            wrong.append((name, have, str(want)))
            continue
        req = parse_request(obj)
        skipped = set(unjudged_rules(req.facts, profile, req.unknown))
        have = [r for r in have if r not in skipped]
        if sorted(have) != sorted(want):
            wrong.append((name, have, want))
        judged += 1
    return wrong, judged


@pytest.mark.parametrize("profile", PROFILES)
def test_engine_agrees_with_the_interpreter(driver: Path, profile: str) -> None:
    wrong, judged = _disagreements(_requests(), profile, driver)
    assert not wrong, wrong[:5]
    assert judged >= 50, judged  # most of the corpus reaches the real verifier


@pytest.mark.parametrize("profile", PROFILES)
def test_engine_agrees_on_random_requests(driver: Path, profile: str) -> None:
    rng = random.Random(2026)
    named = [(f"random[{i}]", random_request(rng)) for i in range(3000)]
    wrong, judged = _disagreements(named, profile, driver)
    assert not wrong, wrong[:5]
    assert judged >= 800, judged


def test_engine_catches_a_wrong_verdict(driver: Path) -> None:
    # The comparison above can fail: the engine's answer is the verifier's, not the spec's.
    case = json.loads((ROOT / "tests/cases/subslice_in_gap.json").read_text())["request"]
    flagtree, safe = (mlir_engine.judge([case], p, driver)[0] for p in PROFILES)
    assert flagtree == [] and safe == ["alias.range.physical"]


def test_engine_request_errors(driver: Path) -> None:
    bad = {"source": {"shape": [4], "dtype": "nope"}, "result": {"shape": [4], "dtype": "i8"}}
    beyond = {"source": {"shape": [4], "dtype": "i8"}, "result": {"shape": [4], "dtype": "i8"}}
    beyond["alias_offset_bytes"] = 2**63
    got = mlir_engine.judge([bad, beyond], "flagtree", driver)
    assert isinstance(got[0], RequestError) and gen_patch.OUTSIDE not in str(got[0])
    assert isinstance(got[1], RequestError) and gen_patch.OUTSIDE in str(got[1])


def test_engine_is_registered(driver: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "mlir" in registry.REQUEST_NAMES and "mlir" not in registry.NAMES
    monkeypatch.setenv(mlir_engine.ENV, str(driver))
    registry.request_engine.cache_clear()
    try:
        engine = registry.request_engine("mlir")
        case = json.loads((ROOT / "tests/cases/offset_minus_one.json").read_text())
        assert engine([case["request"]], "flagtree") == [case["expect"]["flagtree"]]
        assert registry.unavailable("mlir") is None
    finally:
        registry.request_engine.cache_clear()


# --- building ---------------------------------------------------------------------------------


def test_a_second_build_is_cached(driver: Path) -> None:
    stamp = driver.parent / mlir_engine.STAMP
    before = (driver.stat().st_mtime_ns, stamp.read_text())
    start = time.monotonic()
    assert mlir_engine.build(PATCH, driver.parent) == driver
    assert time.monotonic() - start < 10  # hashing the sources, no CMake run
    assert (driver.stat().st_mtime_ns, stamp.read_text()) == before


def test_missing_mlir_is_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no cmake, no mlir-tblgen-19, no llvm-config-19
    why = mlir_engine.missing()
    assert why is not None and "\n" not in why
    assert "apt-get install libmlir-19-dev mlir-19-tools" in why
    with pytest.raises(mlir_engine.MlirEngineError) as exc:
        mlir_engine.build(PATCH, tmp_path / "build")
    assert str(exc.value) == why
    monkeypatch.delenv(mlir_engine.ENV, raising=False)
    monkeypatch.chdir(ROOT)  # where the registry's engine looks for compiler_patch/
    registry.request_engine.cache_clear()
    try:
        with pytest.raises(registry.EngineUnavailable) as unavailable:
            registry.request_engine("mlir")
        assert "\n" not in str(unavailable.value) and "libmlir-19-dev" in str(unavailable.value)
    finally:
        registry.request_engine.cache_clear()


def test_a_bad_driver_path_is_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(mlir_engine.ENV, str(tmp_path / "none"))
    with pytest.raises(mlir_engine.MlirEngineError) as exc:
        mlir_engine.driver()
    assert "\n" not in str(exc.value) and mlir_engine.ENV in str(exc.value)


@pytest.mark.slow
def test_a_mutated_verifier_fails(driver: Path, tmp_path: Path) -> None:
    """A copy of the patch whose verifier checks the range with >= instead of >, built on
    its own: the lit tests and the engine comparison catch it."""
    copy = tmp_path / "compiler_patch"
    shutil.copytree(PATCH, copy)
    rules = copy / "verifier" / "alias_rules.h"
    text = rules.read_text()
    fits = text.index("inline bool fires_alias_range_fits")
    body = text[fits : text.index("\n}\n", fits)]
    assert body.count(" > ") >= 1
    rules.write_text(text.replace(body, body.replace(" > ", " >= "), 1))
    mutant = mlir_engine.build(copy, tmp_path / "build")
    failed = [p for p in LIT if _run_lit(mutant, p).returncode != 0]
    assert failed
    case = json.loads((ROOT / "tests/cases/flagtree_lit_valid.json").read_text())["request"]
    exact = dict(case, alias_offset_bytes=4096)  # the result ends on the source's last byte
    assert mlir_engine.judge([exact], "flagtree", driver) == [[]]
    assert mlir_engine.judge([exact], "flagtree", mutant) == [["alias.range.fits"]]
