// The tetrahedral GEMMs' tensor-core kernel (templates/nodal-tet/tet_gemm_mma.tera, f32 as three tf32 products of
// split operands) against variants of where the operator lives and how long a work group lives, at seed 002's
// N = 7 shapes, against cuBLAS's SGEMM on the same operands:
//   v3   the shipped kernel: A's slab and B's slab copied into shared memory per slab (cp.async, STAGES deep), one
//        column tile per work group, C loaded into the accumulators first;
//   b4   the same, B's 16 depth values of a column read as one 16-byte word per slab pair (no bank conflicts);
//   res  the work group's row chunk of A copied into shared memory once and kept; the group walks column tiles
//        (grid-stride over tiles, as many groups as fill the multiprocessors) with B's slabs in one ring that runs
//        on from one tile into the next (no drain between tiles); C loaded at each tile's start.
// Prints time (median of 20 after 5 warm-ups), TFLOP/s and the largest error against a double-precision product on
// every 7th column relative to the largest entry. usage: nvcc -O3 -arch=sm_90 gemm_mma_persist.cu -lcublas -o gp
// && ./gp [shape]
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

// one slab pair (two steps of 8 depth indices) of products from shared memory: A fragments at sa (step u, tile i
// at (u * MTW + i) * 64), B columns (16 depth values each, quad order) at sb
template <int MTW, int NT, bool B4>
__device__ __forceinline__ void slab_products(float (&acc)[MTW][NT][4], const float4* sa, const float4* sb, int steps_left,
                                              int warp, int lane) {
  const int g = lane >> 2, t = lane & 3;
  float4 bq[NT];
  if (B4) {
#pragma unroll
    for (int j = 0; j < NT; ++j) bq[j] = sb[(warp * 8 * NT + 8 * j + g) * 4 + t];
  }
#pragma unroll
  for (int u = 0; u < 2; ++u) {
    if (u < steps_left) {
      unsigned bh[NT][2], bl[NT][2];
#pragma unroll
      for (int j = 0; j < NT; ++j) {
        float2 v;
        if (B4) v = u == 0 ? make_float2(bq[j].x, bq[j].y) : make_float2(bq[j].z, bq[j].w);
        else v = *(const float2*)((const float*)&sb[(warp * 8 * NT + 8 * j + g) * 4] + 4 * t + 2 * u);
        bh[j][0] = tf32(v.x); bl[j][0] = tf32(v.x - __uint_as_float(bh[j][0]));
        bh[j][1] = tf32(v.y); bl[j][1] = tf32(v.y - __uint_as_float(bh[j][1]));
      }
#pragma unroll
      for (int i = 0; i < MTW; ++i) {
        const float4 ah = sa[(u * MTW + i) * 64 + 2 * lane], al = sa[(u * MTW + i) * 64 + 2 * lane + 1];
        const unsigned h0 = __float_as_uint(ah.x), h1 = __float_as_uint(ah.y), h2 = __float_as_uint(ah.z), h3 = __float_as_uint(ah.w);
        const unsigned l0 = __float_as_uint(al.x), l1 = __float_as_uint(al.y), l2 = __float_as_uint(al.z), l3 = __float_as_uint(al.w);
#pragma unroll
        for (int j = 0; j < NT; ++j) {
          MMA(acc[i][j], l0, l1, l2, l3, bh[j][0], bh[j][1]);
          MMA(acc[i][j], h0, h1, h2, h3, bl[j][0], bl[j][1]);
          MMA(acc[i][j], h0, h1, h2, h3, bh[j][0], bh[j][1]);
        }
      }
    }
  }
}

template <int MTW, int NT, int W>
__device__ __forceinline__ void copy_b(float4* dst, const float* B, int ldb, int n, int K, int col0, int sl) {
  constexpr int BS = 8 * NT * W * 4;
  for (int x = threadIdx.x; x < BS; x += W * 32) {
    const int col = col0 + x / 4, r = 16 * sl + 4 * (x % 4);
    const bool ok = col < n && r < K;
    cp16z(&dst[x], B + (ok ? (size_t)col * ldb + r : 0), ok ? 4 * min(4, K - r) : 0);
  }
}

template <int MTW, int NT>
__device__ __forceinline__ void load_c(float (&acc)[MTW][NT][4], const float* C, int ldc, int n, int m_used, int row0, int col0, bool beta) {
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int i = 0; i < MTW; ++i)
#pragma unroll
    for (int j = 0; j < NT; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int row = row0 + i * 16 + g + 8 * (e >> 1), col = col0 + 8 * j + 2 * t + (e & 1);
        acc[i][j][e] = beta && row < m_used && col < n ? C[(size_t)col * ldc + row] : 0.f;
      }
}

template <int MTW, int NT>
__device__ __forceinline__ void store_c(const float (&acc)[MTW][NT][4], float* C, int ldc, int n, int m_used, int row0, int col0, float scale) {
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int i = 0; i < MTW; ++i)
#pragma unroll
    for (int j = 0; j < NT; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int row = row0 + i * 16 + g + 8 * (e >> 1), col = col0 + 8 * j + 2 * t + (e & 1);
        if (row < m_used && col < n) C[(size_t)col * ldc + row] = scale * acc[i][j][e];
      }
}

// v3 / b4: one column tile per group, A and B slabs streamed (dynamic shared memory: STAGES × (A slab, B slab))
template <int KS, int MTW, int NT, int W, int STAGES, bool B4>
__global__ void __launch_bounds__(W * 32) gemm_stream(const float* __restrict__ Af, const float* __restrict__ B, int ldb,
    float* __restrict__ C, int ldc, int n, int m_used, float alpha, int K, int chunks, int beta) {
  constexpr int SLABS = (KS + 1) / 2, COLS = 8 * NT * W, AS = 2 * MTW * 64, BS = COLS * 4;
  extern __shared__ float4 smem[];
  float4* s_a = smem; float4* s_b = smem + STAGES * AS;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int chunk = blockIdx.x % chunks, col_tile0 = (blockIdx.x / chunks) * COLS;
  const float4* src = (const float4*)Af + (size_t)chunk * KS * MTW * 64;
  float acc[MTW][NT][4];
  load_c<MTW, NT>(acc, C, ldc, n, m_used, chunk * MTW * 16, col_tile0 + warp * 8 * NT, beta);
  auto copy = [&](int sl) {
    const int st = sl % STAGES, count = min(2, KS - sl * 2) * MTW * 64;
    for (int x = threadIdx.x; x < count; x += W * 32) cp16z(&s_a[st * AS + x], src + (size_t)sl * AS + x, 16);
    copy_b<MTW, NT, W>(s_b + st * BS, B, ldb, n, K, col_tile0, sl);
  };
#pragma unroll
  for (int sl = 0; sl < STAGES - 1; ++sl) { if (sl < SLABS) copy(sl); asm volatile("cp.async.commit_group;"); }
#pragma unroll 1
  for (int sl = 0; sl < SLABS; ++sl) {
    asm volatile("cp.async.wait_group %0;" :: "n"(STAGES - 2));
    __syncthreads();
    if (sl + STAGES - 1 < SLABS) copy(sl + STAGES - 1);
    asm volatile("cp.async.commit_group;");
    const int st = sl % STAGES;
    slab_products<MTW, NT, B4>(acc, s_a + st * AS, s_b + st * BS, KS - 2 * sl, warp, lane);
  }
  store_c<MTW, NT>(acc, C, ldc, n, m_used, chunk * MTW * 16, col_tile0 + warp * 8 * NT, beta ? 1.f : alpha);
}

// res: the chunk's A resident in shared memory; column tiles walked grid-stride; B's ring runs across tiles
template <int KS, int MTW, int NT, int W, int STAGES, bool B4>
__global__ void __launch_bounds__(W * 32) gemm_resident(const float* __restrict__ Af, const float* __restrict__ B, int ldb,
    float* __restrict__ C, int ldc, int n, int m_used, float alpha, int K, int chunks, int beta) {
  constexpr int SLABS = (KS + 1) / 2, COLS = 8 * NT * W, AF = KS * MTW * 64, BS = COLS * 4;
  extern __shared__ float4 smem[];
  float4* s_a = smem; float4* s_b = smem + AF;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int chunk = blockIdx.x % chunks, stride = gridDim.x / chunks, first = blockIdx.x / chunks;
  const int tiles = (n + COLS - 1) / COLS;
  const int mine = first < tiles ? (tiles - 1 - first) / stride + 1 : 0;
  const int total = mine * SLABS;
  const float4* src = (const float4*)Af + (size_t)chunk * AF;
  for (int x = threadIdx.x; x < AF; x += W * 32) cp16z(&s_a[x], src + x, 16);
  auto copy = [&](int gs) {
    const int tile = first + (gs / SLABS) * stride;
    copy_b<MTW, NT, W>(s_b + (gs % STAGES) * BS, B, ldb, n, K, tile * COLS, gs % SLABS);
  };
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) { if (s < total) copy(s); asm volatile("cp.async.commit_group;"); }
  float acc[MTW][NT][4];
#pragma unroll 1
  for (int it = 0; it < mine; ++it) {
    const int col0 = (first + it * stride) * COLS + warp * 8 * NT;
    load_c<MTW, NT>(acc, C, ldc, n, m_used, chunk * MTW * 16, col0, beta);
#pragma unroll 1
    for (int sl = 0; sl < SLABS; ++sl) {
      const int gs = it * SLABS + sl;
      asm volatile("cp.async.wait_group %0;" :: "n"(STAGES - 2));
      __syncthreads();
      if (gs + STAGES - 1 < total) copy(gs + STAGES - 1);
      asm volatile("cp.async.commit_group;");
      slab_products<MTW, NT, B4>(acc, s_a + sl * 2 * MTW * 64, s_b + (gs % STAGES) * BS, KS - 2 * sl, warp, lane);
    }
    store_c<MTW, NT>(acc, C, ldc, n, m_used, chunk * MTW * 16, col0, beta ? 1.f : alpha);
  }
}

static float tf32_round(float x) { unsigned u; memcpy(&u, &x, 4); u = (u + 0x1000u) & 0xffffe000u; float r; memcpy(&r, &u, 4); return r; }

// A (m × k column-major) into fragments, quad order over ks steps (even): chunk (mtw tiles), step, tile, lane: hi
// a0..a3, lo a0..a3
static std::vector<float> fragments(const std::vector<float>& a, int m, int k, int mtw, int ks) {
  const int mtiles = (m + 15) / 16;
  auto kmap = [&](int s, int kk) { const int t = kk % 4, hi = kk / 4; return 16 * (s / 2) + 4 * t + 2 * (s % 2) + hi; };
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

template <int KS, int MTW, int NT, int W, int STAGES, bool B4, bool RES>
static void variant(Ctx& x) {
  const Shape& s = x.s;
  const int mtiles = (s.m + 15) / 16;
  if (mtiles % MTW) return;
  const int chunks = mtiles / MTW, COLS = 8 * NT * W, tiles = (s.n + COLS - 1) / COLS;
  const size_t smem = RES ? (size_t)(KS * MTW * 64 + STAGES * COLS * 4) * 16 : (size_t)STAGES * (2 * MTW * 64 + COLS * 4) * 16;
  if (smem > 227 * 1024) return;
  void (*kern)(const float*, const float*, int, float*, int, int, int, float, int, int, int);
  if constexpr (RES) kern = gemm_resident<KS, MTW, NT, W, STAGES, B4>;
  else kern = gemm_stream<KS, MTW, NT, W, STAGES, B4>;
  CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  int per_sm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, W * 32, smem));
  cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, kern));
  int blocks = tiles * chunks;
  if (RES) blocks = std::min(tiles, std::max(1, per_sm * x.sms / chunks)) * chunks;
  const std::vector<float> f = fragments(x.a, s.m, s.k, MTW, KS);
  float* af; CK(cudaMalloc(&af, f.size() * 4)); CK(cudaMemcpy(af, f.data(), f.size() * 4, cudaMemcpyHostToDevice));
  char label[96];
  snprintf(label, sizeof label, "%s%s m%d n%d w%d st%d %zuK %dreg %d/SM", RES ? "res" : "v3", B4 ? "+b4" : "", MTW, NT, W, STAGES,
           smem / 1024, fa.numRegs, per_sm);
  const int beta = s.beta != 0.f;
  time_and_check(label, x, [&] {
    kern<<<blocks, W * 32, smem>>>(af, x.B, s.ldb, x.C, s.ldc, s.n, s.m_used, s.alpha, s.k, chunks, beta);
  });
  cudaFree(af);
}

template <int KS>
static void variants(Ctx& x) {
  variant<KS, 4, 4, 4, 3, false, false>(x);  // the shipped kernel
  variant<KS, 4, 4, 4, 3, true, false>(x);
  variant<KS, 4, 4, 4, 4, true, false>(x);
  variant<KS, 8, 2, 8, 3, true, false>(x);
  variant<KS, 4, 4, 4, 3, true, true>(x);
  variant<KS, 4, 2, 4, 4, true, false>(x);
  variant<KS, 2, 4, 4, 4, true, false>(x);
  variant<KS, 4, 4, 4, 2, true, false>(x);
}

int main(int argc, char** argv) {
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
    if (s.k == 144) variants<18>(x);
    // quad order: steps padded to an even count (the padding's fragments and B rows are zeros)
    if (s.k == 120) variants<16>(x);
    if (s.k == 360) variants<46>(x);
    cudaFree(x.A); cudaFree(x.B); cudaFree(x.C); cudaFree(x.C0);
  }
  return 0;
}
