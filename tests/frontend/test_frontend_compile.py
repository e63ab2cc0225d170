"""``alias_spec.frontend.compile.compile_for``: a Gluon kernel with an alias compiles for sm_90
on a machine without a GPU; every bad argument is a one-line error naming it."""

from __future__ import annotations

import os
import re
import tempfile

import pytest

from tests.paths import ROOT

triton = pytest.importorskip("triton")
os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="tle-compile-cache-"))

from triton.compiler.errors import CompilationError  # noqa: E402
from triton.experimental import gluon  # noqa: E402
from triton.experimental.gluon import language as gl  # noqa: E402

from alias_spec.frontend import tle  # noqa: E402
from alias_spec.frontend.compile import (  # noqa: E402
    CompileArgumentError,
    compile_for,
    parse_target,
)


@gluon.jit
def tile_alias_kernel(out_ptr, OFF: gl.constexpr):
    L: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, [1, 0])
    B: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    src = tle.gpu.alloc([64, 64], gl.float16, layout=L)
    view = tle.gpu.alloc([32, 64], gl.float16, layout=L, alias=src, alias_offset_bytes=OFF)
    rows = gl.arange(0, 32, layout=gl.SliceLayout(1, B))
    cols = gl.arange(0, 64, layout=gl.SliceLayout(0, B))
    gl.store(out_ptr + gl.expand_dims(rows, 1) * 64 + gl.expand_dims(cols, 0), view.load(B))


def _smem_offsets(llir: str) -> list[int]:
    return [int(x) for x in re.findall(r"@global_smem, i32 (\d+)\)", llir)]


@pytest.mark.parametrize("off", [0, 2048])
def test_an_alias_compiles_for_sm_90(off: int) -> None:
    k = compile_for(tile_alias_kernel, {"out_ptr": "*fp16"}, {"OFF": off})
    assert k.asm["ttgir"].count("ttg.local_alloc") == 1  # the alias allocates nothing
    assert k.metadata.shared == 64 * 64 * 2
    assert _smem_offsets(k.asm["llir"])[:1] == ([off] if off else [])
    assert ".target sm_90" in k.asm["ptx"]


def test_num_warps_reaches_the_compiler() -> None:
    k = compile_for(tile_alias_kernel, {"out_ptr": "*fp16"}, {"OFF": 0}, num_warps=8)
    assert k.metadata.num_warps == 8


def test_a_rejected_alias_is_a_compile_error_at_its_line() -> None:
    with pytest.raises(CompilationError) as err:
        compile_for(tile_alias_kernel, {"out_ptr": "*fp16"}, {"OFF": 4097})
    assert "alias.offset.aligned" in str(err.value)


def _plain(x):  # not a kernel
    return x


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"kernel": _plain}, "kernel"),
        ({"target": "sm90"}, "target"),
        ({"target": 90}, "target"),
        ({"target": "sm_0"}, "target"),
        ({"num_warps": 3}, "num_warps"),
        ({"num_warps": True}, "num_warps"),
        ({"signature": ["out_ptr"]}, "signature"),
        ({"signature": {"out_ptr": "*fp16", "nope": "i32"}}, "signature['nope']"),
        ({"signature": {"out_ptr": 16}}, "signature['out_ptr']"),
        ({"signature": {"out_ptr": "fp16*"}}, "signature['out_ptr']"),  # was a bare KeyError
        ({"signature": {"out_ptr": "*"}}, "signature['out_ptr']"),
        ({"signature": {}}, "parameter 'out_ptr'"),
        ({"constexprs": {}}, "parameter 'OFF'"),
        ({"constexprs": {"OFF": 0, "X": 1}}, "constexprs['X']"),
        ({"signature": {"out_ptr": "*fp16", "OFF": "i32"}}, "constexprs['OFF']"),
    ],
)
def test_every_bad_argument_is_named(kwargs: dict, named: str) -> None:
    call = {
        "kernel": tile_alias_kernel,
        "signature": {"out_ptr": "*fp16"},
        "constexprs": {"OFF": 0},
        **kwargs,
    }
    with pytest.raises(CompileArgumentError) as err:
        compile_for(**call)
    message = str(err.value)
    assert message.startswith("compile_for: ") and named in message and "\n" not in message


def test_targets() -> None:
    assert parse_target("sm_90") == 90 and parse_target("sm_100") == 100
    for bad in ("sm_", "SM_90", "sm_90a ", None, "sm_09"):
        with pytest.raises(CompileArgumentError):
            parse_target(bad)


# --- the guide's table of argument errors -------------------------------------------------

GUIDE = ROOT / "docs" / "guides" / "gluon-frontend.md"


@gluon.jit
def bad_argument_kernel(out_ptr, ARG: gl.constexpr):
    if ARG == "shape":
        tle.gpu.alloc([64, 0.5], gl.float16)
    elif ARG == "dtype":
        tle.gpu.alloc([64, 64], 3)
    elif ARG == "layout":
        tle.gpu.alloc([64, 64], gl.float16, layout=5)
    elif ARG == "scope":
        tle.gpu.alloc([64, 64], gl.float16, scope=1)
    elif ARG == "init_value":
        tle.gpu.alloc([64, 64], gl.int8, init_value=300)
    elif ARG == "alias_offset_bytes":
        tle.gpu.alloc([64, 64], gl.float16, alias_offset_bytes=128)
    elif ARG == "nv_mma_shared_layout":
        tle.gpu.alloc([64, 64], gl.float16, nv_mma_shared_layout=1)


def _guide_rows() -> dict[str, str]:
    """argument -> example message, from the guide's table."""
    section = GUIDE.read_text().split("### Argument errors", 1)[1].split("\n\n", 3)[2]
    rows = {}
    for line in section.splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0].strip("`")] = cells[2].strip("`")
    return rows


def test_the_guide_lists_every_argument_with_its_real_message() -> None:
    rows = _guide_rows()
    assert set(rows) == {
        "shape", "dtype", "layout", "scope", "init_value", "alias_offset_bytes",
        "nv_mma_shared_layout",
    }  # fmt: skip
    for arg, message in rows.items():
        with pytest.raises(CompilationError) as err:
            compile_for(bad_argument_kernel, {"out_ptr": "*fp16"}, {"ARG": arg})
        assert str(err.value).strip().splitlines()[-1] == message, arg
