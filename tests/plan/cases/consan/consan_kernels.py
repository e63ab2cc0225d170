"""Kernels that replay the scenarios of Triton's ConSan tests, for ``alias-spec plan --races``.

Triton's concurrency sanitizer (ConSan) has Gluon tests in ``python/test/gluon/test_consan.py``;
the version read here is the one written against the Gluon API of Triton 3.6 (warp_specialize
over a list of (function, args), ``tma.async_copy_global_to_shared``, ``triton.set_allocator``).
Each test launches a small kernel twice: a variant ConSan must stop (a device-side assert naming
the unordered access, a deadlock or a barrier count) and, where the test has one, a variant it
must let run. The kernels below are written here from what each test does, not copied; every
case names the test it mirrors, what ConSan expects of it and its scenario in one line.

Left out, because they need Blackwell (tcgen05 MMA, tensor memory) and do not compile for
sm_90: ``test_tcgen5_mma``, ``test_tcgen5_mma_multibar``, ``test_multibuffered_loop`` and
``test_aliasing_tensor_visibility_outstanding_read``. ``test_cache_miss_knob`` and
``test_cache_miss_env`` launch one kernel (``cp_async_same_tile_twice``) and differ only in how
ConSan is switched on.

Tiles are 64 x 64 fp16 (the tests use 128; the scenarios do not depend on the size, and smaller
tiles keep the z3 questions few); 1-D buffers hold 128 elements, one per thread of 4 warps. The
cp.async scenarios copy fp32 (cp.async moves at least 4 bytes a thread) into 1-D buffers (one
copy a thread: a 2-D tile's hundreds of copies run the pair check past its budget).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia import hopper
from triton.experimental.gluon.language.nvidia.ampere import async_copy as cp
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma

T: gl.constexpr = gl.constexpr(64)  # a 2-D tile's side
N1: gl.constexpr = gl.constexpr(128)  # a 1-D buffer's length
TILE_BYTES: gl.constexpr = gl.constexpr(64 * 64 * 2)
NVMMA: gl.constexpr = gl.constexpr(
    gl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2)
)
FLAT1: gl.constexpr = gl.constexpr(gl.SwizzledSharedLayout(1, 1, 1, [0]))
FLAT2: gl.constexpr = gl.constexpr(gl.SwizzledSharedLayout(1, 1, 1, [1, 0]))
TILE_REG: gl.constexpr = gl.constexpr(gl.BlockedLayout([1, 8], [8, 4], [4, 1], [1, 0]))
VEC: gl.constexpr = gl.constexpr(gl.BlockedLayout([1], [32], [4], [0]))
VEC2: gl.constexpr = gl.constexpr(gl.BlockedLayout([1], [32], [2], [0]))
VEC8: gl.constexpr = gl.constexpr(gl.BlockedLayout([1], [32], [8], [0]))
ACC: gl.constexpr = gl.constexpr(
    gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 64, 16])
)


@gluon.jit
def _tile_offsets(cols: gl.constexpr):
    rows = gl.arange(0, T, layout=gl.SliceLayout(1, TILE_REG))
    cc = gl.arange(0, cols, layout=gl.SliceLayout(0, TILE_REG))
    return rows[:, None] * cols + cc[None, :]


@gluon.jit
def _desc(ptr):
    return tma.make_tensor_descriptor(ptr, [T, T], [T, 1], [T, T], NVMMA)


# --- cp.async (test_cache_miss_knob / _env, test_async_copy) ---------------------------------


@gluon.jit
def cp_async_same_tile_twice(x_ptr):
    buf = gl.allocate_shared_memory(gl.float32, [N1], FLAT1)
    src = x_ptr + gl.arange(0, N1, layout=VEC)
    cp.async_copy_global_to_shared(buf, src)
    cp.commit_group()
    # A second group into the same bytes while the first may still be landing.
    cp.async_copy_global_to_shared(buf, src)
    cp.commit_group()
    cp.wait_group(0)


@gluon.jit
def cp_async_slot_reuse(x_ptr, BUG: gl.constexpr):
    ring = gl.allocate_shared_memory(gl.float32, [2, N1], FLAT1)
    src = x_ptr + gl.arange(0, N1, layout=VEC)
    cp.async_copy_global_to_shared(ring.index(0), src)
    cp.commit_group()
    cp.async_copy_global_to_shared(ring.index(1), src)
    cp.commit_group()
    if BUG:
        cp.wait_group(2)  # retires nothing: slot 0's group is still pending
    else:
        cp.wait_group(1)  # slot 0's group has landed
    cp.async_copy_global_to_shared(ring.index(0), src)
    cp.commit_group()
    cp.wait_group(0)


# --- TMA loads and stores (test_async_tma_kernel[_2bufs_1bar], test_tma_interleave_kernel,
# test_tma_store) -----------------------------------------------------------------------------


@gluon.jit
def tma_read_before_wait(x_ptr, out_ptr, BUG: gl.constexpr):
    buf = gl.allocate_shared_memory(gl.float16, [T, T], NVMMA)
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, TILE_BYTES)
    tma.async_copy_global_to_shared(_desc(x_ptr), [0, 0], bar, buf)
    if not BUG:
        mbarrier.wait(bar, 0)
    v = buf.load(TILE_REG)
    if BUG:
        mbarrier.wait(bar, 0)
    mbarrier.invalidate(bar)
    gl.store(out_ptr + _tile_offsets(T), v)


@gluon.jit
def tma_two_tiles_one_bar(a_ptr, b_ptr, out_ptr, BUG: gl.constexpr):
    sa = gl.allocate_shared_memory(gl.float16, [T, T], NVMMA)
    sb = gl.allocate_shared_memory(gl.float16, [T, T], NVMMA)
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, 2 * TILE_BYTES)
    tma.async_copy_global_to_shared(_desc(a_ptr), [0, 0], bar, sa)
    tma.async_copy_global_to_shared(_desc(b_ptr), [0, 0], bar, sb)
    if not BUG:
        mbarrier.wait(bar, 0)
    v = sa.load(TILE_REG) + sb.load(TILE_REG)
    if BUG:
        mbarrier.wait(bar, 0)
    mbarrier.invalidate(bar)
    gl.store(out_ptr + _tile_offsets(T), v)


@gluon.jit
def tma_interleave(x_ptr, out_ptr, BUG: gl.constexpr):
    ring = gl.allocate_shared_memory(gl.float16, [2, T, T], NVMMA)
    bars = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    desc = _desc(x_ptr)
    for s in gl.static_range(2):
        mbarrier.init(bars.index(s), count=1)
        mbarrier.expect(bars.index(s), TILE_BYTES)
        tma.async_copy_global_to_shared(desc, [0, 0], bars.index(s), ring.index(s))
    mbarrier.wait(bars.index(0), 0)
    if not BUG:
        mbarrier.wait(bars.index(1), 0)  # the bug: slot 1 is read without its own wait
    v = ring.index(0).load(TILE_REG) + ring.index(1).load(TILE_REG)
    for s in gl.static_range(2):
        mbarrier.invalidate(bars.index(s))
    gl.store(out_ptr + _tile_offsets(T), v)


@gluon.jit
def tma_store_slot_reuse(y_ptr, BUG: gl.constexpr):
    ring = gl.allocate_shared_memory(gl.float16, [2, T, T], NVMMA)
    desc = _desc(y_ptr)
    tma.async_copy_shared_to_global(desc, [0, 0], ring.index(0))
    tma.async_copy_shared_to_global(desc, [0, 0], ring.index(1))
    tma.store_wait(1)  # slot 0's store has read its bytes; slot 1's may not have
    fill = gl.full([T, T], 3.0, gl.float16, TILE_REG)
    ring.index(0).store(fill)
    if not BUG:
        tma.store_wait(0)
    ring.index(1).store(fill)


# --- wgmma operands (test_warpgroup_mma, test_warpgroup_mma2, test_multibuffered_wgmma_loop) --


@gluon.jit
def wgmma_operand_overwrite(out_ptr, BUG: gl.constexpr):
    sa = gl.allocate_shared_memory(gl.float16, [T, T], NVMMA)
    sb = gl.allocate_shared_memory(gl.float16, [T, T], NVMMA)
    acc = gl.zeros([T, T], gl.float32, ACC)
    acc = hopper.warpgroup_mma(sa, sb, acc, is_async=True)
    fill = gl.full([T, T], 2.0, gl.float16, TILE_REG)
    if BUG:
        sa.store(fill)  # A is still an operand of the MMA in flight
    acc = hopper.warpgroup_mma_wait(num_outstanding=0, deps=[acc])
    sa.store(fill)
    gl.store(out_ptr + _tile_offsets(T), gl.convert_layout(acc, TILE_REG))


@gluon.jit
def wgmma_two_in_flight(out_ptr, BUG: gl.constexpr):
    sa = gl.allocate_shared_memory(gl.float16, [T, T], NVMMA)
    sb = gl.allocate_shared_memory(gl.float16, [T, T], NVMMA)
    acc = gl.zeros([T, T], gl.float32, ACC)
    acc = hopper.warpgroup_mma(sa, sb, acc, is_async=True)
    acc = hopper.warpgroup_mma(sa, sb, acc, is_async=True)
    acc = hopper.warpgroup_mma_wait(num_outstanding=1, deps=[acc])  # the second still reads A
    fill = gl.full([T, T], 2.0, gl.float16, TILE_REG)
    if BUG:
        sa.store(fill)
    acc = hopper.warpgroup_mma_wait(num_outstanding=0, deps=[acc])
    sa.store(fill)
    gl.store(out_ptr + _tile_offsets(T), gl.convert_layout(acc, TILE_REG))


@gluon.jit
def wgmma_tma_ring(x_ptr, out_ptr, SLOTS: gl.constexpr, STEPS: gl.constexpr):
    # One MMA may stay in flight (wait(1)) while the next slot is loaded: the slot loaded at
    # step i + 1 was read by the MMA of step i + 1 - SLOTS, retired only when SLOTS >= 3.
    sa = gl.allocate_shared_memory(gl.float16, [SLOTS, T, T], NVMMA)
    sb = gl.allocate_shared_memory(gl.float16, [SLOTS, T, T], NVMMA)
    bars = gl.allocate_shared_memory(gl.int64, [SLOTS, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(SLOTS):
        mbarrier.init(bars.index(s), count=1)
    desc = _desc(x_ptr)
    mbarrier.expect(bars.index(0), 2 * TILE_BYTES)
    tma.async_copy_global_to_shared(desc, [0, 0], bars.index(0), sa.index(0))
    tma.async_copy_global_to_shared(desc, [0, 0], bars.index(0), sb.index(0))
    acc = gl.zeros([T, T], gl.float32, ACC)
    for i in range(STEPS):
        if i + 1 < STEPS:
            nxt = (i + 1) % SLOTS
            mbarrier.expect(bars.index(nxt), 2 * TILE_BYTES)
            tma.async_copy_global_to_shared(desc, [0, 0], bars.index(nxt), sa.index(nxt))
            tma.async_copy_global_to_shared(desc, [0, 0], bars.index(nxt), sb.index(nxt))
        cur = i % SLOTS
        mbarrier.wait(bars.index(cur), (i // SLOTS) & 1)
        acc = hopper.warpgroup_mma(sa.index(cur), sb.index(cur), acc, is_async=True)
        acc = hopper.warpgroup_mma_wait(num_outstanding=1, deps=[acc])
    acc = hopper.warpgroup_mma_wait(num_outstanding=0, deps=[acc])
    for s in gl.static_range(SLOTS):
        mbarrier.invalidate(bars.index(s))
    gl.store(out_ptr + _tile_offsets(T), gl.convert_layout(acc, TILE_REG))


# --- warp-specialized partitions ordered by mbarriers (test_ws_*) ----------------------------


@gluon.jit
def _ramp():
    return gl.arange(0, N1, layout=VEC).to(gl.float16)


@gluon.jit
def _finish(buf, bar, out_ptr):
    """After the partitions: wait for the last signal, then write slot 0 out."""
    mbarrier.wait(bar, 0)
    gl.store(out_ptr + gl.arange(0, N1, layout=VEC), buf.index(0).load(VEC))


@gluon.jit
def _sw_reader(buf, bars, BUG: gl.constexpr):
    if not BUG:
        mbarrier.wait(bars.index(0), 0)
    buf.index(1).store(buf.index(0).load(VEC))
    mbarrier.arrive(bars.index(1), count=1)


@gluon.jit
def _sw_writer(buf, bars, BUG: gl.constexpr):
    buf.index(0).store(_ramp())
    mbarrier.arrive(bars.index(0), count=1)


@gluon.jit
def ws_store_wait_load(out_ptr, BUG: gl.constexpr):
    buf = gl.allocate_shared_memory(gl.float16, [2, N1], FLAT1)
    bars = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(2):
        mbarrier.init(bars.index(s), count=1)
    gl.warp_specialize([(_sw_reader, (buf, bars, BUG)), (_sw_writer, (buf, bars, BUG))],
                       [4], [32])  # fmt: skip
    _finish(buf, bars.index(1), out_ptr)


@gluon.jit
def _lw_writer(buf, bars, BUG: gl.constexpr):
    if not BUG:
        mbarrier.wait(bars.index(0), 0)
    buf.index(0).store(_ramp())
    mbarrier.arrive(bars.index(1), count=1)


@gluon.jit
def _lw_reader(buf, bars, BUG: gl.constexpr):
    v = buf.index(0).load(VEC)
    mbarrier.arrive(bars.index(0), count=1)
    buf.index(1).store(v)  # keeps the load


@gluon.jit
def ws_load_wait_store(out_ptr, BUG: gl.constexpr):
    buf = gl.allocate_shared_memory(gl.float16, [2, N1], FLAT1)
    bars = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(2):
        mbarrier.init(bars.index(s), count=1)
    gl.warp_specialize([(_lw_writer, (buf, bars, BUG)), (_lw_reader, (buf, bars, BUG))],
                       [4], [32])  # fmt: skip
    _finish(buf, bars.index(1), out_ptr)


@gluon.jit
def _copy_slot0(buf, bar, dst: gl.constexpr):
    v = buf.index(0).load(VEC)
    mbarrier.arrive(bar, count=1)
    buf.index(dst).store(v)


@gluon.jit
def _tr_writer(buf, bars, done, SKIP: gl.constexpr):
    # SKIP 1 or 2: the writer does not wait for reader 1 or 2 to release slot 0.
    if SKIP != 1:
        mbarrier.wait(bars.index(0), 0)
    if SKIP != 2:
        mbarrier.wait(bars.index(1), 0)
    buf.index(0).store(_ramp())
    mbarrier.arrive(done, count=1)


@gluon.jit
def _tr_reader0(buf, bars, done, SKIP: gl.constexpr):
    _copy_slot0(buf, bars.index(0), 1)


@gluon.jit
def _tr_reader1(buf, bars, done, SKIP: gl.constexpr):
    _copy_slot0(buf, bars.index(1), 2)


@gluon.jit
def ws_two_readers_two_bars(out_ptr, SKIP: gl.constexpr):
    buf = gl.allocate_shared_memory(gl.float16, [3, N1], FLAT1)
    bars = gl.allocate_shared_memory(gl.int64, [3, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(3):
        mbarrier.init(bars.index(s), count=1)
    args = (buf, bars, bars.index(2), SKIP)
    gl.warp_specialize([(_tr_reader0, args), (_tr_reader1, args), (_tr_writer, args)],
                       [4, 4], [32, 32])  # fmt: skip
    _finish(buf, bars.index(2), out_ptr)


@gluon.jit
def _ob_writer(buf, bars, BUG: gl.constexpr):
    if not BUG:
        mbarrier.wait(bars.index(0), 0)  # counts both readers' arrivals
    buf.index(0).store(_ramp())
    mbarrier.arrive(bars.index(1), count=1)


@gluon.jit
def _ob_reader0(buf, bars, BUG: gl.constexpr):
    _copy_slot0(buf, bars.index(0), 1)


@gluon.jit
def _ob_reader1(buf, bars, BUG: gl.constexpr):
    _copy_slot0(buf, bars.index(0), 2)


@gluon.jit
def ws_two_readers_one_bar(out_ptr, BUG: gl.constexpr):
    buf = gl.allocate_shared_memory(gl.float16, [3, N1], FLAT1)
    bars = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    mbarrier.init(bars.index(0), count=2)
    mbarrier.init(bars.index(1), count=1)
    args = (buf, bars, BUG)
    gl.warp_specialize([(_ob_reader0, args), (_ob_reader1, args), (_ob_writer, args)],
                       [4, 4], [32, 32])  # fmt: skip
    _finish(buf, bars.index(1), out_ptr)


@gluon.jit
def _lp_reader(buf, bars, own: gl.constexpr, dst: gl.constexpr, SKIP: gl.constexpr):
    # Waits for "slot 0 written" on bar 2 + own, reads slot 0, releases it on bar own.
    acc = gl.zeros([N1], gl.float16, VEC)
    for i in range(8):
        if SKIP != 3 + own:
            mbarrier.wait(bars.index(2 + own), i & 1)
        acc += buf.index(0).load(VEC)
        mbarrier.arrive(bars.index(own), count=1)
    buf.index(dst).store(acc)


@gluon.jit
def _lp_reader0(buf, bars, SKIP: gl.constexpr):
    _lp_reader(buf, bars, 0, 1, SKIP)


@gluon.jit
def _lp_reader1(buf, bars, SKIP: gl.constexpr):
    _lp_reader(buf, bars, 1, 2, SKIP)


@gluon.jit
def _lp_writer(buf, bars, SKIP: gl.constexpr):
    for i in range(8):
        if SKIP != 1:
            mbarrier.wait(bars.index(0), i & 1)
        if SKIP != 2:
            mbarrier.wait(bars.index(1), i & 1)
        buf.index(0).store(_ramp())
        mbarrier.arrive(bars.index(2), count=1)
        mbarrier.arrive(bars.index(3), count=1)


@gluon.jit
def ws_two_readers_loop(SKIP: gl.constexpr):
    # SKIP 1 / 2: the writer skips reader 0's / 1's release; 3 / 4: reader 0 / 1 skips the
    # writer's "written" signal.
    buf = gl.allocate_shared_memory(gl.float16, [3, N1], FLAT1)
    bars = gl.allocate_shared_memory(gl.int64, [4, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(4):
        mbarrier.init(bars.index(s), count=1)
    # The readers' first waits on bars 2 and 3 pass at once; from then on they alternate.
    mbarrier.arrive(bars.index(2), count=1)
    mbarrier.arrive(bars.index(3), count=1)
    args = (buf, bars, SKIP)
    gl.warp_specialize([(_lp_reader0, args), (_lp_reader1, args), (_lp_writer, args)],
                       [4, 4], [32, 32])  # fmt: skip


@gluon.jit
def _lo_writer(buf, bars, BUG: gl.constexpr):
    for i in range(8):
        mbarrier.wait(bars.index(2), i & 1)
        buf.index(0).store(_ramp())
        mbarrier.arrive(bars.index(0), count=1)
        buf.index(1).store(_ramp())
        mbarrier.arrive(bars.index(1), count=1)


@gluon.jit
def _lo_reader(buf, bars, BUG: gl.constexpr):
    acc = gl.zeros([N1], gl.float16, VEC)
    for i in range(8):
        mbarrier.wait(bars.index(0), i & 1)
        if BUG:
            v = buf.index(1).load(VEC)  # slot 1 is signalled only on bar 1, not yet waited
        else:
            v = buf.index(0).load(VEC)
        mbarrier.wait(bars.index(1), i & 1)
        mbarrier.arrive(bars.index(2), count=1)
        acc += v
    buf.index(2).store(acc)


@gluon.jit
def ws_load_ordering(BUG: gl.constexpr):
    buf = gl.allocate_shared_memory(gl.float16, [3, N1], FLAT1)
    bars = gl.allocate_shared_memory(gl.int64, [3, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(3):
        mbarrier.init(bars.index(s), count=1)
    mbarrier.arrive(bars.index(2), count=1)
    args = (buf, bars, BUG)
    gl.warp_specialize([(_lo_writer, args), (_lo_reader, args)], [4], [32])


@gluon.jit
def _pc_producer(buf, bars, slot: gl.constexpr, SKIP: gl.constexpr):
    for i in range(8):
        mbarrier.wait(bars.index(2 + slot), i & 1)
        buf.index(slot).store(_ramp())
        mbarrier.arrive(bars.index(0), count=1)


@gluon.jit
def _pc_consumer(buf, bars, slot: gl.constexpr, SKIP: gl.constexpr):
    acc = gl.zeros([N1], gl.float16, VEC)
    for i in range(8):
        if SKIP != 1 + slot:
            mbarrier.wait(bars.index(0), i & 1)
        acc += buf.index(slot).load(VEC)
        mbarrier.arrive(bars.index(2), count=1)
        mbarrier.arrive(bars.index(3), count=1)
    buf.index(2 + slot).store(acc)


@gluon.jit
def _pc_p0(buf, bars, SKIP: gl.constexpr):
    _pc_producer(buf, bars, 0, SKIP)


@gluon.jit
def _pc_p1(buf, bars, SKIP: gl.constexpr):
    _pc_producer(buf, bars, 1, SKIP)


@gluon.jit
def _pc_c0(buf, bars, SKIP: gl.constexpr):
    _pc_consumer(buf, bars, 0, SKIP)


@gluon.jit
def _pc_c1(buf, bars, SKIP: gl.constexpr):
    _pc_consumer(buf, bars, 1, SKIP)


@gluon.jit
def ws_two_producers_two_consumers(SKIP: gl.constexpr):
    # Bars of count 2: bar 0 "both slots written", bars 2 and 3 "both slots read".
    buf = gl.allocate_shared_memory(gl.float16, [4, N1], FLAT1)
    bars = gl.allocate_shared_memory(gl.int64, [4, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(4):
        mbarrier.init(bars.index(s), count=2)
    mbarrier.arrive(bars.index(2), count=2)
    mbarrier.arrive(bars.index(3), count=2)
    args = (buf, bars, SKIP)
    gl.warp_specialize([(_pc_p0, args), (_pc_p1, args), (_pc_c0, args), (_pc_c1, args)],
                       [4, 4, 4], [32, 32, 32])  # fmt: skip


@gluon.jit
def _mw_reader4(buf, bars, SKIP: gl.constexpr):
    v = buf.index(0).load(VEC)
    mbarrier.arrive(bars.index(0), count=1)
    buf.index(1).store(v)


@gluon.jit
def _mw_reader2(buf, bars, SKIP: gl.constexpr):
    v = buf.index(0).load(VEC2)
    mbarrier.arrive(bars.index(1), count=1)
    buf.index(2).store(v)


@gluon.jit
def _mw_writer8(buf, bars, SKIP: gl.constexpr):
    if SKIP != 1:
        mbarrier.wait(bars.index(0), 0)
    if SKIP != 2:
        mbarrier.wait(bars.index(1), 0)
    buf.index(0).store(gl.arange(0, N1, layout=VEC8).to(gl.float16))
    mbarrier.arrive(bars.index(2), count=1)


@gluon.jit
def ws_mixed_warp_counts(out_ptr, SKIP: gl.constexpr):
    buf = gl.allocate_shared_memory(gl.float16, [3, N1], FLAT1)
    bars = gl.allocate_shared_memory(gl.int64, [3, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(3):
        mbarrier.init(bars.index(s), count=1)
    args = (buf, bars, SKIP)
    gl.warp_specialize([(_mw_reader4, args), (_mw_reader2, args), (_mw_writer8, args)],
                       [2, 8], [32, 32])  # fmt: skip
    _finish(buf, bars.index(2), out_ptr)


@gluon.jit
def _pp_partition(x_ptr, buf, base: gl.constexpr, BUG: gl.constexpr):
    # A two-slot cp.async ping-pong over slots base and base + 1 of the shared buffer.
    src = x_ptr + gl.arange(0, N1, layout=VEC)
    acc = gl.zeros([N1], gl.float32, VEC)
    cp.async_copy_global_to_shared(buf.index(base), src)
    cp.commit_group()
    for i in range(1, 8):
        if i < 7:
            cp.async_copy_global_to_shared(buf.index(base + i % 2), src)
            cp.commit_group()
            cp.wait_group(1)
        else:
            cp.wait_group(0)
        read = base
        if BUG and base == 2:
            read = 0  # the other partition's slots, its copies still in flight
        acc += buf.index(read + (i - 1) % 2).load(VEC)
    buf.index(base).store(acc)


@gluon.jit
def _pp_left(x_ptr, buf, BUG: gl.constexpr):
    _pp_partition(x_ptr, buf, 0, BUG)


@gluon.jit
def _pp_right(x_ptr, buf, BUG: gl.constexpr):
    _pp_partition(x_ptr, buf, 2, BUG)


@gluon.jit
def ws_cp_async_ping_pong(x_ptr, BUG: gl.constexpr):
    buf = gl.allocate_shared_memory(gl.float32, [4, N1], FLAT1)
    args = (x_ptr, buf, BUG)
    gl.warp_specialize([(_pp_left, args), (_pp_right, args)], [4], [32])


@gluon.jit
def _cv_copier(x_ptr, buf, bar, BUG: gl.constexpr):
    src = x_ptr + gl.arange(0, N1, layout=VEC)
    cp.async_copy_global_to_shared(buf.index(0), src)
    cp.commit_group()
    cp.async_copy_global_to_shared(buf.index(1), src)
    cp.commit_group()
    cp.wait_group(1)  # slot 0 landed, slot 1 may not have
    mbarrier.arrive(bar, count=1)


@gluon.jit
def _cv_reader(x_ptr, buf, bar, BUG: gl.constexpr):
    mbarrier.wait(bar, 0)
    if BUG:
        v = buf.index(1).load(VEC)
    else:
        v = buf.index(0).load(VEC)
    buf.index(2).store(v)


@gluon.jit
def ws_cp_async_wait_visibility(x_ptr, BUG: gl.constexpr):
    buf = gl.allocate_shared_memory(gl.float32, [3, N1], FLAT1)
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    args = (x_ptr, buf, bar, BUG)
    gl.warp_specialize([(_cv_copier, args), (_cv_reader, args)], [4], [32])


@gluon.jit
def _gv_mma(out_ptr, ops, bar, BUG: gl.constexpr):
    acc = gl.zeros([T, T], gl.float32, ACC)
    acc = hopper.warpgroup_mma(ops.index(0), ops.index(0), acc, is_async=True)
    acc = hopper.warpgroup_mma(ops.index(1), ops.index(1), acc, is_async=True)
    acc = hopper.warpgroup_mma_wait(num_outstanding=1, deps=[acc])  # slot 1 still read
    mbarrier.arrive(bar, count=1)
    acc = hopper.warpgroup_mma_wait(num_outstanding=0, deps=[acc])
    gl.store(out_ptr + _tile_offsets(T), gl.convert_layout(acc, TILE_REG))


@gluon.jit
def _gv_writer(out_ptr, ops, bar, BUG: gl.constexpr):
    mbarrier.wait(bar, 0)
    fill = gl.full([T, T], 1.0, gl.float16, TILE_REG)
    if BUG:
        ops.index(1).store(fill)
    else:
        ops.index(0).store(fill)


@gluon.jit
def ws_wgmma_wait_visibility(out_ptr, BUG: gl.constexpr):
    ops = gl.allocate_shared_memory(gl.float16, [2, T, T], NVMMA)
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    args = (out_ptr, ops, bar, BUG)
    gl.warp_specialize([(_gv_mma, args), (_gv_writer, args)], [4], [32])


# --- barrier protocol: deadlocks and counts (test_deadlock_*, test_barrier_underflow) -------


@gluon.jit
def _wait_bar0(bars):
    mbarrier.wait(bars.index(0), 0)


@gluon.jit
def _wait_bar1(bars):
    mbarrier.wait(bars.index(1), 0)


@gluon.jit
def deadlock_two_partitions():
    bars = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(2):
        mbarrier.init(bars.index(s), count=1)
    gl.warp_specialize([(_wait_bar0, (bars,)), (_wait_bar1, (bars,))], [4], [32])


@gluon.jit
def deadlock_overarrival():
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    mbarrier.arrive(bar, count=1)
    mbarrier.arrive(bar, count=1)  # completes phase 1 as well: parity 0 is pending again
    mbarrier.wait(bar, 0)


@gluon.jit
def _ua_first(bars):
    mbarrier.arrive(bars.index(1), count=1)
    mbarrier.wait(bars.index(0), 0)


@gluon.jit
def _ua_second(bars):
    mbarrier.arrive(bars.index(0), count=1)
    mbarrier.wait(bars.index(1), 0)


@gluon.jit
def deadlock_underarrival():
    bars = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(2):
        mbarrier.init(bars.index(s), count=2)  # each gets one arrival of the two it needs
    gl.warp_specialize([(_ua_first, (bars,)), (_ua_second, (bars,))], [4], [32])


@gluon.jit
def _dp_first(bar):
    mbarrier.wait(bar, 0)
    mbarrier.arrive(bar, count=1)


@gluon.jit
def _dp_second(bar):
    mbarrier.wait(bar, 1)


@gluon.jit
def deadlock_different_phases():
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    mbarrier.arrive(bar, count=1)
    gl.warp_specialize([(_dp_first, (bar,)), (_dp_second, (bar,))], [4], [32])


@gluon.jit
def _ts_load(x_ptr, tiles, bars, slot: gl.constexpr):
    mbarrier.expect(bars.index(slot), TILE_BYTES)
    tma.async_copy_global_to_shared(_desc(x_ptr), [0, 0], bars.index(slot), tiles.index(slot))
    mbarrier.wait(bars.index(slot), 0)


@gluon.jit
def _ts_first(x_ptr, tiles, bars):
    _ts_load(x_ptr, tiles, bars, 0)


@gluon.jit
def _ts_second(x_ptr, tiles, bars):
    _ts_load(x_ptr, tiles, bars, 1)


@gluon.jit
def deadlock_exempt_tma_signals(x_ptr):
    tiles = gl.allocate_shared_memory(gl.float16, [2, T, T], NVMMA)
    bars = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(2):
        mbarrier.init(bars.index(s), count=1)
    args = (x_ptr, tiles, bars)
    gl.warp_specialize([(_ts_first, args), (_ts_second, args)], [4], [32])


@gluon.jit
def _uf_first(bars):
    mbarrier.arrive(bars.index(1), count=2)  # bar 1 expects one arrival
    mbarrier.wait(bars.index(0), 0)


@gluon.jit
def barrier_underflow():
    bars = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(2):
        mbarrier.init(bars.index(s), count=1)
    gl.warp_specialize([(_uf_first, (bars,)), (_wait_bar1, (bars,))], [4], [32])


# --- views of one allocation (test_aliasing_shared_visibility_outstanding_write,
# test_aliasing_commit_tracking) -------------------------------------------------------------


@gluon.jit
def _av_writer(view, other, bar, WIDE: gl.constexpr, MISSING: gl.constexpr):
    view.store(gl.full([T, WIDE], 5.0, gl.float16, TILE_REG))
    mbarrier.arrive(bar, count=1)


@gluon.jit
def _av_reader(view, other, bar, WIDE: gl.constexpr, MISSING: gl.constexpr):
    if not MISSING:
        mbarrier.wait(bar, 0)
    other.store(view.load(TILE_REG))


@gluon.jit
def alias_views_signal(MISSING: gl.constexpr, OVERLAP: gl.constexpr):
    # The writer's view is the whole [T, 2T] buffer (OVERLAP) or its left half; the reader
    # reads the right half: a missing signal is a race only when the views overlap.
    buf = gl.allocate_shared_memory(gl.float16, [T, 2 * T], FLAT2)
    other = gl.allocate_shared_memory(gl.float16, [T, T], FLAT2)
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    right = buf.slice(T, T, dim=1)
    if OVERLAP:
        gl.warp_specialize([(_av_writer, (buf, other, bar, 2 * T, MISSING)),
                            (_av_reader, (right, other, bar, T, MISSING))], [4], [32])  # fmt: skip
    else:
        gl.warp_specialize([(_av_writer, (buf.slice(0, T, dim=1), other, bar, T, MISSING)),
                            (_av_reader, (right, other, bar, T, MISSING))], [4], [32])  # fmt: skip


@gluon.jit
def _ac_copier(x_ptr, view, bar, WIDE: gl.constexpr, MISSING: gl.constexpr):
    cp.async_copy_global_to_shared(view, x_ptr + _tile_offsets(WIDE))
    cp.commit_group()
    if not MISSING:
        cp.wait_group(0)
    mbarrier.arrive(bar, count=1)


@gluon.jit
def _ac_writer(x_ptr, view, bar, WIDE: gl.constexpr, MISSING: gl.constexpr):
    mbarrier.wait(bar, 0)
    view.store(gl.zeros([T, T], gl.float32, TILE_REG))


@gluon.jit
def alias_views_cp_async(x_ptr, MISSING: gl.constexpr, OVERLAP: gl.constexpr):
    # The copier's cp.async lands in the whole [T, 2T] buffer (OVERLAP) or its left half; the
    # other partition writes the right half after the signal: without the copier's wait, the
    # copy may still be landing there only when the views overlap.
    buf = gl.allocate_shared_memory(gl.float32, [T, 2 * T], FLAT2)
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    right = buf.slice(T, T, dim=1)
    if OVERLAP:
        gl.warp_specialize([(_ac_copier, (x_ptr, buf, bar, 2 * T, MISSING)),
                            (_ac_writer, (x_ptr, right, bar, T, MISSING))], [4], [32])  # fmt: skip
    else:
        gl.warp_specialize([(_ac_copier, (x_ptr, buf.slice(0, T, dim=1), bar, T, MISSING)),
                            (_ac_writer, (x_ptr, right, bar, T, MISSING))], [4], [32])  # fmt: skip


# --- the cases -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One compiled variant: the ConSan test it mirrors and what ConSan expects of it."""

    name: str
    test: str  # the ConSan test (and its parameters)
    consan: str  # "fail" (ConSan stops the kernel) or "pass"
    checks: str  # what ConSan's failure is about: "race", "deadlock" or "arrival count"
    scenario: str
    fn: Any
    signature: dict[str, str]
    constexprs: dict[str, Any] = field(default_factory=dict)
    num_warps: int = 4


def _pair(name: str, test: str, fn: Any, sig: dict[str, str], fail: str, ok: str,
          checks: str = "race") -> list[Case]:  # fmt: skip
    """The failing (BUG=True) and passing (BUG=False) variants of a FAILURE-parametrized test."""
    full = dict(sig, BUG="constexpr")
    return [Case(f"{name}[bug]", f"{test}[FAILURE=True]", "fail", checks, fail, fn, full,
                 {"BUG": True}),
            Case(f"{name}[ok]", f"{test}[FAILURE=False]", "pass", checks, ok, fn, full,
                 {"BUG": False})]  # fmt: skip


def cases() -> list[Case]:
    """Every case, in a stable order (the names are the table's keys)."""
    x, out, c = "*fp16", "*fp16", "constexpr"
    x32 = out32 = "*fp32"
    cs: list[Case] = [
        Case("cp_async_same_tile_twice", "test_cache_miss_knob / test_cache_miss_env", "fail",
             "race", "two cp.async groups into one tile, the second issued before the first "
             "is waited for", cp_async_same_tile_twice, {"x_ptr": x32}),
    ]  # fmt: skip
    cs += _pair(
        "cp_async_slot_reuse",
        "test_async_copy",
        cp_async_slot_reuse,
        {"x_ptr": x32},
        "wait_group(2) retires nothing, then slot 0 is copied into again",
        "wait_group(1) retires slot 0's group before slot 0 is copied into again",
    )
    cs += _pair(
        "tma_read_before_wait",
        "test_async_tma_kernel",
        tma_read_before_wait,
        {"x_ptr": x, "out_ptr": out},
        "the TMA-loaded tile is read before the mbarrier wait",
        "the tile is read after the mbarrier wait",
    )
    cs += _pair(
        "tma_two_tiles_one_bar",
        "test_async_tma_kernel_2bufs_1bar",
        tma_two_tiles_one_bar,
        {"a_ptr": x, "b_ptr": x, "out_ptr": out},
        "two TMA tiles on one mbarrier, both read before its wait",
        "both tiles read after the one wait",
    )
    cs += _pair(
        "tma_interleave",
        "test_tma_interleave_kernel",
        tma_interleave,
        {"x_ptr": x, "out_ptr": out},
        "two slots on two mbarriers, slot 1 read after waiting on slot 0's only",
        "each slot read after its own mbarrier's wait",
    )
    cs += _pair(
        "tma_store_slot_reuse",
        "test_tma_store",
        tma_store_slot_reuse,
        {"y_ptr": out},
        "slot 1 rewritten while its TMA store may still read it (store_wait(1) only)",
        "store_wait(0) before slot 1 is rewritten",
    )
    cs += _pair(
        "wgmma_operand_overwrite",
        "test_warpgroup_mma",
        wgmma_operand_overwrite,
        {"out_ptr": out32},
        "operand A rewritten while the async wgmma reading it is in flight",
        "operand A rewritten after warpgroup_mma_wait(0)",
    )
    cs += _pair(
        "wgmma_two_in_flight",
        "test_warpgroup_mma2",
        wgmma_two_in_flight,
        {"out_ptr": out32},
        "two async wgmmas, wait(1), then operand A rewritten while the second reads it",
        "operand A rewritten after wait(0)",
    )
    ring_sig = {"x_ptr": x, "out_ptr": out32, "SLOTS": c, "STEPS": c}
    cs += [
        Case("wgmma_tma_ring[2 slots]", "test_multibuffered_wgmma_loop[FAILURE=True]", "fail",
             "race", "a 2-slot TMA ring with one wgmma left in flight: a slot is reloaded while "
             "the previous MMA reads it", wgmma_tma_ring, ring_sig, {"SLOTS": 2, "STEPS": 8}),
        Case("wgmma_tma_ring[3 slots]", "test_multibuffered_wgmma_loop[FAILURE=False]", "pass",
             "race", "a 3-slot ring: a slot is reloaded only after the MMA reading it retired",
             wgmma_tma_ring, ring_sig, {"SLOTS": 3, "STEPS": 8}),
    ]  # fmt: skip
    cs += _pair(
        "ws_store_wait_load",
        "test_ws_store_wait_load",
        ws_store_wait_load,
        {"out_ptr": out},
        "a partition reads slot 0 without waiting for the writer partition's signal",
        "the reader waits for the writer's mbarrier signal",
    )
    cs += _pair(
        "ws_load_wait_store",
        "test_ws_load_wait_store",
        ws_load_wait_store,
        {"out_ptr": out},
        "a partition overwrites slot 0 without waiting for the reader's release",
        "the writer waits for the reader's release",
    )
    two = {0: ("none", "pass", "the writer waits for both readers' releases"),
           1: ("1", "fail", "the writer skips reader 0's release before overwriting slot 0"),
           2: ("2", "fail", "the writer skips reader 1's release before overwriting slot 0")}  # fmt: skip
    for skip, (p, exp, what) in two.items():
        cs.append(Case(f"ws_two_readers_two_bars[skip={skip}]",
                       f"test_ws_two_loads_two_bars[MISSING_BAR={p}]", exp, "race", what,
                       ws_two_readers_two_bars, {"out_ptr": out, "SKIP": c}, {"SKIP": skip}))  # fmt: skip
    cs += _pair(
        "ws_two_readers_one_bar",
        "test_ws_two_loads_one_bar",
        ws_two_readers_one_bar,
        {"out_ptr": out},
        "two readers release slot 0 on one count-2 mbarrier the writer does not wait on",
        "the writer waits for the count-2 mbarrier",
    )
    loop = {0: ("none", "pass", "in a loop, the writer and both readers wait for each other"),
            1: ("0", "fail", "in a loop, the writer skips reader 0's release"),
            2: ("1", "fail", "in a loop, the writer skips reader 1's release"),
            3: ("2", "fail", "in a loop, reader 0 skips the writer's signal"),
            4: ("3", "fail", "in a loop, reader 1 skips the writer's signal")}  # fmt: skip
    for skip, (p, exp, what) in loop.items():
        cs.append(Case(f"ws_two_readers_loop[skip={skip}]",
                       f"test_ws_two_loads_two_bars_loop[MISSING_BAR={p}]", exp, "race", what,
                       ws_two_readers_loop, {"SKIP": c}, {"SKIP": skip}))  # fmt: skip
    cs += _pair(
        "ws_load_ordering",
        "test_ws_load_ordering",
        ws_load_ordering,
        {},
        "slot 1 read after waiting only for slot 0's signal",
        "slot 0 read after its own signal",
    )
    pc = {0: ("none", "pass", "two producers, two consumers, each slot read after its signal"),
          1: ("T2", "fail", "consumer 0 reads its slot without waiting for the producers"),
          2: ("T3", "fail", "consumer 1 reads its slot without waiting for the producers")}  # fmt: skip
    for skip, (p, exp, what) in pc.items():
        cs.append(Case(f"ws_two_producers_two_consumers[skip={skip}]",
                       f"test_ws_two_producers_two_consumers[MISSING_BAR={p}]", exp, "race",
                       what, ws_two_producers_two_consumers, {"SKIP": c}, {"SKIP": skip}))  # fmt: skip
    mw = {0: ("none", "pass", "partitions of 4, 2 and 8 warps; the writer waits for both"),
          1: ("1", "fail", "partitions of 4, 2 and 8 warps; the writer skips the 4-warp "
                           "reader's release"),
          2: ("2", "fail", "partitions of 4, 2 and 8 warps; the writer skips the 2-warp "
                           "reader's release")}  # fmt: skip
    for skip, (p, exp, what) in mw.items():
        cs.append(Case(f"ws_mixed_warp_counts[skip={skip}]",
                       f"test_ws_different_warp_sizes[MISSING_BAR={p}]", exp, "race", what,
                       ws_mixed_warp_counts, {"out_ptr": out, "SKIP": c}, {"SKIP": skip}))  # fmt: skip
    cs += _pair(
        "ws_cp_async_ping_pong",
        "test_ws_async_copy_commits",
        ws_cp_async_ping_pong,
        {"x_ptr": x32},
        "two partitions' cp.async ping-pongs; one reads the other's slots in flight",
        "each partition reads only its own slots after its own wait_group",
    )
    cs += _pair(
        "ws_cp_async_wait_visibility",
        "test_ws_async_copy_wait_visibility",
        ws_cp_async_wait_visibility,
        {"x_ptr": x32},
        "after wait_group(1) and a signal, the other partition reads the slot still in flight",
        "the other partition reads the slot wait_group(1) retired",
    )
    cs += _pair(
        "ws_wgmma_wait_visibility",
        "test_ws_wgmma_wait_visibility",
        ws_wgmma_wait_visibility,
        {"out_ptr": out32},
        "after warpgroup_mma_wait(1) and a signal, the other partition rewrites the "
        "operand the MMA in flight reads",
        "the other partition rewrites the operand of the retired MMA",
    )
    cs += [
        Case("deadlock_two_partitions", "test_deadlock_two_partitions", "fail", "deadlock",
             "two partitions wait on mbarriers nobody arrives at", deadlock_two_partitions, {}),
        Case("deadlock_overarrival", "test_deadlock_overarrival", "fail", "deadlock",
             "two arrivals on a count-1 mbarrier, then a wait on the parity pending again",
             deadlock_overarrival, {}),
        Case("deadlock_underarrival", "test_deadlock_underarrival", "fail", "deadlock",
             "two partitions each give one of the two arrivals the other's mbarrier needs",
             deadlock_underarrival, {}),
        Case("deadlock_different_phases", "test_deadlock_different_phases", "pass", "deadlock",
             "partitions wait on consecutive phases of one mbarrier, each phase completed",
             deadlock_different_phases, {}),
        Case("deadlock_exempt_tma_signals", "test_deadlock_exempt_when_tma_signals", "pass",
             "deadlock", "each partition waits on an mbarrier its own TMA load completes",
             deadlock_exempt_tma_signals, {"x_ptr": x}),
        Case("barrier_underflow", "test_barrier_underflow", "fail", "arrival count",
             "an arrival of count 2 on a count-1 mbarrier", barrier_underflow, {}),
    ]  # fmt: skip
    for missing in (True, False):
        for overlap in (True, False):
            params = f"MISSING_BAR={missing},OVERLAP={overlap}"
            fails = missing and overlap
            what = ("the writer's view " + ("covers" if overlap else "misses")
                    + " the half the reader reads, " + ("no" if missing else "with a")
                    + " mbarrier signal between them")  # fmt: skip
            cs.append(Case(f"alias_views_signal[missing={int(missing)},overlap={int(overlap)}]",
                           f"test_aliasing_shared_visibility_outstanding_write[{params}]",
                           "fail" if fails else "pass", "race", what, alias_views_signal,
                           {"MISSING": c, "OVERLAP": c},
                           {"MISSING": missing, "OVERLAP": overlap}))  # fmt: skip
    for missing in (True, False):
        for overlap in (True, False):
            params = f"MISSING_WAIT={missing},OVERLAP={overlap}"
            fails = missing and overlap
            what = ("the cp.async view " + ("covers" if overlap else "misses")
                    + " the half the other partition writes, " + ("no" if missing else "with")
                    + " wait_group before the signal")  # fmt: skip
            cs.append(Case(f"alias_views_cp_async[missing={int(missing)},overlap={int(overlap)}]",
                           f"test_aliasing_commit_tracking[{params}]",
                           "fail" if fails else "pass", "race", what, alias_views_cp_async,
                           {"x_ptr": x32, "MISSING": c, "OVERLAP": c},
                           {"MISSING": missing, "OVERLAP": overlap}))  # fmt: skip
    return cs


# Blackwell-only tests of the same file, not replayed (no sm_90 compile).
SKIPPED = {
    "test_tcgen5_mma": "tcgen05 MMA and tensor memory (sm_100)",
    "test_tcgen5_mma_multibar": "tcgen05 MMA and tensor memory (sm_100)",
    "test_multibuffered_loop": "tcgen05 MMA and tensor memory (sm_100)",
    "test_aliasing_tensor_visibility_outstanding_read": "tensor memory (sm_100)",
}
