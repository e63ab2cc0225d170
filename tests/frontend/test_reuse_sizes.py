"""The reuse planner sizes each buffer as Triton's allocator does (issue 18, item 3).

``tests/reuse_sizes/triton-<release>.json`` holds the bytes Triton reserved for one buffer of
each case of ``tools/reuse/measure.py`` (every shared layout kind: swizzled, NVMMA at each
swizzle, linear, padded with several interval/padding pairs), measured with that release alone
installed. Here
each case's layout is rebuilt and sized by the physical model as the planner sizes it
(``layout_info`` then ``physical.allocation_bytes``, and the planner's own declarations): the
bytes must be Triton's, for every release measured. A layout the model cannot size is refused
by the planner with one error naming the buffer's layout field.
"""

from __future__ import annotations

import json
from math import prod
from pathlib import Path
from typing import Any

import pytest

from tests.paths import REUSE_SIZES

pytest.importorskip("triton")
from triton.experimental.gluon import language as gl  # noqa: E402

from alias_spec.frontend import tle  # noqa: E402
from alias_spec.frontend.compile import compile_for  # noqa: E402
from alias_spec.frontend.tle.args import TLEError  # noqa: E402
from alias_spec.frontend.tle.place import layout_info  # noqa: E402
from alias_spec.frontend.tle.reuse import declarations  # noqa: E402
from alias_spec.model.physical import allocation_bytes  # noqa: E402
from tools.reuse import measure  # noqa: E402

SIZES = REUSE_SIZES

RELEASES = ("3.6.0", "3.9.0")
MEASURED = {r: json.loads((SIZES / f"triton-{r}.json").read_text()) for r in RELEASES}
BITS = {"float16": 16, "bfloat16": 16, "float32": 32, "int8": 8}


def _cases() -> list[tuple[str, str]]:
    return [(r, name) for r in RELEASES for name in sorted(MEASURED[r]["bytes"])]


@pytest.mark.parametrize("release", RELEASES)
def test_each_release_measured_every_case(release: str) -> None:
    got = MEASURED[release]
    assert got["triton"] == release and got["target"] == "sm_90" and got["date"]
    assert set(got["bytes"]) == set(measure.CASES)


def test_cases_cover_every_layout_kind() -> None:
    specs = [spec for _, _, spec in measure.CASES.values()]
    assert {s["kind"] for s in specs} == {"swizzled", "nvmma", "linear", "padded"}
    assert {s["swizzle"] for s in specs if s["kind"] == "nvmma"} == {0, 32, 64, 128}
    pairs = {json.dumps(s["pairs"]) for s in specs if s["kind"] == "padded"}
    assert len(pairs) >= 5  # one pair of several sizes, two pairs, an interval past the buffer


def test_measure_needs_only_triton() -> None:
    # It runs in an environment with Triton alone: no import of this project.
    import ast

    tree = ast.parse(Path(measure.__file__).read_text())
    roots = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import)
             for a in n.names}  # fmt: skip
    roots |= {n.module.split(".")[0] for n in ast.walk(tree)
              if isinstance(n, ast.ImportFrom) and n.module}  # fmt: skip
    assert roots <= {"__future__", "argparse", "datetime", "json", "math", "sys", "typing",
                     "triton"}, roots  # fmt: skip


def test_the_issues_case_is_9200_bytes_on_each_release() -> None:
    # Written here, not read from the JSON: 4096 slots + 63 x 8 padding slots, 2 bytes each.
    for release in RELEASES:
        assert MEASURED[release]["bytes"]["padded_64p8_f16"] == 9200


@pytest.mark.parametrize(("release", "name"), _cases())
def test_model_footprint_is_tritons(release: str, name: str) -> None:
    shape, dtype, spec = measure.CASES[name]
    layout = measure.build_layout(shape, spec)
    info = layout_info(layout)
    assert info.unsized == ""
    want = MEASURED[release]["bytes"][name]
    assert allocation_bytes(BITS[dtype], prod(shape), info.padding) == want
    # As the planner sizes it: a one-buffer plan's declared size.
    plan = tle.gpu.reuse_plan([tle.gpu.buffer("x", shape, getattr(gl, dtype), layout)],
                              uses={"x": "p"}, phases=["p"])  # fmt: skip
    d, _ = declarations(plan)
    assert d.buffers[0].size == want


def _fp4() -> Any:
    return gl.NVMMASharedLayout(128, 8, rank=2, fp4_padded=True)


def _two_ctas() -> Any:
    return gl.SwizzledSharedLayout(1, 1, 1, [1, 0], cga_layout=[[1, 0]])


@pytest.mark.parametrize(("make", "why"), [(_fp4, "fp4-padded"), (_two_ctas, "several CTAs")])
def test_a_layout_the_model_cannot_size_is_refused(make: Any, why: str) -> None:
    bufs = [tle.gpu.buffer("a", [64, 64], gl.int8, make())]
    with pytest.raises(TLEError) as exc:
        tle.gpu.reuse_plan(bufs, uses={"a": "p"}, phases=["p"])
    text = str(exc.value)
    assert text.startswith("tle.gpu.reuse_plan: buffers.a.layout: cannot be planned: ")
    assert why in text and "\n" not in text


def test_alloc_reuse_refuses_it_at_the_kernel_line() -> None:
    """A plan changed after it was built (its buffers are plain objects) is checked again when
    the kernel compiles: the same refusal, as a compile error."""
    from triton.compiler.errors import CompilationError

    from tests.gpu import reuse_padded_kernel as rpk

    plan = rpk.plan()
    plan.buffers[0].layout = _two_ctas()
    with pytest.raises(CompilationError) as exc:
        compile_for(rpk.padded_pair, {"x_ptr": "*fp16", "y_ptr": "*fp16", "out_ptr": "*fp16"},
                    {"PLAN": plan, "MODE": "planned"})  # fmt: skip
    text = str(exc.value)
    assert "tle.gpu.alloc_reuse: buffers.a.layout: cannot be planned: " in text, text
    assert "several CTAs" in text
