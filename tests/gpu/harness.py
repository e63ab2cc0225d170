"""Runs corpus cases on a CUDA GPU and compares every byte with the spec's prediction.

For each case: fill the whole allocation through a raw byte view (random bytes, then a second
pass with position-coded bytes for diagnosis), read through the last alias and compare with the
bytes the expected map names; write a random pattern through the alias and dump the allocation:
the mapped bytes must hold the pattern and every other byte its fill value (sentinels).

Needs torch and CUDA; imports nothing from alias_spec, pydantic or z3.
"""

from __future__ import annotations

import json
import os
import traceback
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from tests.paths import GPU_CORPUS

CORPUS = GPU_CORPUS


def load_corpus(path: Path = CORPUS) -> list[dict[str, Any]]:
    return json.loads(path.read_text())["cases"]


def expected_bytes(case: dict[str, Any]) -> list[int]:
    """Allocation byte offset of every byte of the last alias, in row-major element order."""
    eb = case["expect"]["elem_bytes"]
    out: list[int] = []
    for first, count in case["expect"]["map"]:
        out.extend(range(first, first + count * eb))
    return out


def _position_fill(nbytes: int) -> list[int]:
    # Byte pair k holds k as little-endian u16: a read that lands elsewhere shows where.
    return [(k // 2 >> (8 * (k % 2))) & 0xFF for k in range(nbytes)]


def run_case(case: dict[str, Any], device: str = "cuda") -> dict[str, Any]:
    import torch

    from tests.gpu import corpus_kernel as ck

    result: dict[str, Any] = {"id": case["id"], "recipes": case.get("recipes", [])}
    nbytes = case["expect"]["alloc_bytes"]
    final = case["chain"][-1]
    tdtype = getattr(torch, ck.TORCH_DTYPES[final["dtype"]])
    res_bytes = case["expect"]["res_bytes"]
    positions = torch.tensor(expected_bytes(case), dtype=torch.long, device=device)
    gen = torch.Generator(device="cpu").manual_seed(int(case["id"][1:]) + 17)
    args = ck.launch_args(case)
    view = case["view"]
    vi = view["i"] if view["op"] == "index" and view.get("runtime") else 0
    checks = {}
    for name, fill_list in (("random", None), ("position", _position_fill(nbytes))):
        if fill_list is None:
            fill = torch.randint(0, 256, (nbytes,), generator=gen, dtype=torch.uint8)
        else:
            fill = torch.tensor(fill_list, dtype=torch.uint8)
        fill = fill.to(device)
        write = torch.randint(0, 256, (res_bytes,), generator=gen, dtype=torch.uint8).to(device)
        read = torch.zeros(res_bytes, dtype=torch.uint8, device=device)
        dump = torch.zeros(nbytes, dtype=torch.uint8, device=device)
        ck.corpus_kernel[(1,)](
            fill.view(torch.int8),
            read.view(tdtype),
            write.view(tdtype),
            dump.view(torch.int8),
            vi,
            **args,
            num_warps=ck.NUM_WARPS,
        )
        torch.cuda.synchronize()
        want_read = fill[positions]
        want_dump = fill.clone()
        want_dump[positions] = write
        outside = torch.ones(nbytes, dtype=torch.bool, device=device)
        outside[positions] = False
        read_ok = bool(torch.equal(read, want_read))
        written_ok = bool(torch.equal(dump[positions], write))
        sentinels_ok = bool(torch.equal(dump[outside], fill[outside]))
        checks[name] = {"read": read_ok, "write": written_ok, "sentinels": sentinels_ok}
        if not read_ok:
            bad = (read != want_read).nonzero().flatten()[:8].tolist()
            checks[name]["read_mismatch"] = [
                {"byte": i, "got": int(read[i]), "want": int(want_read[i])} for i in bad
            ]
            if name == "position":
                # Where the alias really read from (byte pairs), for the first elements.
                got = read[: min(64, res_bytes)].cpu().tolist()
                checks[name]["read_head"] = got
        if not sentinels_ok:
            bad = ((dump != want_dump) & outside).nonzero().flatten()[:8].tolist()
            checks[name]["clobbered"] = bad
    result["checks"] = checks
    result["ok"] = all(all(v for k, v in c.items() if isinstance(v, bool)) for c in checks.values())
    return result


def _run_chunk(payload: tuple[list[dict[str, Any]], str]) -> list[dict[str, Any]]:
    """Run cases until one breaks the CUDA context; the rest come back marked for a retry.
    A spawned worker imports this module by name: it starts with its parent's sys.path."""
    cases, device = payload
    out: list[dict[str, Any]] = []
    for k, case in enumerate(cases):
        try:
            out.append(run_case(case, device))
        except Exception as exc:  # noqa: BLE001 - every failure is a result to report
            text = "".join(traceback.format_exception_only(type(exc), exc))[-2000:]
            out.append({"id": case["id"], "ok": False, "error": text})
            if "CUDA" in text or "illegal" in text or "misaligned" in text:
                out += [{"id": c["id"], "retry": True} for c in cases[k + 1 :]]
                break
    return out


def run_corpus(cases: list[dict[str, Any]], workers: int | None = None) -> list[dict[str, Any]]:
    """Every case's result; cases are spread over worker processes (compiles dominate), and
    cases left behind by a worker whose CUDA context broke run again in fresh workers."""
    import multiprocessing as mp

    workers = workers or min(12, max(1, (os.cpu_count() or 2) - 2))
    by_id = {c["id"]: c for c in cases}
    done: dict[str, dict[str, Any]] = {}
    todo = list(cases)
    for _ in range(4):
        if not todo:
            break
        n = min(workers, len(todo))
        chunks = [(todo[i::n], "cuda") for i in range(n)]
        with ProcessPoolExecutor(n, mp_context=mp.get_context("spawn")) as pool:
            parts = list(pool.map(_run_chunk, chunks))
        todo = []
        for r in (r for part in parts for r in part):
            if r.get("retry"):
                todo.append(by_id[r["id"]])
            else:
                done[r["id"]] = r
    for c in todo:
        done[c["id"]] = {"id": c["id"], "ok": False, "error": "not run: workers kept faulting"}
    return [done[c["id"]] for c in cases]
