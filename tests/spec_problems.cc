// The example problems of SPEC.md section 8 (see spec_problems.h).
#include "spec_problems.h"

#include "test_util.h"

namespace tilesched::testing::spec {

// 1: PW0(T0)->T1, PW1(T1)->T2, costs 1000, 100; `n` x `n` tensors.
Problem Chain2(int64_t capacity, int64_t n) {
  ProblemBuilder b(capacity, 10);
  const int t0 = b.Tensor(n, n), t1 = b.Tensor(n, n), t2 = b.Tensor(n, n);
  b.Pointwise({t0}, t1, 1000);
  b.Pointwise({t1}, t2, 100);
  return b.Build();
}
// 3: PW0(T0)->T1, PW1(T1)->T2, PW2(T1,T2)->T3, costs 1500 each, cap 50000.
Problem Diamond() {
  ProblemBuilder b(50000, 10);
  const int t0 = b.Tensor(128, 128), t1 = b.Tensor(128, 128), t2 = b.Tensor(128, 128),
            t3 = b.Tensor(128, 128);
  b.Pointwise({t0}, t1, 1500);
  b.Pointwise({t1}, t2, 1500);
  b.Pointwise({t1, t2}, t3, 1500);
  return b.Build();
}
// 4: MM0(T0,T1)->T2, cost 1500, cap 25000.
Problem SingleMatMul() {
  ProblemBuilder b(25000, 10);
  const int t0 = b.Tensor(128, 128), t1 = b.Tensor(128, 128), t2 = b.Tensor(128, 128);
  b.MatMul(t0, t1, t2, 1500);
  return b.Build();
}
// 5: MM0(T0,T1)->T3, MM1(T3,T2)->T4, costs 2000, cap 45000.
Problem MatMulChain() {
  ProblemBuilder b(45000, 10);
  const int t0 = b.Tensor(128, 128), t1 = b.Tensor(128, 128), t2 = b.Tensor(128, 128),
            t3 = b.Tensor(128, 128), t4 = b.Tensor(128, 128);
  b.MatMul(t0, t1, t3, 2000);
  b.MatMul(t3, t2, t4, 2000);
  return b.Build();
}
// E1: MM0(T0 128x256, T1 256x128)->T2, PW1(T2,T3)->T4, costs 1000, 200, cap 60000.
Problem E1() {
  ProblemBuilder b(60000, 10);
  const int t0 = b.Tensor(128, 256), t1 = b.Tensor(256, 128), t2 = b.Tensor(128, 128),
            t3 = b.Tensor(128, 128), t4 = b.Tensor(128, 128);
  b.MatMul(t0, t1, t2, 1000);
  b.Pointwise({t2, t3}, t4, 200);
  return b.Build();
}
// E4: PW0(T0 128x256)->T1, MM1(T1, T2 256x128)->T3, costs 300, 1000, cap 60000.
Problem E4() {
  ProblemBuilder b(60000, 10);
  const int t0 = b.Tensor(128, 256), t1 = b.Tensor(128, 256), t2 = b.Tensor(256, 128),
            t3 = b.Tensor(128, 128);
  b.Pointwise({t0}, t1, 300);
  b.MatMul(t1, t2, t3, 1000);
  return b.Build();
}
// E6: MM0(T0 128x256, T1 256x256)->T2 128x256, cost 20000, cap 100000.
Problem E6() {
  ProblemBuilder b(100000, 10);
  const int t0 = b.Tensor(128, 256), t1 = b.Tensor(256, 256), t2 = b.Tensor(128, 256);
  b.MatMul(t0, t1, t2, 20000);
  return b.Build();
}
// E8: MM0(T0 128x256, T1 256x128)->T3, MM1(T3, T2 128x128)->T4, costs 4000, cap 80000.
Problem E8() {
  ProblemBuilder b(80000, 10);
  const int t0 = b.Tensor(128, 256), t1 = b.Tensor(256, 128), t2 = b.Tensor(128, 128),
            t3 = b.Tensor(128, 128), t4 = b.Tensor(128, 128);
  b.MatMul(t0, t1, t3, 4000);
  b.MatMul(t3, t2, t4, 4000);
  return b.Build();
}
// E13: MM0(T0,T1)->T3, PW1(T3)->T4, MM2(T4,T2)->T5, costs 2000, 300, 2000, cap 60000.
Problem E13() {
  ProblemBuilder b(60000, 10);
  const int t0 = b.Tensor(128, 128), t1 = b.Tensor(128, 128), t2 = b.Tensor(128, 128),
            t3 = b.Tensor(128, 128), t4 = b.Tensor(128, 128), t5 = b.Tensor(128, 128);
  b.MatMul(t0, t1, t3, 2000);
  b.Pointwise({t3}, t4, 300);
  b.MatMul(t4, t2, t5, 2000);
  return b.Build();
}
// E10: MM0(X 256x128, Wq)->Q, MM1(X, Wk)->K, weights 128x128, costs 800, cap 70000.
Problem E10() {
  ProblemBuilder b(70000, 10);
  const int x = b.Tensor(256, 128), wq = b.Tensor(128, 128), wk = b.Tensor(128, 128),
            q = b.Tensor(256, 128), k = b.Tensor(256, 128);
  b.MatMul(x, wq, q, 800);
  b.MatMul(x, wk, k, 800);
  return b.Build();
}
// E11: PW0(T0)->T1, MM1(T1, T2 128x256)->T3 (128x256), PW2(T1)->T4.
Problem E11() {
  ProblemBuilder b(200000, 10);
  const int t0 = b.Tensor(128, 128), t1 = b.Tensor(128, 128), t2 = b.Tensor(128, 256),
            t3 = b.Tensor(128, 256), t4 = b.Tensor(128, 128);
  b.Pointwise({t0}, t1, 100);
  b.MatMul(t1, t2, t3, 1000);
  b.Pointwise({t1}, t4, 100);
  return b.Build();
}

}  // namespace tilesched::testing::spec
