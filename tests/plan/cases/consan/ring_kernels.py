"""A TMA ring of mbarriers, written here, and its mutants, for ``tests/plan/test_plan_races_ring.py``.

The ring: ``SLOTS`` tiles and ``SLOTS`` mbarriers; before the loop the first ``SLOTS - 1``
tiles are loaded, one to a slot; iteration i waits on slot ``i % SLOTS`` for phase
``(i // SLOTS) & 1``, reads the tile through the generic proxy, passes a CTA barrier (every
thread is done with the slot) and loads tile ``i + SLOTS - 1`` into the slot freed one
iteration before (the software pipeline: each load issued ``SLOTS - 1`` iterations ahead of
its wait). ``MUT`` picks a mutant of the wait:

- 0: as above (correct);
- 1: the wait on the slot being loaded next (``(i + 1) % SLOTS``): another slot's mbarrier;
- 2: the phase of the next round (``((i // SLOTS) + 1) & 1``): returns while the tile lands;
- 3: the phase taken over the iteration number, not the rounds (``i & 1``);
- 4: the mbarrier index off by one (``i % SLOTS + 1``): the last slot's wait is past the ring.
"""

from __future__ import annotations

from typing import Any

from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma

T: gl.constexpr = gl.constexpr(64)
TILE_BYTES: gl.constexpr = gl.constexpr(64 * 64 * 2)
NVMMA: gl.constexpr = gl.constexpr(
    gl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2)
)
TILE_REG: gl.constexpr = gl.constexpr(gl.BlockedLayout([1, 8], [8, 4], [4, 1], [1, 0]))
MUTANTS = {0: "correct", 1: "wrong slot", 2: "wrong phase", 3: "phase i & 1", 4: "index + 1"}


@gluon.jit
def _wait_for(bars, i, SLOTS: gl.constexpr, MUT: gl.constexpr):
    if MUT == 1:
        mbarrier.wait(bars.index((i + 1) % SLOTS), (i // SLOTS) & 1)
    elif MUT == 2:
        mbarrier.wait(bars.index(i % SLOTS), ((i // SLOTS) + 1) & 1)
    elif MUT == 3:
        mbarrier.wait(bars.index(i % SLOTS), i & 1)
    elif MUT == 4:
        mbarrier.wait(bars.index(i % SLOTS + 1), (i // SLOTS) & 1)
    else:
        mbarrier.wait(bars.index(i % SLOTS), (i // SLOTS) & 1)


@gluon.jit
def tma_ring(x_ptr, out_ptr, SLOTS: gl.constexpr, STEPS: gl.constexpr, MUT: gl.constexpr):
    tiles = gl.allocate_shared_memory(gl.float16, [SLOTS, T, T], NVMMA)
    bars = gl.allocate_shared_memory(gl.int64, [SLOTS, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(SLOTS):
        mbarrier.init(bars.index(s), count=1)
    desc = tma.make_tensor_descriptor(x_ptr, [STEPS * T, T], [T, 1], [T, T], NVMMA)
    for s in gl.static_range(SLOTS - 1):
        mbarrier.expect(bars.index(s), TILE_BYTES)
        tma.async_copy_global_to_shared(desc, [s * T, 0], bars.index(s), tiles.index(s))
    acc = gl.zeros([T, T], gl.float32, TILE_REG)
    for i in range(STEPS):
        _wait_for(bars, i, SLOTS, MUT)
        acc += tiles.index(i % SLOTS).load(TILE_REG).to(gl.float32)
        gl.thread_barrier()  # every thread is done with the slot before it is loaded again
        nxt = i + SLOTS - 1
        if nxt < STEPS:
            slot = nxt % SLOTS
            mbarrier.expect(bars.index(slot), TILE_BYTES)
            tma.async_copy_global_to_shared(desc, [nxt * T, 0], bars.index(slot), tiles.index(slot))
    for s in gl.static_range(SLOTS):
        mbarrier.invalidate(bars.index(s))
    rows = gl.arange(0, T, layout=gl.SliceLayout(1, TILE_REG))
    cols = gl.arange(0, T, layout=gl.SliceLayout(0, TILE_REG))
    gl.store(out_ptr + rows[:, None] * T + cols[None, :], acc)


def compile_cpu(mut: int, slots: int = 3, steps: int = 8) -> Any:
    """The ring (or mutant ``mut``) compiled for sm_90 by the installed Triton, on the CPU."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource

    consts = {"SLOTS": slots, "STEPS": steps, "MUT": mut}
    sig = {"x_ptr": "*fp16", "out_ptr": "*fp32", "SLOTS": "constexpr", "STEPS": "constexpr",
           "MUT": "constexpr"}  # fmt: skip
    src = GluonASTSource(tma_ring, signature=sig, constexprs=consts)
    return triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
