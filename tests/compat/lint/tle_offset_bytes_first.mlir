// An attribute named tle.offset_bytes written before the op's own offset_bytes: only the
// attribute named exactly offset_bytes is the offset (8192, the end of the 8 KiB source).
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @prefixed_name() {
    %src = ttg.local_alloc : () -> !ttg.memdesc<64x64xbf16, #shared, #smem, mutable>
    %a = tle.memdesc_alias %src {tle.offset_bytes = 0 : i64, offset_bytes = 8192 : i64} : !ttg.memdesc<64x64xbf16, #shared, #smem, mutable> -> !ttg.memdesc<1x64xbf16, #shared, #smem, mutable>
    tt.return
  }
}
// EXPECT: safe: alias.range.fits @ 8
// EXPECT: safe: alias.range.physical @ 8
// EXPECT: flagtree: alias.range.fits @ 8
// EXPECT: triton-3.6, triton-3.7, triton-3.8, triton-3.9: triton.op.stock @ 8
// EXPECT-STATUS: *: exit=1 views=1
