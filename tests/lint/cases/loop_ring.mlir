// A three-stage ring buffer carried through an scf.for: the carried stage starts as buffer 0
// and is re-indexed with a runtime index on every trip. Inside the loop the carried stage is
// sliced and reinterpreted (an NVMMA view, so its start must be a multiple of the 1024-byte
// swizzle repeat: it is, at each of the stage starts 0, 8192 and 16384); after the loop its
// result is sliced. Clean under every profile, and every view is traced to %bufs.
#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @ring(%n: i32) {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c3_i32 = arith.constant 3 : i32
    %bufs = ttg.local_alloc : () -> !ttg.memdesc<3x64x64xf16, #nv, #smem, mutable>
    %s0 = ttg.memdesc_index %bufs[%c0_i32] : !ttg.memdesc<3x64x64xf16, #nv, #smem, mutable> -> !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
    %last = scf.for %i = %c0_i32 to %n step %c1_i32 iter_args(%cur = %s0) -> (!ttg.memdesc<64x64xf16, #nv, #smem, mutable>)  : i32 {
      %top = ttg.memdesc_subslice %cur[0, 0] : !ttg.memdesc<64x64xf16, #nv, #smem, mutable> -> !ttg.memdesc<32x64xf16, #nv, #smem, mutable, 64x64>
      %same = ttg.memdesc_reinterpret %cur : !ttg.memdesc<64x64xf16, #nv, #smem, mutable> -> !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
      %j = arith.addi %i, %c1_i32 : i32
      %k = arith.remsi %j, %c3_i32 : i32
      %next = ttg.memdesc_index %bufs[%k] : !ttg.memdesc<3x64x64xf16, #nv, #smem, mutable> -> !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
      scf.yield %next : !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
    } {tt.num_stages = 1 : i32}
    %tail = ttg.memdesc_subslice %last[32, 0] : !ttg.memdesc<64x64xf16, #nv, #smem, mutable> -> !ttg.memdesc<32x64xf16, #nv, #smem, mutable, 64x64>
    tt.return
  }
  // The same ring, where the carried stage is reinterpreted as two stages (16 KB of an 8 KB
  // stage): inside the allocation from stages 0 and 1, 8192 bytes past its end from stage 2.
  tt.func @ring_two_stages(%n: i32) {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c3_i32 = arith.constant 3 : i32
    %bufs = ttg.local_alloc : () -> !ttg.memdesc<3x64x64xf16, #nv, #smem, mutable>
    %s0 = ttg.memdesc_index %bufs[%c0_i32] : !ttg.memdesc<3x64x64xf16, #nv, #smem, mutable> -> !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
    %last = scf.for %i = %c0_i32 to %n step %c1_i32 iter_args(%cur = %s0) -> (!ttg.memdesc<64x64xf16, #nv, #smem, mutable>)  : i32 {
      %wide = ttg.memdesc_reinterpret %cur : !ttg.memdesc<64x64xf16, #nv, #smem, mutable> -> !ttg.memdesc<128x64xf16, #nv, #smem, mutable>
      %j = arith.addi %i, %c1_i32 : i32
      %k = arith.remsi %j, %c3_i32 : i32
      %next = ttg.memdesc_index %bufs[%k] : !ttg.memdesc<3x64x64xf16, #nv, #smem, mutable> -> !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
      scf.yield %next : !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
    }
    tt.return
  }
}
// EXPECT: safe: alias.range.fits @ 35
// EXPECT: safe: alias.range.physical @ 35
// EXPECT: flagtree: alias.range.fits @ 35
// EXPECT: triton-3.6, triton-3.7: clean
// EXPECT: triton-3.8: triton.reinterpret.same_size @ 35
// EXPECT: triton-3.9: triton.reinterpret.fits @ 35
