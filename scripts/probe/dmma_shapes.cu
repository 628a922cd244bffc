// Throughput of the f64 tensor-core instruction shapes (chains of the instruction alone, CHAINS independent
// accumulators per warp): m8n8k4 (sm_80) against m16n8k4, m16n8k8 and m16n8k16 (sm_90).
// nvcc -O3 -arch=sm_90 dmma_shapes.cu -o dmma_shapes && ./dmma_shapes
#include <cstdio>
#include <cuda_runtime.h>

template <int CHAINS>
__global__ void k884(double* out, double x) {
    double a = x, b = x * 0.5, c[CHAINS][2] = {};
    for (int r = 0; r < 1024; ++r) {
#pragma unroll
        for (int j = 0; j < CHAINS; ++j)
            asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
                         : "+d"(c[j][0]), "+d"(c[j][1]) : "d"(a), "d"(b));
    }
    double s = 0; for (int j = 0; j < CHAINS; ++j) s += c[j][0] + c[j][1];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
template <int CHAINS>
__global__ void k1684(double* out, double x) {
    double a = x, b = x * 0.5, c[CHAINS][4] = {};
    for (int r = 0; r < 1024; ++r) {
#pragma unroll
        for (int j = 0; j < CHAINS; ++j)
            asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
                         : "+d"(c[j][0]), "+d"(c[j][1]), "+d"(c[j][2]), "+d"(c[j][3]) : "d"(a), "d"(a), "d"(b));
    }
    double s = 0; for (int j = 0; j < CHAINS; ++j) s += c[j][0] + c[j][3];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
template <int CHAINS>
__global__ void k1688(double* out, double x) {
    double a = x, b = x * 0.5, c[CHAINS][4] = {};
    for (int r = 0; r < 1024; ++r) {
#pragma unroll
        for (int j = 0; j < CHAINS; ++j)
            asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                         : "+d"(c[j][0]), "+d"(c[j][1]), "+d"(c[j][2]), "+d"(c[j][3]) : "d"(a), "d"(a), "d"(a), "d"(a), "d"(b), "d"(b));
    }
    double s = 0; for (int j = 0; j < CHAINS; ++j) s += c[j][0] + c[j][3];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
template <int CHAINS>
__global__ void k16816(double* out, double x) {
    double a = x, b = x * 0.5, c[CHAINS][4] = {};
    for (int r = 0; r < 1024; ++r) {
#pragma unroll
        for (int j = 0; j < CHAINS; ++j)
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%0, %1, %2, %3};"
                         : "+d"(c[j][0]), "+d"(c[j][1]), "+d"(c[j][2]), "+d"(c[j][3])
                         : "d"(a), "d"(a), "d"(a), "d"(a), "d"(a), "d"(a), "d"(a), "d"(a), "d"(b), "d"(b), "d"(b), "d"(b));
    }
    double s = 0; for (int j = 0; j < CHAINS; ++j) s += c[j][0] + c[j][3];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

template <typename F>
void time_it(const char* name, F kernel, double flops_per_instr, int chains, int warps_per_block) {
    int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const int blocks = sms * 8, threads = 32 * warps_per_block;
    double* out; cudaMalloc(&out, sizeof(double) * blocks * threads);
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    kernel<<<blocks, threads>>>(out, 1.0);
    cudaDeviceSynchronize();
    float best = 1e30f;
    for (int i = 0; i < 10; ++i) {
        cudaEventRecord(e0); kernel<<<blocks, threads>>>(out, 1.0); cudaEventRecord(e1); cudaEventSynchronize(e1);
        float ms; cudaEventElapsedTime(&ms, e0, e1); if (ms < best) best = ms;
    }
    const double instrs = double(blocks) * warps_per_block * 1024.0 * chains;
    printf("%-10s chains %d warps/block %d: %8.3f ms  %7.1f TFLOP/s\n", name, chains, warps_per_block, best,
           instrs * flops_per_instr / (best * 1e-3) / 1e12);
    cudaError_t err = cudaGetLastError(); if (err != cudaSuccess) printf("  error: %s\n", cudaGetErrorString(err));
    cudaFree(out);
}

int main() {
    for (int w : {2, 4, 8}) {
        time_it("m8n8k4", k884<4>, 2.0 * 8 * 8 * 4, 4, w);
        time_it("m8n8k4", k884<8>, 2.0 * 8 * 8 * 4, 8, w);
        time_it("m16n8k4", k1684<4>, 2.0 * 16 * 8 * 4, 4, w);
        time_it("m16n8k8", k1688<4>, 2.0 * 16 * 8 * 8, 4, w);
        time_it("m16n8k16", k16816<4>, 2.0 * 16 * 8 * 16, 4, w);
        time_it("m16n8k16", k16816<2>, 2.0 * 16 * 8 * 16, 2, w);
    }
    return 0;
}
