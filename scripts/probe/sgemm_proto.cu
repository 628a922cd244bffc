// Probe: the nodal Maxwell TM right-hand side of a group of elements as one register-tiled product on the f32 FMA
// pipe (a SIMT GEMM: each thread a TM x TN tile of O = A·B, A = [-Dr -Ds LIFT], B = contravariant fluxes and face
// jumps of G elements in local memory). Random operator and geometry, node-major layout, 16M DOF; checked against a
// double-precision CPU evaluation of the same sums on sampled elements. Build: nvcc -O3 -arch=sm_90 -DN=8 ...
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

#ifndef N
#define N 8
#endif
#ifndef G
#define G 32
#endif
#ifndef TM
#define TM 6
#endif
#ifndef TN
#define TN 8
#endif
#ifndef ASRC
#define ASRC 0 /* (A always in shared memory now) */
#endif
#ifndef WS
#define WS 0
#endif
#ifndef MINB
#define MINB 1
#endif
#ifndef EXTRA
#define EXTRA ""
#endif
#define NP ((N + 1) * (N + 2) / 2)
#define NFP (N + 1)
#define NFN (3 * NFP)
#define NV 3
#define KR (2 * NP + NFN)
#define RT ((NP + TM - 1) / TM)
#define COLS (NV * G)
#define CT (COLS / TN)
#define THREADS (RT * CT)
#define TMP (TM % 4 == 0 ? TM : (TM + 3) / 4 * 4) /* A's row tile stride in storage (16-byte aligned) */
#define AROWS (RT * TMP)
#define BSTRIDE (COLS + 4)
#ifndef WR
#define WR 4
#endif
static_assert(RT % WR == 0 && CT % (32 / WR) == 0, "whole warps");
/* column of chunk n / 4 of column tile ct: chunks of 4 columns, the tile's chunks COLS / (TN / 4) apart */
#define COL(ct, n) ((n) / 4 * (COLS / (TN / 4)) + (ct) * 4)
#define FACE_NODE(f, i) ((f) == 0 ? (i) : (i) * NFP - (i) * ((i) - 1) / 2 + ((f) == 1 ? NFP - 1 - (i) : 0))
#define LINK_NODE(l, i, Kp) ((FACE_NODE(((l) >> 1) & 3, ((l) & 1) ? NFP - 1 - (i) : (i))) * (Kp) + ((l) >> 3))

static_assert(COLS % TN == 0, "TN must divide the columns");
static_assert(G % 4 == 0 && TN % 4 == 0 && (COLS / (TN / 4)) % 4 == 0, "chunks of 4 columns in one variable");

/* B of the group at base: every node's contravariant fluxes and every face node's jump, by threads tid of nthreads
   (nthreads a multiple of G: each thread one element, its geometry loaded once) */
__device__ __forceinline__ void fill_b(float* s_b, const float* __restrict__ q, const float* __restrict__ geo,
                                       const float* __restrict__ face_geo, const int* __restrict__ links,
                                       const int K, const int base, const int tid, const int nthreads)
{
    const int fs = NP * K;
    const int e = tid % G, part = tid / G, k = base + e, parts = nthreads / G;
    if (k >= K) return;
    const float rx = geo[4 * k], sx = geo[4 * k + 1], ry = geo[4 * k + 2], sy = geo[4 * k + 3];
#pragma unroll 4
    for (int j = part; j < NP; j += parts) {
        const float hx = q[j * K + k], hy = q[fs + j * K + k], ez = q[2 * fs + j * K + k];
        s_b[j * BSTRIDE + e] = ry * ez;
        s_b[j * BSTRIDE + G + e] = -rx * ez;
        s_b[j * BSTRIDE + 2 * G + e] = -rx * hy + ry * hx;
        s_b[(NP + j) * BSTRIDE + e] = sy * ez;
        s_b[(NP + j) * BSTRIDE + G + e] = -sx * ez;
        s_b[(NP + j) * BSTRIDE + 2 * G + e] = -sx * hy + sy * hx;
    }
#pragma unroll 3
    for (int m = part; m < NFN; m += parts) {
        const int f = m / NFP, i = m - f * NFP, node = FACE_NODE(f, i);
        const int face = 3 * k + f;
        const float nx = face_geo[3 * face], ny = face_geo[3 * face + 1], fsc = face_geo[3 * face + 2];
        const int l = links[face];
        const int op = LINK_NODE(l, i, K);
        const float hxm = q[node * K + k], hym = q[fs + node * K + k], ezm = q[2 * fs + node * K + k];
        const float hxp = q[op], hyp = q[fs + op], ezp = q[2 * fs + op];
        const float dhx = hxm - hxp, dhy = hym - hyp, dez = ezm - ezp;
        const float ndh = nx * dhx + ny * dhy;
        const float c = 0.5f * fsc;
        s_b[(2 * NP + m) * BSTRIDE + e] = c * (ny * dez + ndh * nx - dhx);
        s_b[(2 * NP + m) * BSTRIDE + G + e] = c * (-nx * dez + ndh * ny - dhy);
        s_b[(2 * NP + m) * BSTRIDE + 2 * G + e] = c * (-nx * dhy + ny * dhx - dez);
    }
}

/* O = A·B by thread t of the GEMM's THREADS: a warp WR row tiles x (32 / WR) column tiles, so that its A and B loads
   are each one wavefront */
__device__ __forceinline__ void product(const float* s_b, const float* s_a, const int t, float (&acc)[TM][TN])
{
    const int lane = t % 32, w = t / 32;
    const int rt = (w % (RT / WR)) * WR + lane / (32 / WR), ct = (w / (RT / WR)) * (32 / WR) + lane % (32 / WR);
#pragma unroll
    for (int r = 0; r < TM; ++r)
#pragma unroll
        for (int n = 0; n < TN; ++n) acc[r][n] = 0.f;
#ifndef SKIP_GEMM
#pragma unroll 4
    for (int kk = 0; kk < KR; ++kk) {
        float a[TM], b[TN];
        const float* ap = &s_a[kk * AROWS + rt * TMP];
#pragma unroll
        for (int r = 0; r < TM; r += 2) {
            if (r + 1 < TM) {
                const float2 v = *(const float2*)&ap[r];
                a[r] = v.x; a[r + 1] = v.y;
            } else {
                a[r] = ap[r];
            }
        }
#pragma unroll
        for (int n = 0; n < TN; n += 4) {
            const float4 v = *(const float4*)&s_b[kk * BSTRIDE + COL(ct, n)];
            b[n] = v.x; b[n + 1] = v.y; b[n + 2] = v.z; b[n + 3] = v.w;
        }
#pragma unroll
        for (int r = 0; r < TM; ++r)
#pragma unroll
            for (int n = 0; n < TN; ++n) acc[r][n] = fmaf(a[r], b[n], acc[r][n]);
    }
#else
    acc[0][0] = s_b[t];
#endif
}

__device__ __forceinline__ void store(float* __restrict__ rhs, const int K, const int base, const int t,
                                      const float (&acc)[TM][TN])
{
    const int fs = NP * K;
    const int lane = t % 32, w = t / 32;
    const int rt = (w % (RT / WR)) * WR + lane / (32 / WR), ct = (w / (RT / WR)) * (32 / WR) + lane % (32 / WR);
#pragma unroll
    for (int r = 0; r < TM; ++r) {
        const int i = rt * TM + r;
        if (i >= NP) break;
#pragma unroll
        for (int n = 0; n < TN; n += 4) {
            const int c0 = COL(ct, n), v = c0 / G, k0 = base + c0 % G;
            float* out = &rhs[v * fs + i * K + k0];
            if (k0 + 4 <= K) {
                *(float4*)out = make_float4(acc[r][n], acc[r][n + 1], acc[r][n + 2], acc[r][n + 3]);
            } else {
#pragma unroll
                for (int h = 0; h < 4; ++h)
                    if (k0 + h < K) out[h] = acc[r][n + h];
            }
        }
    }
}

#ifndef SEQ
#define SEQ 1
#endif
#ifndef PW
#define PW 4 /* producer warps of the warp-specialised kernel */
#endif
#define PTHREADS (32 * PW)
#if WS
#define KTHREADS (THREADS + PTHREADS)
#define BUFS 2
#else
#define KTHREADS THREADS
#define BUFS 1
#endif
#define SHMEM_FLOATS (BUFS * KR * BSTRIDE + KR * AROWS)

__global__ void __launch_bounds__(KTHREADS, MINB)
sgemm_rhs(const float* __restrict__ q, float* __restrict__ rhs, const float* __restrict__ geo,
          const float* __restrict__ at, const float* __restrict__ face_geo, const int* __restrict__ links,
          const int K)
{
    extern __shared__ __align__(16) float smem[];
    float* s_a = smem + BUFS * KR * BSTRIDE;
    for (int m = threadIdx.x; m < KR * AROWS; m += KTHREADS) s_a[m] = at[m];
    const int t = threadIdx.x;
#if WS
    /* warp-specialised, persistent: the first THREADS threads multiply, the last PTHREADS fill the other buffer
       with the next group meanwhile; named barriers 1 + b (buffer b full) and 3 + b (buffer b free) */
    __syncthreads();
    const int groups = (K + G - 1) / G;
    const int mine = groups > (int)blockIdx.x ? (groups - 1 - blockIdx.x) / gridDim.x + 1 : 0;
    if (t >= THREADS) {
        const int p = t - THREADS;
        for (int it = 0; it < mine; ++it) {
            const int b = it & 1;
            if (it >= 2) asm volatile("bar.sync %0, %1;" :: "r"(3 + b), "r"(KTHREADS) : "memory");
#ifndef SKIP_JOBS
            fill_b(smem + b * KR * BSTRIDE, q, geo, face_geo, links, K, (blockIdx.x + it * gridDim.x) * G, p, PTHREADS);
#endif
            asm volatile("bar.arrive %0, %1;" :: "r"(1 + b), "r"(KTHREADS) : "memory");
        }
    } else {
        for (int it = 0; it < mine; ++it) {
            const int b = it & 1;
            asm volatile("bar.sync %0, %1;" :: "r"(1 + b), "r"(KTHREADS) : "memory");
            float acc[TM][TN];
            product(smem + b * KR * BSTRIDE, s_a, t, acc);
            if (it + 2 < mine) asm volatile("bar.arrive %0, %1;" :: "r"(3 + b), "r"(KTHREADS) : "memory");
            store(rhs, K, (blockIdx.x + it * gridDim.x) * G, t, acc);
        }
    }
#else
    for (int sq = 0; sq < SEQ; ++sq) {
        const int base = (blockIdx.x * SEQ + sq) * G;
        __syncthreads(); /* A copied; the previous group's B read by every warp */
#ifndef SKIP_JOBS
        fill_b(smem, q, geo, face_geo, links, K, base, t, THREADS);
#endif
        __syncthreads();
        float acc[TM][TN];
        product(smem, s_a, t, acc);
        store(rhs, K, base, t, acc);
    }
#endif
}

static float frand(unsigned& s) { s = s * 1664525u + 1013904223u; return (s >> 8) * (1.0f / 16777216.0f) * 2.f - 1.f; }

int main(int argc, char** argv)
{
    const long dofs = argc > 1 ? atol(argv[1]) : (1L << 24);
    int K = (int)(dofs / (NP * NV));
    K -= K % 4; /* float4 stores */
    const long fs = (long)NP * K;
    unsigned seed = 12345u;
    std::vector<float> q(NV * fs), geo(4L * K), fg(9L * K), a((size_t)KR * NP), at((size_t)KR * AROWS, 0.f);
    std::vector<int> links(3L * K);
    for (auto& x : q) x = frand(seed);
    for (auto& x : geo) x = frand(seed) * 10.f;
    for (long f = 0; f < 3L * K; ++f) { fg[3 * f] = frand(seed); fg[3 * f + 1] = frand(seed); fg[3 * f + 2] = 10.f + frand(seed); }
    for (long f = 0; f < 3L * K; ++f) {
#ifndef FAR
        const long off[3] = {1, K - 1, 2 * 250 + 1};
        const int nk = (int)((f / 3 + off[f % 3]) % K);
        seed = seed * 1664525u + 1013904223u;
#else
        const int nk = (int)((f / 3 + 7919L * (f % 3) + (seed = seed * 1664525u + 1013904223u) % 64) % K);
#endif
        links[f] = 8 * nk + 2 * (int)((seed >> 10) % 3) + (int)((seed >> 20) & 1);
    }
    for (int i = 0; i < NP; ++i)
        for (int kk = 0; kk < KR; ++kk) { const float x = frand(seed); a[(size_t)i * KR + kk] = x; at[(size_t)kk * AROWS + (i / TM) * TMP + i % TM] = x; }
    float *dq, *dr, *dg, *dat, *dfg; int* dl;
    cudaMalloc(&dq, q.size() * 4); cudaMalloc(&dr, q.size() * 4); cudaMalloc(&dg, geo.size() * 4);
    cudaMalloc(&dat, at.size() * 4); cudaMalloc(&dfg, fg.size() * 4); cudaMalloc(&dl, links.size() * 4);
    cudaMemcpy(dq, q.data(), q.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dg, geo.data(), geo.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dat, at.data(), at.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dfg, fg.data(), fg.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dl, links.data(), links.size() * 4, cudaMemcpyHostToDevice);
    cudaMemset(dr, 0xff, q.size() * 4); /* NaN */
    const size_t shmem = (size_t)SHMEM_FLOATS * 4;
    cudaFuncSetAttribute(sgemm_rhs, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem);
    int nsm = 0; cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, 0);
    int per_sm = 0; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sgemm_rhs, KTHREADS, (size_t)SHMEM_FLOATS * 4);
    const int blocks = WS ? nsm * (per_sm > 0 ? per_sm : 1) : (K + G * SEQ - 1) / (G * SEQ);
    sgemm_rhs<<<blocks, KTHREADS, shmem>>>(dq, dr, dg, dat, dfg, dl, K);
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) { printf("launch failed: %s\n", cudaGetErrorString(err)); return 1; }
    std::vector<float> r(q.size());
    cudaMemcpy(r.data(), dr, r.size() * 4, cudaMemcpyDeviceToHost);
    double maxerr = 0, maxref = 0; long bad = 0;
    for (int s = 0; s < 400; ++s) {
        const int k = s < 200 ? s : K - 1 - (s - 200) * 7;
        std::vector<double> b((size_t)KR * NV);
        const double rx = geo[4 * k], sx = geo[4 * k + 1], ry = geo[4 * k + 2], sy = geo[4 * k + 3];
        for (int j = 0; j < NP; ++j) {
            const double hx = q[j * (long)K + k], hy = q[fs + j * (long)K + k], ez = q[2 * fs + j * (long)K + k];
            b[j * NV + 0] = ry * ez; b[j * NV + 1] = -rx * ez; b[j * NV + 2] = -rx * hy + ry * hx;
            b[(NP + j) * NV + 0] = sy * ez; b[(NP + j) * NV + 1] = -sx * ez; b[(NP + j) * NV + 2] = -sx * hy + sy * hx;
        }
        for (int m = 0; m < NFN; ++m) {
            const int f = m / NFP, i = m % NFP, node = FACE_NODE(f, i), face = 3 * k + f;
            const double nx = fg[3 * face], ny = fg[3 * face + 1], fsc = fg[3 * face + 2];
            const int l = links[face];
            const long op = LINK_NODE(l, i, (long)K);
            const double dhx = q[node * (long)K + k] - q[op], dhy = q[fs + node * (long)K + k] - q[fs + op],
                         dez = q[2 * fs + node * (long)K + k] - q[2 * fs + op];
            const double ndh = nx * dhx + ny * dhy, c = 0.5 * fsc;
            b[(2 * NP + m) * NV + 0] = c * (ny * dez + ndh * nx - dhx);
            b[(2 * NP + m) * NV + 1] = c * (-nx * dez + ndh * ny - dhy);
            b[(2 * NP + m) * NV + 2] = c * (-nx * dhy + ny * dhx - dez);
        }
        for (int v = 0; v < NV; ++v)
            for (int i = 0; i < NP; ++i) {
                double o = 0;
                for (int kk = 0; kk < KR; ++kk) o += (double)a[(size_t)i * KR + kk] * b[kk * NV + v];
                const double g = r[v * fs + i * (long)K + k];
                if (!std::isfinite(g)) ++bad;
                maxerr = std::fmax(maxerr, std::fabs(g - o));
                maxref = std::fmax(maxref, std::fabs(o));
            }
    }
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    for (int w = 0; w < 20; ++w) sgemm_rhs<<<blocks, KTHREADS, shmem>>>(dq, dr, dg, dat, dfg, dl, K);
    const int reps = 100;
    cudaEventRecord(e0);
    for (int w = 0; w < reps; ++w) sgemm_rhs<<<blocks, KTHREADS, shmem>>>(dq, dr, dg, dat, dfg, dl, K);
    cudaEventRecord(e1); cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1); ms /= reps;
    const double ndof = (double)NV * fs, flops = 2.0 * NP * KR * NV * K;
    int nregs = 0; cudaFuncAttributes fa; cudaFuncGetAttributes(&fa, sgemm_rhs); nregs = fa.numRegs;
    int occ = 0; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, sgemm_rhs, KTHREADS, shmem);
    printf("%s ", EXTRA);
    printf("WS=%d PW=%d SEQ=%d N=%d G=%d TM=%d TN=%d ASRC=%d threads=%d shmem=%zu regs=%d blocks/SM=%d | %.4f ms %.1f GDOF/s %.1f GFLOP/s (%.1f%% of 65.5 TF) | rel err %.2e bad %ld\n",
           WS, PW, SEQ, N, G, TM, TN, ASRC, KTHREADS, shmem, nregs, occ, ms, ndof / ms * 1e-6, flops / ms * 1e-6,
           flops / ms * 1e-6 / 65510.0 * 100, maxerr / maxref, bad);
#if defined(SKIP_JOBS) || defined(SKIP_GEMM)
    return 0;
#endif
    return bad || maxerr / maxref > 1e-5;
}
