; Generated from the tle-alias-spec catalogue by `alias-spec gen`. Do not edit.
; Change alias_spec/model/ and regenerate. Check it with `z3 FILE` or `cvc5 FILE`.
; Rule alias.address.aligned (safe): The result is element-aligned in absolute address terms.
; The result's start, counted from the allocation's start (source base, subslice position and offset), is a multiple of the result element width, and the allocation's own alignment guarantees that width. An offset aligned relative to a misaligned source is not enough.
; The last assertions pin the model `alias-spec prove` recorded for independent.safe.alias.address.aligned (any model would do).

(set-logic ALL)
(declare-const src_buffered Bool)  ; the alias source is a buffered tensor (a memdesc)
(declare-const init_given Bool)  ; an init_value was passed together with alias
(declare-const scope Int)  ; requested scope: SMEM or TMEM
(declare-const src_space Int)  ; memory space of the source: SMEM, TMEM or GLOBAL
(declare-const res_space Int)  ; memory space of the result
(declare-const src_mutable Bool)  ; the source descriptor is mutable
(declare-const res_mutable Bool)  ; the result descriptor is mutable
(declare-const off_int Bool)  ; alias_offset_bytes is a compile-time integer (not a bool)
(declare-const off Int)  ; alias_offset_bytes (0 when it is not an integer)
(declare-const src_bits Int)  ; bit width of the source element type
(declare-const res_bits Int)  ; bit width of the result element type
(declare-const src_static Bool)  ; every dimension of the source view is static, and its element count (multiplied dim by dim, as FlagTree does) fits in int64
(declare-const res_static Bool)  ; every dimension of the result is static, and its element count fits in int64
(declare-const src_elems Int)  ; elements in the source view's logical shape (0 if dynamic)
(declare-const res_elems Int)  ; elements in the result's logical shape (0 if dynamic)
(declare-const src_start Int)  ; elements from the source's base to its view start (subslice)
(declare-const src_base Int)  ; bytes from the allocation start to the source's base
(declare-const run Int)  ; elements in one contiguous run of the source view
(declare-const p0 Int)  ; outer stride (elements) of the source view's runs, level 0
(declare-const c0 Int)  ; number of runs along level 0
(declare-const p1 Int)  ; stride (elements) of level 1
(declare-const c1 Int)  ; count along level 1
(declare-const p2 Int)  ; stride (elements) of level 2, the innermost
(declare-const c2 Int)  ; count along level 2
(declare-const align Int)  ; guaranteed alignment (bytes) of the allocation's start
(declare-const swz Int)  ; swizzle repeat (bytes) of the result's NVMMA layout, 0 if none
(declare-const op Int)  ; the view op: OP_ALIAS, OP_REINTERPRET, OP_SUBSLICE or OP_INDEX
(declare-const src_rank Int)  ; rank of the source shape
(declare-const src_alloc_rank Int)  ; rank of the source type's alloc shape
(declare-const src_lay_rank Int)  ; rank of the source layout (shape rank if unknown)
(declare-const src_d0_pow2 Bool)  ; the source's first dim is a power of 2
(declare-const src_tail_pow2 Bool)  ; every source dim after the first is a power of 2
(declare-const src_nonzero Bool)  ; every source dim is non-zero
(declare-const src_alloc_fits Bool)  ; each source dim is at most the matching trailing alloc-shape dim
(declare-const src_alloc_tail_pow2 Bool)  ; every source alloc-shape dim its layout covers (the trailing layout-rank dims) is a power of 2
(declare-const src_subview Bool)  ; the source type is a subview (alloc != shape)
(declare-const src_nvmma_fits Bool)  ; the source's NVMMA layout (if any) has a contiguous dim of at least one swizzle row, counted in the layout's elementBitWidth
(declare-const src_nvmma_rows Bool)  ; the source's swizzled NVMMA layout (if any) covers at least 8 rows
(declare-const res_rank Int)  ; rank of the result shape
(declare-const res_alloc_rank Int)  ; rank of the result type's alloc shape
(declare-const res_lay_rank Int)  ; rank of the result layout (shape rank if unknown)
(declare-const res_d0_pow2 Bool)  ; the result's first dim is a power of 2
(declare-const res_tail_pow2 Bool)  ; every result dim after the first is a power of 2
(declare-const res_nonzero Bool)  ; every result dim is non-zero
(declare-const res_alloc_fits Bool)  ; each result dim is at most the matching trailing alloc-shape dim
(declare-const res_alloc_tail_pow2 Bool)  ; every result alloc-shape dim its layout covers (the trailing layout-rank dims) is a power of 2
(declare-const res_subview Bool)  ; the result type is a subview (alloc != shape)
(declare-const res_nvmma_fits Bool)  ; the result's NVMMA layout (if any) has a contiguous dim of at least one swizzle row, counted in the layout's elementBitWidth
(declare-const res_nvmma_rows Bool)  ; the result's swizzled NVMMA layout (if any) covers at least 8 rows
(declare-const same_elem Bool)  ; source and result element types are the same type
(declare-const same_enc Bool)  ; source and result layouts are the same attribute
(declare-const same_alloc Bool)  ; source and result alloc shapes are equal
(declare-const src_prefix_sub Bool)  ; the source is a subview that trims only its leading dim
(declare-const idx_static Bool)  ; memdesc_index: the index is a compile-time constant
(declare-const idx Int)  ; memdesc_index: the index (0 when it is a runtime value)
(declare-const idx_shape_ok Bool)  ; memdesc_index: the result shape is the source shape[1:]
(declare-const sub_rank_ok Bool)  ; memdesc_subslice: one offset per source dim
(declare-const sub_split Bool)  ; memdesc_subslice: some dim differs between source and result
(declare-const sub_zero_ok Bool)  ; memdesc_subslice: every dim that is not split has offset 0
(declare-const sub_tile_ok Bool)  ; memdesc_subslice: every split dim's offset has no bit below the result size (offset & (size - 1) == 0)
(declare-const sub_off_lt Bool)  ; memdesc_subslice: every offset is below the source dim
(declare-const sub_in_bounds Bool)  ; memdesc_subslice: offset + result dim <= source dim in every dim
(declare-const sub_swz_ok Bool)  ; memdesc_subslice: no split dim cuts the layout's swizzle pattern (each power-of-2 step of a split dim maps to a power-of-2 offset)

; alias.address.aligned: The result is element-aligned in absolute address terms
;   guard:   off_int and res_eb >= 1 and src_static
;   formula: abs_off % res_eb == 0 and align % res_eb == 0
(define-fun guard () Bool (and off_int (<= 1 (div (+ res_bits 7) 8)) src_static))
(define-fun formula () Bool (let ((a!1 (+ src_base (* src_start (div (+ src_bits 7) 8)) off))
      (a!3 (= 0 (mod align (div (+ res_bits 7) 8)))))
(let ((a!2 (= 0 (mod a!1 (div (+ res_bits 7) 8)))))
  (and a!2 a!3))))
(define-fun holds () Bool (=> guard formula))

; Every fact tuple a well-formed request parses to satisfies these.
; scope == SMEM or scope == TMEM
(assert (or (= 0 scope) (= 1 scope)))
; src_space >= 0 and src_space <= 2 and res_space >= 0 and res_space <= 2
(assert (and (<= 0 src_space) (>= 2 src_space) (<= 0 res_space) (>= 2 res_space)))
; src_bits >= 0 and res_bits >= 0 and src_bits <= 2147483648 and res_bits <= 2147483648
(assert (and (<= 0 src_bits)
     (<= 0 res_bits)
     (>= 2147483648 src_bits)
     (>= 2147483648 res_bits)))
; off_int or off == 0
(assert (or off_int (= 0 off)))
; src_elems >= 0 and res_elems >= 0
(assert (and (<= 0 src_elems) (<= 0 res_elems)))
; src_static or src_elems == 0
(assert (or src_static (= 0 src_elems)))
; res_static or res_elems == 0
(assert (or res_static (= 0 res_elems)))
; src_start >= 0 and src_base >= 0 and align >= 1
(assert (and (<= 0 src_start) (<= 0 src_base) (<= 1 align)))
; swz == 0 or swz >= 1
(assert (or (= 0 swz) (<= 1 swz)))
; c0 >= 1 and c1 >= 1 and c2 >= 1 and run >= 0
(assert (and (<= 1 c0) (<= 1 c1) (<= 1 c2) (<= 0 run)))
; src_elems == c0 * c1 * c2 * run
(assert (= src_elems (* c0 c1 c2 run)))
; p2 >= run and p1 >= (c2 - 1) * p2 + run and p0 >= (c1 - 1) * p1 + (c2 - 1) * p2 + run
(assert (let ((a!1 (>= p1 (+ (* (- c2 1) p2) run)))
      (a!2 (>= p0 (+ (* (- c1 1) p1) (* (- c2 1) p2) run))))
  (and (>= p2 run) a!1 a!2)))
; run >= 1 or (p0 == 0 and p1 == 0 and p2 == 0)
(assert (or (<= 1 run) (and (= 0 p0) (= 0 p1) (= 0 p2))))
; (c1 == 1 or c2 > 1) and (c0 == 1 or c1 > 1)
(assert (and (or (= 1 c1) (< 1 c2)) (or (= 1 c0) (< 1 c1))))
; c2 == 1 or p2 > run
(assert (or (= 1 c2) (> p2 run)))
; c1 == 1 or p1 > (c2 - 1) * p2 + run
(assert (let ((a!1 (> p1 (+ (* (- c2 1) p2) run))))
  (or (= 1 c1) a!1)))
; c0 == 1 or p0 > (c1 - 1) * p1 + (c2 - 1) * p2 + run
(assert (let ((a!1 (> p0 (+ (* (- c1 1) p1) (* (- c2 1) p2) run))))
  (or (= 1 c0) a!1)))
; op >= OP_ALIAS and op <= OP_INDEX
(assert (and (<= 0 op) (>= 3 op)))
; src_rank >= 0 and res_rank >= 0 and src_alloc_rank >= 0 and res_alloc_rank >= 0
(assert (and (<= 0 src_rank)
     (<= 0 res_rank)
     (<= 0 src_alloc_rank)
     (<= 0 res_alloc_rank)))
; src_lay_rank >= 0 and res_lay_rank >= 0
(assert (and (<= 0 src_lay_rank) (<= 0 res_lay_rank)))
; idx_static or idx == 0
(assert (or idx_static (= 0 idx)))
; op == OP_ALIAS or (src_buffered and not init_given and scope == SMEM and off_int)
(assert (or (= 0 op) (and src_buffered (not init_given) (= 0 scope) off_int)))
; op != OP_REINTERPRET or off == 0
(assert (or (distinct 1 op) (= 0 off)))
; op != OP_INDEX or not idx_static or off == idx * res_bytes
(assert (let ((a!1 (= off (* idx res_elems (div (+ res_bits 7) 8)))))
  (or (distinct 3 op) (not idx_static) a!1)))
; op == OP_ALIAS or src_subview or (src_alloc_rank == src_rank and src_alloc_fits and src_start == 0 and run == src_elems and c0 == 1 and c1 == 1 and c2 == 1)
(assert (or (= 0 op)
    src_subview
    (and (= src_alloc_rank src_rank)
         src_alloc_fits
         (= 0 src_start)
         (= run src_elems)
         (= 1 c0)
         (= 1 c1)
         (= 1 c2))))
; op == OP_ALIAS or res_subview or (res_alloc_rank == res_rank and res_alloc_fits)
(assert (or (= 0 op) res_subview (and (= res_alloc_rank res_rank) res_alloc_fits)))
; not src_prefix_sub or src_subview
(assert (or (not src_prefix_sub) src_subview))
; op == OP_ALIAS or not src_static or src_nonzero == (src_elems >= 1)
(assert (or (= 0 op) (not src_static) (= src_nonzero (<= 1 src_elems))))
; op == OP_ALIAS or op == OP_SUBSLICE or not res_static or res_nonzero == (res_elems >= 1)
(assert (or (= 0 op) (= 2 op) (not res_static) (= res_nonzero (<= 1 res_elems))))
; op == OP_INDEX or (idx_static and idx == 0 and idx_shape_ok)
(assert (or (= 3 op) (and idx_static (= 0 idx) idx_shape_ok)))
; op == OP_SUBSLICE or (sub_rank_ok and not sub_split and sub_zero_ok and sub_tile_ok and sub_off_lt and sub_in_bounds and sub_swz_ok)
(assert (or (= 2 op)
    (and sub_rank_ok
         (not sub_split)
         sub_zero_ok
         sub_tile_ok
         sub_off_lt
         sub_in_bounds
         sub_swz_ok)))
; op != OP_ALIAS or (same_elem and same_enc and same_alloc and not src_prefix_sub)
(assert (or (distinct 0 op) (and same_elem same_enc same_alloc (not src_prefix_sub))))
; not (sub_in_bounds and res_nonzero) or sub_off_lt
(assert (or (not (and sub_in_bounds res_nonzero)) sub_off_lt))

; Some well-formed request violates the rule.
(assert (not holds))
(assert (= src_buffered true))
(assert (= init_given false))
(assert (= 0 scope))
(assert (= 0 src_space))
(assert (= 0 res_space))
(assert (= src_mutable false))
(assert (= res_mutable false))
(assert (= off_int true))
(assert (= 0 off))
(assert (= 32 src_bits))
(assert (= 32 res_bits))
(assert (= src_static true))
(assert (= res_static true))
(assert (= 1 src_elems))
(assert (= 1 res_elems))
(assert (= 1 src_start))
(assert (= 9 src_base))
(assert (= 1 run))
(assert (= 2 p0))
(assert (= 1 c0))
(assert (= 2 p1))
(assert (= 1 c1))
(assert (= 2 p2))
(assert (= 1 c2))
(assert (= 1 align))
(assert (= 0 swz))
(assert (= 0 op))
(assert (= 0 src_rank))
(assert (= 0 src_alloc_rank))
(assert (= 0 src_lay_rank))
(assert (= src_d0_pow2 false))
(assert (= src_tail_pow2 false))
(assert (= src_nonzero false))
(assert (= src_alloc_fits false))
(assert (= src_alloc_tail_pow2 false))
(assert (= src_subview false))
(assert (= src_nvmma_fits false))
(assert (= src_nvmma_rows false))
(assert (= 0 res_rank))
(assert (= 0 res_alloc_rank))
(assert (= 0 res_lay_rank))
(assert (= res_d0_pow2 false))
(assert (= res_tail_pow2 false))
(assert (= res_nonzero false))
(assert (= res_alloc_fits false))
(assert (= res_alloc_tail_pow2 false))
(assert (= res_subview false))
(assert (= res_nvmma_fits false))
(assert (= res_nvmma_rows false))
(assert (= same_elem true))
(assert (= same_enc true))
(assert (= same_alloc true))
(assert (= src_prefix_sub false))
(assert (= idx_static true))
(assert (= 0 idx))
(assert (= idx_shape_ok true))
(assert (= sub_rank_ok true))
(assert (= sub_split false))
(assert (= sub_zero_ok true))
(assert (= sub_tile_ok true))
(assert (= sub_off_lt true))
(assert (= sub_in_bounds true))
(assert (= sub_swz_ok true))
; expect: sat
(check-sat)
