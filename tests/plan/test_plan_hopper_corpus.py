"""``alias-spec plan`` on Hopper kernels with TMA and warp specialization, captured on a GPU
(``tools/plan/hopper_corpus.py``): Triton kernels over host- and device-side tensor
descriptors (persistent, warp-specialized loops), Gluon kernels (a TMA ring of mbarriers
feeding wgmma, loader and MMA partitions) and torch.compile's Inductor (the persistent TMA
matmul template, flex_attention forward and backward). ``hopper/ops.json`` holds each op's
check against its torch reference on the GPU.

Independent truth: every op the kernels ran for matched its reference, so no kernel may have a
finding; the only finding allowed is ``plan.capacity``, exactly on the kernels whose metadata
(written by Triton) says they need more than sm_90's 227 KiB per block. A finding the tool
still makes on such a kernel is a false alarm of the baseline: listed in ``FALSE_ALARMS`` and
expected to fail (strict: once the tool stops making it, the entry must go).

``hopper/verdicts.snapshot.json`` is a snapshot of the verdicts without and with ``--races``
(status, finding rules, note reasons), written by ``python -m tools.plan.hopper_corpus judge
SOURCE_DIR... --snapshot tests/plan/cases/realworld/hopper/verdicts.snapshot.json`` over the
unpacked ``hopper/<source>.tar.xz``, one folder per source. The slow tier compares every kernel
with it, judged as ``alias-spec plan DIR`` does (``batch.judge_kernels``, one worker) in shards
of about ``SHARD`` kernels sharing an ``xdist_group``; the default tier judges a sample.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import tarfile
from pathlib import Path
from typing import Any

import pytest

from tests.paths import PLAN_CASES
from tests.plan.shards import shard_of, shards

pytestmark = pytest.mark.skipif(importlib.util.find_spec("triton") is None,
                                reason="needs triton (the plan is recovered by its allocator)")  # fmt: skip

HERE = PLAN_CASES / "realworld" / "hopper"
if not (HERE / "verdicts.snapshot.json").is_file():
    pytest.skip("the Hopper corpus is not captured yet (tools/plan/hopper_corpus.py capture)",
                allow_module_level=True)  # fmt: skip
SOURCES = ("triton", "gluon", "inductor")
MODES = ("plan", "races")
SNAPSHOT = json.loads((HERE / "verdicts.snapshot.json").read_text())
OPS = json.loads((HERE / "ops.json").read_text())
SM90_LIMIT = 227 * 1024  # the CUDA guide's figure, typed here as the independent truth

# Findings the tool makes on kernels whose ops matched their references (the baseline's false
# alarms): kernel name -> (modes it is made in, the rule). Filled from the snapshot's findings
# by hand; each one is a strict xfail of the independent truth.
FALSE_ALARMS: dict[str, tuple[tuple[str, ...], str]] = {}

# The default tier: a kernel of each kind of verdict, each quick to judge with --races.
SAMPLE: tuple[str, ...] = ()


def _modes(key: str) -> dict[str, dict[str, Any]]:
    return {m: SNAPSHOT["kernels"][key][m] for m in MODES}


def _too_big(meta_shared: int | None) -> bool:
    return (meta_shared or 0) > SM90_LIMIT


def _alarm(key: str, mode: str) -> str | None:
    """The known false alarm of a kernel in a mode, if any."""
    known = FALSE_ALARMS.get(SNAPSHOT["kernels"][key]["kernel"])
    return known[1] if known and mode in known[0] else None


def check_truth(row: dict[str, Any], meta_shared: int | None) -> None:
    """No finding but plan.capacity, and that one exactly when Triton's metadata is over the
    limit."""
    findings = row.get("findings", [])
    capacity = [f for f in findings if f.startswith("plan.capacity")]
    assert bool(capacity) == _too_big(meta_shared), findings
    assert len(findings) == len(capacity), findings


def check_snapshot(row: dict[str, Any], want: dict[str, Any]) -> None:
    assert row["status"] == want["status"], row
    assert [f.split(":", 1)[0] for f in row.get("findings", [])] == [
        f.split(":", 1)[0] for f in want.get("findings", [])
    ], row
    assert row.get("reasons", []) == want.get("reasons", []), row


# The slow tier's shards: each source's kernels in sorted order, cut into runs of about SHARD,
# each judged in one batch per mode (on the pytest-xdist worker of its group).
SHARD = 60


SHARDS = shards({source: sorted(k for k in SNAPSHOT["kernels"] if k.split("/")[0] == source)
                 for source in SOURCES}, SHARD, "hopper")  # fmt: skip
SHARD_OF = shard_of(SHARDS)


class Corpus:
    """The sources' caches, each unpacked when first needed, and the verdicts of the shards
    judged so far in this process."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.unpacked: set[str] = set()
        self.rows: dict[tuple[str, str], dict[str, Any]] = {}  # (key, mode) -> row
        self.missing: dict[tuple[str, str], str] = {}
        self.judged: set[tuple[str, str]] = set()  # (shard, mode)

    def folder(self, key: str) -> Path:
        source, name = key.split("/", 1)
        if source not in self.unpacked:
            with tarfile.open(HERE / f"{source}.tar.xz") as tar:
                tar.extractall(self.root / source, filter="data")
            self.unpacked.add(source)
        return self.root / source / name

    def row(self, key: str, mode: str) -> dict[str, Any]:
        shard = SHARD_OF[key]
        if (shard, mode) not in self.judged:
            self.judged.add((shard, mode))
            self._judge(SHARDS[shard], mode)
        if (key, mode) not in self.rows:
            pytest.fail(f"{key} ({mode}): no verdict: "
                        f"{self.missing.get((key, mode), 'the batch gave none')}")  # fmt: skip
        return self.rows[(key, mode)]

    def _judge(self, keys: list[str], mode: str) -> None:
        """Judge the kernels as ``alias-spec plan DIR [--races]`` does: one worker, one batch."""
        from alias_spec.plan import batch
        from tools.plan.hopper_corpus import verdict_row

        kernels: list[Any] = []
        mine: list[str] = []
        for key in keys:
            try:
                (kernel,) = batch.find_kernels(self.folder(key))
            except (ValueError, OSError) as exc:
                self.missing[(key, mode)] = f"{type(exc).__name__}: {exc}"
                continue
            kernels.append(kernel)
            mine.append(key)
        try:
            stream = batch.judge_kernels(kernels, 1, None, batch.TIMEOUT_S, mode == "races")
            with contextlib.closing(stream):
                for index, verdict in stream:
                    self.rows[(mine[index], mode)] = verdict_row(verdict)
        except Exception as exc:  # the batch itself failed: every kernel left says why
            for key in mine:
                self.missing.setdefault((key, mode), f"the batch failed: {exc}")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    return Corpus(tmp_path_factory.mktemp("hopper"))


def _params(truth: bool) -> list[Any]:
    out = []
    for key in sorted(SNAPSHOT["kernels"]):
        for mode in MODES:
            marks: list[Any] = [pytest.mark.xdist_group(SHARD_OF[key])]
            alarm = _alarm(key, mode) if truth else None
            if alarm:
                marks.append(pytest.mark.xfail(strict=True, reason=f"false alarm: {alarm}"))
            out.append(pytest.param(key, mode, id=f"{key[:20]}-{mode}", marks=marks))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("key,mode", _params(truth=True))
def test_no_false_alarm(corpus: Corpus, key: str, mode: str) -> None:
    check_truth(corpus.row(key, mode), SNAPSHOT["kernels"][key].get("shared"))


@pytest.mark.slow
@pytest.mark.parametrize("key,mode", _params(truth=False))
def test_verdict_matches_snapshot(corpus: Corpus, key: str, mode: str) -> None:
    check_snapshot(corpus.row(key, mode), SNAPSHOT["kernels"][key][mode])


def test_sampled_kernels(corpus: Corpus) -> None:
    """The sample judged in this process, each mode, against the snapshot and (unless a known
    false alarm) the independent truth."""
    from alias_spec.plan import batch
    from tools.plan.hopper_corpus import verdict_row

    assert SAMPLE
    for key in SAMPLE:
        (kernel,) = batch.find_kernels(corpus.folder(key))
        for mode in MODES:
            row = verdict_row(batch.judge_files(kernel, races=mode == "races"))
            check_snapshot(row, SNAPSHOT["kernels"][key][mode])
            if not _alarm(key, mode):
                check_truth(row, SNAPSHOT["kernels"][key].get("shared"))


def test_snapshot_covers_the_corpus(corpus: Corpus) -> None:
    from alias_spec.plan import batch

    found = set()
    for source in SOURCES:
        corpus.folder(f"{source}/")
        found |= {f"{source}/{Path(k.ttgir).parent.name}"
                  for k in batch.find_kernels(corpus.root / source)}  # fmt: skip
    assert found == set(SNAPSHOT["kernels"])
    for name in FALSE_ALARMS:  # each entry names a kernel of the corpus
        assert any(r["kernel"] == name for r in SNAPSHOT["kernels"].values()), name


def test_ops_matched_their_references_on_the_gpu() -> None:
    """What makes these kernels correct: every op the capture ran matched its reference."""
    assert any(g in OPS["device"] for g in ("H100", "H200")) and OPS["triton"] == "3.6.0"
    for source in SOURCES:
        doc = OPS["sources"][source]
        ran = [op for op in doc["ops"] if "outputs" in op]
        assert ran and all(op["ok"] for op in ran), source
        assert doc["kernels"] == sum(k.startswith(f"{source}/") for k in SNAPSHOT["kernels"])
    counts = {s: OPS["sources"][s]["counts"] for s in SOURCES}
    # What the corpus is for: TMA and warp specialization in every source that has them.
    assert all(counts[s].get("tma", 0) > 0 for s in SOURCES), counts
    assert counts["triton"]["warp_specialize"] > 0 and counts["gluon"]["warp_specialize"] > 0
