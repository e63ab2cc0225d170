"""Gluon kernels that decide, on a GPU, whether a verdict of ``alias-spec plan`` is right.

Kernels Triton 3.6 compiles into code that corrupts a live buffer; the validator must never call
them clean (the wrong-clean classes of issue 17):

- (a) ``frame_constexpr``: the call-frame bug through a non-inlined helper that takes a constexpr
  argument (its mangled name is a quoted symbol in TTGIR and LLVM IR). The caller holds a 4 KiB
  buffer across the call; the allocator places the call's frame after it, the callee addresses
  its scratch from the shared base. Verdict: findings.
- (b) ``tma_store_pending``: a buffer whose TMA store (shared to global, asynchronous) is still
  in flight when the allocator gives its bytes to the next buffer: the allocator's liveness ends
  at the copy op, the ``store_wait`` comes after the new buffer is written. Verdict: findings.
  ``tma_store_waited`` is its control: the store waited for first (correct, and proved clean:
  the TMA box is read from the copy op).
- (c) ``asm_shared_store`` (``st.shared`` in inline asm on the constant address
  ``global_smem+16``) and ``asm_generic_store`` (a generic ``st`` through ``cvta.shared`` of
  ``global_smem``, inside the asm): a shared store whose address the LLVM IR does not derive
  from ``@global_smem``. It hits element 4 of the kernel's only buffer; no plan can say which
  bytes such an access owns, so the right verdict is partial (the access named in a note).

Kernels whose code is correct, that the validator must not flag (the false-alarm classes):

- ``if_branches``: one buffer allocated in each branch of an ``scf.if``; never live together.
- ``ws_private``: a warp-specialized kernel whose partitions each allocate their own buffer and
  reduce through scratch, after a ring handed from the default partition to a worker. Both
  buffers are named ``mine``: TTGIR prints one SSA name ``%mine`` in the two partitions' regions.

``CASES`` records, for each, the expected verdict (``expect``) and whether the GPU must show
wrong values (``corrupts``). ``tests/plan/test_plan_ground_truth.py`` compiles each for sm_90 on the
CPU and asserts the verdict; ``tools/plan/ground_truth_gpu.py`` launches each and counts the values that
differ from a reference. This file needs Triton only (no torch, no solver).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia import hopper
from triton.experimental.gluon.language.nvidia.ampere import async_copy as cp
from triton.experimental.gluon.language.nvidia.hopper import fence_async_shared, mbarrier, tma

# Names that differ between releases: the CTA barrier (thread_barrier up to 3.8, barrier
# after), the TMA store (async_copy_shared_to_global up to 3.7, async_store after).
_barrier = getattr(gl, "barrier", None) or gl.thread_barrier
_tma_store = getattr(tma, "async_store", None) or tma.async_copy_shared_to_global
# cp.async's copy was renamed in 3.8 (async_load); 3.9 drops the old name.
_cp_load = getattr(cp, "async_load", None) or cp.async_copy_global_to_shared

N: gl.constexpr = gl.constexpr(1024)
PLAIN: gl.constexpr = gl.constexpr(gl.SwizzledSharedLayout(1, 1, 1, [0]))


# --- (a) the call-frame bug through a helper with a constexpr argument -------------------------


@gluon.jit(noinline=True)
def _scaled_helper(x_ptr, y_ptr, SCALE: gl.constexpr):
    a: gl.constexpr = gl.BlockedLayout([1], [32], [gl.num_warps()], [0])
    b: gl.constexpr = gl.BlockedLayout([4], [32], [gl.num_warps()], [0])
    offs = gl.arange(0, N, layout=a)
    y = gl.convert_layout(gl.load(x_ptr + offs) * SCALE, b)  # scratch: a layout conversion
    total = gl.sum(y, axis=0)  # scratch: a cross-warp reduction
    gl.store(y_ptr + gl.arange(0, N, layout=b), y + total)


@gluon.jit
def frame_constexpr(x_ptr, y_ptr, out_ptr):
    """out = x through a 4 KiB buffer held across the call; y = 3x + sum(3x)."""
    lay: gl.constexpr = gl.BlockedLayout([1], [32], [gl.num_warps()], [0])
    offs = gl.arange(0, N, layout=lay)
    buf = gl.allocate_shared_memory(gl.float32, [N], PLAIN)
    buf.store(gl.load(x_ptr + offs))
    _barrier()
    _scaled_helper(x_ptr, y_ptr, 3.0)
    _barrier()
    gl.store(out_ptr + offs, buf.load(lay))


# --- (b) a TMA store still pending when its bytes are reused ---------------------------------

TBM: gl.constexpr = gl.constexpr(64)
TBN: gl.constexpr = gl.constexpr(128)


@gluon.jit
def _tma_tile(out_ptr, chk_ptr, M, WAIT_FIRST: gl.constexpr):
    """Tile pid of out (M x TBN fp32) = 1 + pid * TBM * TBN + its row-major index, stored by
    TMA from ``a``; then ``b`` holds the negated tile (read back into chk). No value is 0, so a
    negation is exact whichever sign of zero it gives."""
    lay: gl.constexpr = gl.NVMMASharedLayout.get_default_for([TBM, TBN], gl.float32)
    reg: gl.constexpr = gl.BlockedLayout([1, 4], [4, 8], [gl.num_warps(), 1], [1, 0])
    pid = gl.program_id(0)
    rows = gl.arange(0, TBM, layout=gl.SliceLayout(1, reg))
    cols = gl.arange(0, TBN, layout=gl.SliceLayout(0, reg))
    idx = rows[:, None] * TBN + cols[None, :]
    vals = (1 + pid * TBM * TBN + idx).to(gl.float32)
    desc = tma.make_tensor_descriptor(out_ptr, [M, TBN], [TBN, 1], [TBM, TBN], lay)
    a = gl.allocate_shared_memory(gl.float32, [TBM, TBN], lay, vals)
    fence_async_shared()
    _tma_store(desc, [pid * TBM, 0], a)
    if WAIT_FIRST:
        tma.store_wait(0)
    # For the allocator `a` dies at the copy op: `b` may take its bytes while the copy reads.
    b = gl.allocate_shared_memory(gl.float32, [TBM, TBN], lay, -vals)
    tma.store_wait(0)
    gl.store(chk_ptr + pid * TBM * TBN + idx, b.load(reg))


@gluon.jit
def tma_store_pending(out_ptr, chk_ptr, M):
    """The store is still pending when ``b`` is written over ``a``'s bytes."""
    _tma_tile(out_ptr, chk_ptr, M, False)


@gluon.jit
def tma_store_waited(out_ptr, chk_ptr, M):
    """The control: the store is waited for before ``b`` is written."""
    _tma_tile(out_ptr, chk_ptr, M, True)


# --- (c) shared stores the LLVM IR does not show as such -------------------------------------

# Every thread writes -1.0 at shared byte 16 of the kernel's window (element 4 of ``buf``, the
# only buffer, at offset 0); the asm's output is a dummy (an elementwise asm needs one).
_ST_SHARED: gl.constexpr = gl.constexpr("st.shared.b32 [global_smem+16], $1;\n\tmov.b32 $0, 0;")
_ST_GENERIC: gl.constexpr = gl.constexpr(
    "{\n\t.reg .b64 p;\n\tcvta.shared.u64 p, global_smem;\n\tst.b32 [p+16], $1;"
    "\n\tmov.b32 $0, 0;\n\t}"
)


@gluon.jit
def _asm_over_buffer(x_ptr, out_ptr, ASM: gl.constexpr):
    """out = x through a 4 KiB buffer, with ASM run between the buffer's store and its load."""
    lay: gl.constexpr = gl.BlockedLayout([1], [32], [gl.num_warps()], [0])
    offs = gl.arange(0, N, layout=lay)
    buf = gl.allocate_shared_memory(gl.float32, [N], PLAIN)
    buf.store(gl.load(x_ptr + offs))
    _barrier()
    gl.inline_asm_elementwise(ASM, "=r,r", [gl.full([N], -1.0, gl.float32, lay)],
                              dtype=gl.int32, is_pure=False, pack=1)  # fmt: skip
    _barrier()
    gl.store(out_ptr + offs, buf.load(lay))


@gluon.jit
def asm_shared_store(x_ptr, out_ptr):
    """out = x, but for out[4] = -1: st.shared on a constant address inside ``buf``."""
    _asm_over_buffer(x_ptr, out_ptr, _ST_SHARED)


@gluon.jit
def asm_generic_store(x_ptr, out_ptr):
    """out = x, but for out[4] = -1: a generic store into ``buf`` through cvta.shared."""
    _asm_over_buffer(x_ptr, out_ptr, _ST_GENERIC)


# --- (d) an ordinary access past its own buffer, inside ttg.shared ------------------------------


@gluon.jit
def _staged_sum(x_ptr, out_ptr, n, SLOTS: gl.constexpr, MODE: gl.constexpr, K: gl.constexpr):
    """out = x_0 + ... + x_(n-1) (rows of N), summed in ``stats``; row k is staged through
    ring slot ``k % K`` (MODE 0), ``k & K`` (1) or ``K`` (2). A slot index past SLOTS - 1
    writes the bytes after the ring: ``stats``, which the allocator places there."""
    lay: gl.constexpr = gl.BlockedLayout([1], [32], [gl.num_warps()], [0])
    offs = gl.arange(0, N, layout=lay)
    ring = gl.allocate_shared_memory(gl.float32, [SLOTS, N], PLAIN)
    stats = gl.allocate_shared_memory(gl.float32, [N], PLAIN, gl.zeros([N], gl.float32, lay))
    for k in range(n):
        if MODE == 0:
            slot = k % K
        elif MODE == 1:
            slot = k & K
        else:
            slot = K
        ring.index(slot).store(gl.load(x_ptr + k * N + offs))
        _barrier()
        stats.store(stats.load(lay) + ring.index(slot).load(lay))
        _barrier()
    gl.store(out_ptr + offs, stats.load(lay))


@gluon.jit
def ring_mod3(x_ptr, out_ptr, n):
    """Two slots indexed ``k % 3``: the third row lands on ``stats`` (out = 2 x_2 for n = 3)."""
    _staged_sum(x_ptr, out_ptr, n, 2, 0, 3)


@gluon.jit
def ring_mod3_fixed(x_ptr, out_ptr, n):
    """Control of ring_mod3: three slots."""
    _staged_sum(x_ptr, out_ptr, n, 3, 0, 3)


@gluon.jit
def ring_and3(x_ptr, out_ptr, n):
    """Three slots indexed ``k & 3``: row 3 (of n = 4) lands on ``stats``."""
    _staged_sum(x_ptr, out_ptr, n, 3, 1, 3)


@gluon.jit
def ring_and3_fixed(x_ptr, out_ptr, n):
    """Control of ring_and3: four slots."""
    _staged_sum(x_ptr, out_ptr, n, 4, 1, 3)


@gluon.jit
def ring_const2(x_ptr, out_ptr, n):
    """Two slots, always slot 2: every row lands on ``stats``."""
    _staged_sum(x_ptr, out_ptr, n, 2, 2, 2)


@gluon.jit
def ring_const1(x_ptr, out_ptr, n):
    """Control of ring_const2: always slot 1."""
    _staged_sum(x_ptr, out_ptr, n, 2, 2, 1)


@gluon.jit
def _wide_view(x_ptr, out_ptr, WIDE: gl.constexpr):
    """out = x (2N values): ``keep`` holds x[N:]; the first N go through ``buf``, written
    through a reinterpreted view of WIDE values (2N: past ``buf``, over ``keep``)."""
    lay: gl.constexpr = gl.BlockedLayout([1], [32], [gl.num_warps()], [0])
    offs = gl.arange(0, N, layout=lay)
    buf = gl.allocate_shared_memory(gl.float32, [N], PLAIN)
    keep = gl.allocate_shared_memory(gl.float32, [N], PLAIN, gl.load(x_ptr + N + offs))
    view = buf._reinterpret(gl.float32, [WIDE], PLAIN)
    woffs = gl.arange(0, WIDE, layout=lay)
    view.store(gl.where(woffs < N, gl.load(x_ptr + woffs, mask=woffs < N, other=0.0), -1.0))
    _barrier()
    gl.store(out_ptr + offs, buf.load(lay))
    gl.store(out_ptr + N + offs, keep.load(lay))


@gluon.jit
def reinterpret_over(x_ptr, out_ptr):
    """A view of 2N values over an N-value buffer: out[N:] = -1."""
    _wide_view(x_ptr, out_ptr, 2 * N)


@gluon.jit
def reinterpret_fits(x_ptr, out_ptr):
    """Control of reinterpret_over: a view of N values."""
    _wide_view(x_ptr, out_ptr, N)


# --- (e) a cp.async still in flight when its buffer's bytes go to another -------------------


@gluon.jit
def _copy_then_reuse(x_ptr, out_ptr, WAIT_FIRST: gl.constexpr):
    """out = -1 (written through ``b``); ``a`` takes x by cp.async and is never read. Its
    bytes are free for ``b`` once the copy is issued, as far as the allocator can see: unless
    the copy is waited for first, it lands on ``b`` after ``b`` is written (out = x)."""
    lay: gl.constexpr = gl.BlockedLayout([1], [32], [gl.num_warps()], [0])
    offs = gl.arange(0, N, layout=lay)
    a = gl.allocate_shared_memory(gl.float32, [N], PLAIN)
    _cp_load(a, x_ptr + offs)
    cp.commit_group()
    if WAIT_FIRST:
        cp.wait_group(0)
    b = gl.allocate_shared_memory(gl.float32, [N], PLAIN)
    b.store(gl.full([N], -1.0, gl.float32, lay))
    cp.wait_group(0)
    _barrier()
    gl.store(out_ptr + offs, b.load(lay))


@gluon.jit
def cp_async_pending(x_ptr, out_ptr):
    """The copy into ``a`` pending while ``b`` takes its bytes."""
    _copy_then_reuse(x_ptr, out_ptr, False)


@gluon.jit
def cp_async_waited(x_ptr, out_ptr):
    """Control: the copy waited for before ``b`` exists."""
    _copy_then_reuse(x_ptr, out_ptr, True)


# --- (f) an async wgmma still reading when its operands' bytes go to another ----------------

T: gl.constexpr = gl.constexpr(64)


@gluon.jit
def _mma_then_reuse(x_ptr, out_ptr, chk_ptr, WAIT_FIRST: gl.constexpr):
    """out = x @ I (a 64x64 fp16 tile, exact in fp32) by an async wgmma whose operands are
    never named again: the wait's deps hold only the accumulator, so for the allocator ``a``
    and ``b`` die at the wgmma's issue and ``c`` (-1 everywhere, read back into chk) may
    take their bytes while the wgmma still reads them."""
    smem: gl.constexpr = gl.NVMMASharedLayout.get_default_for([T, T], gl.float16)
    acc_lay: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                      instr_shape=[16, T, 16])  # fmt: skip
    blk: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    rows = gl.arange(0, T, layout=gl.SliceLayout(1, blk))
    cols = gl.arange(0, T, layout=gl.SliceLayout(0, blk))
    offs = rows[:, None] * T + cols[None, :]
    a = gl.allocate_shared_memory(gl.float16, [T, T], smem, gl.load(x_ptr + offs))
    eye = gl.where(rows[:, None] == cols[None, :], 1.0, 0.0).to(gl.float16)
    b = gl.allocate_shared_memory(gl.float16, [T, T], smem, eye)
    fence_async_shared()
    acc = hopper.warpgroup_mma(a, b, gl.zeros([T, T], gl.float32, acc_lay), is_async=True)
    if WAIT_FIRST:
        acc = hopper.warpgroup_mma_wait(0, deps=[acc])
    c = gl.allocate_shared_memory(gl.float16, [2, T, T], smem)
    c.index(0).store(gl.full([T, T], -1.0, gl.float16, blk))
    c.index(1).store(gl.full([T, T], -1.0, gl.float16, blk))
    acc = hopper.warpgroup_mma_wait(0, deps=[acc])
    gl.store(out_ptr + offs, gl.convert_layout(acc, blk))
    _barrier()
    gl.store(chk_ptr + offs, c.index(0).load(blk).to(gl.float32))


@gluon.jit
def wgmma_pending(x_ptr, out_ptr, chk_ptr):
    """The wgmma still reading ``a`` and ``b`` while ``c`` is written over them."""
    _mma_then_reuse(x_ptr, out_ptr, chk_ptr, False)


@gluon.jit
def wgmma_waited(x_ptr, out_ptr, chk_ptr):
    """Control: the wgmma waited for before ``c`` exists."""
    _mma_then_reuse(x_ptr, out_ptr, chk_ptr, True)


# --- (g) a TMA load still in flight when its buffer's bytes go to another -------------------


@gluon.jit
def _load_then_reuse(x_ptr, out_ptr, M, WAIT_FIRST: gl.constexpr):
    """out tile pid = -(1 + its index in x) (written through ``b``); ``a`` takes the tile of x
    by a TMA load that completes on ``bar`` and is never read. For the allocator ``a`` dies at
    the load: unless the barrier is waited on first, the load lands on ``b`` after ``b`` is
    written (out = x)."""
    lay: gl.constexpr = gl.NVMMASharedLayout.get_default_for([TBM, TBN], gl.float32)
    reg: gl.constexpr = gl.BlockedLayout([1, 4], [4, 8], [gl.num_warps(), 1], [1, 0])
    pid = gl.program_id(0)
    rows = gl.arange(0, TBM, layout=gl.SliceLayout(1, reg))
    cols = gl.arange(0, TBN, layout=gl.SliceLayout(0, reg))
    idx = rows[:, None] * TBN + cols[None, :]
    desc = tma.make_tensor_descriptor(x_ptr, [M, TBN], [TBN, 1], [TBM, TBN], lay)
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    a = gl.allocate_shared_memory(gl.float32, [TBM, TBN], lay)
    mbarrier.expect(bar, TBM * TBN * 4)
    tma.async_copy_global_to_shared(desc, [pid * TBM, 0], bar, a)
    if WAIT_FIRST:
        mbarrier.wait(bar, 0)
    b = gl.allocate_shared_memory(gl.float32, [TBM, TBN], lay,
                                  -(1 + pid * TBM * TBN + idx).to(gl.float32))  # fmt: skip
    if not WAIT_FIRST:
        mbarrier.wait(bar, 0)
    _barrier()
    gl.store(out_ptr + pid * TBM * TBN + idx, b.load(reg))
    mbarrier.invalidate(bar)


@gluon.jit
def tma_load_pending(x_ptr, out_ptr, M):
    """The load into ``a`` pending while ``b`` takes its bytes."""
    _load_then_reuse(x_ptr, out_ptr, M, False)


@gluon.jit
def tma_load_waited(x_ptr, out_ptr, M):
    """Control: the load waited for before ``b`` exists."""
    _load_then_reuse(x_ptr, out_ptr, M, True)


# --- (h) an mbarrier array indexed past its end ----------------------------------------------


@gluon.jit
def _barrier_overrun(x_ptr, out_ptr, FIRST: gl.constexpr):
    """out = x[:4] through ``keep`` (16 bytes, placed after ``bars`` by the allocator: the
    smaller buffer goes last); barriers FIRST and FIRST+1 of a 4-slot array are initialised
    while ``keep`` is live. From slot 4 on they are ``keep``'s bytes."""
    lay: gl.constexpr = gl.BlockedLayout([1], [32], [gl.num_warps()], [0])
    offs = gl.arange(0, 4, layout=lay)
    bars = gl.allocate_shared_memory(gl.int64, [4, 1], mbarrier.MBarrierLayout())
    keep = gl.allocate_shared_memory(gl.float32, [4], PLAIN, gl.load(x_ptr + offs))
    _barrier()
    mbarrier.init(bars.index(FIRST), count=1)
    mbarrier.init(bars.index(FIRST + 1), count=1)
    _barrier()
    gl.store(out_ptr + offs, keep.load(lay))
    mbarrier.invalidate(bars.index(FIRST))
    mbarrier.invalidate(bars.index(FIRST + 1))


@gluon.jit
def mbarrier_over(x_ptr, out_ptr):
    """Barriers 4 and 5 of 4."""
    _barrier_overrun(x_ptr, out_ptr, 4)


@gluon.jit
def mbarrier_fits(x_ptr, out_ptr):
    """Control: barriers 2 and 3 of 4."""
    _barrier_overrun(x_ptr, out_ptr, 2)


# --- (i) a view built in a callee, past its ring ---------------------------------------------


@gluon.jit(noinline=True)
def _store_slot(ring, x_ptr, SLOT: gl.constexpr):
    lay: gl.constexpr = gl.BlockedLayout([1], [32], [gl.num_warps()], [0])
    ring.index(SLOT).store(gl.load(x_ptr + gl.arange(0, N, layout=lay)) * 2.0)


@gluon.jit
def _callee_view(x_ptr, out_ptr, SLOT: gl.constexpr):
    """out = x through ``keep``, live across a call that writes slot SLOT of a 2-slot ring
    (allocated before ``keep``; slot 2 is ``keep``'s bytes)."""
    lay: gl.constexpr = gl.BlockedLayout([1], [32], [gl.num_warps()], [0])
    offs = gl.arange(0, N, layout=lay)
    ring = gl.allocate_shared_memory(gl.float32, [2, N], PLAIN)
    keep = gl.allocate_shared_memory(gl.float32, [N], PLAIN, gl.load(x_ptr + offs))
    _store_slot(ring, x_ptr, SLOT)
    _barrier()
    gl.store(out_ptr + offs, keep.load(lay) + 0.0 * ring.index(0).load(lay))


@gluon.jit
def callee_view_over(x_ptr, out_ptr):
    """Slot 2 of 2, written in the callee."""
    _callee_view(x_ptr, out_ptr, 2)


@gluon.jit
def callee_view_fits(x_ptr, out_ptr):
    """Control: slot 1 of 2."""
    _callee_view(x_ptr, out_ptr, 1)


# --- false alarm: one buffer in each branch of an scf.if -----------------------------------------


@gluon.jit
def if_branches(x_ptr, out_ptr, flag):
    """out = 2x + 1 when flag > 0, else x - 1; each branch through its own buffer, and a
    layout conversion (scratch) after the branch."""
    lay: gl.constexpr = gl.BlockedLayout([1], [32], [gl.num_warps()], [0])
    other: gl.constexpr = gl.BlockedLayout([4], [32], [gl.num_warps()], [0])
    offs = gl.arange(0, N, layout=lay)
    x = gl.load(x_ptr + offs)
    if flag > 0:
        a = gl.allocate_shared_memory(gl.float32, [N], PLAIN, x * 2.0)
        _barrier()
        y = a.load(lay) + 1.0
    else:
        b = gl.allocate_shared_memory(gl.float32, [N], PLAIN, x)
        _barrier()
        y = b.load(lay) - 1.0
    z = gl.convert_layout(y, other)
    gl.store(out_ptr + gl.arange(0, N, layout=other), z)


# --- false alarm: warp-specialize partitions with their own buffers, one SSA name ----------

WB: gl.constexpr = gl.constexpr(128)
SLOTS: gl.constexpr = gl.constexpr(2)


@gluon.jit
def _ws_default(ring, full, empty, out_ptr, n):
    lay: gl.constexpr = gl.BlockedLayout([1], [32], [4], [0])
    offs = gl.arange(0, WB, layout=lay)
    # A buffer dead before the loop: the allocator may give its bytes to `mine` below.
    first = gl.allocate_shared_memory(gl.float32, [WB], PLAIN, gl.full([WB], 0.5, gl.float32, lay))
    _barrier()
    acc = first.load(lay)
    for i in range(n):
        slot = i % SLOTS
        mbarrier.wait(full.index(slot), (i // SLOTS) & 1)
        acc += ring.index(slot).load(lay)
        mbarrier.arrive(empty.index(slot), count=1)
    mine = gl.allocate_shared_memory(gl.float32, [WB], PLAIN, acc)
    _barrier()
    back = mine.load(lay)
    gl.store(out_ptr + offs, back + gl.sum(back, axis=0))


@gluon.jit
def _ws_worker(ring, full, empty, in_ptr, side_ptr, n):
    lay: gl.constexpr = gl.BlockedLayout([1], [32], [1], [0])
    offs = gl.arange(0, WB, layout=lay)
    seen = gl.zeros([WB], gl.float32, lay)
    for i in range(n):
        slot = i % SLOTS
        mbarrier.wait(empty.index(slot), ((i // SLOTS) & 1) ^ 1)
        v = gl.load(in_ptr + i * WB + offs)
        ring.index(slot).store(v)
        mbarrier.arrive(full.index(slot), count=1)
        seen = gl.maximum(seen, v)
    # The same name as the default partition's buffer: one SSA name, two buffers, two regions.
    mine = gl.allocate_shared_memory(gl.float32, [WB], PLAIN, seen)
    back = mine.load(lay)
    gl.store(side_ptr + offs, back + gl.max(back, axis=0))


@gluon.jit
def ws_private(in_ptr, out_ptr, side_ptr, n):
    """out = s + sum(s) with s = 0.5 + the column sums of in (n x WB); side = m + max(m) with
    m the column maxima (of 0 and in)."""
    ring = gl.allocate_shared_memory(gl.float32, [SLOTS, WB], PLAIN)
    full = gl.allocate_shared_memory(gl.int64, [SLOTS, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [SLOTS, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(SLOTS):
        mbarrier.init(full.index(s), count=1)
        mbarrier.init(empty.index(s), count=1)
    gl.warp_specialize(
        [
            (_ws_default, (ring, full, empty, out_ptr, n)),
            (_ws_worker, (ring, full, empty, in_ptr, side_ptr, n)),
        ],
        [1],
        [48],
    )


@dataclass(frozen=True)
class Case:
    name: str
    fn: Any
    signature: dict[str, str]
    # The verdict a right validator gives: "findings", "clean", or "partial" (something in it
    # the validator does not model; never "clean").
    expect: str
    corrupts: bool  # whether Triton's code writes wrong values (what the GPU run must show)
    klass: str  # the class of issue 17 it stands for
    options: dict[str, Any] = field(default_factory=lambda: {"num_warps": 4})
    # Set where the validator's verdict is known to be wrong today: the CPU test is then an
    # xfail(strict=True) with this reason, so it starts failing the day the verdict is fixed.
    known_wrong: str | None = None


F32 = "*fp32"
_TMA = {"out_ptr": F32, "chk_ptr": F32, "M": "i32"}
_XO = {"x_ptr": F32, "out_ptr": F32}
_XON = {**_XO, "n": "i32"}
_MMA = {"x_ptr": "*fp16", "out_ptr": F32, "chk_ptr": F32}
_LOAD = {"x_ptr": F32, "out_ptr": F32, "M": "i32"}
CASES: dict[str, Case] = {
    c.name: c
    for c in (
        Case("frame_constexpr", frame_constexpr, {"x_ptr": F32, "y_ptr": F32, "out_ptr": F32},
             "findings", True, "(a) call frame of a noinline helper with a constexpr argument"),
        Case("tma_store_pending", tma_store_pending, _TMA, "findings", True,
             "(b) a TMA store pending when its bytes go to another buffer"),
        Case("tma_store_waited", tma_store_waited, _TMA, "clean", False,
             "control of (b): the store waited for first"),
        Case("asm_shared_store", asm_shared_store, _XO, "partial", True,
             "(c) st.shared in inline asm on a constant address"),
        Case("asm_generic_store", asm_generic_store, _XO, "partial", True,
             "(c) a generic store to shared memory (cvta.shared) in inline asm"),
        Case("if_branches", if_branches, {"x_ptr": F32, "out_ptr": F32, "flag": "i32"},
             "clean", False, "false alarm: buffers in the two branches of an scf.if"),
        Case("ws_private", ws_private,
             {"in_ptr": F32, "out_ptr": F32, "side_ptr": F32, "n": "i32"}, "clean", False,
             "false alarm: warp-specialize partitions with their own buffers, one SSA name "
             "in two regions"),
        # (d): the slot index of a loop counter is known only by its bounds (n is an
        # argument): the access is named as one that can leave its ring, not judged.
        Case("ring_mod3", ring_mod3, _XON, "partial", True,
             "(d) a 2-slot ring indexed k % 3, over the live buffer after it"),
        Case("ring_mod3_fixed", ring_mod3_fixed, _XON, "clean", False,
             "control of (d): a 3-slot ring indexed k % 3"),
        Case("ring_and3", ring_and3, _XON, "partial", True,
             "(d) a 3-slot ring indexed k & 3, over the live buffer after it"),
        Case("ring_and3_fixed", ring_and3_fixed, _XON, "clean", False,
             "control of (d): a 4-slot ring indexed k & 3"),
        Case("ring_const2", ring_const2, _XON, "findings", True,
             "(d) slot 2 of a 2-slot ring"),
        Case("ring_const1", ring_const1, _XON, "clean", False, "control of (d): slot 1"),
        Case("reinterpret_over", reinterpret_over, _XO, "findings", True,
             "(d) a reinterpreted view twice its buffer's size"),
        Case("reinterpret_fits", reinterpret_fits, _XO, "clean", False,
             "control of (d): a reinterpreted view of its buffer's size"),
        Case("cp_async_pending", cp_async_pending, _XO, "findings", True,
             "(e) a cp.async pending when its buffer's bytes go to another"),
        Case("cp_async_waited", cp_async_waited, _XO, "clean", False,
             "control of (e): the copy waited for first"),
        # The PTX ISA leaves writing an in-flight wgmma's operands undefined (the LLVM IR
        # stores over them between the commit and the wait); on an H200 the wgmma had read
        # them first in 20 of 20 launches, so the GPU does not show it.
        Case("wgmma_pending", wgmma_pending, _MMA, "findings", False,
             "(f) an async wgmma still reading when its operands' bytes go to another"),
        Case("wgmma_waited", wgmma_waited, _MMA, "clean", False,
             "control of (f): the wgmma waited for first"),
        Case("tma_load_pending", tma_load_pending, _LOAD, "findings", True,
             "(g) a TMA load pending when its buffer's bytes go to another"),
        Case("tma_load_waited", tma_load_waited, _LOAD, "clean", False,
             "control of (g): the load's barrier waited on first"),
        # The init writes the neighbour's bytes by the PTX ISA's definition, yet on an H200 a
        # plain load of them after the init (and after an arrive) read the values stored
        # before, with counts 1, 2, 7 and 100 and int32 or fp32 data: the GPU does not show it.
        Case("mbarrier_over", mbarrier_over, _XO, "findings", False,
             "(h) barriers 4 and 5 of a 4-slot mbarrier array"),
        Case("mbarrier_fits", mbarrier_fits, _XO, "clean", False,
             "control of (h): barriers 2 and 3 of 4"),
        Case("callee_view_over", callee_view_over, _XO, "findings", True,
             "(i) slot 2 of a 2-slot ring, indexed in a non-inlined callee"),
        Case("callee_view_fits", callee_view_fits, _XO, "clean", False,
             "control of (i): slot 1, in the callee"),
    )
}  # fmt: skip
