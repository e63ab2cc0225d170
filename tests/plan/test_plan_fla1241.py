"""Issue 28's question on fla#1241, asked of ``alias-spec plan --races`` and recorded.

flash-linear-attention's ``chunk_bwd_kernel_dv`` gives wrong gradients on sm_90 in 16-bit when
K is odd and the K loop has a masked tail block (Triton 3.6), an out-of-range shared address
under compute-sanitizer on Triton 3.7.0. ``tests/plan/cases/fla1241/kernel.py`` restates its
shared-memory structure; ``tools/plan/fla1241/compile_fla1241.py`` compiles it for sm_90 on the CPU, here into a
temporary folder, with this interpreter's Triton (3.6) and, when ``ALIAS_SPEC_TRITON_PYTHONS``
names one, a Triton 3.7 interpreter.

What the tests pin is what plan said, not a diagnosis of the GPU symptom (no GPU here):

* Failing shape (K=153, every num_warps/num_stages of fla's Hopper autotune space), both
  releases: **partial**, and the only notes are ``race.unjudged``. So the plan (no two live
  buffers share a byte) and the lowering (every shared address the LLVM IR computes lands in
  its own buffer) are proved; no out-of-range shared access is visible in the LLVM IR; no race
  is found; but race freedom is not proved either: pairs are left undecided.
* With the pair limit lifted (``tools/plan/fla1241/judge_fla1241.py --all-pairs``), K=153 at num_stages=2 is
  **clean** (both warp counts, both releases: race freedom proved too), and at num_stages 3
  and 4 every undecided pair is an access of the ``dh`` ring that the pipeliner fills by
  cp.async across iterations: the cp.async and the reads of its slots (a pipeline protocol
  the race check does not follow). None touches the buffers of ``q`` and ``k``, the operands
  that odd K changes (loaded through registers, stored to shared, read by wgmma): every pair
  on those is proved ordered or disjoint. (The slow test asks it of 4 warps on 3.6.)
* The controls say the same: K=154 (even) and K=127 (odd, one K block) are partial for the
  same reason; K=154 at num_stages 3 and 4 with 4 warps adds ``lowering.unbounded`` notes (a
  3- or 4-slot ring addressed by a loop-carried slot), and at num_stages=4 a ``plan.capacity``
  finding (245760 bytes of shared memory, more than sm_90 allows: a configuration the
  autotuner cannot launch and skips). No variant has ``plan.race``, ``plan.race.proxy``,
  ``plan.overlap``, ``plan.bounds`` or ``lowering.outside``.

Pinned against the race check of commit 90f42d0. A race check that follows a cp.async ring's
slots could turn these partial verdicts clean (or find a race): then update ``expected`` and
say so on issue 28.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT
from tests.plan.cases.fla1241.kernel import CONFIGS, VARIANTS  # noqa: E402

# Rules that would answer the question with "yes": a race, a buffer overlap or an
# address out of its buffer.
BUG_RULES = {"plan.race", "plan.race.proxy", "plan.overlap", "plan.bounds", "lowering.outside"}


def expected(name: str) -> tuple[str, set[str], set[str]]:
    """(status, finding rules, note kinds) plan --races gives kernel ``name`` at its default
    limits, the same on Triton 3.6 and 3.7."""
    if name == "even154-w4-s4":  # needs 245760 bytes of shared memory: cannot launch
        return "findings", {"plan.capacity"}, {"race.unjudged"}
    # Every other one: plan and addresses proved, races not all decided (even154-w4-s3's and
    # -s4's cp.async rings too, since a ring slot's phi is bounded before the exhaustive range).
    return "partial", set(), {"race.unjudged"}


@functools.cache
def _pythons() -> dict[str, str]:
    """Interpreters by release ("3.6", "3.7"): this one, and those ALIAS_SPEC_TRITON_PYTHONS
    names (asked once per session: each test of a release reads them)."""
    out = {}
    extra = os.environ.get("ALIAS_SPEC_TRITON_PYTHONS", "").split(os.pathsep)
    for python in [sys.executable, *filter(None, extra)]:
        run = subprocess.run([python, "-c", "import triton; print(triton.__version__)"],
                             capture_output=True, text=True, timeout=120)  # fmt: skip
        if run.returncode == 0:
            out.setdefault(".".join(run.stdout.strip().split(".")[:2]), python)
    return out


def _compile(python: str, out: Path, names: list[str]) -> Path:
    """Compile ``names`` with ``python``'s Triton; the release's folder of texts."""
    run = subprocess.run([python, "-m", "tools.plan.fla1241.compile_fla1241", str(out), "--only",
                          *names], cwd=ROOT, capture_output=True, text=True, timeout=900)  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    (folder,) = [p for p in out.iterdir() if p.is_dir()]
    return folder


def _judge(folder: Path, python: str, names: list[str], *extra: str) -> dict[str, dict]:
    run = subprocess.run([sys.executable, "-m", "tools.plan.fla1241.judge_fla1241", str(folder),
                          "--python", python, "--only", *names, *extra],
                         cwd=ROOT, capture_output=True, text=True, timeout=1800)  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    rows = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    return {r["kernel"]: r for r in rows}


def _check(rows: dict[str, dict], names: list[str], release: str) -> None:
    assert sorted(rows) == sorted(names)
    for name, row in rows.items():
        status, rules, notes = expected(name)
        got = (row["status"], {f["rule"] for f in row["findings"]}, set(row["notes"]))
        assert got == (status, rules, notes), (release, name, row)
        assert not BUG_RULES & got[1], (release, name, row)
        assert row["plan_from"].startswith(f"triton {release}"), row


def test_failing_shape_is_partial_for_races_alone(tmp_path: Path) -> None:
    """K=153, 4 warps, 3 stages, Triton 3.6: placement and every shared address proved, no
    race found, race freedom not proved (partial, only race.unjudged notes)."""
    names = ["odd153-w4-s3"]
    folder = _compile(sys.executable, tmp_path, names)
    release = folder.name
    _check(_judge(folder, sys.executable, names), names, release)


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("release", ["3.6", "3.7"])
def test_every_variant_and_config(tmp_path: Path, release: str, variant: str) -> None:
    """All 18 kernels (3 shapes x fla's 6 Hopper configurations) on one release, a shape per
    test."""
    python = _pythons().get(release)
    if python is None:
        pytest.skip(f"no Triton {release} interpreter in ALIAS_SPEC_TRITON_PYTHONS")
    names = [f"{variant}-w{w}-s{s}" for w, s in CONFIGS]
    folder = _compile(python, tmp_path, names)
    assert folder.name == release
    _check(_judge(folder, python, names), names, release)


@pytest.mark.slow
def test_failing_shape_all_pairs(tmp_path: Path) -> None:
    """K=153 with 4 warps, Triton 3.6, every unordered pair asked (seconds each).

    At 2 stages: clean, all 13620 pairs proved ordered or disjoint (the plan, every address
    and race freedom proved). At 3 stages: partial, and every pair left undecided is the
    pipelined ``dh`` ring's cp.async against its own slots (``load`` is a read of a slot), in
    flight across iterations; none is on the buffers of ``q`` or ``k``."""
    names = ["odd153-w4-s2", "odd153-w4-s3"]
    folder = _compile(sys.executable, tmp_path, names)
    rows = _judge(folder, sys.executable, names, "--all-pairs", "--why")
    s2, s3 = rows["odd153-w4-s2"], rows["odd153-w4-s3"]
    assert (s2["status"], s2["findings"], s2["notes"], s2["undecided"]) == (
        "clean", [], {}, {}), s2  # fmt: skip
    assert "13620 unordered pairs judged" in s2["lowering"], s2
    assert (s3["status"], s3["findings"], s3["notes"]) == (
        "partial", [], {"race.unjudged": 1}), s3  # fmt: skip
    assert "18228 unordered pairs judged" in s3["lowering"], s3
    undecided = s3["undecided"]
    assert sum(undecided.values()) == 304, undecided
    for why in undecided:
        # "<why>, across iterations in flight: <kind> in <buffers> / <kind> in <buffers>"
        assert ", across iterations in flight: asm cp.async.cg.shared.global in " in why, why
        first, second = why.split(": ", 1)[1].split(" / ")
        assert second.split(" in ")[0] in ("load", "asm cp.async.cg.shared.global"), why
        # Both sides are in the dh ring (the TTGIR names it %dh_b_<n>), never q's or k's.
        assert all(p.split(" in ")[1].startswith("%dh_b") for p in (first, second)), why
