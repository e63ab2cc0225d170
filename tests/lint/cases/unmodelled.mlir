// Layouts and memory the spec does not model. A padded_shared allocation is larger than its
// logical shape (padding after every interval) and a shared_linear layout may place elements
// anywhere, so where such a view's bytes lie is unknown: a view gets a notice naming the rules
// left unjudged; the rest are judged (%rw, a mutable view of a read-only buffer, breaks
// alias.mutability), as is what a layout states (every stock release judges %one whole). A view
// derived from one (%rows, a swizzled slice of the padded buffer's view) inherits the notice.
// Tensor memory (ttng.tmem_alloc) is not shared memory: stock views of it are not judged by
// the shared-memory rules (notice), but a view that moves it to shared memory breaks
// alias.space.match, and tle.memdesc_alias of it breaks alias.scope.smem.
#pad = #ttg.padded_shared<[64:+4] {order = [1, 0], shape = [64, 64]}>
#lin = #ttg.shared_linear<{offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0]]}, alignment = 16>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#flat = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @padded(%x: tensor<64x64xf16>) {
    %c1_i32 = arith.constant 1 : i32
    %bufs = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf16, #pad, #smem, mutable>
    %one = ttg.memdesc_index %bufs[%c1_i32] : !ttg.memdesc<2x64x64xf16, #pad, #smem, mutable> -> !ttg.memdesc<64x64xf16, #pad, #smem, mutable>
    %flat = ttg.memdesc_reinterpret %bufs : !ttg.memdesc<2x64x64xf16, #pad, #smem, mutable> -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable>
    %rows = ttg.memdesc_subslice %flat[64, 0] : !ttg.memdesc<128x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable, 128x64>
    %ro = ttg.local_alloc %x : (tensor<64x64xf16>) -> !ttg.memdesc<64x64xf16, #pad, #smem>
    %rw = ttg.memdesc_reinterpret %ro : !ttg.memdesc<64x64xf16, #pad, #smem> -> !ttg.memdesc<4096xf16, #flat, #smem, mutable>
    tt.return
  }
  tt.func @linear() {
    %buf = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #lin, #smem, mutable>
    %top = ttg.memdesc_subslice %buf[0, 0] : !ttg.memdesc<64x64xf16, #lin, #smem, mutable> -> !ttg.memdesc<32x64xf16, #lin, #smem, mutable, 64x64>
    tt.return
  }
  tt.func @tensor_memory() {
    %c1_i32 = arith.constant 1 : i32
    %acc = ttng.tmem_alloc : () -> !ttg.memdesc<2x128x64xf32, #tmem, #ttng.tensor_memory, mutable>
    %one = ttg.memdesc_index %acc[%c1_i32] : !ttg.memdesc<2x128x64xf32, #tmem, #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x64xf32, #tmem, #ttng.tensor_memory, mutable>
    %half = ttg.memdesc_reinterpret %one : !ttg.memdesc<128x64xf32, #tmem, #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x128xf16, #tmem, #ttng.tensor_memory, mutable>
    %moved = ttg.memdesc_reinterpret %one : !ttg.memdesc<128x64xf32, #tmem, #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x64xf32, #shared, #smem, mutable>
    %alias = tle.memdesc_alias %one {offset_bytes = 0 : i64} : !ttg.memdesc<128x64xf32, #tmem, #ttng.tensor_memory, mutable> -> !ttg.memdesc<64x64xf32, #tmem, #ttng.tensor_memory, mutable>
    tt.return
  }
}
// EXPECT: safe, flagtree: lint.unmodelled @ 20
// EXPECT: safe, flagtree, triton-3.8, triton-3.9: lint.unmodelled @ 21
// EXPECT: *: lint.unmodelled @ 22
// EXPECT: safe, flagtree, triton-3.8, triton-3.9: lint.unmodelled @ 24
// EXPECT: *: lint.unmodelled @ 29
// EXPECT: *: lint.unmodelled @ 35
// EXPECT: *: lint.unmodelled @ 36
// EXPECT: *: lint.unmodelled @ 37
// EXPECT: safe, triton-3.6, triton-3.7, triton-3.8, triton-3.9: lint.unmodelled @ 38
// EXPECT: safe, flagtree: alias.mutability @ 24
// EXPECT: safe, flagtree: alias.space.match @ 37
// EXPECT: safe, flagtree: alias.scope.smem @ 38
// EXPECT: triton-3.6, triton-3.7, triton-3.8, triton-3.9: triton.op.stock @ 38
// EXPECT: triton-3.8, triton-3.9: triton.reinterpret.mutability @ 24
// EXPECT: triton-3.8, triton-3.9: triton.reinterpret.space @ 37
