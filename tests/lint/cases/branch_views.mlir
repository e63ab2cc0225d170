// Views chosen by control flow, each of which can start at byte 0 or byte 2 of a byte buffer.
// A 4 x i32 view of such a value is misaligned (alias.address.aligned) when it starts at byte 2;
// only following the branch to its two incoming views shows that.
// @if_views: an scf.if yields one of two views. @while_views: an scf.while carries a view
// that its "do" region moves. @blocks: cf.cond_br passes one of two views to a block argument.
// @partitions: a warp-specialize partition receives the view at byte 2 (its SSA names restart,
// so its %0 is not the function's %0).
#flat = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @if_views(%c: i1) {
    %buf = ttg.local_alloc : () -> !ttg.memdesc<256xi8, #flat, #smem, mutable>
    %v = scf.if %c -> (!ttg.memdesc<16xi8, #flat, #smem, mutable>) {
      %at0 = tle.memdesc_alias %buf {offset_bytes = 0 : i64} : !ttg.memdesc<256xi8, #flat, #smem, mutable> -> !ttg.memdesc<16xi8, #flat, #smem, mutable>
      scf.yield %at0 : !ttg.memdesc<16xi8, #flat, #smem, mutable>
    } else {
      %at2 = tle.memdesc_alias %buf {offset_bytes = 2 : i64} : !ttg.memdesc<256xi8, #flat, #smem, mutable> -> !ttg.memdesc<16xi8, #flat, #smem, mutable>
      scf.yield %at2 : !ttg.memdesc<16xi8, #flat, #smem, mutable>
    }
    %words = tle.memdesc_alias %v {offset_bytes = 0 : i64} : !ttg.memdesc<16xi8, #flat, #smem, mutable> -> !ttg.memdesc<4xi32, #flat, #smem, mutable>
    tt.return
  }
  tt.func @while_views(%c: i1) {
    %buf = ttg.local_alloc : () -> !ttg.memdesc<256xi8, #flat, #smem, mutable>
    %at0 = tle.memdesc_alias %buf {offset_bytes = 0 : i64} : !ttg.memdesc<256xi8, #flat, #smem, mutable> -> !ttg.memdesc<16xi8, #flat, #smem, mutable>
    %w = scf.while (%arg1 = %at0) : (!ttg.memdesc<16xi8, #flat, #smem, mutable>) -> !ttg.memdesc<16xi8, #flat, #smem, mutable> {
      scf.condition(%c) %arg1 : !ttg.memdesc<16xi8, #flat, #smem, mutable>
    } do {
    ^bb0(%arg2: !ttg.memdesc<16xi8, #flat, #smem, mutable>):
      %inside = tle.memdesc_alias %arg2 {offset_bytes = 0 : i64} : !ttg.memdesc<16xi8, #flat, #smem, mutable> -> !ttg.memdesc<4xi32, #flat, #smem, mutable>
      %at2 = tle.memdesc_alias %buf {offset_bytes = 2 : i64} : !ttg.memdesc<256xi8, #flat, #smem, mutable> -> !ttg.memdesc<16xi8, #flat, #smem, mutable>
      scf.yield %at2 : !ttg.memdesc<16xi8, #flat, #smem, mutable>
    }
    %after = tle.memdesc_alias %w {offset_bytes = 0 : i64} : !ttg.memdesc<16xi8, #flat, #smem, mutable> -> !ttg.memdesc<4xi32, #flat, #smem, mutable>
    tt.return
  }
  tt.func @blocks(%c: i1) {
    %buf = ttg.local_alloc : () -> !ttg.memdesc<256xi8, #flat, #smem, mutable>
    %at0 = tle.memdesc_alias %buf {offset_bytes = 0 : i64} : !ttg.memdesc<256xi8, #flat, #smem, mutable> -> !ttg.memdesc<16xi8, #flat, #smem, mutable>
    %at2 = tle.memdesc_alias %buf {offset_bytes = 2 : i64} : !ttg.memdesc<256xi8, #flat, #smem, mutable> -> !ttg.memdesc<16xi8, #flat, #smem, mutable>
    cf.cond_br %c, ^bb1(%at0 : !ttg.memdesc<16xi8, #flat, #smem, mutable>), ^bb1(%at2 : !ttg.memdesc<16xi8, #flat, #smem, mutable>)
  ^bb1(%m: !ttg.memdesc<16xi8, #flat, #smem, mutable>):
    %joined = tle.memdesc_alias %m {offset_bytes = 0 : i64} : !ttg.memdesc<16xi8, #flat, #smem, mutable> -> !ttg.memdesc<4xi32, #flat, #smem, mutable>
    tt.return
  }
  tt.func @partitions() {
    %buf = ttg.local_alloc : () -> !ttg.memdesc<256xi8, #flat, #smem, mutable>
    %0 = tle.memdesc_alias %buf {offset_bytes = 16 : i64} : !ttg.memdesc<256xi8, #flat, #smem, mutable> -> !ttg.memdesc<16xi8, #flat, #smem, mutable>
    %at2 = tle.memdesc_alias %buf {offset_bytes = 2 : i64} : !ttg.memdesc<256xi8, #flat, #smem, mutable> -> !ttg.memdesc<16xi8, #flat, #smem, mutable>
    ttg.warp_specialize(%at2) attributes {requestedRegisters = array<i32: 24>}
    default {
      ttg.warp_yield
    }
    partition0(%arg0: !ttg.memdesc<16xi8, #flat, #smem, mutable>) num_warps(1) {
      %0 = tle.memdesc_alias %arg0 {offset_bytes = 0 : i64} : !ttg.memdesc<16xi8, #flat, #smem, mutable> -> !ttg.memdesc<4xi32, #flat, #smem, mutable>
      ttg.warp_return
    } : (!ttg.memdesc<16xi8, #flat, #smem, mutable>) -> ()
    %1 = tle.memdesc_alias %0 {offset_bytes = 0 : i64} : !ttg.memdesc<16xi8, #flat, #smem, mutable> -> !ttg.memdesc<4xi32, #flat, #smem, mutable>
    tt.return
  }
}
// EXPECT: safe: alias.address.aligned @ 20
// EXPECT: safe: alias.address.aligned @ 30
// EXPECT: safe: alias.address.aligned @ 34
// EXPECT: safe: alias.address.aligned @ 43
// EXPECT: safe: alias.address.aligned @ 55
// EXPECT: flagtree: clean
// EXPECT: triton-3.6, triton-3.7, triton-3.8, triton-3.9: triton.op.stock @ 14
// EXPECT: triton-3.6, triton-3.7, triton-3.8, triton-3.9: triton.op.stock @ 17
// EXPECT: triton-3.6, triton-3.7, triton-3.8, triton-3.9: triton.op.stock @ 20
// EXPECT: triton-3.6, triton-3.7, triton-3.8, triton-3.9: triton.op.stock @ 25
// EXPECT: triton-3.6, triton-3.7, triton-3.8, triton-3.9: triton.op.stock @ 30
// EXPECT: triton-3.6, triton-3.7, triton-3.8, triton-3.9: triton.op.stock @ 31
// EXPECT: triton-3.6, triton-3.7, triton-3.8, triton-3.9: triton.op.stock @ 34
// EXPECT: triton-3.6, triton-3.7, triton-3.8, triton-3.9: triton.op.stock @ 39
// EXPECT: triton-3.6, triton-3.7, triton-3.8, triton-3.9: triton.op.stock @ 40
// EXPECT: triton-3.6, triton-3.7, triton-3.8, triton-3.9: triton.op.stock @ 43
// EXPECT: triton-3.6, triton-3.7, triton-3.8, triton-3.9: triton.op.stock @ 48
// EXPECT: triton-3.6, triton-3.7, triton-3.8, triton-3.9: triton.op.stock @ 49
// EXPECT: triton-3.6, triton-3.7, triton-3.8, triton-3.9: triton.op.stock @ 55
// EXPECT: triton-3.6, triton-3.7, triton-3.8, triton-3.9: triton.op.stock @ 58
