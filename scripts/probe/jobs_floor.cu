// Probe: the memory floor of a fused nodal Maxwell TM right-hand side. The kernel moves what the shipped merged
// kernels move — the state, the metric terms, each face's normal, scale and link, the neighbours' face states (through
// the cache), the right-hand side — and does no operator product: each element's jumps reach only the nodes of the
// work item that formed them, so it is not a right-hand side, only a lower bound on the time of any kernel that
// reads and writes those values once. TPE work items per element (32 / TPE elements per warp), node-major layout, the
// neighbours of a structured mesh (k + 1, k − 1 and k + 501, as scripts/probe/sgemm_proto.cu), 16M DOF in f32.
// Checked on sampled elements against a CPU evaluation of the same sums; prints ms, the effective bandwidth of the
// minimum bytes (dg's cost model) and that bandwidth against the ceiling given on the command line.
// -DREAL=double: the same in f64 (dg's f64 minimum: every value 8 bytes, the links 4; the stand-in's multiply-adds on
// the f64 FMA pipe, 33.3 TFLOP/s; checked to 1e-12 of the largest value).
// Build: nvcc -O3 -arch=sm_90 -DN=8 -DTPE=4 -o floor scripts/probe/jobs_floor.cu; run: ./floor [dofs] [ceiling GB/s]
// [each] (each launch timed by its own pair of events, the median, as dg times; default: 100 launches, one pair)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <string>
#include <cuda_runtime.h>

#ifndef N
#define N 8
#endif
#ifndef TPE
#define TPE 4
#endif
#ifndef FMAS
#define FMAS 0 /* multiply-adds per own value before its store (0: none) */
#endif
#ifndef STREAM
#define STREAM 0
#endif
#ifndef BLOCK
#define BLOCK 128
#endif
#ifndef REAL
#define REAL float
#endif
typedef REAL real;
/* the FMA pipe's measured ceiling in the probe's precision (the H100 file's: 65.5 and 33.3 TFLOP/s), the check's
   relative tolerance */
#define F64 (sizeof(real) == 8)
#define FMA_PEAK (F64 ? 33.27e12 : 65.51e12)
#define TOLERANCE (F64 ? 1e-12 : 1e-5)
#define NP ((N + 1) * (N + 2) / 2)
#define NFP (N + 1)
#define NFN (3 * NFP)
#define NV 3
#define FACE_NODE(f, i) ((f) == 0 ? (i) : (i) * NFP - (i) * ((i) - 1) / 2 + ((f) == 1 ? NFP - 1 - (i) : 0))
#ifndef LAYOUT
#define LAYOUT 0
#endif
/* LAYOUT 0: node-major, node i of element k at i·KP + k in each variable's plane of NP·KP values (dg's layout);
   LAYOUT 1: node-major within tiles of 32 elements, each tile's NP rows of 32 contiguous in each plane (tile t at
   t·32·NP + i·32 + k mod 32); LAYOUT 2: the tile's rows of every variable contiguous (t·32·NV·NP + (v·NP + i)·32 +
   k mod 32). VS(v, fs) is variable v's offset. */
#if LAYOUT == 1
#define OFF(i, k, Kp) ((long)((k) >> 5) * (32 * NP) + (long)(i) * 32 + ((k) & 31))
#define VS(v, fs) ((v) * (fs))
#elif LAYOUT == 2
#define OFF(i, k, Kp) ((long)((k) >> 5) * (32 * NP * NV) + (long)(i) * 32 + ((k) & 31))
#define VS(v, fs) ((long)(v) * (32 * NP))
#else
#define OFF(i, k, Kp) ((long)(i) * (Kp) + (k))
#define VS(v, fs) ((v) * (fs))
#endif
#define LINK_NODE(l, i, Kp) OFF(FACE_NODE(((l) >> 1) & 3, ((l) & 1) ? NFP - 1 - (i) : (i)), (l) >> 3, Kp)

static real frand(unsigned& s)
{
    s = s * 1664525u + 1013904223u;
    return (real)((s >> 8) & 0xffff) / (real)65536 - (real)0.5;
}

__global__ void __launch_bounds__(BLOCK) floor_rhs(const real* __restrict__ q, real* __restrict__ r,
                                                   const real* __restrict__ geo, const real* __restrict__ face_geo,
                                                   const int* __restrict__ links, const int K, const int KP)
{
    const long gid = (long)blockIdx.x * BLOCK + threadIdx.x;
    const int k = (int)(gid / TPE), t = (int)(gid % TPE);
    if (k >= K) return;
    const long fs = (long)NP * KP; /* rows of KP values: K rounded up to 32, as dg's node-major layout */
    const real rx = geo[4L * k], sx = geo[4L * k + 1], ry = geo[4L * k + 2], sy = geo[4L * k + 3];
#if !STREAM
    /* the element's own state held in registers through the face loop, as the shipped element kernels hold it */
    real own[NV][(NP + TPE - 1) / TPE];
#pragma unroll
    for (int n = 0; n < (NP + TPE - 1) / TPE; ++n) {
        const int i = t + n * TPE;
#pragma unroll
        for (int v = 0; v < NV; ++v) own[v][n] = i < NP ? q[VS(v, fs) + OFF(i, k, KP)] : (real)0;
    }
#endif
    real js[NV] = {0, 0, 0};
#pragma unroll
    for (int n = 0; n < (NFN + TPE - 1) / TPE; ++n) {
        const int m = t + n * TPE;
        if (m < NFN) {
            const int f = m / NFP, i = m % NFP, face = 3 * k + f;
            const real nx = face_geo[3L * face], ny = face_geo[3L * face + 1], fsc = face_geo[3L * face + 2];
            const int l = links[face];
            const long om = OFF(FACE_NODE(f, i), k, KP), op = LINK_NODE(l, i, (long)KP);
#pragma unroll
            for (int v = 0; v < NV; ++v) js[v] += fsc * (nx + ny) * (q[VS(v, fs) + om] - q[VS(v, fs) + op]);
        }
    }
#pragma unroll
    for (int n = 0; n < (NP + TPE - 1) / TPE; ++n) {
        const int i = t + n * TPE;
        if (i < NP) {
#pragma unroll
            for (int v = 0; v < NV; ++v) {
#if STREAM
                /* STREAM: each own value loaded as it is stored (fewest registers; the face nodes' read twice) */
                const real o = q[VS(v, fs) + OFF(i, k, KP)];
#else
                const real o0 = own[v][n];
#endif
#if STREAM
                const real o0 = o;
#endif
                /* FMAS: the products' work stood in for by a chain of multiply-adds per value (independent across
                   the element's values, so the pipe has as many chains as a work item has values) */
                real o1 = o0;
#pragma unroll
                for (int c = 0; c < FMAS; ++c) o1 = fma(o1, (real)0.999, (real)1e-3);
                r[VS(v, fs) + OFF(i, k, KP)] = (rx + sx + ry + sy) * o1 + js[v];
            }
        }
    }
}

int main(int argc, char** argv)
{
    const long dofs = argc > 1 ? atol(argv[1]) : (1L << 24);
    const double ceiling = argc > 2 ? atof(argv[2]) : 4377.7;
    /* "each": every launch timed by its own pair of events (dg's way); otherwise 100 launches between two events */
    const bool each = argc > 3 && std::string(argv[3]) == "each";
    const int K = (int)(dofs / (NP * NV)), KP = (K + 31) / 32 * 32;
    const long fs = (long)NP * KP;
    unsigned seed = 12345u;
    std::vector<real> q(NV * fs), geo(4L * K), fg(9L * K);
    std::vector<int> links(3L * K);
    for (auto& x : q) x = frand(seed);
    for (auto& x : geo) x = frand(seed);
    for (auto& x : fg) x = frand(seed);
    for (long f = 0; f < 3L * K; ++f) {
        const long off[3] = {1, K - 1, 2 * 250 + 1};
        const int nk = (int)((f / 3 + off[f % 3]) % K);
        seed = seed * 1664525u + 1013904223u;
        links[f] = 8 * nk + 2 * (int)((seed >> 10) % 3) + (int)((seed >> 20) & 1);
    }
    real *dq, *dr, *dg, *dfg;
    int* dl;
    const size_t b = sizeof(real);
    cudaMalloc(&dq, q.size() * b);
    cudaMalloc(&dr, q.size() * b);
    cudaMalloc(&dg, geo.size() * b);
    cudaMalloc(&dfg, fg.size() * b);
    cudaMalloc(&dl, links.size() * 4);
    cudaMemcpy(dq, q.data(), q.size() * b, cudaMemcpyHostToDevice);
    cudaMemcpy(dg, geo.data(), geo.size() * b, cudaMemcpyHostToDevice);
    cudaMemcpy(dfg, fg.data(), fg.size() * b, cudaMemcpyHostToDevice);
    cudaMemcpy(dl, links.data(), links.size() * 4, cudaMemcpyHostToDevice);
    cudaMemset(dr, 0xff, q.size() * b); /* NaN */
    const long items = (long)K * TPE;
    const int blocks = (int)((items + BLOCK - 1) / BLOCK);
    floor_rhs<<<blocks, BLOCK>>>(dq, dr, dg, dfg, dl, K, KP);
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        printf("launch failed: %s\n", cudaGetErrorString(err));
        return 1;
    }
    std::vector<real> r(q.size());
    cudaMemcpy(r.data(), dr, r.size() * b, cudaMemcpyDeviceToHost);
    double maxerr = 0, maxref = 0;
    long bad = 0;
    for (int s = 0; s < 400; ++s) {
        const int k = s < 200 ? s : K - 1 - (s - 200) * 7;
        const double gsum = (double)geo[4L * k] + geo[4L * k + 1] + geo[4L * k + 2] + geo[4L * k + 3];
        for (int t = 0; t < TPE; ++t) {
            double js[NV] = {0, 0, 0};
            for (int m = t; m < NFN; m += TPE) {
                const int f = m / NFP, i = m % NFP, face = 3 * k + f;
                const double c = (double)fg[3L * face + 2] * ((double)fg[3L * face] + fg[3L * face + 1]);
                const long om = OFF(FACE_NODE(f, i), k, KP), op = LINK_NODE(links[face], i, (long)KP);
                for (int v = 0; v < NV; ++v) js[v] += c * ((double)q[VS(v, fs) + om] - q[VS(v, fs) + op]);
            }
            for (int i = t; i < NP; i += TPE)
                for (int v = 0; v < NV; ++v) {
                    real o1 = q[VS(v, fs) + OFF(i, k, KP)];
                    for (int c = 0; c < FMAS; ++c) o1 = std::fma(o1, (real)0.999, (real)1e-3);
                    const double o = gsum * o1 + js[v];
                    const double g = r[VS(v, fs) + OFF(i, k, KP)];
                    if (!std::isfinite(g)) ++bad;
                    maxerr = std::fmax(maxerr, std::fabs(g - o));
                    maxref = std::fmax(maxref, std::fabs(o));
                }
        }
    }
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    for (int w = 0; w < 20; ++w) floor_rhs<<<blocks, BLOCK>>>(dq, dr, dg, dfg, dl, K, KP);
    const int reps = 100;
    float ms;
    if (each) {
        /* as dg's timing does: a pair of events around every launch, all enqueued before the first is read; the
           median of the launches' times */
        std::vector<cudaEvent_t> ev(2 * reps);
        for (auto& x : ev) cudaEventCreate(&x);
        for (int w = 0; w < reps; ++w) {
            cudaEventRecord(ev[2 * w]);
            floor_rhs<<<blocks, BLOCK>>>(dq, dr, dg, dfg, dl, K, KP);
            cudaEventRecord(ev[2 * w + 1]);
        }
        cudaEventSynchronize(ev[2 * reps - 1]);
        std::vector<float> t(reps);
        for (int w = 0; w < reps; ++w) cudaEventElapsedTime(&t[w], ev[2 * w], ev[2 * w + 1]);
        std::sort(t.begin(), t.end());
        ms = 0.5f * (t[reps / 2 - 1] + t[reps / 2]);
        for (auto& x : ev) cudaEventDestroy(x);
    } else {
        cudaEventRecord(e0);
        for (int w = 0; w < reps; ++w) floor_rhs<<<blocks, BLOCK>>>(dq, dr, dg, dfg, dl, K, KP);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&ms, e0, e1);
        ms /= reps;
    }
    /* dg's minimum bytes (formulations/nodal-tri/src/cost.rs): state in, rhs out, metric terms, face normals and
       scales, one link per face */
    const double bytes = (double)K * (2.0 * NV * NP * b + 4 * b + 9 * b + 3 * 4);
    cudaFuncAttributes fa;
    cudaFuncGetAttributes(&fa, floor_rhs);
    int occ = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, floor_rhs, BLOCK, 0);
    /* the stand-in products' time on the FMA pipe at its measured ceiling in this precision */
    const double fma_ms = 2.0 * FMAS * NV * NP * (double)K / FMA_PEAK * 1e3;
    printf("%s %s N=%d LAYOUT=%d TPE=%d STREAM=%d FMAS=%d block=%d K=%d regs=%d blocks/SM=%d | %.4f ms, minimum bytes %.1f MB at %.0f GB/s = "
           "%.1f %% of %.0f, multiply-adds alone %.4f ms at the pipe's peak | rel err %.2e, non-finite %ld\n",
           F64 ? "f64" : "f32", each ? "each" : "batch", N, LAYOUT, TPE, STREAM, FMAS, BLOCK, K, fa.numRegs, occ, ms, bytes * 1e-6, bytes / ms * 1e-6,
           bytes / ms * 1e-6 / ceiling * 100, ceiling, fma_ms, maxerr / maxref, bad);
    return bad > 0 || !(maxerr <= TOLERANCE * maxref) ? 2 : 0;
}
