"""`alias-spec lint` on the frontend's own output: every GPU corpus case (tests/gpu/corpus.json,
valid under ``safe`` by construction) built as a kernel through ``tle.gpu.alloc(alias=...)``,
compiled for sm_90 on the CPU with the installed Triton, and its TTGIR linted under ``safe``.

The frontend lowers one alias to a chain of stock view ops (a reinterpret, an index, another
reinterpret); each step alone may be larger than its own source view, so lint must judge the
chain by where it lands in its allocation. The whole corpus compiles in about 25 s on two CPU
cores (the slow tier); a handful of cases, one per kind of view and recipe, also run on their
own (the fast tier).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest

from tests.paths import GPU_CORPUS

pytest.importorskip("triton")

from alias_spec.lint.lint import lint_text  # noqa: E402

CASES: list[dict[str, Any]] = json.loads(GPU_CORPUS.read_text())["cases"]


@pytest.fixture(scope="module")
def compile_ttgir() -> Iterator[Any]:
    """case -> its TTGIR (Triton 3.6 lowering, sm_90), through a private Triton cache."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource

    from alias_spec.difftest import lowering_check as lc
    from alias_spec.frontend import corpus_views as cv

    old = os.environ.get("TRITON_CACHE_DIR")
    with tempfile.TemporaryDirectory(prefix="lint-corpus-") as cache:
        os.environ["TRITON_CACHE_DIR"] = cache
        kernel = lc._kernel()

        def build(case: dict[str, Any]) -> str:
            cx = cv.case_constexprs(case, lc.NUM_WARPS)
            sig = {"out_ptr": cv.pointer_type(case["chain"][-1]["dtype"]), "vi": "i32"}
            sig.update({k: "constexpr" for k in cx})
            compiled = triton.compile(
                GluonASTSource(kernel, signature=sig, constexprs=cx),
                target=GPUTarget("cuda", lc.TARGET_ARCH, 32),
                options={"num_warps": lc.NUM_WARPS},
            )
            return str(compiled.asm["ttgir"])

        try:
            yield build
        finally:
            if old is None:
                os.environ.pop("TRITON_CACHE_DIR", None)
            else:
                os.environ["TRITON_CACHE_DIR"] = old


def _lint_case(case: dict[str, Any], ttgir: str) -> list[str]:
    report = lint_text(ttgir, case["id"], "safe")
    assert report.views >= len(case["chain"]), case["id"]  # the chain's views were read
    return [
        f"{case['id']}: {f.rule} at line {f.line} ({f.op} {f.result})" for f in report.findings
    ] + [f"{case['id']}: note {n}" for n in report.notices]


def _first(pred: Any) -> dict[str, Any]:
    return next(c for c in CASES if pred(c))


# One case per kind: the granule recipe (each step alone breaks alias.range.fits), the index
# recipe, a chain of three aliases, a runtime index view, a slice view, an NVMMA result.
FEW = {
    "granule": _first(lambda c: c["recipes"] == ["granule"] and c["view"]["op"] == "none"),
    "index": _first(lambda c: c["recipes"] == ["index"] and c["view"]["op"] == "none"),
    "chain3": _first(lambda c: len(c["chain"]) == 3),
    "runtime_index": _first(lambda c: c["view"].get("runtime")),
    "slice": _first(lambda c: c["view"]["op"] == "slice" and "granule" in c["recipes"]),
    "nvmma128": _first(
        lambda c: c["chain"][-1]["layout"].get("swizzle_bytes") == 128 and c["view"]["op"] == "none"
    ),
}


@pytest.mark.parametrize("kind", sorted(FEW))
def test_frontend_output_is_clean(kind: str, compile_ttgir: Any) -> None:
    case = FEW[kind]
    assert _lint_case(case, compile_ttgir(case)) == []


def test_granule_chain_is_clean_only_as_a_whole(compile_ttgir: Any) -> None:
    # The same dump read by the triton-3.9 profile, which judges each op alone: its final
    # reinterpret is larger than the index view it starts from.
    case = FEW["granule"]
    report = lint_text(compile_ttgir(case), case["id"], "triton-3.9")
    assert "triton.reinterpret.fits" in {f.rule for f in report.findings}


@pytest.mark.slow
def test_whole_gpu_corpus_lints_clean(compile_ttgir: Any) -> None:
    problems: list[str] = []
    for case in CASES:
        problems += _lint_case(case, compile_ttgir(case))
    assert len(CASES) == 330
    assert problems == [], "\n".join(problems[:20])
