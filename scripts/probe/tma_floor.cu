// Probe: the floor of scripts/probe/jobs_floor.cu (what a fused nodal Maxwell TM right-hand side moves, no operator
// product), with the element's own data brought in by the Hopper tensor-memory accelerator instead of by each work
// item's loads. A group of W work items (one element each) runs as a persistent loop over tiles of W elements;
// STAGES tiles are in flight in shared memory at once: the state of a tile (all NV·NP rows of its W columns of the
// node-major layout, rows of K rounded up to 32) arrives by one `cp.async.bulk.tensor.2d`, its metric terms, face
// normals and scales and face links by three `cp.async.bulk` copies, all completing on one mbarrier per slot. The
// loads in flight then no longer depend on how many warps are between their computations — what the register
// read-ahead, the `cp.async` stream partition and the FMA stand-in of jobs_floor.cu showed to be the limit from N = 5
// up. The neighbours' face states are still read by each work item through the cache (NEIGH=1; NEIGH=0 leaves them
// out, to show their cost). FMAS multiply-adds per own value stand in for the operator products, as in jobs_floor.cu.
// Checked on sampled elements (the last, partial tile included) against a CPU evaluation; the output poisoned with NaN
// before the checked launch. Build: nvcc -O3 -arch=sm_90a -DORD=5 -DTW=32 -DSTAGES=2 -DFMAS=55 -o tma
// scripts/probe/tma_floor.cu -ldl; run: ./tma [dofs] [ceiling GB/s]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <vector>
#include <cuda.h>
#include <cuda_runtime.h>

/* the order and the tile width come in as ORD and TW: cuda.h's prototypes use N and W as parameter names */
#ifndef ORD
#define ORD 5
#endif
#ifndef TW
#define TW 32
#endif
#define N ORD
#define W TW
#ifndef STAGES
#define STAGES 2
#endif
#ifndef FMAS
#define FMAS 0
#endif
#ifndef ILP_ROLLED
#define ILP_ROLLED 0 /* 1: the loop over groups of four nodes kept rolled (a smaller kernel body) */
#endif
#ifndef ILP
#define ILP 0
#endif
#ifndef NEIGH
#define NEIGH 1
#endif
#define NP ((N + 1) * (N + 2) / 2)
#define NFP (N + 1)
#define NFN (3 * NFP)
#define NV 3
#define ROWS (NV * NP)
#define FACE_NODE(f, i) ((f) == 0 ? (i) : (i) * NFP - (i) * ((i) - 1) / 2 + ((f) == 1 ? NFP - 1 - (i) : 0))
#define LINK_NODE(l, i, Kp) ((long)(FACE_NODE(((l) >> 1) & 3, ((l) & 1) ? NFP - 1 - (i) : (i))) * (Kp) + ((l) >> 3))

/* one slot: the tile's state, then its element-major geometry; every part a multiple of 16 bytes */
#define STATE_FLOATS (ROWS * W)
#define GEO_FLOATS (4 * W)
#define FG_FLOATS (9 * W)
#define LINK_INTS (3 * W)
#define SLOT_BYTES (((STATE_FLOATS + GEO_FLOATS + FG_FLOATS + LINK_INTS) * 4 + 127) / 128 * 128)
#define TX_BYTES ((STATE_FLOATS + GEO_FLOATS + FG_FLOATS + LINK_INTS) * 4)
/* NEIGH=2: the neighbours' face values of the next tile gathered by cp.async into one of two regions of NFN·NV rows */
#define NB_BYTES (NEIGH == 2 ? 2 * NFN * NV * W * 4 : 0)
#define SMEM_BYTES (STAGES * SLOT_BYTES + NB_BYTES + 128 + 8 * STAGES)

static float frand(unsigned& s)
{
    s = s * 1664525u + 1013904223u;
    return (float)((s >> 8) & 0xffff) / 65536.0f - 0.5f;
}

__device__ __forceinline__ unsigned smem_addr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void bar_wait(unsigned bar, unsigned parity)
{
    asm volatile("{\n .reg .pred P1;\n LAB_WAIT:\n"
                 " mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n"
                 " @P1 bra.uni DONE;\n bra.uni LAB_WAIT;\n DONE:\n}\n" ::"r"(bar),
                 "r"(parity)
                 : "memory");
}

__device__ __forceinline__ void issue_tile(unsigned char* slot, unsigned bar, const CUtensorMap* qmap, long tile,
                                           const float* geo, const float* fg, const int* links)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(TX_BYTES) : "memory");
    const int col = (int)(tile * W), row = 0;
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
                     smem_addr(slot)),
                 "l"(qmap), "r"(col), "r"(row), "r"(bar)
                 : "memory");
    float* sgeo = (float*)slot + STATE_FLOATS;
    float* sfg = sgeo + GEO_FLOATS;
    int* slink = (int*)(sfg + FG_FLOATS);
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     smem_addr(sgeo)),
                 "l"(geo + 4L * W * tile), "r"(GEO_FLOATS * 4), "r"(bar)
                 : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     smem_addr(sfg)),
                 "l"(fg + 9L * W * tile), "r"(FG_FLOATS * 4), "r"(bar)
                 : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     smem_addr(slink)),
                 "l"(links + 3L * W * tile), "r"(LINK_INTS * 4), "r"(bar)
                 : "memory");
}

__global__ void __launch_bounds__(W) tma_rhs(const __grid_constant__ CUtensorMap qmap, const float* __restrict__ q,
                                             float* __restrict__ r, const float* __restrict__ geo,
                                             const float* __restrict__ fg, const int* __restrict__ links, const int K,
                                             const int KP, const long ntiles)
{
    extern __shared__ unsigned char raw[];
    unsigned char* base = (unsigned char*)(((unsigned long)raw + 127) / 128 * 128);
    float* nb = (float*)(base + STAGES * SLOT_BYTES);
    unsigned long long* bars = (unsigned long long*)(base + STAGES * SLOT_BYTES + NB_BYTES);
    const int tid = threadIdx.x;
    const long fs = (long)NP * KP;
#if NEIGH == 2
    /* each work item gathers its own element's neighbour values (its own column of the region: no barrier needed) */
    auto gather = [&](long tile, int region, const int l0, const int l1, const int l2) {
        const int k = (int)(tile * W) + tid;
        if (tile >= ntiles || k >= K) return;
        const int ls[3] = {l0, l1, l2};
#pragma unroll
        for (int m = 0; m < NFN; ++m) {
            const int f = m / NFP, i = m % NFP;
            const long op = LINK_NODE(ls[f], i, (long)KP);
#pragma unroll
            for (int v = 0; v < NV; ++v)
                asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(smem_addr(
                                 &nb[((region * NFN + m) * NV + v) * W + tid])),
                             "l"(&q[v * fs + op])
                             : "memory");
        }
    };
    auto link_of = [&](long tile, int f) {
        const long k = tile * W + tid;
        return tile < ntiles && k < K ? __ldg(&links[3 * k + f]) : 0;
    };
    {
        const long t0 = blockIdx.x;
        gather(t0, 0, link_of(t0, 0), link_of(t0, 1), link_of(t0, 2));
        asm volatile("cp.async.commit_group;" ::: "memory");
    }
    int nl0 = link_of(blockIdx.x + gridDim.x, 0), nl1 = link_of(blockIdx.x + gridDim.x, 1),
        nl2 = link_of(blockIdx.x + gridDim.x, 2);
#endif
    if (tid == 0) {
        for (int s = 0; s < STAGES; ++s)
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bars[s])) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    }
    __syncthreads();
    if (tid == 0)
        for (int s = 0; s < STAGES; ++s) {
            const long tile = blockIdx.x + (long)s * gridDim.x;
            if (tile < ntiles) issue_tile(base + s * SLOT_BYTES, smem_addr(&bars[s]), &qmap, tile, geo, fg, links);
        }
    long j = 0;
    for (long tile = blockIdx.x; tile < ntiles; tile += gridDim.x, ++j) {
        const int s = (int)(j % STAGES);
#if NEIGH == 2
        {
            /* the next tile's gathers go out before this tile's wait; the links of the one after are loaded */
            const long t1 = tile + gridDim.x, t2 = t1 + gridDim.x;
            gather(t1, (int)((j + 1) & 1), nl0, nl1, nl2);
            asm volatile("cp.async.commit_group;" ::: "memory");
            nl0 = link_of(t2, 0);
            nl1 = link_of(t2, 1);
            nl2 = link_of(t2, 2);
            asm volatile("cp.async.wait_group 1;" ::: "memory");
        }
        const float* nbj = nb + (int)(j & 1) * NFN * NV * W;
#endif
        bar_wait(smem_addr(&bars[s]), (unsigned)((j / STAGES) & 1));
        const float* st = (const float*)(base + s * SLOT_BYTES);
        const float* sgeo = st + STATE_FLOATS;
        const float* sfg = sgeo + GEO_FLOATS;
        const int* slink = (const int*)(sfg + FG_FLOATS);
        const int k = (int)(tile * W) + tid;
        if (k < K) {
            const float gsum = sgeo[4 * tid] + sgeo[4 * tid + 1] + sgeo[4 * tid + 2] + sgeo[4 * tid + 3];
            float js[NV] = {0.f, 0.f, 0.f};
#pragma unroll
            for (int m = 0; m < NFN; ++m) {
                const int f = m / NFP, i = m % NFP;
                const float c = sfg[9 * tid + 3 * f + 2] * (sfg[9 * tid + 3 * f] + sfg[9 * tid + 3 * f + 1]);
#if NEIGH == 1
                const long op = LINK_NODE(slink[3 * tid + f], i, (long)KP);
#endif
#pragma unroll
                for (int v = 0; v < NV; ++v) {
                    const float own = st[(v * NP + FACE_NODE(f, i)) * W + tid];
#if NEIGH == 1
                    js[v] += c * (own - __ldg(&q[v * fs + op]));
#elif NEIGH == 2
                    js[v] += c * (own - nbj[(m * NV + v) * W + tid]);
#else
                    js[v] += c * own;
#endif
                }
            }
#if ILP
            /* ILP=1: the multiply-adds of four nodes' values interleaved step by step (12 independent chains), so the
               pipe's rate does not wait on ptxas's scheduling of dependent chains */
#if ILP_ROLLED
#pragma unroll 1
#endif
            for (int i0 = 0; i0 < NP; i0 += 4) {
                float o[4][NV];
#pragma unroll
                for (int u = 0; u < 4; ++u)
#pragma unroll
                    for (int v = 0; v < NV; ++v) o[u][v] = i0 + u < NP ? st[(v * NP + i0 + u) * W + tid] : 0.f;
#pragma unroll
                for (int c = 0; c < FMAS; ++c)
#pragma unroll
                    for (int u = 0; u < 4; ++u)
#pragma unroll
                        for (int v = 0; v < NV; ++v) o[u][v] = fmaf(o[u][v], 0.999f, 1e-3f);
#pragma unroll
                for (int u = 0; u < 4; ++u)
                    if (i0 + u < NP)
#pragma unroll
                        for (int v = 0; v < NV; ++v) r[v * fs + (long)(i0 + u) * KP + k] = gsum * o[u][v] + js[v];
            }
#else
#pragma unroll 4
            for (int i = 0; i < NP; ++i) {
#pragma unroll
                for (int v = 0; v < NV; ++v) {
                    float o1 = st[(v * NP + i) * W + tid];
#pragma unroll
                    for (int c = 0; c < FMAS; ++c) o1 = fmaf(o1, 0.999f, 1e-3f);
                    r[v * fs + (long)i * KP + k] = gsum * o1 + js[v];
                }
            }
#endif
        }
        __syncthreads(); /* every work item is done with slot s before it is refilled */
        if (tid == 0) {
            const long next = tile + (long)STAGES * gridDim.x;
            if (next < ntiles) {
                asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
                issue_tile(base + s * SLOT_BYTES, smem_addr(&bars[s]), &qmap, next, geo, fg, links);
            }
        }
    }
}

typedef CUresult (*EncodeTiled)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

int main(int argc, char** argv)
{
    const long dofs = argc > 1 ? atol(argv[1]) : (1L << 24);
    const double ceiling = argc > 2 ? atof(argv[2]) : 4377.7;
    const int K = (int)(dofs / (NP * NV)), KP = (K + 31) / 32 * 32;
    const long ntiles = (K + W - 1) / W, KT = ntiles * W; /* geometry padded to whole tiles */
    const long fs = (long)NP * KP;
    unsigned seed = 12345u;
    std::vector<float> q(NV * fs), geo(4L * KT, 0.f), fg(9L * KT, 0.f);
    std::vector<int> links(3L * KT, 0);
    for (auto& x : q) x = frand(seed);
    for (long i = 0; i < 4L * K; ++i) geo[i] = frand(seed);
    for (long i = 0; i < 9L * K; ++i) fg[i] = frand(seed);
    for (long f = 0; f < 3L * K; ++f) {
        const long off[3] = {1, K - 1, 2 * 250 + 1};
        const int nk = (int)((f / 3 + off[f % 3]) % K);
        seed = seed * 1664525u + 1013904223u;
        links[f] = 8 * nk + 2 * (int)((seed >> 10) % 3) + (int)((seed >> 20) & 1);
    }
    float *dq, *dr, *dgeo, *dfg;
    int* dl;
    cudaMalloc(&dq, q.size() * 4);
    cudaMalloc(&dr, q.size() * 4);
    cudaMalloc(&dgeo, geo.size() * 4);
    cudaMalloc(&dfg, fg.size() * 4);
    cudaMalloc(&dl, links.size() * 4);
    cudaMemcpy(dq, q.data(), q.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dgeo, geo.data(), geo.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dfg, fg.data(), fg.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dl, links.data(), links.size() * 4, cudaMemcpyHostToDevice);
    cudaMemset(dr, 0xff, q.size() * 4); /* NaN */

    void* lib = dlopen("libcuda.so.1", RTLD_NOW);
    EncodeTiled encode = lib ? (EncodeTiled)dlsym(lib, "cuTensorMapEncodeTiled") : nullptr;
    if (!encode) {
        printf("cuTensorMapEncodeTiled not found\n");
        return 1;
    }
    CUtensorMap qmap;
    const cuuint64_t gdim[2] = {(cuuint64_t)KP, (cuuint64_t)ROWS};
    const cuuint64_t gstride[1] = {(cuuint64_t)KP * 4};
    const cuuint32_t box[2] = {W, ROWS};
    const cuuint32_t estride[2] = {1, 1};
    const CUresult cr = encode(&qmap, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, dq, gdim, gstride, box, estride,
                               CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                               CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (cr != CUDA_SUCCESS) {
        printf("cuTensorMapEncodeTiled failed: %d\n", (int)cr);
        return 1;
    }
    cudaFuncSetAttribute(tma_rhs, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES);
    int occ = 0, sms = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, tma_rhs, W, SMEM_BYTES);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const int grid = (int)std::min<long>((long)occ * sms, ntiles);
    if (occ == 0) {
        printf("N=%d W=%d STAGES=%d: no block fits (%d bytes of shared memory)\n", N, W, STAGES, SMEM_BYTES);
        return 1;
    }
    tma_rhs<<<grid, W, SMEM_BYTES>>>(qmap, dq, dr, dgeo, dfg, dl, K, KP, ntiles);
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        printf("launch failed: %s\n", cudaGetErrorString(err));
        return 1;
    }
    std::vector<float> r(q.size());
    cudaMemcpy(r.data(), dr, r.size() * 4, cudaMemcpyDeviceToHost);
    double maxerr = 0, maxref = 0;
    long bad = 0;
    for (int s = 0; s < 400; ++s) {
        const int k = s < 200 ? s : K - 1 - (s - 200) * 7;
        const double gsum = (double)geo[4L * k] + geo[4L * k + 1] + geo[4L * k + 2] + geo[4L * k + 3];
        double js[NV] = {0, 0, 0};
        for (int m = 0; m < NFN; ++m) {
            const int f = m / NFP, i = m % NFP, face = 3 * k + f;
            const double c = (double)fg[3L * face + 2] * ((double)fg[3L * face] + fg[3L * face + 1]);
            const long om = (long)FACE_NODE(f, i) * KP + k, op = LINK_NODE(links[face], i, (long)KP);
            for (int v = 0; v < NV; ++v) js[v] += c * ((double)q[v * fs + om] - (NEIGH ? q[v * fs + op] : 0.0));
        }
        for (int i = 0; i < NP; ++i)
            for (int v = 0; v < NV; ++v) {
                float o1 = q[v * fs + (long)i * KP + k];
                for (int c = 0; c < FMAS; ++c) o1 = std::fma(o1, 0.999f, 1e-3f);
                const double o = gsum * o1 + js[v];
                const double g = r[v * fs + (long)i * KP + k];
                if (!std::isfinite(g)) ++bad;
                maxerr = std::fmax(maxerr, std::fabs(g - o));
                maxref = std::fmax(maxref, std::fabs(o));
            }
    }
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    for (int w = 0; w < 20; ++w) tma_rhs<<<grid, W, SMEM_BYTES>>>(qmap, dq, dr, dgeo, dfg, dl, K, KP, ntiles);
    const int reps = 100;
    cudaEventRecord(e0);
    for (int w = 0; w < reps; ++w) tma_rhs<<<grid, W, SMEM_BYTES>>>(qmap, dq, dr, dgeo, dfg, dl, K, KP, ntiles);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    err = cudaGetLastError();
    if (err != cudaSuccess) {
        printf("timed launches failed: %s\n", cudaGetErrorString(err));
        return 1;
    }
    float ms;
    cudaEventElapsedTime(&ms, e0, e1);
    ms /= reps;
    const double bytes = (double)K * (2.0 * NV * NP * 4 + 4 * 4 + 9 * 4 + 3 * 4);
    cudaFuncAttributes fa;
    cudaFuncGetAttributes(&fa, tma_rhs);
    const double fma_ms = 2.0 * FMAS * NV * NP * (double)K / 65.51e12 * 1e3;
    printf("N=%d W=%d STAGES=%d NEIGH=%d ILP=%d FMAS=%d K=%d regs=%d smem=%d blocks/SM=%d grid=%d | %.4f ms, minimum bytes "
           "%.1f MB at %.0f GB/s = %.1f %% of %.0f, multiply-adds alone %.4f ms at the pipe's peak | rel err %.2e, "
           "non-finite %ld\n",
           N, W, STAGES, NEIGH, ILP, FMAS, K, fa.numRegs, SMEM_BYTES, occ, grid, ms, bytes * 1e-6, bytes / ms * 1e-6,
           bytes / ms * 1e-6 / ceiling * 100, ceiling, fma_ms, maxerr / maxref, bad);
    return bad > 0 || !(maxerr <= 1e-5 * maxref) ? 2 : 0;
}
