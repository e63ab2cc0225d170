"""The random differential against Triton's verifiers (difftest/triton/random_diff.py): the
disagreement classes it found, measured verdicts per release, its kept regressions, the
generator's reach, the shrinker, and campaigns against each release's real ``mod.verify()``.

The expected verdicts below were measured with Triton 3.6.0, 3.7.1, 3.8.0 and 3.9.0 (their
verifiers run on each request's module), not produced by the code under test. Campaigns run
against the installed Triton and each interpreter named in ``ALIAS_SPEC_TRITON_PYTHONS``
(``os.pathsep``-separated venvs holding one Triton release each); a release not named skips.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from alias_spec.difftest import campaigns
from alias_spec.difftest.triton import random_diff as rd
from alias_spec.difftest.triton.cases import IDX, RE, SUB, md, module, nv, sw
from alias_spec.difftest.triton.diff import explain
from alias_spec.difftest.triton.runner import triton_version, verify_modules
from alias_spec.model.interp import check_facts
from alias_spec.model.request import parse_request
from tests.paths import ROOT

RELEASES = ("3.6", "3.7", "3.8", "3.9")
S8 = sw(2, 8, 1, 8)

# (why, request, accepted by 3.6, 3.7, 3.8, 3.9). An abort counts as not accepted.
MEASURED: list[tuple[str, dict[str, Any], tuple[bool, bool, bool, bool]]] = [
    # NVMMA width: the contiguous dim is counted in the layout's elementBitWidth, not the dtype's.
    ("f16 data in an 8-bit NVMMA layout: 64 elements < 128 B / 1 B",
     {"op": RE, "source": md([64, 64], "f16", nv(128, 8)), "result": md([4096], "f16", sw(1))},
     (True, False, False, False)),
    ("i8 data in a 16-bit NVMMA layout: 64 elements = 128 B / 2 B",
     {"op": RE, "source": md([64, 64], "i8", nv(128, 16)), "result": md([4096], "i8", sw(1))},
     (True, True, True, True)),
    ("an index of f8 data in a 16-bit NVMMA layout",
     {"op": IDX, "source": md([2, 64, 64], "f8E5M2", nv(128, 16)),
      "result": md([64, 64], "f8E5M2", nv(128, 16)), "index": 1},
     (True, True, True, True)),
    ("3.6 aborts splitting f16 data in an 8-bit NVMMA layout (too narrow)",
     {"op": SUB, "source": md([64, 64], "f16", nv(128, 8)),
      "result": md([32, 64], "f16", nv(128, 8), alloc=[64, 64]), "offsets": [32, 0]},
     (False, False, False, False)),
    ("splitting i8 data in a 16-bit NVMMA layout (wide enough)",
     {"op": SUB, "source": md([64, 64], "i8", nv(128, 16)),
      "result": md([32, 64], "i8", nv(128, 16), alloc=[64, 64]), "offsets": [32, 0]},
     (True, True, True, True)),
    # 3.9's alloc-shape rule: the dims the layout covers, not every dim after the first.
    ("alloc 3x6x16 with a 1-D layout: 3 and 6 lie outside it",
     {"op": RE, "source": md([4, 16], "f16", sw(1), alloc=[3, 6, 16]),
      "result": md([2], "i8", sw(1))},
     (True, True, False, True)),
    ("alloc 5x3x16 with a 1-D layout",
     {"op": RE, "source": md([2, 16], "f16", sw(1), alloc=[5, 3, 16]),
      "result": md([2], "i8", sw(1))},
     (True, True, False, True)),
    ("alloc 3x16 with a 2-D layout: its first dim is covered",
     {"op": RE, "source": md([2, 16], "f16", sw(2), alloc=[3, 16]),
      "result": md([2], "i8", sw(1))},
     (True, True, False, False)),
    ("alloc 3x4x16 with a 3-D layout",
     {"op": RE, "source": md([2, 4, 16], "f16", sw(3), alloc=[3, 4, 16]),
      "result": md([2], "i8", sw(1))},
     (True, True, False, False)),
    # The swizzle check places elements over the allocation, not over the subview source.
    ("rows 4-7 of an 8x8 view of an 8x64 allocation, 8-phase swizzle",
     {"op": SUB, "source": md([8, 8], "f16", S8, alloc=[8, 64]),
      "result": md([4, 8], "f16", S8, alloc=[8, 64]), "offsets": [4, 0]},
     (False, False, False, False)),
    ("rows 4-7 of an 8x64 view of a 16x64 allocation, 128-byte NVMMA",
     {"op": SUB, "source": md([8, 64], "f16", nv(128, 16), alloc=[16, 64]),
      "result": md([4, 64], "f16", nv(128, 16), alloc=[16, 64]), "offsets": [4, 0]},
     (False, False, False, False)),
    ("rows 8-15 of a 16x8 view of a 16x64 allocation (a whole swizzle period)",
     {"op": SUB, "source": md([16, 8], "f16", S8, alloc=[16, 64]),
      "result": md([8, 8], "f16", S8, alloc=[16, 64]), "offsets": [8, 0]},
     (True, True, True, True)),
    ("columns 8-15 of an 8x16 view of an 8x64 allocation (a whole vector)",
     {"op": SUB, "source": md([8, 16], "f16", S8, alloc=[8, 64]),
      "result": md([8, 8], "f16", S8, alloc=[8, 64]), "offsets": [0, 8]},
     (True, True, True, True)),
]  # fmt: skip


@pytest.mark.parametrize("index", range(len(MEASURED)), ids=lambda i: MEASURED[i][0][:40])
def test_profiles_match_measured_verdicts(index: int) -> None:
    _, request, accepted = MEASURED[index]
    facts = parse_request(request).facts
    for release, want in zip(RELEASES, accepted, strict=True):
        got = check_facts(facts, f"triton-{release}")
        assert got.valid == want, (release, got.rule_ids())


# --- kept regressions -------------------------------------------------------------------------

REGRESSIONS = [path for path, _ in rd.regressions(ROOT / rd.REGRESSIONS)]


def test_regressions_are_kept() -> None:
    assert len(REGRESSIONS) >= 3  # the campaigns' shrunk disagreements live here


@pytest.mark.parametrize("path", REGRESSIONS, ids=lambda p: p.stem)
def test_regression_agrees_with_the_triton_verdict_it_recorded(path: Path) -> None:
    entry = json.loads(path.read_text())
    assert entry["request"] == rd.request_of(entry["case"])  # the file is self-consistent
    status, fired = rd.model_verdict(entry["request"], f"triton-{entry['release']}")
    row = {"request": entry["request"], "triton_ok": entry["triton_ok"], "fired": fired,
           "triton_error": entry["triton_error"]}  # fmt: skip
    if explain(entry["triton_version"], row):
        pytest.skip("a documented finding (diff.KNOWN)")
    assert status in ("valid", "invalid"), (status, fired)
    assert (status == "valid") == entry["triton_ok"], (fired, entry["triton_error"])


def test_kept_regressions_are_in_the_one_store(tmp_path: Path) -> None:
    # Written again through the store (``shrink.store``), every kept file comes back under its
    # own name, byte for byte: the campaign writes the format the tests replay.
    for path, entry in rd.regressions(ROOT / rd.REGRESSIONS):
        again = rd.save_regression(entry, tmp_path)
        assert again.name == path.name and again.read_text() == path.read_text()


def test_a_campaign_keeps_its_disagreements_as_replayable_regressions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A stand-in Triton 3.9 that accepts every module: each request the profile refuses is a
    # disagreement, shrunk by the one shrinker and kept in the one store.
    monkeypatch.setattr(rd, "triton_version", lambda python: "3.9.0")
    monkeypatch.setattr(
        rd, "verify_modules",
        lambda mods, python: {k: {"ok": True, "crash": False, "error": ""} for k, _ in mods},
    )  # fmt: skip
    out = rd.campaign("python", 60, seed=5, shrink_max=2, keep=tmp_path)
    assert out["disagree"] and len(out["shrunk"]) == 2
    kept = rd.regressions(tmp_path)
    assert sorted(str(p) for p, _ in kept) == sorted(e["path"] for e in out["shrunk"])
    for path, entry in kept:
        key = json.dumps(entry["request"], sort_keys=True) + "3.9"
        assert path.name == f"3.9-{hashlib.sha256(key.encode()).hexdigest()[:10]}.json"
        assert entry["request"] == rd.request_of(entry["case"]) and entry["triton_ok"]
        status, _ = rd.model_verdict(entry["request"], f"triton-{entry['release']}")
        assert status == "invalid"  # replayed, the model still refuses what Triton accepted
        assert rd.save_regression(entry, tmp_path) == path  # found again: the same file
    assert len(rd.regressions(tmp_path)) == 2


# --- the generator and the shrinker -----------------------------------------------------------


def test_generator_reaches_every_kind() -> None:
    cases = rd.generate(0, 3000)
    assert len({json.dumps(rd.request_of(c), sort_keys=True) for c in cases}) == 3000
    layouts = [c[w]["layout"] for c in cases for w in ("src", "res")]
    kinds = {lay["kind"] for lay in layouts}
    assert kinds == {"swizzled", "nvmma", "padded", "linear"}
    nvmma = [lay for lay in layouts if lay["kind"] == "nvmma"]
    assert {lay["bits"] for lay in nvmma} == set(rd.NVMMA_BITS)
    assert {lay["swizzle"] for lay in nvmma} == set(rd.NVMMA_SWIZZLES)
    assert any(lay["transposed"] for lay in nvmma)
    swz = [lay for lay in layouts if lay["kind"] == "swizzled"]
    assert any(lay["order"] == [0, 1] for lay in swz)  # column-major
    assert any(lay["max_phase"] > 1 and lay["vec"] > 1 for lay in swz)
    assert {c["op"] for c in cases} == {RE, SUB, IDX}
    assert any(c["src"]["alloc"] for c in cases)  # subview sources
    assert any(c["op"] == IDX and c["index"] is None for c in cases)  # runtime index
    assert {c["src"]["dtype"] for c in cases} == set(rd.DTYPES)
    for c in cases[:500]:  # the text the module renders is text the spec reads
        rd.model_verdict(rd.request_of(c), "triton-3.9")


def test_module_text_of_a_padded_and_a_linear_side() -> None:
    pad = {"kind": "padded", "order": [1, 0], "lrank": 2, "interval": 32, "pad": 4}
    assert rd.layout_text(pad, [16, 64]) == (
        "#ttg.padded_shared<[32:+4] {order = [1, 0], shape = [16, 64]}>"
    )
    lin = {"kind": "linear", "order": [0, 1], "lrank": 2}  # column-major: dim 0 fastest
    assert rd.layout_text(lin, [2, 4]) == (
        "#ttg.shared_linear<{offset = [[1, 0], [0, 1], [0, 2]]}, alignment = 16>"
    )


def test_shrinker_reaches_a_minimal_case() -> None:
    # A stand-in judge that "disagrees" whenever the source's first dim is at least 8 and its
    # layout is NVMMA: the shrunk case keeps both and nothing else of the start.
    def fake(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for r in requests:
            src = parse_request(r).raw["source"]
            dims = src.split("<", 1)[1].split("x")
            bad = int(dims[0]) >= 8 and "nvmma" in src
            out.append({"status": "disagree" if bad else "agree", "triton_ok": bad,
                        "triton_error": "", "model": "invalid", "fired": []})  # fmt: skip
        return out

    rng = random.Random(3)
    start = next(
        c for c in (rd._random_subslice(rng) for _ in range(500))
        if c["src"]["shape"][0] >= 32 and c["src"]["layout"]["kind"] == "nvmma"
        and len(c["src"]["shape"]) == 2
    )  # fmt: skip
    small = rd.shrink(start, fake)
    assert small["src"]["shape"][0] == 8
    assert small["src"]["layout"]["kind"] == "nvmma"
    assert small["src"]["layout"]["swizzle"] == 0 and not small["src"]["layout"]["transposed"]
    assert all(fake([rd.request_of(c)])[0]["status"] == "agree"
               for c in rd.shrink_candidates(small))  # fmt: skip


# --- campaigns against the real verifiers -----------------------------------------------------


def _release_id(python: str) -> str:
    return "installed" if python == sys.executable else Path(python).parent.parent.name


def _interpreters() -> list[str]:
    extra = os.environ.get("ALIAS_SPEC_TRITON_PYTHONS", "")
    return [sys.executable, *[p for p in extra.split(os.pathsep) if p]]


def _campaign(python: str, count: int, seed: int) -> campaigns.Outcome:
    if python != sys.executable and not Path(python).exists():
        pytest.skip(f"{python} does not exist")
    try:
        return campaigns.triton(count, seed, python=python)
    except campaigns.Unavailable as exc:
        pytest.skip(str(exc))


@pytest.mark.parametrize("python", _interpreters(), ids=_release_id)
def test_measured_verdicts_and_regressions_are_the_verifiers(python: str) -> None:
    # The verdicts written above and in the kept regressions, re-measured: each release's own
    # verifier, in a subprocess, on each request's module.
    if python == sys.executable and importlib.util.find_spec("triton") is None:
        pytest.skip("triton is not importable here")
    if python != sys.executable and not Path(python).exists():
        pytest.skip(f"{python} does not exist")
    version = triton_version(python)
    release = ".".join(version.split(".")[:2])
    want = {f"m{i}": acc[RELEASES.index(release)] for i, (_, _, acc) in enumerate(MEASURED)}
    mods = [(f"m{i}", module(req)) for i, (_, req, _) in enumerate(MEASURED)]
    for path in REGRESSIONS:
        entry = json.loads(path.read_text())
        if entry["release"] == release:
            want[path.stem] = entry["triton_ok"]
            mods.append((path.stem, module(entry["request"])))
    got = {k: v["ok"] for k, v in verify_modules(mods, python).items()}
    assert got == want


# The fast tier's few hundred cases, then CI's seeded sample of the 10,000-case campaign per
# release (``alias-spec dev random-diff --cases 10000 --write`` records those full runs in
# docs/triton-agreement.json, checked below).
@pytest.mark.parametrize(
    "count,seed", [pytest.param(150, 11, id="dev"), pytest.param(1_000, 2026, id="ci")]
)
@pytest.mark.parametrize("python", _interpreters(), ids=_release_id)
def test_random_cases_agree_with_triton(python: str, count: int, seed: int) -> None:
    out = _campaign(python, count, seed)
    assert out.ok, out.report()


# --- the agreement table ----------------------------------------------------------------------


def test_a_campaign_is_recorded_in_the_agreement_table(tmp_path: Path) -> None:
    from alias_spec.difftest.triton import report

    req = {"op": RE, "source": md([4], "i8", sw(1)), "result": md([4], "i8", sw(1))}
    result = {
        "version": "3.9.0", "profile": "triton-3.9", "seed": 1, "cases": 10, "agree": 7,
        "disagree": 1, "findings": 2, "not_modelled": 0, "triton_accepted": 5,
        "triton_crashed": 1,
        "shrunk": [{"request": req, "triton_ok": True, "triton_error": "", "fired": ["r"]}],
        "findings_by_why": [{"why": "a known thing", "count": 2, "example": req}],
    }  # fmt: skip
    report.update_random(result, tmp_path)
    data = json.loads((tmp_path / report.JSON_NAME).read_text())
    assert data["releases"] == {} and data["random"]["3.9.0"]["cases"] == 10
    text = (tmp_path / report.MD_NAME).read_text()
    assert "| 3.9.0 | `triton-3.9` | 1 | 10 | 7 | 1 | 2 | 0 | 5 | 1 |" in text
    assert "unexplained: Triton accepts" in text and "2 finding(s): a known thing" in text
    assert text == report.render(data)


def test_snapshot_committed_campaigns() -> None:
    # A snapshot of the committed table (the campaign's numbers as measured); what makes it
    # true is the campaign tests above, against the verifiers themselves.
    runs = json.loads((ROOT / "docs" / "triton-agreement.json").read_text()).get("random", {})
    assert {v.split(".")[0] + "." + v.split(".")[1] for v in runs} == set(RELEASES)
    for version, r in runs.items():
        assert r["cases"] >= 10_000 and r["disagree"] == 0, version
        assert r["agree"] + r["findings"] + r["not_modelled"] == r["cases"], version


def test_a_verifier_that_dies_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """The release's verifier worker running past its time (or dying) is an error line, exit
    2, not a traceback."""
    from alias_spec.difftest.triton import random_diff
    from alias_spec.ir.procs import RunError

    def dies(*args: object, **kwargs: object) -> None:
        raise RunError("timeout", "python3: verifying the modules took over 600 s")

    monkeypatch.setattr(random_diff, "campaign", dies)
    assert random_diff.main(["--cases", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "took over 600 s" in err
