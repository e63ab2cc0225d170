"""``alias-spec plan`` on kernels nobody here wrote: Liger-Kernel, flash-linear-attention and
torch.compile (Inductor's matmul, convolution and flex_attention templates), captured on an
H200 with Triton 3.6.0 (``tools/plan/realworld/capture.py``; ``h200/*_ops.json`` hold each op's
check against its reference on the GPU).

Independent truths: every op the kernels ran for matched its reference, so no kernel may have
a finding about its memory; the only finding allowed is ``plan.capacity``, exactly on the
kernels whose metadata (written by Triton) says they need more than sm_90's 227 KiB per block.
At least 98% of the kernels are proved clean. ``verdicts.snapshot.json`` is a snapshot of the verdicts
(status, and the first note's reason for a partial one), written by ``tools/plan/realworld/judge.py --snapshot``
(regenerate with ``python -m tools.plan.realworld.judge LIB... --snapshot
tests/plan/cases/realworld/verdicts.snapshot.json`` over the unpacked ``h200/<lib>.tar.xz`` caches,
one folder per library); the slow tier compares every kernel with it, the default tier a
sample, each beside the independent truth above (``_check``).

The slow tier judges the corpus as ``alias-spec plan DIR`` does (``batch.judge_kernels``, one
worker process), in shards of about ``SHARD`` kernels of one library: each shard's tests share
an ``xdist_group`` (pyproject's ``--dist=loadgroup`` keeps them on one pytest-xdist worker), and
its first test judges the whole shard in one batch; each kernel's verdict is still a test of its
own. A kernel the batch gave no verdict for (its worker died, it ran out of time) fails.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import tarfile
from pathlib import Path
from typing import Any

import pytest

from alias_spec.plan import batch
from tests.paths import PLAN_CASES
from tests.plan.shards import shard_of, shards

HERE = PLAN_CASES / "realworld"
from tools.plan.realworld import judge  # noqa: E402

pytestmark = pytest.mark.skipif(importlib.util.find_spec("triton") is None,
                                reason="needs triton (the plan is recovered by its allocator)")  # fmt: skip

LIBRARIES = ("liger", "fla", "inductor")
SNAPSHOT = json.loads((HERE / "verdicts.snapshot.json").read_text())
SM90_LIMIT = 227 * 1024  # the CUDA guide's figure, typed here as the independent truth
# The default tier: a kernel of each library and of each kind of verdict the corpus has:
# Liger's RMSNorm backward, flex_attention's backward (clean), flash-linear-attention's
# chunk_gla_fwd_A (clean: loads whose location LLVM moved onto another op, judged beside the op
# their address belongs to; partial before), an Inductor matmul whose plan is larger than sm_90
# allows (plan.capacity).
SAMPLE = (
    "liger/GLKU4YJF4GFSMBGGZHKBFV7PMKQN3IF7JMXB3JK5DTBQZQIIKVHA",
    "inductor/6NG5KZSY72A6YRFPW7VCIR2TFADPCJZ47MI6MDNYG6W2KAZ4N5OQ",
    "fla/726LTB7NGX7NRRFN4J2ES45HEAYJDW3CKKUL7DNZNC2YHZ5DUH7A",
    "inductor/4F5OQOYJGGSASMHMO2Z2FKXZTCQYMZD5GUAZ5RDUOD3ARCTZUVDQ",
)


def _key(lib: str, folder: str) -> str:
    return f"{lib}/{folder}"


def _folders() -> list[tuple[str, str]]:
    return [tuple(k.split("/", 1)) for k in sorted(SNAPSHOT["kernels"])]  # type: ignore[misc]


# The slow tier's shards: each library's kernels in sorted order, cut into runs of about SHARD,
# each judged by one worker process in one batch (on the pytest-xdist worker of its group).
SHARD = 100


SHARDS = shards({lib: [k for k in _folders() if k[0] == lib] for lib in LIBRARIES}, SHARD,
                "realworld")  # fmt: skip
SHARD_OF = shard_of(SHARDS)


class Corpus:
    """The libraries' caches, each unpacked when first needed, and the verdicts of the shards
    judged so far in this process (a pytest-xdist worker, or the whole run without ``-n``)."""

    def __init__(self, root: Path, selected: set[tuple[str, str]]) -> None:
        self.root = root
        self.selected = selected  # the kernels whose tests this session runs
        self.unpacked: set[str] = set()
        self.records: dict[str, dict[str, Any]] = {}
        self.missing: dict[str, str] = {}  # kernel -> why it has no verdict
        self.judged: set[str] = set()  # shards

    def library(self, lib: str) -> Path:
        if lib not in self.unpacked:
            with tarfile.open(HERE / "h200" / f"{lib}.tar.xz") as tar:
                tar.extractall(self.root / lib, filter="data")
            self.unpacked.add(lib)
        return self.root / lib

    def record(self, lib: str, folder: str) -> dict[str, Any]:
        """The judge tool's record of the kernel, judged with the rest of its shard."""
        shard = SHARD_OF[(lib, folder)]
        if shard not in self.judged:
            self.judged.add(shard)
            self._judge([k for k in SHARDS[shard] if k in self.selected or k == (lib, folder)])
        key = _key(lib, folder)
        if key not in self.records:
            pytest.fail(f"{key}: no verdict: {self.missing.get(key, 'the batch gave none')}")
        return self.records[key]

    def _judge(self, shard: list[tuple[str, str]]) -> None:
        """Judge the kernels as ``alias-spec plan DIR`` does: one worker process, one batch."""
        kernels: list[batch.KernelFiles] = []
        keys: list[str] = []
        for lib, folder in shard:
            try:
                (kernel,) = batch.find_kernels(self.library(lib) / folder)
            except (ValueError, OSError) as exc:  # none, or more than one: as judge_one says
                self.missing[_key(lib, folder)] = f"{type(exc).__name__}: {exc}"
                continue
            kernels.append(kernel)
            keys.append(_key(lib, folder))
        try:
            with contextlib.closing(batch.judge_kernels(kernels, jobs=1)) as stream:
                for index, verdict in stream:
                    folder = Path(kernels[index].ttgir).parent
                    self.records[keys[index]] = judge.record(verdict, folder)
        except Exception as exc:  # the batch itself failed: every kernel left says why
            for key in keys:
                self.missing.setdefault(key, f"the batch failed: {type(exc).__name__}: {exc}")


@pytest.fixture(scope="module")
def corpus(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    selected = {(item.callspec.params["lib"], item.callspec.params["folder"])
                for item in request.session.items
                if getattr(item, "originalname", None) == "test_kernel_verdict"
                and item.parent is request.node}  # fmt: skip
    return Corpus(tmp_path_factory.mktemp("realworld"), selected)


@pytest.fixture(scope="module")
def caches(corpus: Corpus) -> Path:
    for lib in LIBRARIES:
        corpus.library(lib)
    return corpus.root


def _shared(meta_dir: Path) -> int | None:
    for j in meta_dir.glob("*.json"):
        try:
            meta = json.loads(j.read_text())
        except ValueError:
            continue
        if isinstance(meta, dict) and "shared" in meta:
            return int(meta["shared"])
    return None


def _check(rec: dict[str, Any], d: Path, lib: str, folder: str) -> None:
    said = rec.get("findings", []) + rec.get("notes", []) + [rec.get("error", "")]
    # The independent truth: no finding on a kernel whose op matched its reference, except
    # that a plan larger than sm_90 allows cannot launch (Triton's own metadata says so).
    too_big = (_shared(d) or 0) > SM90_LIMIT
    capacity = [m for m in rec.get("findings", []) if "cannot launch" in m]
    assert bool(capacity) == too_big, said
    assert len(rec.get("findings", [])) == len(capacity), said
    # The snapshot.
    want = SNAPSHOT["kernels"][_key(lib, folder)]
    assert rec["status"] == want["status"], said
    if want["status"] == "partial":
        assert judge._reason(rec["notes"][0]) == want["reason"], said


def _kernel_params() -> list[Any]:
    return [pytest.param(lib, folder, id=f"{lib}/{folder[:12]}",
                         marks=pytest.mark.xdist_group(SHARD_OF[(lib, folder)]))
            for lib, folder in _folders()]  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("lib,folder", _kernel_params())
def test_kernel_verdict(corpus: Corpus, lib: str, folder: str) -> None:
    rec = corpus.record(lib, folder)
    _check(rec, corpus.root / lib / folder, lib, folder)


def test_sampled_kernels(caches: Path) -> None:
    statuses = {SNAPSHOT["kernels"][k]["status"] for k in SAMPLE}
    assert statuses == {str(s) for s in SNAPSHOT["summary"]["status"]}, statuses
    for key in SAMPLE:
        lib, folder = key.split("/", 1)
        d = caches / lib / folder
        _check(judge.judge_one(str(d)), d, lib, folder)  # in this process


def test_snapshot_is_complete_and_mostly_clean(caches: Path) -> None:
    folders = {_key(lib, d.name) for lib in LIBRARIES for _, d in judge.kernels([caches / lib])}
    assert folders == set(SNAPSHOT["kernels"])
    rows = list(SNAPSHOT["kernels"].values())
    judged = [r for r in rows if r["status"] != "findings"]  # the capacity ones aside
    clean = sum(r["status"] == "clean" for r in judged)
    assert len(rows) >= 900 and clean >= 0.98 * len(judged), (clean, len(judged))


def test_ops_matched_their_references_on_the_gpu() -> None:
    """What makes these kernels correct: each op the capture ran matched its reference (or
    the library refused to run, which is recorded)."""
    for lib in LIBRARIES:
        doc = json.loads((HERE / "h200" / f"{lib}_ops.json").read_text())
        assert doc["device"] == "NVIDIA H200" and doc["triton"] == "3.6.0"
        ran = [op for op in doc["ops"] if "error" not in op]
        assert ran and all(op["ok"] for op in ran), lib
