// Template recursion 100000 levels deep: the compiler must give up with an error, not crash or
// hang.
#include "../../common/correct_kernels.cuh"

template <int N> struct Deep { static constexpr int value = Deep<N - 1>::value + 1; };
template <> struct Deep<0> { static constexpr int value = 0; };

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  hostile::launch_tiled(A, B, C, m, n + Deep<100000>::value * 0, k);
}
