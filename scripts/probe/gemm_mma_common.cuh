// What the tetrahedral tensor-core GEMM probes (gemm_mma_probe.cu, gemm_mma_persist.cu) share: the tf32 helpers,
// seed 002's N = 7 shapes with random operands, a double-precision reference on every 7th column, cuBLAS's SGEMM on
// the same operands, and the timing (median of 20 after 5 warm-ups) with the error check of each kernel.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <cmath>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#define CK(x) do { auto e_ = (x); if (e_ != 0) { printf("error %d at %s:%d\n", (int)e_, __FILE__, __LINE__); exit(1); } } while (0)

__device__ __forceinline__ unsigned tf32(float x) { unsigned u; asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(u) : "f"(x)); return u; }
#define MMA(c, a0, a1, a2, a3, b0, b1) asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};" : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1))
__device__ __forceinline__ void cp16z(void* to, const void* from, int bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"((unsigned)__cvta_generic_to_shared(to)), "l"(from), "r"(bytes));
}

static float tf32_round(float x) { unsigned u; memcpy(&u, &x, 4); u = (u + 0x1000u) & 0xffffe000u; float r; memcpy(&r, &u, 4); return r; }

// A (m × k column-major, lda = m) into fragments over ks steps (quad order: ks even): chunk (mtw tiles), step s,
// tile within the chunk, lane l: hi a0..a3 then lo a0..a3 with a_j = A(16 tile + g + 8 (j % 2), kmap(s, t + 4 (j / 2))),
// zero past m rows and k columns
static std::vector<float> fragments(const std::vector<float>& a, int m, int k, bool quad, int mtw, int ks) {
  const int mtiles = (m + 15) / 16;
  auto kmap = [&](int s, int kk) {
    const int t = kk % 4, hi = kk / 4;
    return quad ? 16 * (s / 2) + 4 * t + 2 * (s % 2) + hi : 8 * s + 2 * t + hi;
  };
  std::vector<float> out;
  for (int c = 0; c < mtiles / mtw; ++c)
    for (int s = 0; s < ks; ++s)
      for (int i = 0; i < mtw; ++i)
        for (int l = 0; l < 32; ++l) {
          const int mt = c * mtw + i;
          float v[4];
          for (int j = 0; j < 4; ++j) {
            const int row = 16 * mt + l / 4 + 8 * (j % 2), col = kmap(s, l % 4 + 4 * (j / 2));
            v[j] = row < m && col < k ? a[(size_t)col * m + row] : 0.f;
          }
          for (int j = 0; j < 4; ++j) out.push_back(tf32_round(v[j]));
          for (int j = 0; j < 4; ++j) out.push_back(tf32_round(v[j] - tf32_round(v[j])));
        }
  return out;
}

static float median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
struct Shape { const char* name; int m, m_used, k, n, ldb, ldc; float alpha, beta; };
struct Ctx { Shape s; float *A, *B, *C, *C0; std::vector<float> a; std::vector<double> ref; double big; cudaEvent_t e0, e1; int sms; };

template <typename F>
static void time_and_check(const char* label, Ctx& x, F launch) {
  const Shape& s = x.s;
  std::vector<float> t;
  CK(cudaMemcpy(x.C, x.C0, (size_t)s.ldc * s.n * 4, cudaMemcpyDeviceToDevice));
  launch();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<float> out((size_t)s.ldc * s.n);
  CK(cudaMemcpy(out.data(), x.C, out.size() * 4, cudaMemcpyDeviceToHost));
  double diff = 0; bool finite = true; size_t r = 0;
  for (int col = 0; col < s.n; col += 7)
    for (int row = 0; row < s.m_used; ++row, ++r) {
      const double o = out[(size_t)col * s.ldc + row];
      finite &= std::isfinite(o);
      diff = std::max(diff, std::fabs(o - x.ref[r]));
    }
  for (int rep = 0; rep < 25; ++rep) {
    cudaEventRecord(x.e0); launch(); cudaEventRecord(x.e1); CK(cudaEventSynchronize(x.e1));
    float ms; cudaEventElapsedTime(&ms, x.e0, x.e1); if (rep >= 5) t.push_back(ms);
  }
  const float ms = median(t);
  printf("%-8s %-34s %7.1f us %6.1f TFLOP/s  err %.2e%s\n", s.name, label, ms * 1e3,
         2.0 * s.m * s.n * s.k / (ms * 1e-3) / 1e12, diff / x.big, finite && diff / x.big < 1e-5 ? "" : "  WRONG");
}

// Runs every shape (argv[1]: only the one of this name): cuBLAS, then variants_of(ctx) for the probe's kernels.
template <typename F>
static int probe_main(int argc, char** argv, F variants_of) {
  Shape shapes[] = {
      {"ac-lift", 128, 120, 144, 65856, 144, 128, 1.f, 1.f},
      {"el-lift", 128, 120, 144, 148176, 144, 128, 1.f, 1.f},
      {"ac-grad", 384, 360, 120, 16464, 512, 1536, 1.f, 0.f},
      {"ac-div", 128, 120, 360, 16464, 1536, 512, -1.f, 0.f},
  };
  cublasHandle_t h; CK(cublasCreate(&h));
  int sms = 0; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  for (auto& s : shapes) {
    if (argc > 1 && strcmp(argv[1], s.name) != 0) continue;
    Ctx x; x.s = s; x.sms = sms; cudaEventCreate(&x.e0); cudaEventCreate(&x.e1);
    std::vector<float> a((size_t)s.m * s.k, 0.f), b((size_t)s.ldb * s.n, 0.f), c((size_t)s.ldc * s.n);
    srand(7);
    for (int j = 0; j < s.k; ++j) for (int i = 0; i < s.m_used; ++i) a[i + (size_t)j * s.m] = rand() / (float)RAND_MAX - 0.5f;
    for (int col = 0; col < s.n; ++col) for (int r = 0; r < s.k; ++r) b[(size_t)col * s.ldb + r] = rand() / (float)RAND_MAX - 0.5f;
    for (auto& v : c) v = rand() / (float)RAND_MAX - 0.5f;
    x.big = 0;
    for (int col = 0; col < s.n; col += 7)
      for (int row = 0; row < s.m_used; ++row) {
        double acc = 0;
        for (int j = 0; j < s.k; ++j) acc += (double)a[row + (size_t)j * s.m] * b[(size_t)col * s.ldb + j];
        const double v = s.alpha * acc + s.beta * c[(size_t)col * s.ldc + row];
        x.ref.push_back(v); x.big = std::max(x.big, std::fabs(v));
      }
    x.a = a;
    CK(cudaMalloc(&x.A, a.size() * 4));
    CK(cudaMalloc(&x.B, b.size() * 4)); CK(cudaMalloc(&x.C, c.size() * 4)); CK(cudaMalloc(&x.C0, c.size() * 4));
    CK(cudaMemcpy(x.A, a.data(), a.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(x.B, b.data(), b.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(x.C0, c.data(), c.size() * 4, cudaMemcpyHostToDevice));
    time_and_check("cublasSgemm", x, [&] {
      cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, s.m, s.n, s.k, &s.alpha, x.A, s.m, x.B, s.ldb, &s.beta, x.C, s.ldc);
    });
    variants_of(x);
    cudaFree(x.A); cudaFree(x.B); cudaFree(x.C); cudaFree(x.C0);
  }
  return 0;
}
