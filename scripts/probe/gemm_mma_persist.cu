// The tetrahedral GEMMs' tensor-core kernel (templates/nodal-tet/tet_gemm_mma.tera, f32 as three tf32 products of
// split operands) against variants of where the operator lives and how long a work group lives, at seed 002's
// N = 7 shapes, against cuBLAS's SGEMM on the same operands:
//   v3   the kernel dg generated until 2026-12-05 16:50 UTC: A's slab and B's slab copied into shared memory per
//        slab (cp.async, STAGES deep), one column tile per work group, C loaded into the accumulators first;
//   b4   the same, B's 16 depth values of a column read as one 16-byte word per slab pair (no bank conflicts): the
//        kernel dg generates now in quad order;
//   res  the work group's row chunk of A copied into shared memory once and kept; the group walks column tiles
//        (grid-stride over tiles, as many groups as fill the multiprocessors) with B's slabs in one ring that runs
//        on from one tile into the next (no drain between tiles); C loaded at each tile's start.
// Prints time (median of 20 after 5 warm-ups), TFLOP/s and the largest error against a double-precision product on
// every 7th column relative to the largest entry. usage: nvcc -O3 -arch=sm_90 gemm_mma_persist.cu -lcublas -o gp
// && ./gp [shape]
#include "gemm_mma_common.cuh"

// How a lane reads B from a slab's column of 16 depth values: PAIR the 8-byte word at 8u + 2t (step u), QUAD8 the
// 8-byte word at 4t + 2u, QUAD16 the 16-byte word at 4t once per slab (its halves for u = 0, 1; no bank conflict).
enum { PAIR = 0, QUAD8 = 1, QUAD16 = 2 };

// one slab pair (two steps of 8 depth indices) of products from shared memory: A fragments at sa (step u, tile i
// at (u * MTW + i) * 64), B columns (16 depth values each) at sb
template <int MTW, int NT, int LOAD>
__device__ __forceinline__ void slab_products(float (&acc)[MTW][NT][4], const float4* sa, const float4* sb, int steps_left,
                                              int warp, int lane) {
  const int g = lane >> 2, t = lane & 3;
  float4 bq[NT];
  if (LOAD == QUAD16) {
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
        const float* bc = (const float*)&sb[(warp * 8 * NT + 8 * j + g) * 4];
        if (LOAD == QUAD16) v = u == 0 ? make_float2(bq[j].x, bq[j].y) : make_float2(bq[j].z, bq[j].w);
        else v = *(const float2*)(bc + (LOAD == QUAD8 ? 4 * t + 2 * u : 8 * u + 2 * t));
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

// v3 / b4, as dg's kernel (templates/nodal-tet/tet_gemm_mma.tera: QUAD16 in quad order since 2026-12-05 16:50 UTC,
// QUAD8 before) but with dynamic shared memory: one column tile per group, A's and B's slabs copied into shared
// memory with cp.async, STAGES deep, C loaded into the accumulators first. (With the pair order on the gradient it
// took 42.7 µs in a call of 2026-12-05 17:10 UTC, where gemm_mma_probe.cu's static-memory kernel had taken
// 37.3–37.7 µs in earlier calls: not compared in one call.)
template <int KS, int MTW, int NT, int W, int STAGES, int LOAD>
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
    slab_products<MTW, NT, LOAD>(acc, s_a + st * AS, s_b + st * BS, KS - 2 * sl, warp, lane);
  }
  store_c<MTW, NT>(acc, C, ldc, n, m_used, chunk * MTW * 16, col_tile0 + warp * 8 * NT, beta ? 1.f : alpha);
}

// res: the chunk's A resident in shared memory; column tiles walked grid-stride; B's ring runs across tiles
template <int KS, int MTW, int NT, int W, int STAGES, int LOAD>
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
      slab_products<MTW, NT, LOAD>(acc, s_a + sl * 2 * MTW * 64, s_b + (gs % STAGES) * BS, KS - 2 * sl, warp, lane);
    }
    store_c<MTW, NT>(acc, C, ldc, n, m_used, chunk * MTW * 16, col0, beta ? 1.f : alpha);
  }
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
  if constexpr (RES) kern = gemm_resident<KS, MTW, NT, W, STAGES, B4 ? QUAD16 : QUAD8>;
  else kern = gemm_stream<KS, MTW, NT, W, STAGES, B4 ? QUAD16 : QUAD8>;
  CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  int per_sm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, W * 32, smem));
  cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, kern));
  int blocks = tiles * chunks;
  if (RES) blocks = std::min(tiles, std::max(1, per_sm * x.sms / chunks)) * chunks;
  const std::vector<float> f = fragments(x.a, s.m, s.k, true, MTW, KS);
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
  return probe_main(argc, argv, [](Ctx& x) {
    if (x.s.k == 144) variants<18>(x);
    // quad order: steps padded to an even count (the padding's fragments and B rows are zeros)
    if (x.s.k == 120) variants<16>(x);
    if (x.s.k == 360) variants<46>(x);
  });
}
