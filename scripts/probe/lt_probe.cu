// cuBLAS SGEMM against every algorithm cublasLt's heuristic offers, on the tetrahedral GEMM shapes (N = 7).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cublasLt.h>
#define CK(x) do { auto e_ = (x); if (e_ != 0) { printf("error %d at %s:%d\n", (int)e_, __FILE__, __LINE__); exit(1); } } while (0)
struct Shape { const char* name; int m, n, k, lda, ldb, ldc; float beta; };
static float median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
int main() {
  Shape shapes[] = {
    {"ac-gradient", 384, 16464, 120, 384, 512, 1536, 0.f},
    {"ac-divergence", 128, 16464, 360, 128, 1536, 512, 1.f},
    {"ac-lift", 128, 65856, 144, 128, 144, 128, 1.f},
    {"el-lift", 128, 148176, 144, 128, 144, 128, 1.f},
  };
  cublasHandle_t h; CK(cublasCreate(&h));
  cublasLtHandle_t lt; CK(cublasLtCreate(&lt));
  size_t wsSize = 32 << 20; void* ws; CK(cudaMalloc(&ws, wsSize));
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  for (auto& s : shapes) {
    size_t na = (size_t)s.lda * s.k, nb = (size_t)s.ldb * s.n, nc = (size_t)s.ldc * s.n;
    float *A, *B, *C; CK(cudaMalloc(&A, na * 4)); CK(cudaMalloc(&B, nb * 4)); CK(cudaMalloc(&C, nc * 4));
    cudaMemset(A, 0, na * 4); cudaMemset(B, 0, nb * 4); cudaMemset(C, 0, nc * 4);
    float alpha = 1.f, beta = s.beta;
    auto timeit = [&](auto&& f) { std::vector<float> t; for (int r = 0; r < 25; ++r) { cudaEventRecord(e0); f(); cudaEventRecord(e1); cudaEventSynchronize(e1); float ms; cudaEventElapsedTime(&ms, e0, e1); if (r >= 5) t.push_back(ms); } return median(t); };
    float base = timeit([&] { cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, s.m, s.n, s.k, &alpha, A, s.lda, B, s.ldb, &beta, C, s.ldc); });
    double flops = 2.0 * s.m * s.n * s.k;
    printf("%-14s m=%d n=%d k=%d  cublasSgemm %.1f us (%.1f TFLOP/s)\n", s.name, s.m, s.n, s.k, base * 1e3, flops / (base * 1e-3) / 1e12);
    cublasLtMatmulDesc_t desc; CK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasLtMatrixLayout_t la, lb, lc;
    CK(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, s.m, s.k, s.lda));
    CK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, s.k, s.n, s.ldb));
    CK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, s.m, s.n, s.ldc));
    cublasLtMatmulPreference_t pref; CK(cublasLtMatmulPreferenceCreate(&pref));
    CK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsSize, sizeof(wsSize)));
    cublasLtMatmulHeuristicResult_t res[32]; int found = 0;
    CK(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lc, lc, pref, 32, res, &found));
    float best = 1e9; int bi = -1;
    for (int i = 0; i < found; ++i) {
      float t = timeit([&] { cublasLtMatmul(lt, desc, &alpha, A, la, B, lb, &beta, C, lc, C, lc, &res[i].algo, ws, wsSize, 0); });
      if (t < best) { best = t; bi = i; }
      printf("   lt algo %2d: %.1f us (%.2fx)\n", i, t * 1e3, base / t);
    }
    printf("%-14s best lt algo %d: %.1f us, %.2fx cublasSgemm (%d offered)\n", s.name, bi, best * 1e3, base / best, found);
    cudaFree(A); cudaFree(B); cudaFree(C);
  }
  return 0;
}
