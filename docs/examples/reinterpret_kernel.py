"""The kernel behind the lint guide's two dumps: a 128 x fp32 shared buffer read back as M
int32 values through ``_reinterpret``. M = 128 reads the buffer's own bytes; M = 512 reads
2048 bytes of a 512-byte allocation (Triton 3.6 compiles it).

    python docs/examples/reinterpret_kernel.py   # needs triton 3.6.0; no GPU

writes ``reinterpret-ok.ttgir`` and ``reinterpret-too-large.ttgir`` beside this file. The
element type changes (fp32 to int32) so that the view survives Triton's canonicalizer: a
reinterpret to the source's own type is folded away and leaves lint nothing to judge.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from triton.experimental import gluon
from triton.experimental.gluon import language as gl

HERE = Path(__file__).resolve().parent


@gluon.jit
def kernel(out_ptr, M: gl.constexpr):
    N: gl.constexpr = 128
    lay: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, [0])
    B: gl.constexpr = gl.BlockedLayout([1], [32], [4], [0])
    buf = gl.allocate_shared_memory(gl.float32, [N], lay)
    offs = gl.arange(0, N, layout=B)
    buf.store(offs.to(gl.float32))
    view = buf._reinterpret(gl.int32, [M], lay)  # the float bits as integers
    x = view.load(B)
    gl.store(out_ptr + gl.arange(0, M, layout=B), x)


def main() -> int:
    sys.path.insert(0, str(HERE.parent.parent))
    from alias_spec.frontend.compile import compile_for

    for m, name in ((128, "reinterpret-ok"), (512, "reinterpret-too-large")):
        ttgir = compile_for(kernel, {"out_ptr": "*i32"}, {"M": m}).asm["ttgir"]
        # Locations name this file from the repository's root, not where it was compiled.
        ttgir = re.sub(r'"/[^"]*/(reinterpret_kernel\.py)"', r'"docs/examples/\1"', ttgir)
        (HERE / f"{name}.ttgir").write_text(ttgir)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
