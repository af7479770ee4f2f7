// 2^40 distinct template instantiations, each within the depth limit: the compiler never finishes
// (and its memory grows all the while) unless stopped.
#include "../../common/correct_kernels.cuh"

template <int N, long long I> struct Tree {
  static constexpr long long value = Tree<N - 1, 2 * I>::value + Tree<N - 1, 2 * I + 1>::value;
};
template <long long I> struct Tree<0, I> { static constexpr long long value = 1; };

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  hostile::launch_tiled(A, B, C, m, n + int(Tree<40, 0>::value & 0), k);
}
