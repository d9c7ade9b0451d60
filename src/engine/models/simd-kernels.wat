;; WebAssembly SIMD kernels of the multinomial logistic fit (softmax-fit.ts through simd-kernels.ts): the
;; linear predictors X W', the softmax with its residuals, and the residuals' cross products with the design;
;; the rows of the kernel SVMs' RBF kernel matrix; and the passes of the linear SVM's and SVR's dual coordinate
;; descent; two doubles per instruction (f64x2). `npm run build:wasm` assembles this file into
;; generated/simd-kernels-wasm.ts (a test checks that the two agree).
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
;;
;; And the blocks of a multinomial likelihood's information (the independence tests' Multinomial in
;; independence-tests/logistic.ts through WeightedPairSums in simd-kernels.ts), every sum in the order of linalg.ts's
;; dotAt (four partial sums over i mod 4, the n mod 4 last terms into the first, then (s0 + s1) + (s2 + s3)), so that
;; the sums are those of the JavaScript loops to the bit:
;;   x     p x rows: the columns, each padded with zeros to rows (a multiple of 4)
;;   pr    pairs x rows: the products x_j x_m of the pairs of columns (m <= j, j >= known), pair after pair, padded
;;         with a zero row to an even count
;;   w     blocks x rows: each block's weights, padded with a zero block to an even count
;;   c     blocks x pairs (both padded): sum_i w[b][i] pr[q][i]
;;
;; And the Cholesky factor of a symmetric matrix (likelihood.ts's factorSymmetric through choleskyFactor in
;; simd-kernels.ts), every entry summed over k in increasing order as that JavaScript loop sums it:
;;   at    the lower triangle by columns: column c at c * stride (entries c .. P - 1 read), stride even
;;   lt    the factor by columns (lt[k * stride + a] = L[a][k]), written; the rows below P in each column are padding
;;
;; And the weighted sums of bootstrap means (plots/bootstrap.ts's bootstrapMeans through simd-means.ts):
;;   v     n x jp: each sample's values, padded with zeros to jp (a multiple of 4)
;;   w     draws x n: each draw's weights;  out: draws x jp, the sums, added to
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

  ;; The linear SVM's and SVR's dual coordinate descent (linear-dual.ts through LinearDualKernels in simd-kernels.ts):
  ;; one pass over the active samples, in the order of index, exactly as the passes in linear-dual.ts compute it
  ;; (the same operations in the same order, so the fits are the same to the bit):
  ;;   x      the design, n rows of dp doubles (d features padded with zeros to dp, even)
  ;;   w      d + 1 weights, the bias last; a, qd, y: n doubles each (alpha or beta, the diagonal 1 + |x_i|^2, the
  ;;          labels +-1 or the SVR's targets); index: n int32 (the active ones first); out: 2 doubles

  ;; w . x_i as linalg's dotAt sums it: four sums s0..s3 of every fourth term (lanes of $a and $b), the tail
  ;; added to s0, then s0 + s1 + (s2 + s3)
  (func $dualDot (param $w i32) (param $xi i32) (param $d i32) (result f64)
    (local $j i32) (local $end i32) (local $a v128) (local $b v128) (local $s0 f64)
    (local.set $end (i32.shl (i32.shr_u (local.get $d) (i32.const 2)) (i32.const 5)))
    (local.set $j (i32.const 0))
    (block $done
      (loop $quad
        (br_if $done (i32.ge_u (local.get $j) (local.get $end)))
        (local.set $a (f64x2.add (local.get $a)
          (f64x2.mul (v128.load (i32.add (local.get $w) (local.get $j))) (v128.load (i32.add (local.get $xi) (local.get $j))))))
        (local.set $b (f64x2.add (local.get $b)
          (f64x2.mul (v128.load offset=16 (i32.add (local.get $w) (local.get $j))) (v128.load offset=16 (i32.add (local.get $xi) (local.get $j))))))
        (local.set $j (i32.add (local.get $j) (i32.const 32)))
        (br $quad)))
    (local.set $s0 (f64x2.extract_lane 0 (local.get $a)))
    (local.set $end (i32.shl (local.get $d) (i32.const 3)))
    (block $done
      (loop $tail
        (br_if $done (i32.ge_u (local.get $j) (local.get $end)))
        (local.set $s0 (f64.add (local.get $s0)
          (f64.mul (f64.load (i32.add (local.get $w) (local.get $j))) (f64.load (i32.add (local.get $xi) (local.get $j))))))
        (local.set $j (i32.add (local.get $j) (i32.const 8)))
        (br $tail)))
    (f64.add (f64.add (local.get $s0) (f64x2.extract_lane 1 (local.get $a)))
      (f64.add (f64x2.extract_lane 0 (local.get $b)) (f64x2.extract_lane 1 (local.get $b)))))

  ;; w[j] += c x_i[j] for j < d (each entry on its own: the order does not matter), then the bias w[d] += c
  (func $dualStep (param $c f64) (param $xi i32) (param $w i32) (param $d i32)
    (local $j i32) (local $end i32) (local $cc v128)
    (local.set $cc (f64x2.splat (local.get $c)))
    (local.set $end (i32.shl (i32.shr_u (local.get $d) (i32.const 1)) (i32.const 4)))
    (local.set $j (i32.const 0))
    (block $done
      (loop $pair
        (br_if $done (i32.ge_u (local.get $j) (local.get $end)))
        (v128.store (i32.add (local.get $w) (local.get $j)) (f64x2.add (v128.load (i32.add (local.get $w) (local.get $j)))
          (f64x2.mul (local.get $cc) (v128.load (i32.add (local.get $xi) (local.get $j))))))
        (local.set $j (i32.add (local.get $j) (i32.const 16)))
        (br $pair)))
    (if (i32.and (local.get $d) (i32.const 1))
      (then
        (f64.store (i32.add (local.get $w) (local.get $j)) (f64.add (f64.load (i32.add (local.get $w) (local.get $j)))
          (f64.mul (local.get $c) (f64.load (i32.add (local.get $xi) (local.get $j))))))
        (local.set $j (i32.add (local.get $j) (i32.const 8)))))
    (f64.store (i32.add (local.get $w) (local.get $j)) (f64.add (f64.load (i32.add (local.get $w) (local.get $j))) (local.get $c))))

  ;; One pass of the L1-loss SVM (svcPass in linear-dual.ts) over index[0, active): returns the new active count,
  ;; out = (largest, smallest projected gradient)
  (func (export "svcPass") (param $x i32) (param $dp i32) (param $d i32) (param $w i32) (param $alpha i32) (param $qd i32)
    (param $y i32) (param $index i32) (param $active i32) (param $C f64) (param $pgMaxOld f64) (param $pgMinOld f64)
    (param $out i32) (result i32)
    (local $s i32) (local $i i32) (local $xi i32) (local $ai i32) (local $wd i32)
    (local $yi f64) (local $G f64) (local $PG f64) (local $a f64) (local $next f64) (local $pgMax f64) (local $pgMin f64)
    (local.set $wd (i32.add (local.get $w) (i32.shl (local.get $d) (i32.const 3))))
    (local.set $pgMax (f64.const -inf))
    (local.set $pgMin (f64.const inf))
    (local.set $s (i32.const 0))
    (block $done
      (loop $visit
        (br_if $done (i32.ge_s (local.get $s) (local.get $active)))
        (local.set $i (i32.load (i32.add (local.get $index) (i32.shl (local.get $s) (i32.const 2)))))
        (local.set $xi (i32.add (local.get $x) (i32.mul (local.get $i) (i32.shl (local.get $dp) (i32.const 3)))))
        (local.set $ai (i32.shl (local.get $i) (i32.const 3)))
        (local.set $yi (f64.load (i32.add (local.get $y) (local.get $ai))))
        (local.set $G (f64.sub (f64.mul (local.get $yi)
          (f64.add (f64.load (local.get $wd)) (call $dualDot (local.get $w) (local.get $xi) (local.get $d)))) (f64.const 1)))
        (local.set $a (f64.load (i32.add (local.get $alpha) (local.get $ai))))
        (local.set $PG (f64.const 0))
        (block $keep
          (block $shrink
            (if (f64.eq (local.get $a) (f64.const 0))
              (then
                (br_if $shrink (f64.gt (local.get $G) (local.get $pgMaxOld)))
                (if (f64.lt (local.get $G) (f64.const 0)) (then (local.set $PG (local.get $G)))))
              (else
                (if (f64.eq (local.get $a) (local.get $C))
                  (then
                    (br_if $shrink (f64.lt (local.get $G) (local.get $pgMinOld)))
                    (if (f64.gt (local.get $G) (f64.const 0)) (then (local.set $PG (local.get $G)))))
                  (else (local.set $PG (local.get $G))))))
            (br $keep))
          ;; out of the active set: swapped with the last active sample, which is visited next
          (local.set $active (i32.sub (local.get $active) (i32.const 1)))
          (i32.store (i32.add (local.get $index) (i32.shl (local.get $s) (i32.const 2)))
            (i32.load (i32.add (local.get $index) (i32.shl (local.get $active) (i32.const 2)))))
          (i32.store (i32.add (local.get $index) (i32.shl (local.get $active) (i32.const 2))) (local.get $i))
          (br $visit))
        (if (f64.gt (local.get $PG) (local.get $pgMax)) (then (local.set $pgMax (local.get $PG))))
        (if (f64.lt (local.get $PG) (local.get $pgMin)) (then (local.set $pgMin (local.get $PG))))
        (if (f64.gt (f64.abs (local.get $PG)) (f64.const 1e-12))
          (then
            (local.set $next (f64.min (f64.max (f64.sub (local.get $a)
              (f64.div (local.get $G) (f64.load (i32.add (local.get $qd) (local.get $ai))))) (f64.const 0)) (local.get $C)))
            (f64.store (i32.add (local.get $alpha) (local.get $ai)) (local.get $next))
            (call $dualStep (f64.mul (f64.sub (local.get $next) (local.get $a)) (local.get $yi)) (local.get $xi) (local.get $w) (local.get $d))))
        (local.set $s (i32.add (local.get $s) (i32.const 1)))
        (br $visit)))
    (f64.store (local.get $out) (local.get $pgMax))
    (f64.store offset=8 (local.get $out) (local.get $pgMin))
    (local.get $active))

  ;; One pass of the L1-loss SVR (svrPass in linear-dual.ts) over index[0, active), beta at $b and the targets at
  ;; $z: returns the new active count, out = (largest violation, sum of violations)
  (func (export "svrPass") (param $x i32) (param $dp i32) (param $d i32) (param $w i32) (param $beta i32) (param $qd i32)
    (param $z i32) (param $index i32) (param $active i32) (param $C f64) (param $epsilon f64) (param $gmaxOld f64)
    (param $out i32) (result i32)
    (local $s i32) (local $i i32) (local $xi i32) (local $ai i32) (local $wd i32)
    (local $G f64) (local $Gp f64) (local $Gn f64) (local $b f64) (local $H f64) (local $step f64) (local $next f64)
    (local $violation f64) (local $gmax f64) (local $gnorm f64)
    (local.set $wd (i32.add (local.get $w) (i32.shl (local.get $d) (i32.const 3))))
    (local.set $gmax (f64.const 0))
    (local.set $gnorm (f64.const 0))
    (local.set $s (i32.const 0))
    (block $done
      (loop $visit
        (br_if $done (i32.ge_s (local.get $s) (local.get $active)))
        (local.set $i (i32.load (i32.add (local.get $index) (i32.shl (local.get $s) (i32.const 2)))))
        (local.set $xi (i32.add (local.get $x) (i32.mul (local.get $i) (i32.shl (local.get $dp) (i32.const 3)))))
        (local.set $ai (i32.shl (local.get $i) (i32.const 3)))
        (local.set $G (f64.sub (f64.add (f64.load (local.get $wd)) (call $dualDot (local.get $w) (local.get $xi) (local.get $d)))
          (f64.load (i32.add (local.get $z) (local.get $ai)))))
        (local.set $Gp (f64.add (local.get $G) (local.get $epsilon)))
        (local.set $Gn (f64.sub (local.get $G) (local.get $epsilon)))
        (local.set $b (f64.load (i32.add (local.get $beta) (local.get $ai))))
        (local.set $violation (f64.const 0))
        (block $keep
          (block $shrink
            (if (f64.eq (local.get $b) (f64.const 0))
              (then
                (if (f64.lt (local.get $Gp) (f64.const 0))
                  (then (local.set $violation (f64.neg (local.get $Gp))))
                  (else
                    (if (f64.gt (local.get $Gn) (f64.const 0))
                      (then (local.set $violation (local.get $Gn)))
                      (else (br_if $shrink (i32.and (f64.gt (local.get $Gp) (local.get $gmaxOld))
                        (f64.lt (local.get $Gn) (f64.neg (local.get $gmaxOld))))))))))
              (else
                (if (f64.ge (local.get $b) (local.get $C))
                  (then
                    (if (f64.gt (local.get $Gp) (f64.const 0))
                      (then (local.set $violation (local.get $Gp)))
                      (else (br_if $shrink (f64.lt (local.get $Gp) (f64.neg (local.get $gmaxOld)))))))
                  (else
                    (if (f64.le (local.get $b) (f64.neg (local.get $C)))
                      (then
                        (if (f64.lt (local.get $Gn) (f64.const 0))
                          (then (local.set $violation (f64.neg (local.get $Gn))))
                          (else (br_if $shrink (f64.gt (local.get $Gn) (local.get $gmaxOld))))))
                      (else (local.set $violation (select (f64.abs (local.get $Gp)) (f64.abs (local.get $Gn))
                        (f64.gt (local.get $b) (f64.const 0))))))))))
            (br $keep))
          ;; out of the active set: swapped with the last active sample, which is visited next
          (local.set $active (i32.sub (local.get $active) (i32.const 1)))
          (i32.store (i32.add (local.get $index) (i32.shl (local.get $s) (i32.const 2)))
            (i32.load (i32.add (local.get $index) (i32.shl (local.get $active) (i32.const 2)))))
          (i32.store (i32.add (local.get $index) (i32.shl (local.get $active) (i32.const 2))) (local.get $i))
          (br $visit))
        (if (f64.gt (local.get $violation) (local.get $gmax)) (then (local.set $gmax (local.get $violation))))
        (local.set $gnorm (f64.add (local.get $gnorm) (local.get $violation)))
        ;; the minimizer of the one-variable problem: a Newton step on each side of 0, else 0
        (local.set $H (f64.load (i32.add (local.get $qd) (local.get $ai))))
        (if (f64.lt (local.get $Gp) (f64.mul (local.get $H) (local.get $b)))
          (then (local.set $step (f64.div (f64.neg (local.get $Gp)) (local.get $H))))
          (else
            (if (f64.gt (local.get $Gn) (f64.mul (local.get $H) (local.get $b)))
              (then (local.set $step (f64.div (f64.neg (local.get $Gn)) (local.get $H))))
              (else (local.set $step (f64.neg (local.get $b)))))))
        (if (i32.eqz (f64.lt (f64.abs (local.get $step)) (f64.const 1e-12)))
          (then
            (local.set $next (f64.min (f64.max (f64.add (local.get $b) (local.get $step)) (f64.neg (local.get $C))) (local.get $C)))
            (f64.store (i32.add (local.get $beta) (local.get $ai)) (local.get $next))
            (if (f64.ne (local.get $next) (local.get $b))
              (then (call $dualStep (f64.sub (local.get $next) (local.get $b)) (local.get $xi) (local.get $w) (local.get $d))))))
        (local.set $s (i32.add (local.get $s) (i32.const 1)))
        (br $visit)))
    (f64.store (local.get $out) (local.get $gmax))
    (f64.store offset=8 (local.get $out) (local.get $gnorm))
    (local.get $active))

  ;; w[b * rows + i] = prob[i * width + k] (delta_kl - prob[i * width + l]) for the blocks b = (k, l <= k) in that order and
  ;; the samples i < n (prob sample after sample, width numbers each), zeros from n to rows, then (an odd block count)
  ;; one block of zeros: a multinomial information's weights, two samples a step
  (func (export "blockWeights") (param $prob i32) (param $w i32) (param $width i32) (param $n i32) (param $rows i32)
    (local $k i32) (local $l i32) (local $i i32) (local $o i32) (local $pk i32) (local $pl i32) (local $stride i32)
    (local $bytes i32) (local $blocks i32) (local $delta f64) (local $d v128)
    (local.set $stride (i32.shl (local.get $width) (i32.const 3)))
    (local.set $bytes (i32.shl (local.get $rows) (i32.const 3)))
    (local.set $o (local.get $w))
    (local.set $blocks (i32.const 0))
    (local.set $k (i32.const 0))
    (block $kdone
      (loop $kloop
        (br_if $kdone (i32.ge_u (local.get $k) (local.get $width)))
        (local.set $l (i32.const 0))
        (loop $lloop
          (local.set $delta (f64.convert_i32_u (i32.eq (local.get $k) (local.get $l))))
          (local.set $d (f64x2.splat (local.get $delta)))
          (local.set $pk (i32.add (local.get $prob) (i32.shl (local.get $k) (i32.const 3))))
          (local.set $pl (i32.add (local.get $prob) (i32.shl (local.get $l) (i32.const 3))))
          (local.set $i (i32.const 0))
          (block $idone
            (loop $iloop
              (br_if $idone (i32.ge_u (i32.add (local.get $i) (i32.const 1)) (local.get $n)))
              (v128.store (local.get $o)
                (f64x2.mul
                  (v128.load64_lane 1 (i32.add (local.get $pk) (local.get $stride)) (v128.load64_zero (local.get $pk)))
                  (f64x2.sub (local.get $d)
                    (v128.load64_lane 1 (i32.add (local.get $pl) (local.get $stride)) (v128.load64_zero (local.get $pl))))))
              (local.set $pk (i32.add (local.get $pk) (i32.shl (local.get $stride) (i32.const 1))))
              (local.set $pl (i32.add (local.get $pl) (i32.shl (local.get $stride) (i32.const 1))))
              (local.set $o (i32.add (local.get $o) (i32.const 16)))
              (local.set $i (i32.add (local.get $i) (i32.const 2)))
              (br $iloop)))
          (if (i32.lt_u (local.get $i) (local.get $n))
            (then
              (f64.store (local.get $o) (f64.mul (f64.load (local.get $pk)) (f64.sub (local.get $delta) (f64.load (local.get $pl)))))
              (local.set $o (i32.add (local.get $o) (i32.const 8)))
              (local.set $i (i32.add (local.get $i) (i32.const 1)))))
          (memory.fill (local.get $o) (i32.const 0) (i32.shl (i32.sub (local.get $rows) (local.get $i)) (i32.const 3)))
          (local.set $o (i32.add (local.get $o) (i32.shl (i32.sub (local.get $rows) (local.get $i)) (i32.const 3))))
          (local.set $blocks (i32.add (local.get $blocks) (i32.const 1)))
          (local.set $l (i32.add (local.get $l) (i32.const 1)))
          (br_if $lloop (i32.le_u (local.get $l) (local.get $k))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $kloop)))
    (if (i32.and (local.get $blocks) (i32.const 1))
      (then (memory.fill (local.get $o) (i32.const 0) (local.get $bytes)))))

  ;; pr[q * rows + i] = x[j * rows + i] x[m * rows + i] for the pairs q = (j, m <= j) with j from $known to $p - 1, in that
  ;; order, then (an odd count) one pair of zeros
  (func (export "pairProducts") (param $x i32) (param $pr i32) (param $known i32) (param $p i32) (param $rows i32)
    (local $j i32) (local $m i32) (local $a i32) (local $b i32) (local $o i32) (local $end i32) (local $bytes i32) (local $q i32)
    (local.set $bytes (i32.shl (local.get $rows) (i32.const 3)))
    (local.set $o (local.get $pr))
    (local.set $q (i32.const 0))
    (local.set $j (local.get $known))
    (block $jdone
      (loop $jloop
        (br_if $jdone (i32.ge_u (local.get $j) (local.get $p)))
        (local.set $m (i32.const 0))
        (loop $mloop
          (local.set $a (i32.add (local.get $x) (i32.mul (local.get $j) (local.get $bytes))))
          (local.set $b (i32.add (local.get $x) (i32.mul (local.get $m) (local.get $bytes))))
          (local.set $end (i32.add (local.get $a) (local.get $bytes)))
          (loop $iloop
            (v128.store (local.get $o) (f64x2.mul (v128.load (local.get $a)) (v128.load (local.get $b))))
            (v128.store offset=16 (local.get $o) (f64x2.mul (v128.load offset=16 (local.get $a)) (v128.load offset=16 (local.get $b))))
            (local.set $a (i32.add (local.get $a) (i32.const 32)))
            (local.set $b (i32.add (local.get $b) (i32.const 32)))
            (local.set $o (i32.add (local.get $o) (i32.const 32)))
            (br_if $iloop (i32.lt_u (local.get $a) (local.get $end))))
          (local.set $q (i32.add (local.get $q) (i32.const 1)))
          (local.set $m (i32.add (local.get $m) (i32.const 1)))
          (br_if $mloop (i32.le_u (local.get $m) (local.get $j))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $jloop)))
    (if (i32.and (local.get $q) (i32.const 1))
      (then (memory.fill (local.get $o) (i32.const 0) (local.get $bytes)))))

  ;; The sum of one entry from its partial sums a = (s0, s1), b = (s2, s3) and its last terms (i >= n4) into s0.
  (func $finish (param $a v128) (param $b v128) (param $w i32) (param $v i32) (param $tail i32) (result f64)
    (local $s0 f64) (local $k i32)
    (local.set $s0 (f64x2.extract_lane 0 (local.get $a)))
    (local.set $k (i32.const 0))
    (block $done
      (loop $t
        (br_if $done (i32.ge_u (local.get $k) (local.get $tail)))
        (local.set $s0 (f64.add (local.get $s0) (f64.mul (f64.load (local.get $w)) (f64.load (local.get $v)))))
        (local.set $w (i32.add (local.get $w) (i32.const 8)))
        (local.set $v (i32.add (local.get $v) (i32.const 8)))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $t)))
    (f64.add
      (f64.add (local.get $s0) (f64x2.extract_lane 1 (local.get $a)))
      (f64.add (f64x2.extract_lane 0 (local.get $b)) (f64x2.extract_lane 1 (local.get $b)))))

  ;; c[b * pairs + q] = sum_{i < n} w[b * rows + i] pr[q * rows + i] for blocks and pairs (both even), two blocks by two
  ;; pairs per pass over the samples, four samples a step; each sum in dotAt's order ($finish)
  (func (export "blockSums") (param $w i32) (param $pr i32) (param $c i32) (param $blocks i32) (param $pairs i32) (param $rows i32) (param $n i32)
    (local $b i32) (local $q i32) (local $bytes i32) (local $n4 i32) (local $tail i32)
    (local $w0 i32) (local $w1 i32) (local $p0 i32) (local $p1 i32) (local $end i32) (local $co i32) (local $t i32)
    (local $u0 v128) (local $u1 v128) (local $v0 v128) (local $v1 v128)
    (local $x0 v128) (local $x1 v128) (local $y0 v128) (local $y1 v128)
    (local $a00 v128) (local $b00 v128) (local $a01 v128) (local $b01 v128)
    (local $a10 v128) (local $b10 v128) (local $a11 v128) (local $b11 v128)
    (local.set $bytes (i32.shl (local.get $rows) (i32.const 3)))
    (local.set $n4 (i32.and (local.get $n) (i32.const -4)))
    (local.set $tail (i32.sub (local.get $n) (local.get $n4)))
    (local.set $q (i32.const 0))
    (block $qdone
      (loop $qloop
        (br_if $qdone (i32.ge_u (local.get $q) (local.get $pairs)))
        (local.set $b (i32.const 0))
        (block $bdone
          (loop $bloop
            (br_if $bdone (i32.ge_u (local.get $b) (local.get $blocks)))
            (local.set $a00 (v128.const f64x2 0 0)) (local.set $b00 (v128.const f64x2 0 0))
            (local.set $a01 (v128.const f64x2 0 0)) (local.set $b01 (v128.const f64x2 0 0))
            (local.set $a10 (v128.const f64x2 0 0)) (local.set $b10 (v128.const f64x2 0 0))
            (local.set $a11 (v128.const f64x2 0 0)) (local.set $b11 (v128.const f64x2 0 0))
            (local.set $w0 (i32.add (local.get $w) (i32.mul (local.get $b) (local.get $bytes))))
            (local.set $w1 (i32.add (local.get $w0) (local.get $bytes)))
            (local.set $p0 (i32.add (local.get $pr) (i32.mul (local.get $q) (local.get $bytes))))
            (local.set $p1 (i32.add (local.get $p0) (local.get $bytes)))
            (local.set $end (i32.add (local.get $w0) (i32.shl (local.get $n4) (i32.const 3))))
            (block $idone
              (loop $iloop
                (br_if $idone (i32.ge_u (local.get $w0) (local.get $end)))
                (local.set $u0 (v128.load (local.get $w0)))
                (local.set $v0 (v128.load offset=16 (local.get $w0)))
                (local.set $u1 (v128.load (local.get $w1)))
                (local.set $v1 (v128.load offset=16 (local.get $w1)))
                (local.set $x0 (v128.load (local.get $p0)))
                (local.set $y0 (v128.load offset=16 (local.get $p0)))
                (local.set $x1 (v128.load (local.get $p1)))
                (local.set $y1 (v128.load offset=16 (local.get $p1)))
                (local.set $a00 (f64x2.add (local.get $a00) (f64x2.mul (local.get $u0) (local.get $x0))))
                (local.set $b00 (f64x2.add (local.get $b00) (f64x2.mul (local.get $v0) (local.get $y0))))
                (local.set $a01 (f64x2.add (local.get $a01) (f64x2.mul (local.get $u0) (local.get $x1))))
                (local.set $b01 (f64x2.add (local.get $b01) (f64x2.mul (local.get $v0) (local.get $y1))))
                (local.set $a10 (f64x2.add (local.get $a10) (f64x2.mul (local.get $u1) (local.get $x0))))
                (local.set $b10 (f64x2.add (local.get $b10) (f64x2.mul (local.get $v1) (local.get $y0))))
                (local.set $a11 (f64x2.add (local.get $a11) (f64x2.mul (local.get $u1) (local.get $x1))))
                (local.set $b11 (f64x2.add (local.get $b11) (f64x2.mul (local.get $v1) (local.get $y1))))
                (local.set $w0 (i32.add (local.get $w0) (i32.const 32)))
                (local.set $w1 (i32.add (local.get $w1) (i32.const 32)))
                (local.set $p0 (i32.add (local.get $p0) (i32.const 32)))
                (local.set $p1 (i32.add (local.get $p1) (i32.const 32)))
                (br $iloop)))
            ;; w0, w1, p0, p1 now point at the last terms (i = n4)
            (local.set $co (i32.add (local.get $c) (i32.shl (i32.add (i32.mul (local.get $b) (local.get $pairs)) (local.get $q)) (i32.const 3))))
            (local.set $t (i32.shl (local.get $pairs) (i32.const 3)))
            (f64.store (local.get $co) (call $finish (local.get $a00) (local.get $b00) (local.get $w0) (local.get $p0) (local.get $tail)))
            (f64.store offset=8 (local.get $co) (call $finish (local.get $a01) (local.get $b01) (local.get $w0) (local.get $p1) (local.get $tail)))
            (f64.store (i32.add (local.get $co) (local.get $t)) (call $finish (local.get $a10) (local.get $b10) (local.get $w1) (local.get $p0) (local.get $tail)))
            (f64.store offset=8 (i32.add (local.get $co) (local.get $t)) (call $finish (local.get $a11) (local.get $b11) (local.get $w1) (local.get $p1) (local.get $tail)))
            (local.set $b (i32.add (local.get $b) (i32.const 2)))
            (br $bloop)))
        (local.set $q (i32.add (local.get $q) (i32.const 2)))
        (br $qloop))))

  ;; L L' = A + ridge I, column after column: L[c][c] = sqrt(A[c][c] + ridge - sum_{k<c} L[c][k]^2), then
  ;; L[a][c] = (A[a][c] + 0 - sum_{k<c} L[a][k] L[c][k]) / L[c][c] for a > c, eight rows a pass. Returns 0 as soon as a
  ;; diagonal's square is not above $min (A not positive definite enough), else 1.
  (func (export "cholesky") (param $at i32) (param $lt i32) (param $P i32) (param $stride i32) (param $ridge f64) (param $min f64) (result i32)
    (local $c i32) (local $k i32) (local $a i32) (local $bytes i32) (local $s f64) (local $l f64)
    (local $col i32) (local $row i32) (local $kc i32) (local $end i32)
    (local $v v128) (local $d v128) (local $zero v128)
    (local $s0 v128) (local $s1 v128) (local $s2 v128) (local $s3 v128)
    (local.set $bytes (i32.shl (local.get $stride) (i32.const 3)))
    (local.set $zero (v128.const f64x2 0 0))
    (local.set $c (i32.const 0))
    (block $cdone
      (loop $cloop
        (br_if $cdone (i32.ge_u (local.get $c) (local.get $P)))
        ;; the diagonal: L[c][k] = lt[k * stride + c]
        (local.set $col (i32.add (local.get $at) (i32.mul (local.get $c) (local.get $bytes))))
        (local.set $s (f64.add (f64.load (i32.add (local.get $col) (i32.shl (local.get $c) (i32.const 3)))) (local.get $ridge)))
        (local.set $kc (i32.add (local.get $lt) (i32.shl (local.get $c) (i32.const 3))))
        (local.set $end (i32.add (local.get $kc) (i32.mul (local.get $c) (local.get $bytes))))
        (block $ddone
          (loop $dloop
            (br_if $ddone (i32.ge_u (local.get $kc) (local.get $end)))
            (local.set $l (f64.load (local.get $kc)))
            (local.set $s (f64.sub (local.get $s) (f64.mul (local.get $l) (local.get $l))))
            (local.set $kc (i32.add (local.get $kc) (local.get $bytes)))
            (br $dloop)))
        (if (i32.eqz (f64.gt (local.get $s) (local.get $min))) (then (return (i32.const 0))))
        (local.set $l (f64.sqrt (local.get $s)))
        ;; lt[c * stride + c] = L[c][c]
        (f64.store (i32.add (i32.add (local.get $lt) (i32.mul (local.get $c) (local.get $bytes))) (i32.shl (local.get $c) (i32.const 3))) (local.get $l))
        (local.set $d (f64x2.splat (local.get $l)))
        ;; the rows below, eight at a time
        (local.set $a (i32.add (local.get $c) (i32.const 1)))
        (block $adone
          (loop $aloop
            (br_if $adone (i32.ge_u (local.get $a) (local.get $P)))
            (local.set $row (i32.add (local.get $col) (i32.shl (local.get $a) (i32.const 3))))
            (local.set $s0 (f64x2.add (v128.load offset=0 (local.get $row)) (local.get $zero)))
            (local.set $s1 (f64x2.add (v128.load offset=16 (local.get $row)) (local.get $zero)))
            (local.set $s2 (f64x2.add (v128.load offset=32 (local.get $row)) (local.get $zero)))
            (local.set $s3 (f64x2.add (v128.load offset=48 (local.get $row)) (local.get $zero)))
            (local.set $k (i32.const 0))
            (local.set $row (i32.add (local.get $lt) (i32.shl (local.get $a) (i32.const 3))))
            (local.set $kc (i32.add (local.get $lt) (i32.shl (local.get $c) (i32.const 3))))
            (block $kdone
              (loop $kloop
                (br_if $kdone (i32.ge_u (local.get $k) (local.get $c)))
                (local.set $v (v128.load64_splat (local.get $kc)))
                (local.set $s0 (f64x2.sub (local.get $s0) (f64x2.mul (v128.load offset=0 (local.get $row)) (local.get $v))))
                (local.set $s1 (f64x2.sub (local.get $s1) (f64x2.mul (v128.load offset=16 (local.get $row)) (local.get $v))))
                (local.set $s2 (f64x2.sub (local.get $s2) (f64x2.mul (v128.load offset=32 (local.get $row)) (local.get $v))))
                (local.set $s3 (f64x2.sub (local.get $s3) (f64x2.mul (v128.load offset=48 (local.get $row)) (local.get $v))))
                (local.set $row (i32.add (local.get $row) (local.get $bytes)))
                (local.set $kc (i32.add (local.get $kc) (local.get $bytes)))
                (local.set $k (i32.add (local.get $k) (i32.const 1)))
                (br $kloop)))
            ;; lt[c * stride + a ..] (past P: padding, within the column's room)
            (local.set $row (i32.add (i32.add (local.get $lt) (i32.mul (local.get $c) (local.get $bytes))) (i32.shl (local.get $a) (i32.const 3))))
            (v128.store offset=0 (local.get $row) (f64x2.div (local.get $s0) (local.get $d)))
            (v128.store offset=16 (local.get $row) (f64x2.div (local.get $s1) (local.get $d)))
            (v128.store offset=32 (local.get $row) (f64x2.div (local.get $s2) (local.get $d)))
            (v128.store offset=48 (local.get $row) (f64x2.div (local.get $s3) (local.get $d)))
            (local.set $a (i32.add (local.get $a) (i32.const 8)))
            (br $aloop)))
        (local.set $c (i32.add (local.get $c) (i32.const 1)))
        (br $cloop)))
    (i32.const 1))

  ;; The weighted AUC's sums on a batch of bootstraps (auc.ts's aucBatchEvaluator through simd-auc.ts), four bootstraps
  ;; per pass over the sorted samples, as that JavaScript pass computes them (the same operations in the same order):
  ;;   at    n: the byte address of each sorted sample's weights (lanes doubles, one per bootstrap, side by side)
  ;;   pos   n doubles: 1 when the sorted sample is positive, else 0
  ;;   gs    g + 1: the tie groups' starts in the sorted order (read only when g < n; g = n: no ties)
  ;;   out   3 x lanes doubles: per bootstrap the pairs counted (a), the positives' weight (p), the negatives' (n)
  ;; lanes: a multiple of 4.
  (func (export "aucLanes") (param $at i32) (param $pos i32) (param $gs i32) (param $g i32) (param $n i32) (param $lanes i32) (param $out i32)
    (local $b i32) (local $j i32) (local $k i32) (local $end i32) (local $o i32) (local $q v128) (local $half v128)
    (local $n0 v128) (local $n1 v128) (local $a0 v128) (local $a1 v128) (local $p0 v128) (local $p1 v128)
    (local $w0 v128) (local $w1 v128) (local $x0 v128) (local $x1 v128)
    (local $wp0 v128) (local $wp1 v128) (local $wn0 v128) (local $wn1 v128)
    (local.set $half (f64x2.splat (f64.const 0.5)))
    (local.set $b (i32.const 0))
    (block $bdone
      (loop $bloop
        (br_if $bdone (i32.ge_u (local.get $b) (local.get $lanes)))
        (local.set $n0 (v128.const i64x2 0 0))
        (local.set $n1 (v128.const i64x2 0 0))
        (local.set $a0 (v128.const i64x2 0 0))
        (local.set $a1 (v128.const i64x2 0 0))
        (local.set $p0 (v128.const i64x2 0 0))
        (local.set $p1 (v128.const i64x2 0 0))
        (if (i32.eq (local.get $g) (local.get $n))
          (then
            ;; no ties: x = q w; a += x n; p += x; n += w - x
            (local.set $j (i32.const 0))
            (block $jdone
              (loop $jloop
                (br_if $jdone (i32.ge_u (local.get $j) (local.get $n)))
                (local.set $o (i32.add (i32.load (i32.add (local.get $at) (i32.shl (local.get $j) (i32.const 2)))) (i32.shl (local.get $b) (i32.const 3))))
                (local.set $q (v128.load64_splat (i32.add (local.get $pos) (i32.shl (local.get $j) (i32.const 3)))))
                (local.set $w0 (v128.load (local.get $o)))
                (local.set $w1 (v128.load offset=16 (local.get $o)))
                (local.set $x0 (f64x2.mul (local.get $q) (local.get $w0)))
                (local.set $x1 (f64x2.mul (local.get $q) (local.get $w1)))
                (local.set $a0 (f64x2.add (local.get $a0) (f64x2.mul (local.get $x0) (local.get $n0))))
                (local.set $a1 (f64x2.add (local.get $a1) (f64x2.mul (local.get $x1) (local.get $n1))))
                (local.set $p0 (f64x2.add (local.get $p0) (local.get $x0)))
                (local.set $p1 (f64x2.add (local.get $p1) (local.get $x1)))
                (local.set $n0 (f64x2.add (local.get $n0) (f64x2.sub (local.get $w0) (local.get $x0))))
                (local.set $n1 (f64x2.add (local.get $n1) (f64x2.sub (local.get $w1) (local.get $x1))))
                (local.set $j (i32.add (local.get $j) (i32.const 1)))
                (br $jloop))))
          (else
            ;; tie groups: wp += q w; wn += w - q w; then a += wp (n + 0.5 wn); n += wn; p += wp
            (local.set $k (i32.const 0))
            (block $kdone
              (loop $kloop
                (br_if $kdone (i32.ge_u (local.get $k) (local.get $g)))
                (local.set $j (i32.load (i32.add (local.get $gs) (i32.shl (local.get $k) (i32.const 2)))))
                (local.set $end (i32.load offset=4 (i32.add (local.get $gs) (i32.shl (local.get $k) (i32.const 2)))))
                (local.set $wp0 (v128.const i64x2 0 0))
                (local.set $wp1 (v128.const i64x2 0 0))
                (local.set $wn0 (v128.const i64x2 0 0))
                (local.set $wn1 (v128.const i64x2 0 0))
                (block $gdone
                  (loop $gloop
                    (br_if $gdone (i32.ge_u (local.get $j) (local.get $end)))
                    (local.set $o (i32.add (i32.load (i32.add (local.get $at) (i32.shl (local.get $j) (i32.const 2)))) (i32.shl (local.get $b) (i32.const 3))))
                    (local.set $q (v128.load64_splat (i32.add (local.get $pos) (i32.shl (local.get $j) (i32.const 3)))))
                    (local.set $w0 (v128.load (local.get $o)))
                    (local.set $w1 (v128.load offset=16 (local.get $o)))
                    (local.set $x0 (f64x2.mul (local.get $q) (local.get $w0)))
                    (local.set $x1 (f64x2.mul (local.get $q) (local.get $w1)))
                    (local.set $wp0 (f64x2.add (local.get $wp0) (local.get $x0)))
                    (local.set $wp1 (f64x2.add (local.get $wp1) (local.get $x1)))
                    (local.set $wn0 (f64x2.add (local.get $wn0) (f64x2.sub (local.get $w0) (local.get $x0))))
                    (local.set $wn1 (f64x2.add (local.get $wn1) (f64x2.sub (local.get $w1) (local.get $x1))))
                    (local.set $j (i32.add (local.get $j) (i32.const 1)))
                    (br $gloop)))
                (local.set $a0 (f64x2.add (local.get $a0)
                  (f64x2.mul (local.get $wp0) (f64x2.add (local.get $n0) (f64x2.mul (local.get $half) (local.get $wn0))))))
                (local.set $a1 (f64x2.add (local.get $a1)
                  (f64x2.mul (local.get $wp1) (f64x2.add (local.get $n1) (f64x2.mul (local.get $half) (local.get $wn1))))))
                (local.set $n0 (f64x2.add (local.get $n0) (local.get $wn0)))
                (local.set $n1 (f64x2.add (local.get $n1) (local.get $wn1)))
                (local.set $p0 (f64x2.add (local.get $p0) (local.get $wp0)))
                (local.set $p1 (f64x2.add (local.get $p1) (local.get $wp1)))
                (local.set $k (i32.add (local.get $k) (i32.const 1)))
                (br $kloop)))))
        (local.set $o (i32.add (local.get $out) (i32.shl (local.get $b) (i32.const 3))))
        (v128.store (local.get $o) (local.get $a0))
        (v128.store offset=16 (local.get $o) (local.get $a1))
        (local.set $o (i32.add (local.get $o) (i32.shl (local.get $lanes) (i32.const 3))))
        (v128.store (local.get $o) (local.get $p0))
        (v128.store offset=16 (local.get $o) (local.get $p1))
        (local.set $o (i32.add (local.get $o) (i32.shl (local.get $lanes) (i32.const 3))))
        (v128.store (local.get $o) (local.get $n0))
        (v128.store offset=16 (local.get $o) (local.get $n1))
        (local.set $b (i32.add (local.get $b) (i32.const 4)))
        (br $bloop))))

  ;; out[t * jp + k] += w[t * n + i] * v[i * jp + k] for every sample i in order, each draw t < draws and k < jp (a
  ;; multiple of 4), a sample a draw weighs 0 skipped: the weighted sums of Feature Contributions' bootstrap means
  ;; (simd-means.ts for bootstrap.ts's bootstrapMeans), two sums per instruction, each in the JavaScript loop's order
  (func (export "weightedSums") (param $v i32) (param $w i32) (param $out i32) (param $n i32) (param $jp i32) (param $draws i32)
    (local $i i32) (local $t i32) (local $bytes i32) (local $row i32) (local $end i32) (local $p i32) (local $o i32)
    (local $wi f64) (local $ws v128)
    (local.set $bytes (i32.shl (local.get $jp) (i32.const 3)))
    (local.set $i (i32.const 0))
    (block $idone
      (loop $iloop
        (br_if $idone (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $row (i32.add (local.get $v) (i32.mul (local.get $i) (local.get $bytes))))
        (local.set $end (i32.add (local.get $row) (local.get $bytes)))
        (local.set $t (i32.const 0))
        (block $tdone
          (loop $tloop
            (br_if $tdone (i32.ge_u (local.get $t) (local.get $draws)))
            (local.set $wi (f64.load (i32.add (local.get $w)
              (i32.shl (i32.add (i32.mul (local.get $t) (local.get $n)) (local.get $i)) (i32.const 3)))))
            (if (f64.ne (local.get $wi) (f64.const 0))
              (then
                (local.set $ws (f64x2.splat (local.get $wi)))
                (local.set $p (local.get $row))
                (local.set $o (i32.add (local.get $out) (i32.mul (local.get $t) (local.get $bytes))))
                (block $kdone
                  (loop $kloop
                    (br_if $kdone (i32.ge_u (local.get $p) (local.get $end)))
                    (v128.store (local.get $o)
                      (f64x2.add (v128.load (local.get $o)) (f64x2.mul (local.get $ws) (v128.load (local.get $p)))))
                    (v128.store offset=16 (local.get $o)
                      (f64x2.add (v128.load offset=16 (local.get $o)) (f64x2.mul (local.get $ws) (v128.load offset=16 (local.get $p)))))
                    (local.set $p (i32.add (local.get $p) (i32.const 32)))
                    (local.set $o (i32.add (local.get $o) (i32.const 32)))
                    (br $kloop)))))
            (local.set $t (i32.add (local.get $t) (i32.const 1)))
            (br $tloop)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $iloop))))
)
