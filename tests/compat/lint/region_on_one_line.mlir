// A region written on one line: the view inside the scf.if is an op of its own and is judged.
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @one_line_region(%flag: i1) {
    %src = ttg.local_alloc : () -> !ttg.memdesc<64x64xbf16, #shared, #smem, mutable>
    scf.if %flag { %a = tle.memdesc_alias %src {offset_bytes = 8192 : i64} : !ttg.memdesc<64x64xbf16, #shared, #smem, mutable> -> !ttg.memdesc<1x64xbf16, #shared, #smem, mutable> }
    tt.return
  }
}
// EXPECT: safe: alias.range.fits @ 7
// EXPECT: safe: alias.range.physical @ 7
// EXPECT: flagtree: alias.range.fits @ 7
// EXPECT: triton-3.6, triton-3.7, triton-3.8, triton-3.9: triton.op.stock @ 7
// EXPECT-STATUS: *: exit=1 views=1
