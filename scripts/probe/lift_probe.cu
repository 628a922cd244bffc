// Seed 002's tetrahedral lift at N = 7 (C = LIFT·F + C: m = 128 rows, 120 used; k = 144 face nodes; n = elements ×
// variables; β = 1) with LIFT resident in shared memory and a register tile of 16 rows × 4 columns per thread,
// against cuBLAS's SGEMM on the same operands. Prints each one's time (median of 20 after 5 warm-ups), its FLOP/s
// (128 rows counted, as the GEMM lines of `dg bench --per-kernel` count them) and the largest difference from
// cuBLAS's product relative to its largest entry. usage: nvcc -O3 -arch=sm_90 lift_probe.cu -lcublas && ./a.out
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cmath>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#define CK(x) do { auto e_ = (x); if (e_ != 0) { printf("error %d at %s:%d\n", (int)e_, __FILE__, __LINE__); exit(1); } } while (0)
constexpr int M = 128, K = 144, KC = 16;

template <int TN>
__global__ void __launch_bounds__(256) lift(const float* __restrict__ A, const float* __restrict__ B,
                                            float* __restrict__ C, int n) {
  extern __shared__ float smem[];
  float* As = smem;              // A as stored: column j's 128 rows at j*M
  float* Bs = smem + K * M;      // a chunk of KC rows of B for TN columns: Bs[r*(TN+4) + c]
  constexpr int CG = TN / 4;     // column groups (4 columns each)
  constexpr int RG = 256 / CG;   // row groups
  constexpr int RT = M / RG;     // rows per thread
  const int tx = threadIdx.x % CG, ty = threadIdx.x / CG;
  for (int t = threadIdx.x; t < K * M / 4; t += 256) reinterpret_cast<float4*>(As)[t] = reinterpret_cast<const float4*>(A)[t];
  const int col0 = blockIdx.x * TN;
  float acc[RT][4];
#pragma unroll
  for (int i = 0; i < RT; ++i) acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0.f;
  for (int j0 = 0; j0 < K; j0 += KC) {
    __syncthreads();
    for (int t = threadIdx.x; t < TN * KC; t += 256) {
      const int c = t / KC, r = t % KC, col = col0 + c;
      Bs[r * (TN + 4) + c] = col < n ? B[(size_t)col * K + j0 + r] : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < KC; ++r) {
      const float4 bv = *reinterpret_cast<const float4*>(&Bs[r * (TN + 4) + 4 * tx]);
      const float b0 = bv.x, b1 = bv.y, b2 = bv.z, b3 = bv.w;
      const float* ap = &As[(j0 + r) * M + RT * ty];
#pragma unroll
      for (int i = 0; i < RT; i += 4) {
        const float4 a = *reinterpret_cast<const float4*>(ap + i);
        const float av[4] = {a.x, a.y, a.z, a.w};
#pragma unroll
        for (int u = 0; u < 4; ++u) {
          acc[i + u][0] = fmaf(av[u], b0, acc[i + u][0]);
          acc[i + u][1] = fmaf(av[u], b1, acc[i + u][1]);
          acc[i + u][2] = fmaf(av[u], b2, acc[i + u][2]);
          acc[i + u][3] = fmaf(av[u], b3, acc[i + u][3]);
        }
      }
    }
  }
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const int col = col0 + 4 * tx + q;
    if (col >= n) continue;
    float* cp = &C[(size_t)col * M + RT * ty];
#pragma unroll
    for (int i = 0; i < RT; i += 4) {
      float4 v = *reinterpret_cast<float4*>(cp + i);
      v.x += acc[i][q]; v.y += acc[i + 1][q]; v.z += acc[i + 2][q]; v.w += acc[i + 3][q];
      *reinterpret_cast<float4*>(cp + i) = v;
    }
  }
}

static float median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

template <int TN>
static void run(const char* name, int n, const float* A, const float* B, float* C, const float* C0, const std::vector<float>& ref, cudaEvent_t e0, cudaEvent_t e1) {
  size_t smem = (size_t)(K * M + KC * (TN + 4)) * sizeof(float);
  CK(cudaFuncSetAttribute(lift<TN>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  int blocks = (n + TN - 1) / TN;
  std::vector<float> t;
  for (int r = 0; r < 25; ++r) {
    CK(cudaMemcpy(C, C0, (size_t)M * n * 4, cudaMemcpyDeviceToDevice));
    cudaEventRecord(e0); lift<TN><<<blocks, 256, smem>>>(A, B, C, n); cudaEventRecord(e1); CK(cudaEventSynchronize(e1));
    float ms; cudaEventElapsedTime(&ms, e0, e1); if (r >= 5) t.push_back(ms);
  }
  CK(cudaGetLastError());
  std::vector<float> out((size_t)M * n);
  CK(cudaMemcpy(out.data(), C, out.size() * 4, cudaMemcpyDeviceToHost));
  double big = 0, diff = 0; bool finite = true;
  for (size_t i = 0; i < out.size(); ++i) { big = std::max(big, (double)std::fabs(ref[i])); diff = std::max(diff, (double)std::fabs(out[i] - ref[i])); finite &= std::isfinite(out[i]); }
  float ms = median(t);
  printf("%-10s n=%6d own TN=%3d: %7.1f us (%.1f TFLOP/s), max diff %.2e of %.2e%s\n", name, n, TN, ms * 1e3, 2.0 * M * n * K / (ms * 1e-3) / 1e12, diff / big, big, finite ? "" : " NOT FINITE");
}

int main() {
  struct Shape { const char* name; int n; } shapes[] = {{"ac-lift", 65856}, {"el-lift", 148176}};
  cublasHandle_t h; CK(cublasCreate(&h));
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  for (auto& s : shapes) {
    const int n = s.n;
    std::vector<float> a((size_t)M * K, 0.f), b((size_t)K * n), c((size_t)M * n);
    srand(7);
    for (int j = 0; j < K; ++j) for (int i = 0; i < 120; ++i) a[i + (size_t)j * M] = rand() / (float)RAND_MAX - 0.5f;
    for (auto& x : b) x = rand() / (float)RAND_MAX - 0.5f;
    for (auto& x : c) x = rand() / (float)RAND_MAX - 0.5f;
    float *A, *B, *C, *C0;
    CK(cudaMalloc(&A, a.size() * 4)); CK(cudaMalloc(&B, b.size() * 4)); CK(cudaMalloc(&C, c.size() * 4)); CK(cudaMalloc(&C0, c.size() * 4));
    CK(cudaMemcpy(A, a.data(), a.size() * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(B, b.data(), b.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(C0, c.data(), c.size() * 4, cudaMemcpyHostToDevice));
    float one = 1.f; std::vector<float> t;
    for (int r = 0; r < 25; ++r) {
      CK(cudaMemcpy(C, C0, c.size() * 4, cudaMemcpyDeviceToDevice));
      cudaEventRecord(e0); cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, M, n, K, &one, A, M, B, K, &one, C, M); cudaEventRecord(e1); CK(cudaEventSynchronize(e1));
      float ms; cudaEventElapsedTime(&ms, e0, e1); if (r >= 5) t.push_back(ms);
    }
    std::vector<float> ref(c.size()); CK(cudaMemcpy(ref.data(), C, ref.size() * 4, cudaMemcpyDeviceToHost));
    float ms = median(t);
    printf("%-10s n=%6d cublasSgemm: %7.1f us (%.1f TFLOP/s)\n", s.name, n, ms * 1e3, 2.0 * M * n * K / (ms * 1e-3) / 1e12);
    run<128>(s.name, n, A, B, C, C0, ref, e0, e1);
    run<64>(s.name, n, A, B, C, C0, ref, e0, e1);
    run<32>(s.name, n, A, B, C, C0, ref, e0, e1);
    cudaFree(A); cudaFree(B); cudaFree(C); cudaFree(C0);
  }
  return 0;
}
