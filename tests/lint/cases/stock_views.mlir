// Stock Triton views, each with one planted problem (and one clean chain first).
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#sw = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @clean() {
    %c1_i32 = arith.constant 1 : i32
    %buf = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>
    %one = ttg.memdesc_index %buf[%c1_i32] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %rows = ttg.memdesc_subslice %one[32, 0] : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<32x64xf16, #shared, #smem, mutable, 64x64>
    %raw = ttg.memdesc_reinterpret %rows : !ttg.memdesc<32x64xf16, #shared, #smem, mutable, 64x64> -> !ttg.memdesc<4096xi8, #shared1, #smem, mutable>
    tt.return
  }
  tt.func @columns_past_the_edge() {
    %buf = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %cols = ttg.memdesc_subslice %buf[48, 64] : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<16x32xf16, #shared, #smem, mutable, 64x64>
    tt.return
  }
  tt.func @writable_view_of_read_only(%x: tensor<64x64xf16>) {
    %ro = ttg.local_alloc %x : (tensor<64x64xf16>) -> !ttg.memdesc<64x64xf16, #shared, #smem>
    %rw = ttg.memdesc_reinterpret %ro : !ttg.memdesc<64x64xf16, #shared, #smem> -> !ttg.memdesc<8192xi8, #shared1, #smem, mutable>
    tt.return
  }
  tt.func @reinterpret_of_column_slice() {
    %buf = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %left = ttg.memdesc_subslice %buf[0, 0] : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x32xf16, #shared, #smem, mutable, 64x64>
    %flat = ttg.memdesc_reinterpret %left : !ttg.memdesc<64x32xf16, #shared, #smem, mutable, 64x64> -> !ttg.memdesc<4096xi8, #shared1, #smem, mutable>
    tt.return
  }
  tt.func @swizzle_split() {
    %buf = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #sw, #smem, mutable>
    %four = ttg.memdesc_subslice %buf[4, 0] : !ttg.memdesc<64x64xf16, #sw, #smem, mutable> -> !ttg.memdesc<4x64xf16, #sw, #smem, mutable, 64x64>
    tt.return
  }
  tt.func @untraced(%arg: !ttg.memdesc<2x32x32xf16, #shared, #smem, mutable>) {
    %c3_i32 = arith.constant 3 : i32
    %three = ttg.memdesc_index %arg[%c3_i32] : !ttg.memdesc<2x32x32xf16, #shared, #smem, mutable> -> !ttg.memdesc<32x32xf16, #shared, #smem, mutable>
    tt.return
  }
}
// EXPECT: *: lint.untraced @ 38
// EXPECT: safe: alias.range.fits @ 17
// EXPECT: safe: alias.range.physical @ 17
// EXPECT: safe: alias.mutability @ 22
// EXPECT: safe: alias.range.fits @ 38
// EXPECT: safe: alias.range.physical @ 38
// EXPECT: flagtree: alias.range.fits @ 17
// EXPECT: flagtree: alias.mutability @ 22
// EXPECT: flagtree: alias.range.fits @ 38
// EXPECT: triton-3.6, triton-3.7: triton.subslice.swizzle @ 33
// EXPECT: triton-3.8: triton.reinterpret.no_subview @ 12
// EXPECT: triton-3.8: triton.subslice.start @ 17
// EXPECT: triton-3.8: triton.reinterpret.mutability @ 22
// EXPECT: triton-3.8: triton.reinterpret.no_subview @ 28
// EXPECT: triton-3.8: triton.subslice.swizzle @ 33
// EXPECT: triton-3.9: triton.subslice.bounds @ 17
// EXPECT: triton-3.9: triton.reinterpret.mutability @ 22
// EXPECT: triton-3.9: triton.reinterpret.owned @ 28
// EXPECT: triton-3.9: triton.subslice.swizzle @ 33
