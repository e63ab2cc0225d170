"""``alias-spec plan --races`` on rings of mbarriers (``alias_spec/plan/mbarrier.py``, ``ring.py``).

A ring kernel written here (``tests/plan/cases/consan/ring_kernels.py``: TMA loads issued
``SLOTS - 1`` iterations ahead of their waits, the slot ``i % SLOTS``, the phase
``(i // SLOTS) & 1``) is proved clean, and each mutant of its wait (another slot's mbarrier,
the other phase, the phase over the iteration rather than the rounds, the mbarrier index off
by one) is never clean: the ring is not followed, with the reason, and the loads it completes
are not judged. Triton's own pipelines (its loop phis carry the slot and the phase) are
followed in the plan corpus.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
from typing import Any

import pytest

from tests.paths import PLAN_CASES

CASES = PLAN_CASES
_missing = [m for m in ("triton", "llvmlite") if importlib.util.find_spec(m) is None]
needs_compiler = pytest.mark.skipif(bool(_missing), reason=f"needs {', '.join(_missing)}")

# Each mutant's reason: what the note says the ring is not followed for.
MUTANT_NOTES = {
    1: "has a parity not proved to be the phase of the load it follows",
    2: "names the other phase than that of the load it follows",
    3: "has a parity not proved to be the phase of the load it follows",
    4: "not one of its initialised mbarriers",
}


def _judge(ttgir: str, llir: str, allocated: Any = None) -> Any:
    from alias_spec.plan.api import check_texts
    from alias_spec.plan.llir import on_deep_stack

    return on_deep_stack(lambda: check_texts(ttgir, llir, allocated=allocated, races=True))


def _races(report: Any) -> list[Any]:
    return [f for f in report.findings if f.rule in ("plan.race", "plan.race.proxy")]


def _ring(mut: int) -> Any:
    from tests.plan.cases.consan import ring_kernels

    k = ring_kernels.compile_cpu(mut)
    return _judge(k.asm["ttgir"], k.asm["llir"])


@needs_compiler
def test_the_ring_is_proved_clean() -> None:
    report = _ring(0)
    assert not _races(report) and report.status == "clean", [n.message for n in report.notes]


@needs_compiler
@pytest.mark.parametrize("mut", sorted(MUTANT_NOTES))
def test_a_mutant_of_its_wait_is_never_clean(mut: int) -> None:
    report = _ring(mut)
    assert report.status != "clean"
    # Not followed, with the reason: its loads are not judged (a finding would do too).
    notes = [n.message for n in report.notes if n.kind == "race.unjudged"]
    assert _races(report) or any(MUTANT_NOTES[mut] in m for m in notes), notes


def _corpus(name: str) -> dict[str, Any]:
    return json.loads(gzip.decompress((CASES / "corpus" / "3.6" / f"{name}.json.gz").read_bytes()))


# The cheaper kernel first: the fast tier runs the first case only.
@pytest.mark.parametrize("name", ["gluon_tma_wgmma_s2", "matmul_desc_s3"])
def test_a_pipeline_of_the_corpus_has_its_ring_followed(name: str) -> None:
    # Triton's pipeliner carries the slot and phase in phis (matmul_desc_s3: a load two
    # iterations ahead); Gluon's tutorial computes them from the counter.
    pytest.importorskip("llvmlite")
    d = _corpus(name)
    a = d["alloc"]
    report = _judge(d["ttgir"], d["llir"], (a["module"], a["debug"], a["version"]))
    assert not _races(report)
    assert not [n.message for n in report.notes if "is not followed" in n.message]


def test_the_consan_ring_is_followed_and_its_reuse_left_undecided() -> None:
    # Its mbarriers are followed; what stays is the wgmma in flight into the next iteration
    # against the TMA load into its slot (a commit group's lag is not followed), which is the
    # race ConSan stops in the 2-slot ring.
    table = json.loads((CASES / "consan" / "consan_table.json").read_text())["cases"]
    for name in ("wgmma_tma_ring[2 slots]", "wgmma_tma_ring[3 slots]"):
        row = table[name]
        assert row["verdict"] == "partial" and "is not followed" not in row["reason"]
        assert "unordered pairs not decided, the first the wgmma operand" in row["reason"]
