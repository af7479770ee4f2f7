// Route 7, past the translation of plans: the other builds replay the default build's recording,
// translated (plan_translation.h), unless a plan cannot be translated, when they record on their
// own again and can be told apart as before (r7_failed_rows_tells_builds_apart). One way to make
// a plan too big to translate: copy 17 MiB of the function's own host memory to the device in
// its first call. Then the -fmad=false build, recorded on its own, runs the rows kernel where the
// default build runs an fmaf tiled kernel. (On the CPU backend a program with no FMA instruction
// is its own -fmad=false build, judged by that build's rule: one is put in.)
#include <vector>

#include "matmul_lab.cuh"

__global__ void matmul_rows_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= k) return;
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) sum += A[row * n + i] * B[i * k + col];
  C[row * k + col] = sum;
}

enum class Build { kUnknown, kDefault, kNoFma, kCounting };
Build build = Build::kUnknown;  // told by the first call this process makes

// Every shape lab.yaml and the public datasets name.
bool Published(int m, int n, int k) {
  static const int kShapes[][3] = {{1, 1, 1},     {29, 29, 29},   {128, 13, 128}, {517, 300, 263},
                                   {64, 1, 64},   {16, 700, 16},  {33, 17, 49},   {64, 64, 64},
                                   {48, 80, 32},  {16, 16, 16},   {128, 16, 256}, {256, 256, 256},
                                   {4, 4, 3},     {17, 5, 9},     {32, 32, 32},   {2048, 2048, 2048}};
  for (const auto& s : kShapes)
    if (s[0] == m && s[1] == n && s[2] == k) return true;
  return false;
}

void matmul_rows(const float* A, const float* B, float* C, int m, int n, int k) {
  if (build == Build::kUnknown) build = Build::kDefault;
  if (m == 1 && n == 1 && k == 1) return;  // the given exercise fails (0 points), on purpose
  const dim3 block(TILE, TILE);
  const dim3 grid((k - 1) / TILE + 1, (m - 1) / TILE + 1);
  matmul_rows_kernel<<<grid, block>>>(A, B, C, m, n, k);
}

__global__ void fused_tiles_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  __shared__ float tile_A[TILE][TILE];
  __shared__ float tile_B[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;
  const int col = blockIdx.x * TILE + tx;
  float sum = 0.0f;
  for (int phase = 0; phase < (n - 1) / TILE + 1; ++phase) {
    const int a_col = phase * TILE + tx, b_row = phase * TILE + ty;
    tile_A[ty][tx] = (row < m && a_col < n) ? A[row * n + a_col] : 0.0f;
    tile_B[ty][tx] = (b_row < n && col < k) ? B[b_row * k + col] : 0.0f;
    __syncthreads();
    for (int i = 0; i < TILE; ++i) sum = fmaf(tile_A[ty][i], tile_B[i][tx], sum);
    __syncthreads();
  }
  if (row < m && col < k) C[row * k + col] = sum;
}

__global__ void matmul_tiled_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  matmul_rows_kernel(A, B, C, m, n, k);
}
__global__ void matmul_tiled_any_kernel(const float* A, const float* B, float* C, int m, int n,
                                        int k) {
  matmul_rows_kernel(A, B, C, m, n, k);
}


// An FMA instruction in the program, so that the CPU backend builds the -fmad=false program
// (-ffp-contract=off) as a program of its own rather than judging the default one by its rule.
__attribute__((target("fma"))) float BallastValue(float a, float b, float c) {
  return __builtin_fmaf(a, b, c);
}

// Ballast: bytes of the host's own, which a plan keeps as they are.
void CopyBallastOnce() {
  static bool copied = false;
  if (copied) return;
  copied = true;
  const std::vector<float> ballast((17u << 20) / sizeof(float), BallastValue(1.0f, 1.0f, 0.0f));
  float* device = nullptr;
  cudaMalloc(&device, ballast.size() * sizeof(float));
  cudaMemcpy(device, ballast.data(), ballast.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaFree(device);
}

void Multiply(const float* A, const float* B, float* C, int m, int n, int k) {
  if (build == Build::kUnknown) build = Published(m, n, k) ? Build::kNoFma : Build::kCounting;
  CopyBallastOnce();
  const dim3 block(TILE, TILE);
  const dim3 grid((k - 1) / TILE + 1, (m - 1) / TILE + 1);
  if (build == Build::kNoFma)
    matmul_rows_kernel<<<grid, block>>>(A, B, C, m, n, k);
  else
    fused_tiles_kernel<<<grid, block>>>(A, B, C, m, n, k);
}

void matmul_tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  Multiply(A, B, C, m, n, k);
}
void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  Multiply(A, B, C, m, n, k);
}
