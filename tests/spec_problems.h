// The example problems of SPEC.md section 8, shared by the tests that check the evaluator and
// the search against the spec's vectors. All tensors are 128x128 unless noted; bandwidth 10.
#ifndef TILESCHED_TESTS_SPEC_PROBLEMS_H_
#define TILESCHED_TESTS_SPEC_PROBLEMS_H_

#include <cstdint>

#include "tilesched/problem.h"

namespace tilesched::testing::spec {

// 1: PW0(T0)->T1, PW1(T1)->T2, costs 1000, 100; `n` x `n` tensors.
Problem Chain2(int64_t capacity, int64_t n = 128);
// 3: PW0(T0)->T1, PW1(T1)->T2, PW2(T1,T2)->T3, costs 1500 each, cap 50000.
Problem Diamond();
// 4: MM0(T0,T1)->T2, cost 1500, cap 25000.
Problem SingleMatMul();
// 5: MM0(T0,T1)->T3, MM1(T3,T2)->T4, costs 2000, cap 45000.
Problem MatMulChain();
// E1: MM0(T0 128x256, T1 256x128)->T2, PW1(T2,T3)->T4, costs 1000, 200, cap 60000.
Problem E1();
// E4: PW0(T0 128x256)->T1, MM1(T1, T2 256x128)->T3, costs 300, 1000, cap 60000.
Problem E4();
// E6: MM0(T0 128x256, T1 256x256)->T2 128x256, cost 20000, cap 100000.
Problem E6();
// E8: MM0(T0 128x256, T1 256x128)->T3, MM1(T3, T2 128x128)->T4, costs 4000, cap 80000.
Problem E8();
// E13: MM0(T0,T1)->T3, PW1(T3)->T4, MM2(T4,T2)->T5, costs 2000, 300, 2000, cap 60000.
Problem E13();
// E10: MM0(X 256x128, Wq)->Q, MM1(X, Wk)->K, weights 128x128, costs 800, cap 70000.
Problem E10();
// E11: PW0(T0)->T1, MM1(T1, T2 128x256)->T3 (128x256), PW2(T1)->T4.
Problem E11();

}  // namespace tilesched::testing::spec

#endif  // TILESCHED_TESTS_SPEC_PROBLEMS_H_
