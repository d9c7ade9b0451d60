;; WebAssembly SIMD kernels of the multinomial logistic fit (softmax-fit.ts through simd-kernels.ts): the
;; linear predictors X W', the softmax with its residuals, and the residuals' cross products with the design;
;; and the rows of the kernel SVMs' RBF kernel matrix; two doubles per instruction (f64x2). `npm run build:wasm` assembles this file into generated/simd-kernels-wasm.ts
;; (a test checks that the two agree).
;;
;; Layout in memory (byte offsets passed by the caller; every block a multiple of 16 bytes):
;;   x     the design with a leading column of ones, rows in pairs: pair p, column a holds x[2p][a], x[2p + 1][a]
;;         side by side at (p * dp + a) * 2; rows padded with zeros to a multiple of 8, columns to dp (a multiple of 4)
;;   w     the weights, one head per row of dp (intercept first), heads padded with zeros to hp (even)
;;   z     hp x rows: the linear predictors, replaced by softmax with the residuals 1[y = h] - p
;;   prob  hp x rows: the probabilities; y: rows class codes as doubles (-1 for padding rows); s: rows sums
;;   g     hp x dp: cross products
;;
;; And one row of an RBF kernel matrix (KernelRows in kernel-expansion.ts through RbfRows in simd-kernels.ts):
;;   x     rows x dp, each sample's features padded with zeros to dp (even); rows a multiple of 4 (zero rows pad)
;;   sq    rows: the samples' squared norms, summed as rbfRow sums a dot product (even terms, odd terms, then both)
;;   out   rows: the row
(module
  (memory (export "memory") 1)

  ;; z[h * rows + row] = sum_a x(row, a) w[h * dp + a] for every head h < hp and row: two heads by four row pairs
  ;; per pass (eight sums of two rows each), so each loaded pair of x values feeds two heads. pairs: a multiple of 4.
  (func (export "predictors") (param $x i32) (param $w i32) (param $z i32) (param $pairs i32) (param $dp i32) (param $hp i32)
    (local $rows i32) (local $h i32) (local $p i32) (local $s i32)
    (local $x0 i32) (local $w0 i32) (local $w1 i32) (local $end i32) (local $zo i32)
    (local $u v128) (local $v v128) (local $c0 v128) (local $c1 v128) (local $c2 v128) (local $c3 v128)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $b0 v128) (local $b1 v128) (local $b2 v128) (local $b3 v128)
    (local.set $rows (i32.shl (local.get $pairs) (i32.const 1)))
    ;; stride between pairs, bytes
    (local.set $s (i32.shl (local.get $dp) (i32.const 4)))
    (local.set $h (i32.const 0))
    (block $hdone
      (loop $hloop
        (br_if $hdone (i32.ge_u (local.get $h) (local.get $hp)))
        (local.set $p (i32.const 0))
        (block $pdone
          (loop $ploop
            (br_if $pdone (i32.ge_u (local.get $p) (local.get $pairs)))
            (local.set $a0 (v128.const f64x2 0 0)) (local.set $a1 (v128.const f64x2 0 0))
            (local.set $a2 (v128.const f64x2 0 0)) (local.set $a3 (v128.const f64x2 0 0))
            (local.set $b0 (v128.const f64x2 0 0)) (local.set $b1 (v128.const f64x2 0 0))
            (local.set $b2 (v128.const f64x2 0 0)) (local.set $b3 (v128.const f64x2 0 0))
            (local.set $x0 (i32.add (local.get $x) (i32.mul (local.get $p) (local.get $s))))
            (local.set $w0 (i32.add (local.get $w) (i32.shl (i32.mul (local.get $h) (local.get $dp)) (i32.const 3))))
            (local.set $w1 (i32.add (local.get $w0) (i32.shl (local.get $dp) (i32.const 3))))
            (local.set $end (i32.add (local.get $x0) (local.get $s)))
            (loop $aloop
              (local.set $u (v128.load64_splat (local.get $w0)))
              (local.set $v (v128.load64_splat (local.get $w1)))
              (local.set $c0 (v128.load (local.get $x0)))
              (local.set $c1 (v128.load (i32.add (local.get $x0) (local.get $s))))
              (local.set $c2 (v128.load (i32.add (local.get $x0) (i32.shl (local.get $s) (i32.const 1)))))
              (local.set $c3 (v128.load (i32.add (local.get $x0) (i32.mul (local.get $s) (i32.const 3)))))
              (local.set $a0 (f64x2.add (local.get $a0) (f64x2.mul (local.get $c0) (local.get $u))))
              (local.set $a1 (f64x2.add (local.get $a1) (f64x2.mul (local.get $c1) (local.get $u))))
              (local.set $a2 (f64x2.add (local.get $a2) (f64x2.mul (local.get $c2) (local.get $u))))
              (local.set $a3 (f64x2.add (local.get $a3) (f64x2.mul (local.get $c3) (local.get $u))))
              (local.set $b0 (f64x2.add (local.get $b0) (f64x2.mul (local.get $c0) (local.get $v))))
              (local.set $b1 (f64x2.add (local.get $b1) (f64x2.mul (local.get $c1) (local.get $v))))
              (local.set $b2 (f64x2.add (local.get $b2) (f64x2.mul (local.get $c2) (local.get $v))))
              (local.set $b3 (f64x2.add (local.get $b3) (f64x2.mul (local.get $c3) (local.get $v))))
              (local.set $w0 (i32.add (local.get $w0) (i32.const 8)))
              (local.set $w1 (i32.add (local.get $w1) (i32.const 8)))
              (local.set $x0 (i32.add (local.get $x0) (i32.const 16)))
              (br_if $aloop (i32.lt_u (local.get $x0) (local.get $end))))
            ;; head h rows 2p .. 2p + 7 at z + (h * rows + 2p) * 8; head h + 1 one row of z further
            (local.set $zo (i32.add (local.get $z) (i32.shl (i32.add (i32.mul (local.get $h) (local.get $rows)) (i32.shl (local.get $p) (i32.const 1))) (i32.const 3))))
            (v128.store offset=0 (local.get $zo) (local.get $a0))
            (v128.store offset=16 (local.get $zo) (local.get $a1))
            (v128.store offset=32 (local.get $zo) (local.get $a2))
            (v128.store offset=48 (local.get $zo) (local.get $a3))
            (local.set $zo (i32.add (local.get $zo) (i32.shl (local.get $rows) (i32.const 3))))
            (v128.store offset=0 (local.get $zo) (local.get $b0))
            (v128.store offset=16 (local.get $zo) (local.get $b1))
            (v128.store offset=32 (local.get $zo) (local.get $b2))
            (v128.store offset=48 (local.get $zo) (local.get $b3))
            (local.set $p (i32.add (local.get $p) (i32.const 4)))
            (br $ploop)))
        (local.set $h (i32.add (local.get $h) (i32.const 2)))
        (br $hloop))))

  ;; g[h * dp + a] = sum over rows of r[h * rows + row] x(row, a) for h < hp, a < dp: the residuals' cross products
  ;; with the design, two heads by four columns per pass over the rows (eight sums of two rows each, added at the end)
  (func (export "crossProducts") (param $r i32) (param $x i32) (param $g i32) (param $pairs i32) (param $dp i32) (param $hp i32)
    (local $rows i32) (local $h i32) (local $a i32) (local $s i32)
    (local $x0 i32) (local $r0 i32) (local $r1 i32) (local $end i32) (local $go i32)
    (local $u v128) (local $v v128) (local $c0 v128) (local $c1 v128) (local $c2 v128) (local $c3 v128)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $b0 v128) (local $b1 v128) (local $b2 v128) (local $b3 v128)
    (local.set $rows (i32.shl (local.get $pairs) (i32.const 1)))
    (local.set $s (i32.shl (local.get $dp) (i32.const 4)))
    (local.set $h (i32.const 0))
    (block $hdone
      (loop $hloop
        (br_if $hdone (i32.ge_u (local.get $h) (local.get $hp)))
        (local.set $a (i32.const 0))
        (block $adone
          (loop $aloop
            (br_if $adone (i32.ge_u (local.get $a) (local.get $dp)))
            (local.set $a0 (v128.const f64x2 0 0)) (local.set $a1 (v128.const f64x2 0 0))
            (local.set $a2 (v128.const f64x2 0 0)) (local.set $a3 (v128.const f64x2 0 0))
            (local.set $b0 (v128.const f64x2 0 0)) (local.set $b1 (v128.const f64x2 0 0))
            (local.set $b2 (v128.const f64x2 0 0)) (local.set $b3 (v128.const f64x2 0 0))
            (local.set $x0 (i32.add (local.get $x) (i32.shl (local.get $a) (i32.const 4))))
            (local.set $r0 (i32.add (local.get $r) (i32.shl (i32.mul (local.get $h) (local.get $rows)) (i32.const 3))))
            (local.set $r1 (i32.add (local.get $r0) (i32.shl (local.get $rows) (i32.const 3))))
            (local.set $end (i32.add (local.get $r0) (i32.shl (local.get $rows) (i32.const 3))))
            (loop $ploop
              (local.set $u (v128.load (local.get $r0)))
              (local.set $v (v128.load (local.get $r1)))
              (local.set $c0 (v128.load offset=0 (local.get $x0)))
              (local.set $c1 (v128.load offset=16 (local.get $x0)))
              (local.set $c2 (v128.load offset=32 (local.get $x0)))
              (local.set $c3 (v128.load offset=48 (local.get $x0)))
              (local.set $a0 (f64x2.add (local.get $a0) (f64x2.mul (local.get $c0) (local.get $u))))
              (local.set $a1 (f64x2.add (local.get $a1) (f64x2.mul (local.get $c1) (local.get $u))))
              (local.set $a2 (f64x2.add (local.get $a2) (f64x2.mul (local.get $c2) (local.get $u))))
              (local.set $a3 (f64x2.add (local.get $a3) (f64x2.mul (local.get $c3) (local.get $u))))
              (local.set $b0 (f64x2.add (local.get $b0) (f64x2.mul (local.get $c0) (local.get $v))))
              (local.set $b1 (f64x2.add (local.get $b1) (f64x2.mul (local.get $c1) (local.get $v))))
              (local.set $b2 (f64x2.add (local.get $b2) (f64x2.mul (local.get $c2) (local.get $v))))
              (local.set $b3 (f64x2.add (local.get $b3) (f64x2.mul (local.get $c3) (local.get $v))))
              (local.set $r0 (i32.add (local.get $r0) (i32.const 16)))
              (local.set $r1 (i32.add (local.get $r1) (i32.const 16)))
              (local.set $x0 (i32.add (local.get $x0) (local.get $s)))
              (br_if $ploop (i32.lt_u (local.get $r0) (local.get $end))))
            (local.set $go (i32.add (local.get $g) (i32.shl (i32.add (i32.mul (local.get $h) (local.get $dp)) (local.get $a)) (i32.const 3))))
            (f64.store offset=0 (local.get $go) (f64.add (f64x2.extract_lane 0 (local.get $a0)) (f64x2.extract_lane 1 (local.get $a0))))
            (f64.store offset=8 (local.get $go) (f64.add (f64x2.extract_lane 0 (local.get $a1)) (f64x2.extract_lane 1 (local.get $a1))))
            (f64.store offset=16 (local.get $go) (f64.add (f64x2.extract_lane 0 (local.get $a2)) (f64x2.extract_lane 1 (local.get $a2))))
            (f64.store offset=24 (local.get $go) (f64.add (f64x2.extract_lane 0 (local.get $a3)) (f64x2.extract_lane 1 (local.get $a3))))
            (local.set $go (i32.add (local.get $go) (i32.shl (local.get $dp) (i32.const 3))))
            (f64.store offset=0 (local.get $go) (f64.add (f64x2.extract_lane 0 (local.get $b0)) (f64x2.extract_lane 1 (local.get $b0))))
            (f64.store offset=8 (local.get $go) (f64.add (f64x2.extract_lane 0 (local.get $b1)) (f64x2.extract_lane 1 (local.get $b1))))
            (f64.store offset=16 (local.get $go) (f64.add (f64x2.extract_lane 0 (local.get $b2)) (f64x2.extract_lane 1 (local.get $b2))))
            (f64.store offset=24 (local.get $go) (f64.add (f64x2.extract_lane 0 (local.get $b3)) (f64x2.extract_lane 1 (local.get $b3))))
            (local.set $a (i32.add (local.get $a) (i32.const 4)))
            (br $aloop)))
        (local.set $h (i32.add (local.get $h) (i32.const 2)))
        (br $hloop))))

  ;; exp of both lanes: 2^k e^r with k = round(t / ln 2), |r| <= ln 2 / 2, e^r by its Taylor polynomial to r^13
  ;; (relative error below 1e-16 there) evaluated by Estrin's scheme (pairs of terms, then pairs of pairs by r^2, r^4,
  ;; r^8: a chain of 6 dependent steps instead of Horner's 13, so the exps of a row overlap); t clamped to [-700, 700]
  (func $exp (param $t v128) (result v128)
    (local $k v128) (local $r v128) (local $p v128) (local $r2 v128) (local $r4 v128) (local $lo v128) (local $hi v128)
    (local.set $t (f64x2.pmax (f64x2.pmin (local.get $t) (v128.const f64x2 700 700)) (v128.const f64x2 -700 -700)))
    (local.set $k (f64x2.nearest (f64x2.mul (local.get $t) (v128.const f64x2 1.4426950408889634 1.4426950408889634))))
    (local.set $r (f64x2.sub (local.get $t) (f64x2.mul (local.get $k) (v128.const f64x2 0.6931471803691238 0.6931471803691238))))
    (local.set $r (f64x2.sub (local.get $r) (f64x2.mul (local.get $k) (v128.const f64x2 1.9082149292705877e-10 1.9082149292705877e-10))))
    (local.set $r2 (f64x2.mul (local.get $r) (local.get $r)))
    (local.set $r4 (f64x2.mul (local.get $r2) (local.get $r2)))
    ;; lo = c0 + c1 r + (c2 + c3 r) r^2 + (c4 + c5 r + (c6 + c7 r) r^2) r^4; hi the same of c8 .. c13; p = lo + hi r^8
    (local.set $lo (f64x2.add
      (f64x2.add (f64x2.add (v128.const f64x2 1 1) (f64x2.mul (v128.const f64x2 1 1) (local.get $r)))
        (f64x2.mul (f64x2.add (v128.const f64x2 0.5 0.5) (f64x2.mul (v128.const f64x2 0.16666666666666666 0.16666666666666666) (local.get $r))) (local.get $r2)))
      (f64x2.mul
        (f64x2.add (f64x2.add (v128.const f64x2 4.1666666666666664e-2 4.1666666666666664e-2) (f64x2.mul (v128.const f64x2 8.333333333333333e-3 8.333333333333333e-3) (local.get $r)))
          (f64x2.mul (f64x2.add (v128.const f64x2 1.388888888888889e-3 1.388888888888889e-3) (f64x2.mul (v128.const f64x2 1.984126984126984e-4 1.984126984126984e-4) (local.get $r))) (local.get $r2)))
        (local.get $r4))))
    (local.set $hi (f64x2.add
      (f64x2.add (f64x2.add (v128.const f64x2 2.48015873015873e-5 2.48015873015873e-5) (f64x2.mul (v128.const f64x2 2.7557319223985893e-6 2.7557319223985893e-6) (local.get $r)))
        (f64x2.mul (f64x2.add (v128.const f64x2 2.755731922398589e-7 2.755731922398589e-7) (f64x2.mul (v128.const f64x2 2.505210838544172e-8 2.505210838544172e-8) (local.get $r))) (local.get $r2)))
      (f64x2.mul (f64x2.add (v128.const f64x2 2.08767569878681e-9 2.08767569878681e-9) (f64x2.mul (v128.const f64x2 1.6059043836821613e-10 1.6059043836821613e-10) (local.get $r))) (local.get $r4))))
    (local.set $p (f64x2.add (local.get $lo) (f64x2.mul (local.get $hi) (f64x2.mul (local.get $r4) (local.get $r4)))))
    ;; times 2^k: k added to the exponent bits
    (i64x2.add (local.get $p)
      (i64x2.shl (i64x2.extend_low_i32x4_s (i32x4.trunc_sat_f64x2_s_zero (local.get $k))) (i32.const 52))))

  ;; softmax over the h heads of each row pair (z: hp x rows, as predictors writes it), in place: z becomes the
  ;; residuals 1[y = class h] - p, prob the probabilities; y (f64 class codes, rows), s the rows' sums of
  ;; exp(z - max). Returns the sum over rows of z_y - max (the log-likelihood is that minus the sum of log s).
  (func (export "softmax") (param $z i32) (param $prob i32) (param $y i32) (param $s i32) (param $pairs i32) (param $h i32) (result f64)
    (local $rows8 i32) (local $p i32) (local $k i32) (local $o i32) (local $end i32)
    (local $m v128) (local $sum v128) (local $e v128) (local $t v128) (local $yv v128) (local $mask v128) (local $acc v128) (local $inv v128) (local $kf v128)
    (local.set $rows8 (i32.shl (local.get $pairs) (i32.const 4)))
    (local.set $acc (v128.const f64x2 0 0))
    (local.set $p (i32.const 0))
    (local.set $end (i32.mul (local.get $rows8) (local.get $h)))
    (block $pdone
      (loop $ploop
        (br_if $pdone (i32.ge_u (local.get $p) (local.get $rows8)))
        ;; the largest of the row's predictors
        (local.set $m (v128.load (i32.add (local.get $z) (local.get $p))))
        (local.set $o (i32.add (local.get $p) (local.get $rows8)))
        (block $mdone
          (loop $mloop
            (br_if $mdone (i32.ge_u (local.get $o) (local.get $end)))
            (local.set $m (f64x2.pmax (local.get $m) (v128.load (i32.add (local.get $z) (local.get $o)))))
            (local.set $o (i32.add (local.get $o) (local.get $rows8)))
            (br $mloop)))
        (local.set $yv (v128.load (i32.add (local.get $y) (local.get $p))))
        (local.set $sum (v128.const f64x2 0 0))
        (local.set $kf (v128.const f64x2 0 0))
        (local.set $o (local.get $p))
        (block $edone
          (loop $eloop
            (br_if $edone (i32.ge_u (local.get $o) (local.get $end)))
            (local.set $t (f64x2.sub (v128.load (i32.add (local.get $z) (local.get $o))) (local.get $m)))
            (local.set $acc (f64x2.add (local.get $acc) (v128.and (f64x2.eq (local.get $yv) (local.get $kf)) (local.get $t))))
            (local.set $e (call $exp (local.get $t)))
            (v128.store (i32.add (local.get $z) (local.get $o)) (local.get $e))
            (local.set $sum (f64x2.add (local.get $sum) (local.get $e)))
            (local.set $kf (f64x2.add (local.get $kf) (v128.const f64x2 1 1)))
            (local.set $o (i32.add (local.get $o) (local.get $rows8)))
            (br $eloop)))
        (v128.store (i32.add (local.get $s) (local.get $p)) (local.get $sum))
        (local.set $inv (f64x2.div (v128.const f64x2 1 1) (local.get $sum)))
        (local.set $kf (v128.const f64x2 0 0))
        (local.set $o (local.get $p))
        (block $rdone
          (loop $rloop
            (br_if $rdone (i32.ge_u (local.get $o) (local.get $end)))
            (local.set $e (f64x2.mul (v128.load (i32.add (local.get $z) (local.get $o))) (local.get $inv)))
            (v128.store (i32.add (local.get $prob) (local.get $o)) (local.get $e))
            (local.set $mask (f64x2.eq (local.get $yv) (local.get $kf)))
            (v128.store (i32.add (local.get $z) (local.get $o))
              (f64x2.sub (v128.and (local.get $mask) (v128.const f64x2 1 1)) (local.get $e)))
            (local.set $kf (f64x2.add (local.get $kf) (v128.const f64x2 1 1)))
            (local.set $o (i32.add (local.get $o) (local.get $rows8)))
            (br $rloop)))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $ploop)))
    (f64.add (f64x2.extract_lane 0 (local.get $acc)) (f64x2.extract_lane 1 (local.get $acc))))

  ;; out[k] = exp(-g max(0, si + sq[k] - 2 v . x_k)) for k < rows (a multiple of 4), v the dp doubles at byte
  ;; offset xi (a sample's row of x, or another vector) and si its squared norm: first the exponents, four
  ;; samples per pass (four independent sums), each dot product as two lanes (the even and the odd terms, in order)
  ;; added at the end, so x_i . x_k and x_k . x_i are the same products summed in the same order (the row's entries
  ;; are the matrix's, symmetric to the bit); then exp over the row, whose passes do not wait on one another
  (func (export "rbfRow") (param $x i32) (param $sq i32) (param $xi i32) (param $sqi f64) (param $rows i32) (param $dp i32) (param $g f64) (param $out i32)
    (local $stride i32) (local $xk i32) (local $j i32) (local $o i32) (local $end i32)
    (local $si v128) (local $ng v128) (local $v v128) (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $dot v128)
    (local.set $stride (i32.shl (local.get $dp) (i32.const 3)))
    (local.set $si (f64x2.splat (local.get $sqi)))
    (local.set $ng (f64x2.splat (f64.neg (local.get $g))))
    (local.set $xk (local.get $x))
    (local.set $o (i32.const 0))
    (local.set $end (i32.shl (local.get $rows) (i32.const 3)))
    (block $kdone
      (loop $kloop
        (br_if $kdone (i32.ge_u (local.get $o) (local.get $end)))
        (local.set $a0 (v128.const f64x2 0 0))
        (local.set $a1 (v128.const f64x2 0 0))
        (local.set $a2 (v128.const f64x2 0 0))
        (local.set $a3 (v128.const f64x2 0 0))
        (local.set $j (i32.const 0))
        (block $jdone
          (loop $jloop
            (br_if $jdone (i32.ge_u (local.get $j) (local.get $stride)))
            (local.set $v (v128.load (i32.add (local.get $xi) (local.get $j))))
            (local.set $a0 (f64x2.add (local.get $a0) (f64x2.mul (local.get $v) (v128.load (i32.add (local.get $xk) (local.get $j))))))
            (local.set $a1 (f64x2.add (local.get $a1)
              (f64x2.mul (local.get $v) (v128.load (i32.add (i32.add (local.get $xk) (local.get $stride)) (local.get $j))))))
            (local.set $a2 (f64x2.add (local.get $a2)
              (f64x2.mul (local.get $v) (v128.load (i32.add (i32.add (local.get $xk) (i32.shl (local.get $stride) (i32.const 1))) (local.get $j))))))
            (local.set $a3 (f64x2.add (local.get $a3)
              (f64x2.mul (local.get $v) (v128.load (i32.add (i32.add (local.get $xk) (i32.mul (local.get $stride) (i32.const 3))) (local.get $j))))))
            (local.set $j (i32.add (local.get $j) (i32.const 16)))
            (br $jloop)))
        ;; samples k, k + 1: (a0 even + a0 odd, a1 even + a1 odd); then k + 2, k + 3 from a2, a3
        (local.set $dot (f64x2.add
          (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $a0) (local.get $a1))
          (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $a0) (local.get $a1))))
        (v128.store (i32.add (local.get $out) (local.get $o))
          (f64x2.mul (local.get $ng) (f64x2.pmax (f64x2.sub
            (f64x2.add (local.get $si) (v128.load (i32.add (local.get $sq) (local.get $o))))
            (f64x2.add (local.get $dot) (local.get $dot))) (v128.const f64x2 0 0))))
        (local.set $dot (f64x2.add
          (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $a2) (local.get $a3))
          (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $a2) (local.get $a3))))
        (v128.store offset=16 (i32.add (local.get $out) (local.get $o))
          (f64x2.mul (local.get $ng) (f64x2.pmax (f64x2.sub
            (f64x2.add (local.get $si) (v128.load offset=16 (i32.add (local.get $sq) (local.get $o))))
            (f64x2.add (local.get $dot) (local.get $dot))) (v128.const f64x2 0 0))))
        (local.set $xk (i32.add (local.get $xk) (i32.shl (local.get $stride) (i32.const 2))))
        (local.set $o (i32.add (local.get $o) (i32.const 32)))
        (br $kloop)))
    (local.set $o (i32.const 0))
    (block $edone
      (loop $eloop
        (br_if $edone (i32.ge_u (local.get $o) (local.get $end)))
        (v128.store (i32.add (local.get $out) (local.get $o)) (call $exp (v128.load (i32.add (local.get $out) (local.get $o)))))
        (local.set $o (i32.add (local.get $o) (i32.const 16)))
        (br $eloop))))
)
