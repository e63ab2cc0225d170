// A view lint cannot judge in full: its allocation has a padded layout, whose bytes the spec
// does not place. Nothing is found, but something was not judged: exit 3, as check's partial.
#shared = #ttg.padded_shared<[64:+4] {order = [1, 0], shape = [64, 64]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @padded() {
    %c1_i32 = arith.constant 1 : i32
    %bufs = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>
    %one = ttg.memdesc_index %bufs[%c1_i32] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    tt.return
  }
}
// EXPECT: flagtree, safe: lint.unmodelled @ 9
// EXPECT: triton-3.6, triton-3.7, triton-3.8, triton-3.9: clean
// EXPECT-STATUS: flagtree, safe: exit=3 views=1
// EXPECT-STATUS: triton-3.6, triton-3.7, triton-3.8, triton-3.9: exit=0 views=1
