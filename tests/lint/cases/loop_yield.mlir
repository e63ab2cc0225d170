// Loop-carried views whose yield is a view of the carried value itself.
// @settles: the yield reinterprets the carried buffer's top half (4096 bytes) as the whole
// buffer (8192 bytes): out of its source view, inside the allocation (a warning), and the
// carried value settles at byte 0 of %buf, so every view is traced.
// @moves: the yield reinterprets the carried stage's bottom half as a whole stage, so the
// carried value starts 2048 bytes later on every trip: lint reports it untraced, naming the
// yield operand, and still finds the out-of-range reinterpret.
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @settles(%n: i32) {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %buf = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %r = scf.for %i = %c0_i32 to %n step %c1_i32 iter_args(%cur = %buf) -> (!ttg.memdesc<64x64xf16, #shared, #smem, mutable>)  : i32 {
      %head = ttg.memdesc_subslice %cur[0, 0] : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<32x64xf16, #shared, #smem, mutable, 64x64>
      %next = ttg.memdesc_reinterpret %head : !ttg.memdesc<32x64xf16, #shared, #smem, mutable, 64x64> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
      scf.yield %next : !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    }
    tt.return
  }
  tt.func @moves(%n: i32) {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %bufs = ttg.local_alloc : () -> !ttg.memdesc<2x32x64xf16, #shared, #smem, mutable>
    %s0 = ttg.memdesc_index %bufs[%c0_i32] : !ttg.memdesc<2x32x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<32x64xf16, #shared, #smem, mutable>
    %r = scf.for %i = %c0_i32 to %n step %c1_i32 iter_args(%cur = %s0) -> (!ttg.memdesc<32x64xf16, #shared, #smem, mutable>)  : i32 {
      %half = ttg.memdesc_subslice %cur[16, 0] : !ttg.memdesc<32x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<16x64xf16, #shared, #smem, mutable, 32x64>
      %next = ttg.memdesc_reinterpret %half : !ttg.memdesc<16x64xf16, #shared, #smem, mutable, 32x64> -> !ttg.memdesc<32x64xf16, #shared, #smem, mutable>
      scf.yield %next : !ttg.memdesc<32x64xf16, #shared, #smem, mutable>
    }
    tt.return
  }
}
// EXPECT: *: lint.untraced @ 28
// EXPECT: *: lint.untraced @ 29
// EXPECT: safe: alias.range.fits @ 29
// EXPECT: safe: alias.range.physical @ 29
// EXPECT: flagtree: alias.range.fits @ 29
// EXPECT: triton-3.8: triton.reinterpret.no_subview @ 17
// EXPECT: triton-3.8: triton.reinterpret.same_size @ 17
// EXPECT: triton-3.8: triton.reinterpret.no_subview @ 29
// EXPECT: triton-3.8: triton.reinterpret.same_size @ 29
// EXPECT: triton-3.9: triton.reinterpret.fits @ 17
// EXPECT: triton-3.9: triton.reinterpret.owned @ 17
// EXPECT: triton-3.9: triton.reinterpret.fits @ 29
// EXPECT: triton-3.9: triton.reinterpret.owned @ 29
