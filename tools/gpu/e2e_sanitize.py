"""The end-to-end kernels in one process, for compute-sanitizer (memcheck, racecheck):
FlagTree's scenario, the flush pattern and a sample of corpus cases (every recipe, every view
kind, every result layout kind). Prints one JSON line; exits 1 if a check fails.

    PYTHONPATH=examples python -m tools.gpu.e2e_sanitize   # from the checkout's root

(``examples/`` on the path for FlagTree's scenario and the flush pattern, which are examples.)
"""

from __future__ import annotations

import json

import flagtree_alias
import smem_flush

from tests.gpu import harness


def sample(cases: list[dict], per_kind: int = 2) -> list[dict]:
    picked: dict[str, list[dict]] = {}
    for c in cases:
        kinds = {"recipe:" + r for r in c["recipes"]}
        kinds |= {"view:" + c["view"]["op"] + ("_rt" if c["view"].get("runtime") else "")}
        kinds |= {"layout:" + s["layout"]["kind"] for s in c["chain"]}
        for k in kinds:
            if len(picked.setdefault(k, [])) < per_kind and c not in picked[k]:
                picked[k].append(c)
    seen, out = set(), []
    for group in picked.values():
        for c in group:
            if c["id"] not in seen:
                seen.add(c["id"])
                out.append(c)
    return out


def main() -> int:
    results = {**flagtree_alias.run(), **smem_flush.run()}
    cases = sample(harness.load_corpus())
    corpus = [harness.run_case(c) for c in cases]
    results["corpus_sample"] = f"{sum(r['ok'] for r in corpus)}/{len(corpus)}"
    ok = all(v for k, v in results.items() if isinstance(v, bool)) and all(r["ok"] for r in corpus)
    print(json.dumps({"ok": ok, **results, "cases": [c["id"] for c in cases]}))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
