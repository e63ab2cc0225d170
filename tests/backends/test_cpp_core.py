"""The generated C++ header and verifier glue, compiled and compared with the interpreter."""

from __future__ import annotations

import random
import subprocess
from collections.abc import Iterator
from math import prod
from pathlib import Path

import pytest

from alias_spec.backends import gen_cpp, gen_mlir
from alias_spec.engines import cpp_engine, py_engine
from alias_spec.model import dsl
from alias_spec.model.catalogue import PROFILES, RULES
from alias_spec.model.errors import RequestError
from alias_spec.model.facts import FACTS, INT32_MAX, INT64_MAX, INVARIANTS, expand
from alias_spec.model.interp import check_facts as interp_check
from alias_spec.model.physical import footprint
from alias_spec.model.request import parse_request

GEN = Path(cpp_engine.__file__).parent.parent / "generated"
INT64_MIN = -(2**63)
needs_cxx = pytest.mark.skipif(cpp_engine.compiler() is None, reason="no C++ compiler (g++)")
_INVARIANTS = [expand(t) for t in INVARIANTS]


# Every fact at the value the parser gives a plain alias request; the generators below
# override the alias facts, so the facts only Triton view rules read stay neutral.
NEUTRAL: dict[str, int | bool] = parse_request(
    {"source": {"shape": [1], "dtype": "i8"}, "result": {"shape": [1], "dtype": "i8"}}
).facts


def _valid(f: dict[str, int | bool]) -> bool:
    return all(dsl.evaluate(t, f) for t in _INVARIANTS)


def _geometry(rng: random.Random) -> dict[str, int]:
    """A real source view: random allocation, view shape and offsets, through the same
    footprint model the request parser uses."""
    while True:
        rank = rng.randint(1, 4)
        alloc = [rng.choice([1, 2, 3, 4, 8, 16, 64, 128]) for _ in range(rank)]
        view_rank = rng.randint(1, rank)
        shape = [rng.randint(0, d) for d in alloc[rank - view_rank :]]
        padded = [1] * (rank - view_rank) + shape
        offsets = [rng.randint(0, a - s) for a, s in zip(alloc, padded, strict=True)]
        try:
            fp = footprint(shape, alloc, offsets)
        except RequestError:  # more strided levels than modelled
            continue
        return {**fp.facts(), "src_elems": prod(shape)}


def _big_geometry(rng: random.Random) -> dict[str, int]:
    """Nested runs with huge strides and counts (products still within int64)."""
    run = rng.choice([1, 7, 2**20, 2**40])
    c2, c1, c0 = (rng.choice([1, 2, 3, 2**5]) for _ in range(3))
    p2 = run + rng.choice([0, 1, 2**30])
    p1 = (c2 - 1) * p2 + run + rng.choice([0, 5])
    p0 = (c1 - 1) * p1 + (c2 - 1) * p2 + run + rng.choice([0, 2**33])
    return {"run": run, "p0": p0, "c0": c0, "p1": p1, "c1": c1, "p2": p2, "c2": c2,
            "src_elems": c0 * c1 * c2 * run}  # fmt: skip


def _offset(rng: random.Random, geo: dict[str, int]) -> int:
    return rng.choice(
        [
            0,
            rng.randint(-64, 4096),
            rng.randint(0, max(1, geo["src_elems"])) * rng.choice([1, 2, 4]),
            geo["p0"] * rng.randint(0, 3) + rng.randint(0, 3),
            INT32_MAX,
            INT32_MAX + 1,
            rng.randint(INT64_MIN, INT64_MAX),
            INT64_MAX,
            INT64_MIN,
            INT64_MIN + 1,
        ]
    )


def random_valid_facts(rng: random.Random) -> dict[str, int | bool]:
    geo = _big_geometry(rng) if rng.random() < 0.2 else _geometry(rng)
    src_static = rng.random() < 0.9
    if not src_static:
        geo = {"run": 0, "p0": 0, "c0": 1, "p1": 0, "c1": 1, "p2": 0, "c2": 1, "src_elems": 0}
    res_static = rng.random() < 0.9
    bits = [0, 1, 4, 8, 16, 32, 64, 7, 9]
    off_int = rng.random() < 0.9
    f: dict[str, int | bool] = {
        "src_buffered": rng.random() < 0.95,
        "init_given": rng.random() < 0.05,
        "scope": rng.choice([0, 0, 0, 1]),
        "src_space": rng.choice([0, 0, 0, 1, 2]),
        "res_space": rng.choice([0, 0, 0, 1, 2]),
        "src_mutable": rng.random() < 0.8,
        "res_mutable": rng.random() < 0.8,
        "off_int": off_int,
        "off": _offset(rng, geo) if off_int else 0,
        "src_bits": rng.choice(bits) if rng.random() < 0.95 else rng.randint(0, INT64_MAX),
        "res_bits": rng.choice(bits) if rng.random() < 0.95 else rng.randint(0, INT64_MAX),
        "src_static": src_static,
        "res_static": res_static,
        "res_elems": (
            rng.choice([0, 1, 64, 4096, rng.randint(0, 2**20), INT64_MAX]) if res_static else 0
        ),  # fmt: skip
        "src_start": rng.choice([0, rng.randint(0, 4096), rng.randint(0, INT64_MAX)]),
        "src_base": rng.choice([0, 0, rng.randint(0, 4096), INT64_MAX]),
        "align": rng.choice([1, 2, 16, 128, 1024, rng.randint(1, INT64_MAX)]),
        "swz": rng.choice([0, 0, 256, 512, 1024, rng.randint(1, 4096)]),
        **{k: v for k, v in geo.items()},
    }
    if rng.random() < 0.4:
        _make_plausible(rng, f)
    return {**NEUTRAL, **f}


def _make_plausible(rng: random.Random, f: dict[str, int | bool]) -> None:
    """Steer towards requests that pass most rules, so valid verdicts get exercised too."""
    f.update(src_buffered=True, init_given=False, scope=0, src_space=0, res_space=0,
             src_mutable=True, res_mutable=True, off_int=True, src_static=True,
             res_static=True, src_base=0, align=1024)  # fmt: skip
    f["src_bits"] = rng.choice([8, 16, 32])
    f["res_bits"] = rng.choice([8, 16, 32])
    src_bytes = int(f["src_elems"]) * int(f["src_bits"]) // 8
    res_eb = int(f["res_bits"]) // 8
    f["res_elems"] = rng.randint(0, src_bytes // res_eb)
    room = src_bytes - int(f["res_elems"]) * res_eb
    f["off"] = rng.randint(0, room) // res_eb * res_eb
    f["src_start"] = rng.choice([0, int(f["src_start"])])
    f["swz"] = rng.choice([0, 0, 1024])


def random_int64_facts(rng: random.Random) -> dict[str, int | bool]:
    """Any int64 values at all, invariants or not, biased towards the edges."""
    edges = [0, 1, -1, 7, 8, -8, -9, INT32_MAX, INT64_MAX, INT64_MIN, INT64_MIN + 1]
    out: dict[str, int | bool] = {}
    for fact in FACTS:
        if fact.sort == dsl.BOOL:
            out[fact.name] = rng.random() < 0.7
        else:
            r = rng.random()
            out[fact.name] = (
                rng.choice(edges)
                if r < 0.4
                else rng.randint(-300, 300)
                if r < 0.7
                else rng.randint(INT64_MIN, INT64_MAX)
            )
    return out


def edge_facts() -> Iterator[dict[str, int | bool]]:
    """Hand-picked int64 extremes on otherwise valid requests."""
    base: dict[str, int | bool] = {
        **NEUTRAL,
        "src_buffered": True, "init_given": False, "scope": 0, "src_space": 0, "res_space": 0,
        "src_mutable": True, "res_mutable": True, "off_int": True, "off": 0, "src_bits": 16,
        "res_bits": 16, "src_static": True, "res_static": True, "src_elems": 4096,
        "res_elems": 2048, "src_start": 0, "src_base": 0, "run": 4096, "p0": 4096, "c0": 1,
        "p1": 4096, "c1": 1, "p2": 4096, "c2": 1, "align": 1024, "swz": 1024,
    }  # fmt: skip
    offsets = [INT64_MAX, INT64_MIN, INT64_MIN + 1, INT64_MAX - 1, INT32_MAX, INT32_MAX + 1,
               -1, 0, 1, 4096, 8190, 8192, -(2**31)]  # fmt: skip
    for off in offsets:
        yield {**base, "off": off}
        # Huge element widths: every byte size is far beyond int64 (int128 terms).
        yield {**base, "off": off, "src_bits": INT64_MAX, "res_bits": INT64_MAX - 7}
        yield {**base, "off": off, "res_elems": INT64_MAX, "res_bits": 64}
        yield {**base, "off": off, "src_elems": INT64_MAX, "run": INT64_MAX, "p0": INT64_MAX,
               "p1": INT64_MAX, "p2": INT64_MAX, "src_bits": INT64_MAX}  # fmt: skip
        yield {**base, "off": off, "src_start": INT64_MAX, "src_base": INT64_MAX,
               "align": INT64_MAX, "swz": INT64_MAX}  # fmt: skip


def _interp_ids(f: dict[str, int | bool], profile: str) -> list[str]:
    return interp_check(f, profile).rule_ids()


# --- compiling -----------------------------------------------------------------------------


@needs_cxx
def test_header_compiles_standalone(tmp_path: Path) -> None:
    src = tmp_path / "only_header.cpp"
    src.write_text('#include "alias_rules.h"\nint main() { return 0; }\n')
    cmd = [cpp_engine.compiler() or "g++", "-std=c++17", "-Wall", "-Wextra", "-Wpedantic",
           "-Werror", "-I", str(GEN), "-c", str(src), "-o", str(tmp_path / "o.o")]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr


@needs_cxx
@pytest.mark.parametrize("flag", ["", "-DTLE_ALIAS_PROFILE_SAFE", "-DTLE_ALIAS_FIRST_ERROR_ONLY"])
def test_glue_compiles_against_stand_ins(flag: str) -> None:
    # The executable MLIR stand-in (engines/glue); tests/engines/test_cpp_glue.py runs the glue.
    glue = Path(cpp_engine.__file__).parent / "glue"
    cmd = [cpp_engine.compiler() or "g++", "-std=c++17", "-Wall", "-Wextra", "-Wpedantic",
           "-Werror", "-fsyntax-only", "-I", str(glue), "-I", str(glue / "include"), "-I",
           str(GEN), str(GEN / "MemDescAliasOpVerify.cpp"), str(glue / "glue_main.cpp")]  # fmt: skip
    proc = subprocess.run(cmd + ([flag] if flag else []), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_glue_uses_header_and_names_every_message() -> None:
    text = (GEN / "MemDescAliasOpVerify.cpp").read_text()
    assert text.startswith(gen_cpp.HEADER)
    assert '#include "alias_rules.h"' in text
    assert "check(f, kProfile)" in text
    assert "verifyMemDescAlias(" in text
    for r in RULES:
        assert r.message in text, r.id
        assert gen_mlir.verifier_message(r) in text, r.id
    # FlagTree's C++ verifier text wins where it differs from the frontend's.
    nonneg = next(r for r in RULES if r.id == "alias.offset.nonneg")
    assert gen_mlir.verifier_message(nonneg) == "expects non-negative offset_bytes"
    for fact in FACTS:
        assert f"  f.{fact.name} = " in text, fact.name


def test_header_tables_follow_the_catalogue() -> None:
    text = (GEN / "alias_rules.h").read_text()
    order = [text.index(f"  {gen_cpp.enum_name(r.id)} = {i},") for i, r in enumerate(RULES)]
    assert order == sorted(order)
    for p, mask in gen_cpp.masks().items():
        assert f"0x{mask:x}u,  // {p}" in text
    for fact in FACTS:
        ty = "bool" if fact.sort == dsl.BOOL else "std::int64_t"
        assert f"  {ty} {fact.name} = " in text


# --- running: the C++ engine against the interpreter --------------------------------------


@needs_cxx
@pytest.mark.parametrize("profile", ["flagtree", "safe"])  # alias facts; views: differential
def test_random_valid_facts_agree(profile: str) -> None:
    rng = random.Random(20240611 + len(profile))
    drawn = [random_valid_facts(rng) for _ in range(16000)]
    # Keep what lies inside the spec's domain (the invariants include a normal form for
    # the source's runs that the generator does not always produce).
    facts = [f for f in drawn if _valid(f)][:2500]
    assert len(facts) >= 1500
    got = cpp_engine.check_batch(facts, profile, sanitize=True)
    want = [_interp_ids(f, profile) for f in facts]
    mismatches = [(f, g, w) for f, g, w in zip(facts, got, want, strict=True) if g != w]
    assert not mismatches, mismatches[:3]
    assert sum(1 for w in want if w) > 500  # plenty of verdicts both ways
    assert sum(1 for w in want if not w) > 50


@needs_cxx
@pytest.mark.parametrize("profile", list(PROFILES))
def test_int64_edges_agree(profile: str) -> None:
    # Some edges (element widths near INT64_MAX) lie beyond the parser's domain on purpose:
    # they exercise the __int128 arithmetic, where header and interpreter still agree.
    facts = list(edge_facts())
    got = cpp_engine.check_batch(facts, profile, sanitize=True)
    assert got == [_interp_ids(f, profile) for f in facts]


@needs_cxx
def test_any_int64_facts_agree_where_the_interpreter_is_defined() -> None:
    # Floor semantics make the header equal the interpreter beyond the invariants too; only a
    # zero divisor differs (Python raises, the header's helper returns 0).
    rng = random.Random(7)
    facts, want = [], []
    for _ in range(3000):
        f = random_int64_facts(rng)
        try:
            want.append(_interp_ids(f, "safe"))
        except ZeroDivisionError:
            continue
        facts.append(f)
    assert len(facts) > 1000
    got = cpp_engine.check_batch(facts, "safe", sanitize=True)
    mismatches = [(f, g, w) for f, g, w in zip(facts, got, want, strict=True) if g != w]
    assert not mismatches, mismatches[:3]


@needs_cxx
def test_verdicts_of_all_engines_match() -> None:
    rng = random.Random(11)
    for _ in range(40):
        f = random_valid_facts(rng)
        for profile in PROFILES:
            want = interp_check(f, profile)
            for got in (cpp_engine.check_facts(f, profile), py_engine.check_facts(f, profile)):
                assert got.violations == want.violations
                assert got.valid == want.valid
    assert cpp_engine.check_facts(f, "safe").engine == "cpp"
    assert py_engine.check_facts(f, "safe").engine == "python"


@needs_cxx
def test_facts_outside_int64_are_rejected() -> None:
    f = next(edge_facts())
    for bad in (INT64_MAX + 1, INT64_MIN - 1, 2**100):
        with pytest.raises(RequestError, match="domain is int64"):
            cpp_engine.check_batch([{**f, "off": bad}], "safe")
    with pytest.raises(RequestError, match="missing"):
        cpp_engine.check_batch([{k: v for k, v in f.items() if k != "swz"}], "safe")
    with pytest.raises(KeyError):
        cpp_engine.check_batch([f], "nope")


@needs_cxx
def test_harness_rejects_malformed_lines() -> None:
    binary = cpp_engine.build()
    n = len(FACTS)
    for line in ("1 2 3", " ".join(["0"] * n) + " 9", " ".join(["0"] * n) + " 0 extra",
                 " ".join(["99999999999999999999"] * n) + " 0"):  # fmt: skip
        proc = subprocess.run([str(binary)], input=line + "\n", capture_output=True, text=True)
        assert proc.returncode == 2, line


@needs_cxx
def test_a_broken_header_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The comparison can fail: C's truncating division in place of floor division shows up
    # on negative operands, and 64-bit products overflow (caught by UBSan).
    text = (GEN / "alias_rules.h").read_text()
    broken = tmp_path / "alias_rules.h"
    broken.write_text(text.replace("--q;", ";"))
    monkeypatch.setattr(cpp_engine, "HEADER", broken)
    rng = random.Random(3)
    facts = []
    for _ in range(400):
        f = random_int64_facts(rng)
        try:
            _interp_ids(f, "safe")
        except ZeroDivisionError:
            continue
        facts.append(f)
    got = cpp_engine.check_batch(facts, "safe")
    assert got != [_interp_ids(f, "safe") for f in facts]

    narrow = tmp_path / "narrow"
    narrow.mkdir()
    (narrow / "alias_rules.h").write_text(
        text.replace("return Int{a.v * b.v};", "return Int{std::int64_t(a.v) * std::int64_t(b.v)};")
    )
    monkeypatch.setattr(cpp_engine, "HEADER", narrow / "alias_rules.h")
    huge = [f for f in edge_facts() if f["src_bits"] == INT64_MAX]
    with pytest.raises(cpp_engine.CppEngineError, match="runtime error"):
        cpp_engine.check_batch(huge, "safe", sanitize=True)
