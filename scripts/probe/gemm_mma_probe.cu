// Seed 002's tetrahedral GEMMs at N = 7 (f32) on the tf32 tensor cores with split operands (three
// `mma.sync.m16n8k8.tf32` products: A_lo·B_hi + A_hi·B_lo + A_hi·B_hi, which keeps f32 accuracy), against cuBLAS's
// SGEMM on the same operands: the lift (C = LIFT·J + C, m = 128 (120 used), k = 144), the gradient
// (C = [Dr; Ds; Dt]·Q, m = 384 (360 used), k = 120) and the divergence (C = −[Dr Ds Dt]·G, m = 128, k = 360).
// The constant operator A is stored in fragment order (hi and lo parts, 8 floats per lane per fragment; chunk, step,
// tile); a slab of two steps of A and of the block's columns of B is copied into shared memory with cp.async, STAGES
// slabs in flight; each warp owns 8·NT columns and MTW row tiles of 16; B's k index within a step is permuted so that
// a lane reads its two values as one 8-byte word. (Earlier versions, docs/data/tet-mma-h100-2026-12-05/: A read
// through the L1 cache, 115–190 µs for the acoustic lift against cuBLAS's 96; A alone in shared memory, B in
// registers one slab ahead, 99–154 µs.)
// Prints each one's time (median of 20 after 5 warm-ups), TFLOP/s (m rows as the GEMM lines of `dg bench
// --per-kernel` count them) and the largest error against a double-precision product on every 7th column, relative
// to the largest entry. usage: nvcc -O3 -arch=sm_90 -Xptxas -v gemm_mma_probe.cu -lcublas -o gp && ./gp
#include "gemm_mma_common.cuh"

__device__ __forceinline__ void cp16(void* to, const void* from) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"((unsigned)__cvta_generic_to_shared(to)), "l"(from));
}

// The kernel dg's templates/nodal-tet/tet_gemm_mma.tera generated until 2026-12-05 16:50 UTC (it now reads B in quad
// order as one 16-byte word per slab pair: `b4` in gemm_mma_persist.cu): A's slab and B's slab (the block's columns × 16 depth indices) both copied into shared memory with
// cp.async, STAGES deep; C (β = 1) loaded into the accumulators before the loop, so its latency hides behind the
// first copies; the row chunks of the same columns are consecutive blocks. Needs every column 16-byte aligned and K % 16 == 0 (QUAD order) or K % 4 == 0 (pair order).
template <int KS, int MTW, int NT, int W, bool QUAD, bool BETA, int STAGES>
__global__ void __launch_bounds__(W * 32) gemm_mma3(const float* __restrict__ Af, const float* __restrict__ B, int ldb,
                                                     float* __restrict__ C, int ldc, int n, int m_used, float alpha, int K) {
  constexpr int SLAB = 2, SLABS = (KS + SLAB - 1) / SLAB, COLS = 8 * NT * W;
  constexpr int AS = SLAB * MTW * 64;   // float4 per A slab
  constexpr int BS = COLS * 4;          // float4 per B slab (16 depth indices per column)
  __shared__ __align__(16) float4 s_a[STAGES][AS];
  __shared__ __align__(16) float4 s_b[STAGES][BS];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
  const int chunks = gridDim.x / ((n + COLS - 1) / COLS);
  const int chunk = blockIdx.x % chunks;
  const int block_col0 = (blockIdx.x / chunks) * COLS;
  const int col0 = block_col0 + warp * 8 * NT;
  const float4* src = (const float4*)Af + (size_t)chunk * KS * MTW * 64;
  float acc[MTW][NT][4];
#pragma unroll
  for (int i = 0; i < MTW; ++i)
#pragma unroll
    for (int j = 0; j < NT; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int row = (chunk * MTW + i) * 16 + g + 8 * (e >> 1), col = col0 + 8 * j + 2 * t + (e & 1);
        acc[i][j][e] = BETA && row < m_used && col < n ? C[(size_t)col * ldc + row] : 0.f;
      }
  auto copy = [&](int sl) {
    const int st = sl % STAGES;
    const int count = min(SLAB, KS - sl * SLAB) * MTW * 64;
    for (int x = threadIdx.x; x < count; x += W * 32) cp16(&s_a[st][x], src + (size_t)sl * AS + x);
    for (int x = threadIdx.x; x < BS; x += W * 32) {
      const int c = x / 4, q = x % 4, col = block_col0 + c, r = 16 * sl + 4 * q;
      const bool ok = col < n && r < K;
      cp16z(&s_b[st][x], B + (size_t)(ok ? col : 0) * ldb + (ok ? r : 0), ok ? 16 : 0);
    }
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
#pragma unroll
    for (int u = 0; u < SLAB; ++u) {
      if (sl * SLAB + u < KS) {
        unsigned bh[NT][2], bl[NT][2];
#pragma unroll
        for (int j = 0; j < NT; ++j) {
          const float* bc = (const float*)&s_b[st][(warp * 8 * NT + 8 * j + g) * 4];
          const float2 v = QUAD ? *(const float2*)(bc + 4 * t + 2 * u) : *(const float2*)(bc + 8 * u + 2 * t);
          bh[j][0] = tf32(v.x); bl[j][0] = tf32(v.x - __uint_as_float(bh[j][0]));
          bh[j][1] = tf32(v.y); bl[j][1] = tf32(v.y - __uint_as_float(bh[j][1]));
        }
#pragma unroll
        for (int i = 0; i < MTW; ++i) {
          const float4 ah = s_a[st][(u * MTW + i) * 64 + 2 * lane], al = s_a[st][(u * MTW + i) * 64 + 2 * lane + 1];
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
#pragma unroll
  for (int i = 0; i < MTW; ++i)
#pragma unroll
    for (int j = 0; j < NT; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int row = (chunk * MTW + i) * 16 + g + 8 * (e >> 1), col = col0 + 8 * j + 2 * t + (e & 1);
        if (row < m_used && col < n) C[(size_t)col * ldc + row] = BETA ? acc[i][j][e] : alpha * acc[i][j][e];
      }
}

template <int KS, int MTW, int NT, int W, bool QUAD, bool BETA, int STAGES>
static void mma3_variant(Ctx& x) {
  const Shape& s = x.s;
  const int mtiles = (s.m + 15) / 16;
  if (mtiles % MTW) return;
  const std::vector<float> f = fragments(x.a, s.m, s.k, QUAD, MTW, (s.k + 7) / 8);
  float* af; CK(cudaMalloc(&af, f.size() * 4)); CK(cudaMemcpy(af, f.data(), f.size() * 4, cudaMemcpyHostToDevice));
  const int blocks = (s.n + 8 * NT * W - 1) / (8 * NT * W) * (mtiles / MTW);
  char label[64];
  snprintf(label, sizeof label, "v3 mtw%d nt%d w%d st%d %s", MTW, NT, W, STAGES, QUAD ? "quad" : "pair");
  time_and_check(label, x, [&] {
    gemm_mma3<KS, MTW, NT, W, QUAD, BETA, STAGES><<<blocks, W * 32>>>(af, x.B, s.ldb, x.C, s.ldc, s.n, s.m_used, s.alpha, s.k);
  });
  cudaFree(af);
}

template <int KS, bool QUAD, bool BETA>
static void variants(Ctx& x) {
  mma3_variant<KS, 4, 4, 4, QUAD, BETA, 3>(x);
  mma3_variant<KS, 4, 2, 8, QUAD, BETA, 3>(x);
  mma3_variant<KS, 4, 2, 4, QUAD, BETA, 3>(x);
  mma3_variant<KS, 4, 2, 4, QUAD, BETA, 4>(x);
  mma3_variant<KS, 2, 4, 4, QUAD, BETA, 3>(x);
  mma3_variant<KS, 2, 2, 8, QUAD, BETA, 4>(x);
  mma3_variant<KS, 2, 4, 4, QUAD, BETA, 4>(x);
  mma3_variant<KS, 3, 4, 4, QUAD, BETA, 3>(x);
  mma3_variant<KS, 6, 2, 4, QUAD, BETA, 3>(x);
}

int main(int argc, char** argv) {  // argv[1]: run only the shape of this name
  return probe_main(argc, argv, [](Ctx& x) {
    if (x.s.k == 144) variants<18, true, true>(x);
    if (x.s.k == 120) variants<15, false, false>(x);
    if (x.s.k == 360) variants<45, false, false>(x);
  });
}
