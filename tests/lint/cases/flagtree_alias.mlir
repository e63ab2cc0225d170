// A FlagTree module using tle.memdesc_alias: one valid alias (FlagTree's lit case) and three
// that break the safe profile. The third is in MLIR's generic form and spans one line; the
// second spans three lines.
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#shared1 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @valid(%arg0: tensor<64x64xbf16, #blocked>) {
    %src = ttg.local_alloc %arg0 : (tensor<64x64xbf16, #blocked>) -> !ttg.memdesc<64x64xbf16, #shared, #smem, mutable>
    %alias = tle.memdesc_alias %src {offset_bytes = 128 : i64} : !ttg.memdesc<64x64xbf16, #shared, #smem, mutable> -> !ttg.memdesc<32x64xbf16, #shared, #smem, mutable>
    tt.return
  }
  tt.func @invalid(%arg0: tensor<64x64xbf16, #blocked>) {
    %src = ttg.local_alloc %arg0 : (tensor<64x64xbf16, #blocked>) -> !ttg.memdesc<64x64xbf16, #shared, #smem, mutable>
    %past_end = tle.memdesc_alias %src {offset_bytes = 8192 : i64} :
        !ttg.memdesc<64x64xbf16, #shared, #smem, mutable> ->
        !ttg.memdesc<1x1xbf16, #shared, #smem, mutable>
    %unaligned = "tle.memdesc_alias"(%src) <{offset_bytes = 2048 : i64}> : (!ttg.memdesc<64x64xbf16, #shared, #smem, mutable>) -> !ttg.memdesc<32x64xbf16, #shared1, #smem, mutable>
    %row = ttg.memdesc_subslice %src[32, 0] : !ttg.memdesc<64x64xbf16, #shared, #smem, mutable> -> !ttg.memdesc<32x64xbf16, #shared, #smem, mutable, 64x64>
    %chained = tle.memdesc_alias %row {offset_bytes = 4096 : i64} : !ttg.memdesc<32x64xbf16, #shared, #smem, mutable, 64x64> -> !ttg.memdesc<16x64xbf16, #shared, #smem, mutable>
    tt.return
  }
}
// EXPECT: safe: alias.range.fits @ 16
// EXPECT: safe: alias.range.physical @ 16
// EXPECT: safe: alias.base.aligned @ 19
// EXPECT: safe: alias.range.fits @ 21
// EXPECT: safe: alias.range.physical @ 21
// EXPECT: flagtree: alias.range.fits @ 16
// EXPECT: flagtree: alias.range.fits @ 21
// EXPECT: triton-3.6, triton-3.7, triton-3.8, triton-3.9: triton.op.stock @ 11
// EXPECT: triton-3.6, triton-3.7, triton-3.8, triton-3.9: triton.op.stock @ 16
// EXPECT: triton-3.6, triton-3.7, triton-3.8, triton-3.9: triton.op.stock @ 19
// EXPECT: triton-3.6, triton-3.7, triton-3.8, triton-3.9: triton.op.stock @ 21
