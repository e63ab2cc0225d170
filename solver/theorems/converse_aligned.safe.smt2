; Generated from the tle-alias-spec catalogue by `alias-spec gen`. Do not edit.
; Change alias_spec/model/ and regenerate. Check it with `z3 FILE` or `cvc5 FILE`.
; Theorem converse_aligned.safe (safe): the converse holds once the relative offset is element-aligned and a mutable second alias has a mutable first alias.
; Proved: each of its 23 conjuncts' negation has no model.
; Each (check-sat) is preceded by the answer it expects.

(set-logic ALL)
(declare-fun first_res_mutable () Bool)
(declare-fun second_res_mutable () Bool)
(declare-fun second_res_bits () Int)
(declare-fun second_off () Int)
(declare-fun first_res_bits () Int)
(declare-fun first_res_elems () Int)
(declare-fun second_res_elems () Int)
(declare-fun second_swz () Int)
(declare-fun first_align () Int)
(declare-fun first_off () Int)
(declare-fun first_src_bits () Int)
(declare-fun first_src_start () Int)
(declare-fun first_src_base () Int)
(declare-fun first_src_static () Bool)
(declare-fun first_off_int () Bool)
(declare-fun second_res_static () Bool)
(declare-fun first_run () Int)
(declare-fun first_p2 () Int)
(declare-fun first_p1 () Int)
(declare-fun first_p0 () Int)
(declare-fun first_c2 () Int)
(declare-fun first_c1 () Int)
(declare-fun first_c0 () Int)
(declare-fun first_src_elems () Int)
(declare-fun first_src_mutable () Bool)
(declare-fun second_res_space () Int)
(declare-fun first_src_space () Int)
(declare-fun first_scope () Int)
(declare-fun first_op () Int)
(declare-fun first_init_given () Bool)
(declare-fun first_src_buffered () Bool)
(declare-fun first_swz () Int)
(declare-fun first_res_static () Bool)
(declare-fun first_res_space () Int)
(declare-fun first_sub_off_lt () Bool)
(declare-fun first_res_nonzero () Bool)
(declare-fun first_sub_in_bounds () Bool)
(declare-fun first_src_prefix_sub () Bool)
(declare-fun first_same_alloc () Bool)
(declare-fun first_same_enc () Bool)
(declare-fun first_same_elem () Bool)
(declare-fun first_sub_swz_ok () Bool)
(declare-fun first_sub_tile_ok () Bool)
(declare-fun first_sub_zero_ok () Bool)
(declare-fun first_sub_split () Bool)
(declare-fun first_sub_rank_ok () Bool)
(declare-fun first_idx_shape_ok () Bool)
(declare-fun first_idx () Int)
(declare-fun first_idx_static () Bool)
(declare-fun first_src_nonzero () Bool)
(declare-fun first_src_subview () Bool)
(declare-fun first_res_alloc_fits () Bool)
(declare-fun first_res_rank () Int)
(declare-fun first_res_alloc_rank () Int)
(declare-fun first_res_subview () Bool)
(declare-fun first_src_alloc_fits () Bool)
(declare-fun first_src_rank () Int)
(declare-fun first_src_alloc_rank () Int)
(declare-fun first_res_lay_rank () Int)
(declare-fun first_src_lay_rank () Int)
(declare-fun second_op () Int)
(declare-fun second_sub_off_lt () Bool)
(declare-fun second_res_nonzero () Bool)
(declare-fun second_sub_in_bounds () Bool)
(declare-fun second_src_prefix_sub () Bool)
(declare-fun second_same_alloc () Bool)
(declare-fun second_same_enc () Bool)
(declare-fun second_same_elem () Bool)
(declare-fun second_sub_swz_ok () Bool)
(declare-fun second_sub_tile_ok () Bool)
(declare-fun second_sub_zero_ok () Bool)
(declare-fun second_sub_split () Bool)
(declare-fun second_sub_rank_ok () Bool)
(declare-fun second_idx_shape_ok () Bool)
(declare-fun second_idx () Int)
(declare-fun second_idx_static () Bool)
(declare-fun second_src_nonzero () Bool)
(declare-fun second_src_subview () Bool)
(declare-fun second_res_alloc_fits () Bool)
(declare-fun second_res_rank () Int)
(declare-fun second_res_alloc_rank () Int)
(declare-fun second_res_subview () Bool)
(declare-fun second_src_alloc_fits () Bool)
(declare-fun second_src_rank () Int)
(declare-fun second_src_alloc_rank () Int)
(declare-fun second_res_lay_rank () Int)
(declare-fun second_src_lay_rank () Int)
(assert (let ((a!1 (and (<= 0 first_src_start) (<= 0 first_src_base) (<= 1 first_align)))
      (a!2 (and (<= 1 first_c0)
                (<= 1 first_c1)
                (<= 1 first_c2)
                (<= 0 first_run)))
      (a!3 (>= first_p1 (+ (* (- first_c2 1) first_p2) first_run)))
      (a!4 (+ (* (- first_c1 1) first_p1) (* (- first_c2 1) first_p2) first_run))
      (a!5 (or (<= 1 first_run)
               (and (= 0 first_p0) (= 0 first_p1) (= 0 first_p2))))
      (a!6 (and (or (= 1 first_c1) (< 1 first_c2))
                (or (= 1 first_c0) (< 1 first_c1))))
      (a!7 (> first_p1 (+ (* (- first_c2 1) first_p2) first_run)))
      (a!8 (and (<= 0 first_src_rank)
                (<= 0 first_res_rank)
                (<= 0 first_src_alloc_rank)
                (<= 0 first_res_alloc_rank)))
      (a!9 (or (= 0 first_op)
               (and first_src_buffered
                    (not first_init_given)
                    (= 0 first_scope)
                    first_off_int)))
      (a!10 (* first_idx (* first_res_elems (div (+ first_res_bits 7) 8))))
      (a!11 (or (= 0 first_op)
                first_src_subview
                (and (= first_src_alloc_rank first_src_rank)
                     first_src_alloc_fits
                     (= 0 first_src_start)
                     (= first_run first_src_elems)
                     (= 1 first_c0)
                     (= 1 first_c1)
                     (= 1 first_c2))))
      (a!12 (or (= 0 first_op)
                first_res_subview
                (and (= first_res_alloc_rank first_res_rank)
                     first_res_alloc_fits)))
      (a!13 (or (= 0 first_op)
                (not first_src_static)
                (= first_src_nonzero (<= 1 first_src_elems))))
      (a!14 (or (= 3 first_op)
                (and first_idx_static (= 0 first_idx) first_idx_shape_ok)))
      (a!15 (or (= 2 first_op)
                (and first_sub_rank_ok
                     (not first_sub_split)
                     first_sub_zero_ok
                     first_sub_tile_ok
                     first_sub_off_lt
                     first_sub_in_bounds
                     first_sub_swz_ok)))
      (a!16 (or (distinct 0 first_op)
                (and first_same_elem
                     first_same_enc
                     first_same_alloc
                     (not first_src_prefix_sub))))
      (a!17 (=> (>= first_run 1)
                (and (= (mod first_p0 first_p1) 0)
                     (= (mod first_p1 first_p2) 0)
                     (<= first_c1 (div first_p0 first_p1))
                     (<= first_c2 (div first_p1 first_p2)))))
      (a!18 (=> (= first_run 0)
                (and (= first_c0 1)
                     (= first_c1 1)
                     (= first_c2 1)
                     (= first_src_start 0))))
      (a!19 (+ first_src_base (* first_src_start (div (+ first_src_bits 7) 8))))
      (a!20 (>= first_res_elems (+ (* (- 1 1) first_res_elems) first_res_elems)))
      (a!21 (+ (* (- 1 1) first_res_elems)
               (* (- 1 1) first_res_elems)
               first_res_elems))
      (a!22 (> first_res_elems (+ (* (- 1 1) first_res_elems) first_res_elems)))
      (a!23 (* second_idx (* second_res_elems (div (+ second_res_bits 7) 8))))
      (a!24 (or (= second_swz 0)
                (= second_swz 256)
                (= second_swz 512)
                (= second_swz 1024)))
      (a!25 (=> (>= first_res_elems 1)
                (and (= (mod first_res_elems first_res_elems) 0)
                     (= (mod first_res_elems first_res_elems) 0)
                     (<= 1 (div first_res_elems first_res_elems))
                     (<= 1 (div first_res_elems first_res_elems)))))
      (a!26 (* first_idx (* second_res_elems (div (+ second_res_bits 7) 8))))
      (a!27 (=> (= 0 first_op) (and (= 0 first_scope) (= 0 first_src_space))))
      (a!28 (=> true (<= 1 (div (+ first_res_bits 7) 8))))
      (a!29 (and first_off_int (<= 1 (div (+ first_res_bits 7) 8))))
      (a!30 (= 0 (mod first_off (div (+ first_res_bits 7) 8))))
      (a!31 (>= 9223372036854775807
                (* first_src_elems (div (+ first_src_bits 7) 8))))
      (a!32 (>= 9223372036854775807
                (* first_res_elems (div (+ first_res_bits 7) 8))))
      (a!33 (<= (* first_res_elems (div (+ first_res_bits 7) 8))
                (* first_src_elems (div (+ first_src_bits 7) 8))))
      (a!34 (- (* first_src_elems (div (+ first_src_bits 7) 8))
               (* first_res_elems (div (+ first_res_bits 7) 8))))
      (a!35 (= 0 (* first_res_elems (div (+ first_res_bits 7) 8))))
      (a!36 (>= (* first_run (div (+ first_src_bits 7) 8))
                (* first_res_elems (div (+ first_res_bits 7) 8))))
      (a!37 (div first_off (* first_p0 (div (+ first_src_bits 7) 8))))
      (a!38 (mod first_off (* first_p0 (div (+ first_src_bits 7) 8))))
      (a!46 (and first_off_int
                 (<= 1 (div (+ first_res_bits 7) 8))
                 first_src_static))
      (a!48 (= 0 (mod first_align (div (+ first_res_bits 7) 8))))
      (a!51 (=> true (<= 1 (div (+ second_res_bits 7) 8))))
      (a!52 (and first_off_int (<= 1 (div (+ second_res_bits 7) 8))))
      (a!53 (= 0 (mod (+ first_off second_off) (div (+ second_res_bits 7) 8))))
      (a!54 (>= 9223372036854775807
                (* second_res_elems (div (+ second_res_bits 7) 8))))
      (a!55 (<= (* second_res_elems (div (+ second_res_bits 7) 8))
                (* first_src_elems (div (+ first_src_bits 7) 8))))
      (a!56 (- (* first_src_elems (div (+ first_src_bits 7) 8))
               (* second_res_elems (div (+ second_res_bits 7) 8))))
      (a!58 (= 0 (* second_res_elems (div (+ second_res_bits 7) 8))))
      (a!59 (>= (* first_run (div (+ first_src_bits 7) 8))
                (* second_res_elems (div (+ second_res_bits 7) 8))))
      (a!60 (div (+ first_off second_off)
                 (* first_p0 (div (+ first_src_bits 7) 8))))
      (a!61 (mod (+ first_off second_off)
                 (* first_p0 (div (+ first_src_bits 7) 8))))
      (a!69 (and first_off_int
                 (<= 1 (div (+ second_res_bits 7) 8))
                 first_src_static))
      (a!71 (= 0 (mod first_align (div (+ second_res_bits 7) 8))))
      (a!76 (+ second_off (* second_res_elems (div (+ second_res_bits 7) 8))))
      (a!78 (= (mod second_off (div (+ second_res_bits 7) 8)) 0)))
(let ((a!39 (div a!38 (* first_p1 (div (+ first_src_bits 7) 8))))
      (a!40 (mod a!38 (* first_p1 (div (+ first_src_bits 7) 8))))
      (a!47 (= 0 (mod (+ a!19 first_off) (div (+ first_res_bits 7) 8))))
      (a!49 (+ (+ a!19 first_off)
               (* first_res_elems (div (+ first_res_bits 7) 8))))
      (a!50 (and (= 0 (mod (+ a!19 first_off) first_swz))
                 (= 0 (mod first_align first_swz))))
      (a!57 (=> (and first_off_int first_src_static second_res_static)
                (and a!55 (<= (+ first_off second_off) a!56))))
      (a!62 (div a!61 (* first_p1 (div (+ first_src_bits 7) 8))))
      (a!63 (mod a!61 (* first_p1 (div (+ first_src_bits 7) 8))))
      (a!70 (= 0
               (mod (+ a!19 (+ first_off second_off))
                    (div (+ second_res_bits 7) 8))))
      (a!72 (+ (+ a!19 (+ first_off second_off))
               (* second_res_elems (div (+ second_res_bits 7) 8))))
      (a!74 (= 0 (mod (+ a!19 (+ first_off second_off)) second_swz)))
      (a!77 (<= a!76 (* first_res_elems (div (+ first_res_bits 7) 8)))))
(let ((a!41 (div a!40 (* first_p2 (div (+ first_src_bits 7) 8))))
      (a!42 (mod a!40 (* first_p2 (div (+ first_src_bits 7) 8))))
      (a!64 (div a!63 (* first_p2 (div (+ first_src_bits 7) 8))))
      (a!65 (mod a!63 (* first_p2 (div (+ first_src_bits 7) 8))))
      (a!73 (=> (and first_off_int
                     first_src_static
                     second_res_static
                     (>= 2147483647 (+ first_off second_off)))
                (>= 2147483647 a!72)))
      (a!75 (or (= 0 second_swz) (and a!74 (= 0 (mod first_align second_swz))))))
(let ((a!43 (+ a!42 (* first_res_elems (div (+ first_res_bits 7) 8))))
      (a!66 (+ a!65 (* second_res_elems (div (+ second_res_bits 7) 8)))))
(let ((a!44 (<= a!43 (* first_run (div (+ first_src_bits 7) 8))))
      (a!67 (<= a!66 (* first_run (div (+ first_src_bits 7) 8)))))
(let ((a!45 (=> (and first_off_int
                     first_src_static
                     first_res_static
                     (<= 0 first_off))
                (or a!35
                    (and a!36
                         (< a!37 first_c0)
                         (< a!39 first_c1)
                         (< a!41 first_c2)
                         a!44))))
      (a!68 (=> (and first_off_int
                     first_src_static
                     second_res_static
                     (<= 0 (+ first_off second_off)))
                (or a!58
                    (and a!59
                         (< a!60 first_c0)
                         (< a!62 first_c1)
                         (< a!64 first_c2)
                         a!67)))))
  (and (or (= 0 first_scope) (= 1 first_scope))
       (<= 0 first_src_space)
       (>= 2 first_src_space)
       (<= 0 first_res_space)
       (>= 2 first_res_space)
       (<= 0 first_src_bits)
       (<= 0 first_res_bits)
       (>= 2147483648 first_src_bits)
       (>= 2147483648 first_res_bits)
       (or first_off_int (= 0 first_off))
       (<= 0 first_src_elems)
       (<= 0 first_res_elems)
       (or first_src_static (= 0 first_src_elems))
       (or first_res_static (= 0 first_res_elems))
       a!1
       (or (= 0 first_swz) (<= 1 first_swz))
       a!2
       (= first_src_elems (* first_c0 first_c1 first_c2 first_run))
       (and (>= first_p2 first_run) a!3 (>= first_p0 a!4))
       a!5
       a!6
       (or (= 1 first_c2) (> first_p2 first_run))
       (or (= 1 first_c1) a!7)
       (or (= 1 first_c0) (> first_p0 a!4))
       (and (<= 0 first_op) (>= 3 first_op))
       a!8
       (and (<= 0 first_src_lay_rank) (<= 0 first_res_lay_rank))
       (or first_idx_static (= 0 first_idx))
       a!9
       (or (distinct 1 first_op) (= 0 first_off))
       (or (distinct 3 first_op) (not first_idx_static) (= first_off a!10))
       a!11
       a!12
       (or (not first_src_prefix_sub) first_src_subview)
       a!13
       (or (= 0 first_op)
           (= 2 first_op)
           (not first_res_static)
           (= first_res_nonzero (<= 1 first_res_elems)))
       a!14
       a!15
       a!16
       (or (not (and first_sub_in_bounds first_res_nonzero)) first_sub_off_lt)
       (= first_op 0)
       (or (= first_swz 0)
           (= first_swz 256)
           (= first_swz 512)
           (= first_swz 1024))
       a!17
       a!18
       (or (= 0 first_scope) (= 1 first_scope))
       (<= 0 first_res_space)
       (>= 2 first_res_space)
       (<= 0 second_res_space)
       (>= 2 second_res_space)
       (<= 0 first_res_bits)
       (<= 0 second_res_bits)
       (>= 2147483648 first_res_bits)
       (>= 2147483648 second_res_bits)
       (or first_off_int (= 0 second_off))
       (<= 0 first_res_elems)
       (<= 0 second_res_elems)
       (or first_res_static (= 0 first_res_elems))
       (or second_res_static (= 0 second_res_elems))
       (>= 0 0)
       (<= 0 (+ a!19 first_off))
       (<= 1 first_align)
       (or (= 0 second_swz) (<= 1 second_swz))
       (>= 1 1)
       (>= 1 1)
       (>= 1 1)
       (<= 0 first_res_elems)
       (= first_res_elems (* 1 1 1 first_res_elems))
       (>= first_res_elems first_res_elems)
       a!20
       (>= first_res_elems a!21)
       (or (<= 1 first_res_elems)
           (and (= 0 first_res_elems)
                (= 0 first_res_elems)
                (= 0 first_res_elems)))
       (or (= 1 1) (> 1 1))
       (or (= 1 1) (> 1 1))
       (or (= 1 1) (> first_res_elems first_res_elems))
       (or (= 1 1) a!22)
       (or (= 1 1) (> first_res_elems a!21))
       (<= 0 second_op)
       (>= 3 second_op)
       (<= 0 second_src_rank)
       (<= 0 second_res_rank)
       (<= 0 second_src_alloc_rank)
       (<= 0 second_res_alloc_rank)
       (<= 0 second_src_lay_rank)
       (<= 0 second_res_lay_rank)
       (or second_idx_static (= 0 second_idx))
       (or (= 0 second_op)
           (and first_src_buffered
                (not first_init_given)
                (= 0 first_scope)
                first_off_int))
       (or (distinct 1 second_op) (= 0 second_off))
       (or (distinct 3 second_op) (not second_idx_static) (= second_off a!23))
       (or (= 0 second_op)
           second_src_subview
           (and (= second_src_alloc_rank second_src_rank)
                second_src_alloc_fits
                (= 0 0)
                (= first_res_elems first_res_elems)
                (= 1 1)
                (= 1 1)
                (= 1 1)))
       (or (= 0 second_op)
           second_res_subview
           (and (= second_res_alloc_rank second_res_rank) second_res_alloc_fits))
       (or (not second_src_prefix_sub) second_src_subview)
       (or (= 0 second_op)
           (not first_res_static)
           (= second_src_nonzero (<= 1 first_res_elems)))
       (or (= 0 second_op)
           (= 2 second_op)
           (not second_res_static)
           (= second_res_nonzero (<= 1 second_res_elems)))
       (or (= 3 second_op)
           (and second_idx_static (= 0 second_idx) second_idx_shape_ok))
       (or (= 2 second_op)
           (and second_sub_rank_ok
                (not second_sub_split)
                second_sub_zero_ok
                second_sub_tile_ok
                second_sub_off_lt
                second_sub_in_bounds
                second_sub_swz_ok))
       (or (distinct 0 second_op)
           (and second_same_elem
                second_same_enc
                second_same_alloc
                (not second_src_prefix_sub)))
       (or (not (and second_sub_in_bounds second_res_nonzero))
           second_sub_off_lt)
       (= second_op 0)
       a!24
       a!25
       (=> (= first_res_elems 0) (and (= 1 1) (= 1 1) (= 1 1) (= 0 0)))
       (or (= 0 first_scope) (= 1 first_scope))
       (<= 0 first_src_space)
       (>= 2 first_src_space)
       (<= 0 second_res_space)
       (>= 2 second_res_space)
       (<= 0 first_src_bits)
       (<= 0 second_res_bits)
       (>= 2147483648 first_src_bits)
       (>= 2147483648 second_res_bits)
       (or first_off_int (= 0 (+ first_off second_off)))
       (<= 0 first_src_elems)
       (<= 0 second_res_elems)
       (or first_src_static (= 0 first_src_elems))
       (or second_res_static (= 0 second_res_elems))
       a!1
       (or (= 0 second_swz) (<= 1 second_swz))
       a!2
       (= first_src_elems (* first_c0 first_c1 first_c2 first_run))
       (and (>= first_p2 first_run) a!3 (>= first_p0 a!4))
       a!5
       a!6
       (or (= 1 first_c2) (> first_p2 first_run))
       (or (= 1 first_c1) a!7)
       (or (= 1 first_c0) (> first_p0 a!4))
       (and (<= 0 first_op) (>= 3 first_op))
       a!8
       (and (<= 0 first_src_lay_rank) (<= 0 first_res_lay_rank))
       (or first_idx_static (= 0 first_idx))
       a!9
       (or (distinct 1 first_op) (= 0 (+ first_off second_off)))
       (or (distinct 3 first_op)
           (not first_idx_static)
           (= (+ first_off second_off) a!26))
       a!11
       a!12
       (or (not first_src_prefix_sub) first_src_subview)
       a!13
       (or (= 0 first_op)
           (= 2 first_op)
           (not second_res_static)
           (= first_res_nonzero (<= 1 second_res_elems)))
       a!14
       a!15
       a!16
       (or (not (and first_sub_in_bounds first_res_nonzero)) first_sub_off_lt)
       (= first_op 0)
       a!24
       a!17
       a!18
       (=> true first_src_buffered)
       (=> true (not first_init_given))
       a!27
       (=> true (= first_src_space first_res_space))
       (=> true (or first_src_mutable (not first_res_mutable)))
       (=> true first_off_int)
       (=> first_off_int (<= 0 first_off))
       (=> first_off_int (>= 2147483647 first_off))
       a!28
       (=> a!29 a!30)
       (=> true
           (and first_src_static
                first_res_static
                a!31
                a!32
                (<= 1 first_src_bits)))
       (=> (and first_off_int first_src_static first_res_static)
           (and a!33 (<= first_off a!34)))
       a!45
       (=> a!46 (and a!47 a!48))
       (=> (and first_off_int
                first_src_static
                first_res_static
                (>= 2147483647 first_off))
           (>= 2147483647 a!49))
       (=> (and first_off_int first_src_static) (or (= 0 first_swz) a!50))
       (=> true first_src_buffered)
       (=> true (not first_init_given))
       a!27
       (=> true (= first_src_space second_res_space))
       (=> true (or first_src_mutable (not second_res_mutable)))
       (=> true first_off_int)
       (=> first_off_int (<= 0 (+ first_off second_off)))
       (=> first_off_int (>= 2147483647 (+ first_off second_off)))
       a!51
       (=> a!52 a!53)
       (=> true
           (and first_src_static
                second_res_static
                a!31
                a!54
                (<= 1 first_src_bits)))
       a!57
       a!68
       (=> a!69 (and a!70 a!71))
       a!73
       (=> (and first_off_int first_src_static) a!75)
       (>= second_off 0)
       a!77
       a!78
       (=> second_res_mutable first_res_mutable)))))))))
(push 1)
(assert true)
(assert (not first_src_buffered))
; expect: unsat
(check-sat)
(pop 1)
(push 1)
(assert true)
(assert (not (not first_init_given)))
; expect: unsat
(check-sat)
(pop 1)
(push 1)
(assert (= 0 second_op))
(assert (not (= 0 first_scope)))
; expect: unsat
(check-sat)
(pop 1)
(push 1)
(assert (= 0 second_op))
(assert (not (= 0 first_res_space)))
; expect: unsat
(check-sat)
(pop 1)
(push 1)
(assert true)
(assert (not (= first_res_space second_res_space)))
; expect: unsat
(check-sat)
(pop 1)
(push 1)
(assert true)
(assert (not (or first_res_mutable (not second_res_mutable))))
; expect: unsat
(check-sat)
(pop 1)
(push 1)
(assert true)
(assert (not first_off_int))
; expect: unsat
(check-sat)
(pop 1)
(push 1)
(assert first_off_int)
(assert (not (<= 0 second_off)))
; expect: unsat
(check-sat)
(pop 1)
(push 1)
(assert first_off_int)
(assert (not (>= 2147483647 second_off)))
; expect: unsat
(check-sat)
(pop 1)
(push 1)
(assert true)
(assert (not (<= 1 (div (+ second_res_bits 7) 8))))
; expect: unsat
(check-sat)
(pop 1)
(push 1)
(assert (and first_off_int (<= 1 (div (+ second_res_bits 7) 8))))
(assert (let ((a!1 (= 0 (mod second_off (div (+ second_res_bits 7) 8)))))
  (not a!1)))
; expect: unsat
(check-sat)
(pop 1)
(push 1)
(assert true)
(assert (not first_res_static))
; expect: unsat
(check-sat)
(pop 1)
(push 1)
(assert true)
(assert (not second_res_static))
; expect: unsat
(check-sat)
(pop 1)
(push 1)
(assert true)
(assert (let ((a!1 (>= 9223372036854775807
               (* first_res_elems (div (+ first_res_bits 7) 8)))))
  (not a!1)))
; expect: unsat
(check-sat)
(pop 1)
(push 1)
(assert true)
(assert (let ((a!1 (>= 9223372036854775807
               (* second_res_elems (div (+ second_res_bits 7) 8)))))
  (not a!1)))
; expect: unsat
(check-sat)
(pop 1)
(push 1)
(assert true)
(assert (not (<= 1 first_res_bits)))
; expect: unsat
(check-sat)
(pop 1)
(push 1)
(assert (and first_off_int first_res_static second_res_static))
(assert (let ((a!1 (<= (* second_res_elems (div (+ second_res_bits 7) 8))
               (* first_res_elems (div (+ first_res_bits 7) 8)))))
  (not a!1)))
; expect: unsat
(check-sat)
(pop 1)
(push 1)
(assert (and first_off_int first_res_static second_res_static))
(assert (let ((a!1 (- (* first_res_elems (div (+ first_res_bits 7) 8))
              (* second_res_elems (div (+ second_res_bits 7) 8)))))
  (not (<= second_off a!1))))
; expect: unsat
(check-sat)
(pop 1)
(push 1)
(assert (and first_off_int first_res_static second_res_static (<= 0 second_off)))
(assert (let ((a!1 (= 0 (* second_res_elems (div (+ second_res_bits 7) 8))))
      (a!2 (>= (* first_res_elems (div (+ first_res_bits 7) 8))
               (* second_res_elems (div (+ second_res_bits 7) 8))))
      (a!3 (div second_off (* first_res_elems (div (+ first_res_bits 7) 8))))
      (a!4 (mod second_off (* first_res_elems (div (+ first_res_bits 7) 8)))))
(let ((a!5 (div a!4 (* first_res_elems (div (+ first_res_bits 7) 8))))
      (a!6 (mod a!4 (* first_res_elems (div (+ first_res_bits 7) 8)))))
(let ((a!7 (div a!6 (* first_res_elems (div (+ first_res_bits 7) 8))))
      (a!8 (mod a!6 (* first_res_elems (div (+ first_res_bits 7) 8)))))
(let ((a!9 (+ a!8 (* second_res_elems (div (+ second_res_bits 7) 8)))))
(let ((a!10 (<= a!9 (* first_res_elems (div (+ first_res_bits 7) 8)))))
  (not (or a!1 (and a!2 (> 1 a!3) (> 1 a!5) (> 1 a!7) a!10)))))))))
; expect: unsat
(check-sat)
(pop 1)
(push 1)
(assert (and first_off_int (<= 1 (div (+ second_res_bits 7) 8)) first_res_static))
(assert (let ((a!1 (+ first_src_base
              (* first_src_start (div (+ first_src_bits 7) 8))
              first_off
              (* 0 (div (+ first_res_bits 7) 8))
              second_off)))
(let ((a!2 (= 0 (mod a!1 (div (+ second_res_bits 7) 8)))))
  (not a!2))))
; expect: unsat
(check-sat)
(pop 1)
(push 1)
(assert (and first_off_int (<= 1 (div (+ second_res_bits 7) 8)) first_res_static))
(assert (let ((a!1 (= 0 (mod first_align (div (+ second_res_bits 7) 8)))))
  (not a!1)))
; expect: unsat
(check-sat)
(pop 1)
(push 1)
(assert (and first_off_int
     first_res_static
     second_res_static
     (>= 2147483647 second_off)))
(assert (let ((a!1 (+ first_src_base
              (* first_src_start (div (+ first_src_bits 7) 8))
              first_off
              (* 0 (div (+ first_res_bits 7) 8))
              second_off
              (* second_res_elems (div (+ second_res_bits 7) 8)))))
  (not (>= 2147483647 a!1))))
; expect: unsat
(check-sat)
(pop 1)
(push 1)
(assert (and first_off_int first_res_static))
(assert (let ((a!1 (+ first_src_base
              (* first_src_start (div (+ first_src_bits 7) 8))
              first_off
              (* 0 (div (+ first_res_bits 7) 8))
              second_off)))
(let ((a!2 (or (= 0 second_swz)
               (and (= 0 (mod a!1 second_swz))
                    (= 0 (mod first_align second_swz))))))
  (not a!2))))
; expect: unsat
(check-sat)
(pop 1)
