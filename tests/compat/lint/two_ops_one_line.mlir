// Two views on one line: MLIR has no separator between ops, so both are ops of their own and
// each is judged (8 KiB source; one view starts at its end, the other 4 KiB in, 8 KiB long;
// in the second function the allocation and its view share a line).
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @two_ops() {
    %src = ttg.local_alloc : () -> !ttg.memdesc<64x64xbf16, #shared, #smem, mutable>
    %a = tle.memdesc_alias %src {offset_bytes = 8192 : i64} : !ttg.memdesc<64x64xbf16, #shared, #smem, mutable> -> !ttg.memdesc<1x64xbf16, #shared, #smem, mutable> %b = tle.memdesc_alias %src {offset_bytes = 4096 : i64} : !ttg.memdesc<64x64xbf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xbf16, #shared, #smem, mutable>
    tt.return
  }
  tt.func @alloc_and_view() {
    %src = ttg.local_alloc : () -> !ttg.memdesc<64x64xbf16, #shared, #smem, mutable> %c = tle.memdesc_alias %src {offset_bytes = 8192 : i64} : !ttg.memdesc<64x64xbf16, #shared, #smem, mutable> -> !ttg.memdesc<1x64xbf16, #shared, #smem, mutable>
    tt.return
  }
}
// EXPECT: safe: alias.range.fits @ 9
// EXPECT: safe: alias.range.fits @ 9
// EXPECT: safe: alias.range.physical @ 9
// EXPECT: safe: alias.range.physical @ 9
// EXPECT: flagtree: alias.range.fits @ 9
// EXPECT: flagtree: alias.range.fits @ 9
// EXPECT: triton-3.6, triton-3.7, triton-3.8, triton-3.9: triton.op.stock @ 9
// EXPECT: triton-3.6, triton-3.7, triton-3.8, triton-3.9: triton.op.stock @ 9
// EXPECT: safe: alias.range.fits @ 13
// EXPECT: safe: alias.range.physical @ 13
// EXPECT: flagtree: alias.range.fits @ 13
// EXPECT: triton-3.6, triton-3.7, triton-3.8, triton-3.9: triton.op.stock @ 13
// EXPECT-STATUS: *: exit=1 views=3
