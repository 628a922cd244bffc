/* dg kernels: maxwell2d N=3 elem/wg128/seq1/matrix-const/merged/node-major/f32/mixed */

#define KERNEL extern "C" __global__
#define DEVICE_FN __device__ static inline
#define GPTR
#define LOCAL_MEM __shared__
#define CONST_MEM __constant__
#define BARRIER() __syncthreads()
#define LOCAL_ID ((int)threadIdx.x)
#define GROUP_ID ((int)blockIdx.x)
#define RESTRICT __restrict__
typedef float real;


#define NP 10
#define NFP 4
#define NFACE_NODES 12
#define NV 3
#define NMAT 0
#define MBE 3
#define MBF 32
/* node-major: node i of element k at i * kpad + k; kpad = fs / NP */
#define NODE_OFF(k, i, fs) ((i) * ((fs) / NP) + (k))

#ifndef STEP_STORE
/* the merged right-hand-side kernels may fold one stage of a two-register low-storage Runge–Kutta scheme into
   their store: step 0 stores L in rhs; step 1 stores r = a·r + c·L (r not read when a = 0) and the new state
   z = x + b·r, rhs not written (z is neither the state x the kernel reads nor r) */
#define STEP_ARGS , GPTR real* RESTRICT step_r, GPTR real* RESTRICT step_z, GPTR const real* RESTRICT step_x, \
    const real step_a, const real step_c, const real step_b, const int step
#define STEP_STORE(index, value) do { \
        const int i_ = (index); \
        const real l_ = (value); \
        if (step == 0) { rhs[i_] = l_; } else { \
            real r_ = step_a == (real)0 ? (real)0 : step_a * step_r[i_]; \
            r_ += step_c * l_; \
            step_r[i_] = r_; \
            step_z[i_] = step_x[i_] + step_b * r_; \
        } \
    } while (0)
#endif


CONST_MEM real C_DR[100] = { -3.0f, 4.0450849718747355f, -1.5450849718747348f, 0.49999999999999994f, 2.9338094050602777e-16f, -8.522974134721031e-16f, 5.547387610306028e-16f, 2.4977513416853403e-16f, -1.695242772115066e-16f, -1.2812514484046057e-18f, -0.8090169943749479f, 9.578656266976564e-16f, 1.1180339887498945f, -0.3090169943749476f, 1.3419814741162527e-16f, -3.9637887055855794e-16f, 1.3419814741162535e-16f, -2.5735562894234024e-17f, 3.292625177537422e-17f, 1.4686740689731782e-18f, 0.30901699437494745f, -1.1180339887498942f, -9.712853283116173e-16f, 0.8090169943749479f, -2.3175844949109632e-17f, 3.9637887055855794e-16f, -7.86869961803674e-17f, -2.2836694433116476e-17f, 4.340158116760523e-17f, -1.4686740689731782e-18f, -0.49999999999999956f, 1.545084971874735f, -4.0450849718747355f, 3.0000000000000004f, -1.8235863804351212e-16f, 8.522974134721031e-16f, 1.900214849435786e-16f, 2.532838990808443e-16f, -1.473446945443263e-16f, 1.2812514484046057e-18f, -0.7090169943749476f, 1.6180339887498945f, -1.3090169943749468f, 0.6000000000000002f, -1.9999999999999991f, 2.6999999999999984f, -0.6180339887498941f, -0.19098300562505238f, -0.19098300562505252f, 0.09999999999999996f, 0.33333333333333365f, -0.6211299937499413f, 0.6211299937499413f, -0.33333333333333337f, -0.7272316635416373f, 1.9074342524836015e-16f, 0.7272316635416374f, -0.10610166979169604f, 0.10610166979169583f, 7.224656774714743e-17f, -0.5999999999999998f, 1.3090169943749468f, -1.618033988749894f, 0.7090169943749476f, 0.6180339887498948f, -2.6999999999999993f, 2.0f, 0.1909830056250526f, 0.1909830056250522f, -0.09999999999999981f, 0.4090169943749482f, -0.19098300562505385f, -0.6180339887498938f, 0.5999999999999995f, -1.3090169943749472f, 2.6999999999999997f, -1.3090169943749468f, -1.9999999999999998f, 1.6180339887498953f, 0.09999999999999938f, -0.6000000000000006f, 0.618033988749896f, 0.19098300562505174f, -0.4090169943749468f, 1.3090169943749477f, -2.699999999999999f, 1.3090169943749463f, -1.6180339887498962f, 2.0000000000000018f, -0.10000000000000038f, -0.5000000000000004f, 5.704246419556194e-17f, -5.704246419556194e-17f, 0.5f, 1.5450849718747366f, 2.5396964157517052e-15f, -1.5450849718747381f, -4.045084971874739f, 4.04508497187474f, -1.264848329659672e-15f };
CONST_MEM real C_DS[100] = { -3.0000000000000013f, 1.0581497280578585e-15f, -5.030382157452802e-16f, 4.99979499818331e-16f, 4.045084971874735f, 2.1351978638923455e-15f, -6.795365040456411e-16f, -1.5450849718747366f, 7.533949227889022e-16f, 0.49999999999999906f, -0.7090169943749479f, -1.9999999999999996f, -0.19098300562505274f, 0.10000000000000044f, 1.6180339887498933f, 2.7000000000000006f, -0.19098300562505308f, -1.309016994374947f, -0.6180339887498939f, 0.5999999999999991f, 0.409016994374948f, -1.3090169943749472f, -2.0000000000000004f, 0.10000000000000084f, -0.1909830056250534f, 2.699999999999999f, 1.6180339887498958f, -0.6180339887498941f, -1.309016994374947f, 0.5999999999999995f, -0.49999999999999933f, 1.5450849718747368f, -4.045084971874737f, 1.5841314424307912e-15f, 9.972170055797282e-17f, -2.0085083334487558e-15f, 4.045084971874738f, 1.0945526921539071e-15f, -1.5450849718747373f, 0.4999999999999999f, -0.8090169943749486f, 5.328512954217832e-16f, 7.777136812205294e-17f, -9.579894271742768e-17f, 7.390767402717662e-16f, -7.063593417918998e-16f, 4.547550238199728e-16f, 1.1180339887498953f, -4.013204549887065e-16f, -0.30901699437494734f, 0.33333333333333365f, -0.727231663541638f, -0.10610166979169582f, -2.422710006990908e-17f, -0.6211299937499417f, 3.47534751605942e-16f, 0.10610166979169587f, 0.6211299937499419f, 0.7272316635416373f, -0.3333333333333333f, -0.5999999999999994f, 1.3090169943749466f, -1.618033988749894f, -0.09999999999999959f, 0.6180339887498946f, -2.699999999999999f, 1.9999999999999998f, 0.19098300562505263f, 1.3090169943749475f, -0.4090169943749475f, 0.30901699437494784f, -1.711668271130776e-16f, 1.989224027287065e-16f, -3.088823774255896e-17f, -1.1180339887498945f, -1.3879638810292805e-15f, -1.938383824121469e-16f, 1.0850521957136958e-15f, 5.425072596517706e-16f, 0.8090169943749465f, -0.6000000000000008f, 0.6180339887498958f, 0.19098300562505222f, -0.09999999999999971f, 1.3090169943749475f, -2.6999999999999984f, 0.19098300562505133f, -1.6180339887498962f, 2.000000000000001f, 0.709016994374947f, -0.5000000000000004f, 9.553088070010054e-16f, -4.0019729468842713e-16f, 5.694695589942222e-16f, 1.5450849718747364f, 1.099772622064163e-15f, -1.2612842978500985e-15f, -4.045084971874736f, 1.0392396929250672e-15f, 2.9999999999999987f };
CONST_MEM real C_LIFT[120] = { 6.999999999999999f, 4.045084971874741f, -1.5450849718747328f, 0.5f, -0.8333333333333355f, -4.166666666666666f, -4.166666666666665f, -0.8333333333333341f, 7.000000000000001f, 4.04508497187475f, -1.5450849718747364f, 0.4999999999999988f, 0.8090169943749486f, 8.000000000000005f, 1.5000000000000022f, -0.30901699437494723f, 0.25911505055830875f, 2.2629514606666095f, 0.0719684550415557f, -0.8051805842666445f, -0.29244838389164f, -2.238635121708229f, 1.070381872666721f, -0.3281527490666888f, -0.3090169943749471f, 1.500000000000002f, 8.000000000000007f, 0.8090169943749489f, -0.29244838389164063f, -2.2386351217082243f, 1.0703818726667231f, -0.32815274906668995f, 0.25911505055830836f, 2.2629514606666157f, 0.07196845504155756f, -0.8051805842666452f, 0.49999999999999983f, -1.5450849718747346f, 4.045084971874743f, 6.999999999999998f, 7.0f, 4.045084971874744f, -1.545084971874738f, 0.49999999999999967f, -0.8333333333333346f, -4.1666666666666785f, -4.166666666666668f, -0.8333333333333339f, -0.2924483838916395f, -2.2386351217082265f, 1.0703818726667234f, -0.32815274906669f, -0.8051805842666464f, 0.07196845504155547f, 2.262951460666613f, 0.25911505055830736f, 0.8090169943749503f, 8.000000000000018f, 1.5000000000000029f, -0.30901699437494806f, 0.061728395061728f, -0.9876543209876552f, -0.9876543209876552f, 0.06172839506172857f, 0.06172839506172845f, -0.9876543209876537f, -0.9876543209876542f, 0.06172839506172872f, 0.06172839506172771f, -0.9876543209876563f, -0.9876543209876548f, 0.061728395061728475f, -0.3281527490666885f, 1.0703818726667205f, -2.2386351217082248f, -0.2924483838916411f, 0.8090169943749486f, 7.999999999999994f, 1.4999999999999958f, -0.30901699437494656f, -0.8051805842666432f, 0.07196845504155695f, 2.262951460666609f, 0.2591150505583081f, 0.25911505055830725f, 2.2629514606666117f, 0.07196845504155971f, -0.8051805842666435f, -0.32815274906668834f, 1.070381872666722f, -2.238635121708224f, -0.2924483838916418f, -0.3090169943749469f, 1.5000000000000004f, 7.999999999999997f, 0.8090169943749473f, -0.8051805842666441f, 0.07196845504155734f, 2.2629514606666117f, 0.25911505055830775f, -0.3090169943749472f, 1.4999999999999964f, 7.999999999999998f, 0.8090169943749478f, -0.328152749066689f, 1.070381872666725f, -2.238635121708223f, -0.2924483838916409f, -0.8333333333333338f, -4.166666666666673f, -4.166666666666672f, -0.8333333333333336f, 0.49999999999999933f, -1.5450849718747361f, 4.045084971874741f, 7.0f, 0.5000000000000003f, -1.5450849718747401f, 4.045084971874742f, 7.000000000000003f };


/* law maxwell2d (IR hash 3a5179a2edce9b09) */
DEVICE_FN void law_flux(const real* qm, const real* mm, real* out)
{
    const real f4 = -qm[2];
    const real f5 = -qm[1];
    out[0] = 0.0f;
    out[1] = f4;
    out[2] = f5;
    out[3] = qm[2];
    out[4] = 0.0f;
    out[5] = qm[0];

}

DEVICE_FN void law_numerical_flux(const real* qm, const real* qp, const real* mm, const real* mp,
                                  const real nx, const real ny, real* out)
{
    const real n9 = qm[0] - qp[0];
    const real n10 = qm[1] - qp[1];
    const real n11 = qm[2] - qp[2];
    const real n12 = nx * n9;
    const real n13 = ny * n10;
    const real n14 = n12 + n13;
    const real n16 = qm[0] + qp[0];
    const real n17 = 0.5f * n16;
    const real n18 = qm[1] + qp[1];
    const real n19 = 0.5f * n18;
    const real n20 = qm[2] + qp[2];
    const real n21 = 0.5f * n20;
    const real n22 = ny * n21;
    const real n23 = 1.0f * 0.5f;
    const real n24 = nx * n14;
    const real n25 = n24 - n9;
    const real n26 = n23 * n25;
    const real n27 = n22 - n26;
    const real n28 = -nx;
    const real n29 = n21 * n28;
    const real n30 = ny * n14;
    const real n31 = n30 - n10;
    const real n32 = n23 * n31;
    const real n33 = n29 - n32;
    const real n34 = ny * n17;
    const real n35 = nx * n19;
    const real n36 = n34 - n35;
    const real n37 = n11 * n23;
    const real n38 = n36 + n37;
    out[0] = n27;
    out[1] = n33;
    out[2] = n38;

}

DEVICE_FN void law_boundary(const int bc, const real* qm, const real* mm, const real nx, const real ny,
                            const real px, const real py, const real t, real* out)
{
    if (bc == 0) {
        const real b3 = -qm[2];
        out[0] = qm[0];
        out[1] = qm[1];
        out[2] = b3;

        return;
    }
    for (int v = 0; v < NV; ++v) out[v] = qm[v];
}


DEVICE_FN void face_jump_of(const real* qm, const real* qp, const real* mm, const real* mp, const real nx,
                            const real ny, const real fscale, real* jump)
{
    real fstar[NV], fl[2 * NV];
    law_numerical_flux(qm, qp, mm, mp, nx, ny, fstar);
    law_flux(qm, mm, fl);
    for (int v = 0; v < NV; ++v) jump[v] = fscale * (nx * fl[v] + ny * fl[NV + v] - fstar[v]);
}

DEVICE_FN void face_jump_own(const int k, const int j, const real* qm, GPTR const real* RESTRICT q,
                         GPTR const real* RESTRICT face_geo, GPTR const int* RESTRICT vmap_p,
                         GPTR const int* RESTRICT face_bc, GPTR const int* RESTRICT neigh,
                         GPTR const real* RESTRICT face_xy, GPTR const real* RESTRICT mat, const real t,
                         const int fs, real* jump)
{
    const int face = 3 * k + j / NFP;
    const int idx = k * NFACE_NODES + j;
    const real nx = face_geo[3 * face], ny = face_geo[3 * face + 1], fscale = face_geo[3 * face + 2];
    real qp[NV], mm[NMAT + 1], mp[NMAT + 1];
    const int kp = neigh[face];
    for (int m = 0; m < NMAT; ++m) { mm[m] = mat[k * NMAT + m]; mp[m] = mat[kp * NMAT + m]; }
    const int bc = face_bc[face];
    if (bc < 0) {
        const int op = vmap_p[idx];
        for (int v = 0; v < NV; ++v) qp[v] = q[v * fs + op];
    } else {
        law_boundary(bc, qm, mm, nx, ny, face_xy[2 * idx], face_xy[2 * idx + 1], t, qp);
    }
    face_jump_of(qm, qp, mm, mp, nx, ny, fscale, jump);
}

/* A face's link packs its neighbour as 8·element + 2·face + reversed: own face node i meets the neighbour's node
   LINK_FACE_NODE(face, reversed ? NFP − 1 − i : i), in closed form: row r of the triangle (NFP − r nodes) starts at
   node r·NFP − r(r − 1)/2; face 0 is row 0, face 1 holds column NFP − 1 − i of row i, face 2 column 0 of row i (the
   generator checks it against the element's face mask) */
#define LINK_FACE_NODE(f, i) ((f) == 0 ? (i) : (i) * NFP - (i) * ((i) - 1) / 2 + ((f) == 1 ? NFP - 1 - (i) : 0))
#define LINK_NODE(l, i, fs) NODE_OFF((l) >> 3, LINK_FACE_NODE(((l) >> 1) & 3, ((l) & 1) ? NFP - 1 - (i) : (i)), fs)
/* face_jump_own with the neighbour's node op known (the element kernels compute it from the face's link) */
DEVICE_FN void face_jump_own_op(const int k, const int j, const real* qm, const int op, GPTR const real* RESTRICT q,
                         GPTR const real* RESTRICT face_geo, GPTR const int* RESTRICT face_bc,
                         GPTR const int* RESTRICT neigh, GPTR const real* RESTRICT face_xy, GPTR const real* RESTRICT mat,
                         const real t, const int fs, real* jump)
{
    const int face = 3 * k + j / NFP;
    const int idx = k * NFACE_NODES + j;
    const real nx = face_geo[3 * face], ny = face_geo[3 * face + 1], fscale = face_geo[3 * face + 2];
    real qp[NV], mm[NMAT + 1], mp[NMAT + 1];
    const int kp = neigh[face];
    for (int m = 0; m < NMAT; ++m) { mm[m] = mat[k * NMAT + m]; mp[m] = mat[kp * NMAT + m]; }
    const int bc = face_bc[face];
    if (bc < 0) {
        for (int v = 0; v < NV; ++v) qp[v] = q[v * fs + op];
    } else {
        law_boundary(bc, qm, mm, nx, ny, face_xy[2 * idx], face_xy[2 * idx + 1], t, qp);
    }
    face_jump_of(qm, qp, mm, mp, nx, ny, fscale, jump);
}

DEVICE_FN void face_jump(const int k, const int j, GPTR const real* RESTRICT q, GPTR const real* RESTRICT face_geo,
                         GPTR const int* RESTRICT vmap_m, GPTR const int* RESTRICT vmap_p,
                         GPTR const int* RESTRICT face_bc, GPTR const int* RESTRICT neigh,
                         GPTR const real* RESTRICT face_xy, GPTR const real* RESTRICT mat, const real t,
                         const int fs, real* jump)
{
    real qm[NV];
    const int om = vmap_m[k * NFACE_NODES + j];
    for (int v = 0; v < NV; ++v) qm[v] = q[v * fs + om];
    face_jump_own(k, j, qm, q, face_geo, vmap_p, face_bc, neigh, face_xy, mat, t, fs, jump);
}


/* right-hand side (volume and surface merged), element per thread: work groups of 128 elements, 1 in sequence */
KERNEL void rhs(GPTR const real* RESTRICT q, GPTR real* RESTRICT rhs, GPTR const real* RESTRICT geo,
                   GPTR const real* RESTRICT mat, GPTR const real* RESTRICT dr, GPTR const real* RESTRICT ds,
                   GPTR const real* RESTRICT face_geo, GPTR const int* RESTRICT vmap_m,
                   GPTR const int* RESTRICT links, GPTR const int* RESTRICT face_bc, GPTR const int* RESTRICT neigh,
                   GPTR const real* RESTRICT face_xy, GPTR const real* RESTRICT lift_mat, const real t,
                   const int K, const int fs, const int g0 STEP_ARGS)
{
    for (int s = 0; s < 1; ++s) {
        const int k = ((g0 + GROUP_ID) * 1 + s) * 128 + LOCAL_ID;
        if (k < K) {
            real qe[NV][NP];
#pragma unroll
            for (int j = 0; j < NP; ++j) {
#pragma unroll
                for (int v = 0; v < NV; ++v) qe[v][j] = q[v * fs + NODE_OFF(k, j, fs)];
            }
            /* the face jumps take the own state q⁻ from the element's state in registers (face node j is node
               FMASK[j], a constant index here), so that no load goes through vmap_m */
            real jumps[NV][NFACE_NODES];
            /* each face's link (its neighbour packed, LINK_NODE), so that no load goes through vmap_p */
            int lk[3];
#pragma unroll
            for (int f = 0; f < 3; ++f) lk[f] = links[3 * k + f];
#define ELEM_FACE_JUMP(j, node) do { \
                real qm_[NV], jump_[NV]; \
                for (int v = 0; v < NV; ++v) qm_[v] = qe[v][node]; \
                face_jump_own_op(k, j, qm_, LINK_NODE(lk[(j) / NFP], (j) % NFP, fs), q, face_geo, face_bc, neigh, face_xy, mat, t, fs, jump_); \
                for (int v = 0; v < NV; ++v) jumps[v][j] = jump_[v]; \
            } while (0)
            ELEM_FACE_JUMP(0, 0);
            ELEM_FACE_JUMP(1, 1);
            ELEM_FACE_JUMP(2, 2);
            ELEM_FACE_JUMP(3, 3);
            ELEM_FACE_JUMP(4, 3);
            ELEM_FACE_JUMP(5, 6);
            ELEM_FACE_JUMP(6, 8);
            ELEM_FACE_JUMP(7, 9);
            ELEM_FACE_JUMP(8, 0);
            ELEM_FACE_JUMP(9, 4);
            ELEM_FACE_JUMP(10, 7);
            ELEM_FACE_JUMP(11, 9);
#undef ELEM_FACE_JUMP
            /* mixed (a linear flux, dg_ir::DivergencePlan; merged): the contravariant fluxes of the flux-first
               variables at every node, and the reference gradients of the fields several variables' fluxes read,
               each summed once and shared: fewer products than diff-first's two per variable */
            real mk[NMAT + 1];
            for (int m = 0; m < NMAT; ++m) mk[m] = mat[k * NMAT + m];
            const real rx = geo[4 * k], sx = geo[4 * k + 1], ry = geo[4 * k + 2], sy = geo[4 * k + 3];
            real cg[2][NP];
#pragma unroll
            for (int j = 0; j < NP; ++j) {
                real qn[NV], f[2 * NV];
#pragma unroll
                for (int v = 0; v < NV; ++v) qn[v] = qe[v][j];
                law_flux(qn, mk, f);
                cg[0][j] = rx * f[2] + ry * f[NV + 2];
                cg[1][j] = sx * f[2] + sy * f[NV + 2];
            }
            /* field 2's gradient in the fluxes that read it: c_r = A_x[v][w]·rx + A_y[v][w]·ry (and s
               alike), the flux of the unit field giving column w of A_x, A_y */
            real cr0[NV], cs0[NV];
            {
                real unit_q[NV], f[2 * NV];
#pragma unroll
                for (int v = 0; v < NV; ++v) unit_q[v] = 0;
                unit_q[2] = 1;
                law_flux(unit_q, mk, f);
#pragma unroll
                for (int v = 0; v < NV; ++v) { cr0[v] = rx * f[v] + ry * f[NV + v]; cs0[v] = sx * f[v] + sy * f[NV + v]; }
            }
            /* fully unrolled: every matrix entry becomes a constant operand of its multiply-add */
#pragma unroll
            for (int i = 0; i < NP; ++i) {
                real out[NV];
#pragma unroll
                for (int v = 0; v < NV; ++v) out[v] = 0;
                real gr[1], gs[1];
#pragma unroll
                for (int w = 0; w < 1; ++w) { gr[w] = 0; gs[w] = 0; }
#pragma unroll
                for (int j = 0; j < NP; ++j) {
                    const real a = C_DR[i * NP + j];
                    const real b = C_DS[i * NP + j];
                    out[2] -= a * cg[0][j];
                    out[2] -= b * cg[1][j];
                    gr[0] += a * qe[2][j];
                    gs[0] += b * qe[2][j];
                }
                out[0] -= cr0[0] * gr[0] + cs0[0] * gs[0];
                out[1] -= cr0[1] * gr[0] + cs0[1] * gs[0];
                real lifted[NV];
                for (int v = 0; v < NV; ++v) {
                    real acc = 0;
                    for (int m = 0; m < NFACE_NODES; ++m) acc += C_LIFT[i * NFACE_NODES + m] * jumps[v][m];
                    lifted[v] = acc;
                }
#pragma unroll
                for (int v = 0; v < NV; ++v) STEP_STORE(v * fs + NODE_OFF(k, i, fs), out[v] + lifted[v]);
            }
        }
    }
}


KERNEL void update(GPTR real* RESTRICT q, GPTR real* RESTRICT res, GPTR const real* RESTRICT rhs,
                   const real a, const real b, const real dt, const int n)
{
    const int g = GROUP_ID * 256 + LOCAL_ID;
    if (g < n) {
        const real r = a * res[g] + dt * rhs[g];
        res[g] = r;
        q[g] += b * r;
    }
}

KERNEL void lincomb(GPTR real* RESTRICT y, GPTR const real* RESTRICT x1, GPTR const real* RESTRICT x2,
                    GPTR const real* RESTRICT x3, const real a, const real c1, const real c2, const real c3, const int n)
{
    const int g = GROUP_ID * 256 + LOCAL_ID;
    if (g < n) {
        real v = a == (real)0 ? (real)0 : a * y[g];
        if (c1 != (real)0) v += c1 * x1[g];
        if (c2 != (real)0) v += c2 * x2[g];
        if (c3 != (real)0) v += c3 * x3[g];
        y[g] = v;
    }
}

