// Loop-carried values lint cannot follow to one allocation: the init views %a and the yield
// views %b; and an init that is a function argument. Each view of the carried value is judged
// as its own allocation, with a notice naming the operand that could not be traced.
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @two_allocs(%n: i32) {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %a = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %b = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %r = scf.for %i = %c0_i32 to %n step %c1_i32 iter_args(%cur = %a) -> (!ttg.memdesc<64x64xf16, #shared, #smem, mutable>)  : i32 {
      %top = ttg.memdesc_subslice %cur[0, 0] : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<32x64xf16, #shared, #smem, mutable, 64x64>
      %other = ttg.memdesc_reinterpret %b : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
      scf.yield %other : !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    }
    tt.return
  }
  tt.func @argument_init(%x: !ttg.memdesc<64x64xf16, #shared, #smem, mutable>, %n: i32) {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %r = scf.for %i = %c0_i32 to %n step %c1_i32 iter_args(%cur = %x) -> (!ttg.memdesc<64x64xf16, #shared, #smem, mutable>)  : i32 {
      %top = ttg.memdesc_subslice %cur[0, 0] : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<32x64xf16, #shared, #smem, mutable, 64x64>
      scf.yield %cur : !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    }
    tt.return
  }
}
// EXPECT: *: lint.untraced @ 13
// EXPECT: *: lint.untraced @ 23
