/* dg kernels: maxwell2d N=3 elem/wg128/seq1/matrix-const/merged/node-major/f64/mixed */

#define KERNEL extern "C" __global__
#define DEVICE_FN __device__ static inline
#define GPTR
#define LOCAL_MEM __shared__
#define CONST_MEM __constant__
#define BARRIER() __syncthreads()
#define LOCAL_ID ((int)threadIdx.x)
#define GROUP_ID ((int)blockIdx.x)
#define RESTRICT __restrict__
typedef double real;


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


CONST_MEM real C_DR[100] = { -3.0, 4.0450849718747355, -1.5450849718747348, 0.49999999999999994, 2.9338094050602777e-16, -8.522974134721031e-16, 5.547387610306028e-16, 2.4977513416853403e-16, -1.695242772115066e-16, -1.2812514484046057e-18, -0.8090169943749479, 9.578656266976564e-16, 1.1180339887498945, -0.3090169943749476, 1.3419814741162527e-16, -3.9637887055855794e-16, 1.3419814741162535e-16, -2.5735562894234024e-17, 3.292625177537422e-17, 1.4686740689731782e-18, 0.30901699437494745, -1.1180339887498942, -9.712853283116173e-16, 0.8090169943749479, -2.3175844949109632e-17, 3.9637887055855794e-16, -7.86869961803674e-17, -2.2836694433116476e-17, 4.340158116760523e-17, -1.4686740689731782e-18, -0.49999999999999956, 1.545084971874735, -4.0450849718747355, 3.0000000000000004, -1.8235863804351212e-16, 8.522974134721031e-16, 1.900214849435786e-16, 2.532838990808443e-16, -1.473446945443263e-16, 1.2812514484046057e-18, -0.7090169943749476, 1.6180339887498945, -1.3090169943749468, 0.6000000000000002, -1.9999999999999991, 2.6999999999999984, -0.6180339887498941, -0.19098300562505238, -0.19098300562505252, 0.09999999999999996, 0.33333333333333365, -0.6211299937499413, 0.6211299937499413, -0.33333333333333337, -0.7272316635416373, 1.9074342524836015e-16, 0.7272316635416374, -0.10610166979169604, 0.10610166979169583, 7.224656774714743e-17, -0.5999999999999998, 1.3090169943749468, -1.618033988749894, 0.7090169943749476, 0.6180339887498948, -2.6999999999999993, 2.0, 0.1909830056250526, 0.1909830056250522, -0.09999999999999981, 0.4090169943749482, -0.19098300562505385, -0.6180339887498938, 0.5999999999999995, -1.3090169943749472, 2.6999999999999997, -1.3090169943749468, -1.9999999999999998, 1.6180339887498953, 0.09999999999999938, -0.6000000000000006, 0.618033988749896, 0.19098300562505174, -0.4090169943749468, 1.3090169943749477, -2.699999999999999, 1.3090169943749463, -1.6180339887498962, 2.0000000000000018, -0.10000000000000038, -0.5000000000000004, 5.704246419556194e-17, -5.704246419556194e-17, 0.5, 1.5450849718747366, 2.5396964157517052e-15, -1.5450849718747381, -4.045084971874739, 4.04508497187474, -1.264848329659672e-15 };
CONST_MEM real C_DS[100] = { -3.0000000000000013, 1.0581497280578585e-15, -5.030382157452802e-16, 4.99979499818331e-16, 4.045084971874735, 2.1351978638923455e-15, -6.795365040456411e-16, -1.5450849718747366, 7.533949227889022e-16, 0.49999999999999906, -0.7090169943749479, -1.9999999999999996, -0.19098300562505274, 0.10000000000000044, 1.6180339887498933, 2.7000000000000006, -0.19098300562505308, -1.309016994374947, -0.6180339887498939, 0.5999999999999991, 0.409016994374948, -1.3090169943749472, -2.0000000000000004, 0.10000000000000084, -0.1909830056250534, 2.699999999999999, 1.6180339887498958, -0.6180339887498941, -1.309016994374947, 0.5999999999999995, -0.49999999999999933, 1.5450849718747368, -4.045084971874737, 1.5841314424307912e-15, 9.972170055797282e-17, -2.0085083334487558e-15, 4.045084971874738, 1.0945526921539071e-15, -1.5450849718747373, 0.4999999999999999, -0.8090169943749486, 5.328512954217832e-16, 7.777136812205294e-17, -9.579894271742768e-17, 7.390767402717662e-16, -7.063593417918998e-16, 4.547550238199728e-16, 1.1180339887498953, -4.013204549887065e-16, -0.30901699437494734, 0.33333333333333365, -0.727231663541638, -0.10610166979169582, -2.422710006990908e-17, -0.6211299937499417, 3.47534751605942e-16, 0.10610166979169587, 0.6211299937499419, 0.7272316635416373, -0.3333333333333333, -0.5999999999999994, 1.3090169943749466, -1.618033988749894, -0.09999999999999959, 0.6180339887498946, -2.699999999999999, 1.9999999999999998, 0.19098300562505263, 1.3090169943749475, -0.4090169943749475, 0.30901699437494784, -1.711668271130776e-16, 1.989224027287065e-16, -3.088823774255896e-17, -1.1180339887498945, -1.3879638810292805e-15, -1.938383824121469e-16, 1.0850521957136958e-15, 5.425072596517706e-16, 0.8090169943749465, -0.6000000000000008, 0.6180339887498958, 0.19098300562505222, -0.09999999999999971, 1.3090169943749475, -2.6999999999999984, 0.19098300562505133, -1.6180339887498962, 2.000000000000001, 0.709016994374947, -0.5000000000000004, 9.553088070010054e-16, -4.0019729468842713e-16, 5.694695589942222e-16, 1.5450849718747364, 1.099772622064163e-15, -1.2612842978500985e-15, -4.045084971874736, 1.0392396929250672e-15, 2.9999999999999987 };
CONST_MEM real C_LIFT[120] = { 6.999999999999999, 4.045084971874741, -1.5450849718747328, 0.5, -0.8333333333333355, -4.166666666666666, -4.166666666666665, -0.8333333333333341, 7.000000000000001, 4.04508497187475, -1.5450849718747364, 0.4999999999999988, 0.8090169943749486, 8.000000000000005, 1.5000000000000022, -0.30901699437494723, 0.25911505055830875, 2.2629514606666095, 0.0719684550415557, -0.8051805842666445, -0.29244838389164, -2.238635121708229, 1.070381872666721, -0.3281527490666888, -0.3090169943749471, 1.500000000000002, 8.000000000000007, 0.8090169943749489, -0.29244838389164063, -2.2386351217082243, 1.0703818726667231, -0.32815274906668995, 0.25911505055830836, 2.2629514606666157, 0.07196845504155756, -0.8051805842666452, 0.49999999999999983, -1.5450849718747346, 4.045084971874743, 6.999999999999998, 7.0, 4.045084971874744, -1.545084971874738, 0.49999999999999967, -0.8333333333333346, -4.1666666666666785, -4.166666666666668, -0.8333333333333339, -0.2924483838916395, -2.2386351217082265, 1.0703818726667234, -0.32815274906669, -0.8051805842666464, 0.07196845504155547, 2.262951460666613, 0.25911505055830736, 0.8090169943749503, 8.000000000000018, 1.5000000000000029, -0.30901699437494806, 0.061728395061728, -0.9876543209876552, -0.9876543209876552, 0.06172839506172857, 0.06172839506172845, -0.9876543209876537, -0.9876543209876542, 0.06172839506172872, 0.06172839506172771, -0.9876543209876563, -0.9876543209876548, 0.061728395061728475, -0.3281527490666885, 1.0703818726667205, -2.2386351217082248, -0.2924483838916411, 0.8090169943749486, 7.999999999999994, 1.4999999999999958, -0.30901699437494656, -0.8051805842666432, 0.07196845504155695, 2.262951460666609, 0.2591150505583081, 0.25911505055830725, 2.2629514606666117, 0.07196845504155971, -0.8051805842666435, -0.32815274906668834, 1.070381872666722, -2.238635121708224, -0.2924483838916418, -0.3090169943749469, 1.5000000000000004, 7.999999999999997, 0.8090169943749473, -0.8051805842666441, 0.07196845504155734, 2.2629514606666117, 0.25911505055830775, -0.3090169943749472, 1.4999999999999964, 7.999999999999998, 0.8090169943749478, -0.328152749066689, 1.070381872666725, -2.238635121708223, -0.2924483838916409, -0.8333333333333338, -4.166666666666673, -4.166666666666672, -0.8333333333333336, 0.49999999999999933, -1.5450849718747361, 4.045084971874741, 7.0, 0.5000000000000003, -1.5450849718747401, 4.045084971874742, 7.000000000000003 };


/* law maxwell2d (IR hash 3a5179a2edce9b09) */
DEVICE_FN void law_flux(const real* qm, const real* mm, real* out)
{
    const real f4 = -qm[2];
    const real f5 = -qm[1];
    out[0] = 0.0;
    out[1] = f4;
    out[2] = f5;
    out[3] = qm[2];
    out[4] = 0.0;
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
    const real n17 = 0.5 * n16;
    const real n18 = qm[1] + qp[1];
    const real n19 = 0.5 * n18;
    const real n20 = qm[2] + qp[2];
    const real n21 = 0.5 * n20;
    const real n22 = ny * n21;
    const real n23 = 1.0 * 0.5;
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

/* A face's link packs an interior face's neighbour as 8·element + 2·face + reversed (≥ 0) and a boundary face's
   condition c as −(c + 1). Own face node i meets the neighbour's node LINK_FACE_NODE(face, reversed ? NFP − 1 − i : i),
   in closed form: row r of the triangle (NFP − r nodes) starts at node r·NFP − r(r − 1)/2; face 0 is row 0, face 1
   holds column NFP − 1 − i of row i, face 2 column 0 of row i (the generator checks it against the element's face
   mask) */
#define LINK_FACE_NODE(f, i) ((f) == 0 ? (i) : (i) * NFP - (i) * ((i) - 1) / 2 + ((f) == 1 ? NFP - 1 - (i) : 0))
#define LINK_NODE(l, i, fs) NODE_OFF((l) >> 3, LINK_FACE_NODE(((l) >> 1) & 3, ((l) & 1) ? NFP - 1 - (i) : (i)), fs)
/* face_jump_own with the face's link l: the neighbour's node and element from it, or the boundary condition, so
   that neither vmap_p, face_bc nor neigh is loaded */
DEVICE_FN void face_jump_link(const int k, const int j, const real* qm, const int l, GPTR const real* RESTRICT q,
                          GPTR const real* RESTRICT face_geo, GPTR const real* RESTRICT face_xy,
                          GPTR const real* RESTRICT mat, const real t, const int fs, real* jump)
{
    const int face = 3 * k + j / NFP;
    const real nx = face_geo[3 * face], ny = face_geo[3 * face + 1], fscale = face_geo[3 * face + 2];
    real qp[NV], mm[NMAT + 1], mp[NMAT + 1];
    /* an address valid on every face (a boundary face's is its own element's), formed before the boundary test so
       that the branch holds the loads alone */
    const int lv = l >= 0 ? l : 8 * k, kp = lv >> 3, op = LINK_NODE(lv, j % NFP, fs);
    for (int m = 0; m < NMAT; ++m) { mm[m] = mat[k * NMAT + m]; mp[m] = mat[kp * NMAT + m]; }
    if (l >= 0) {
        for (int v = 0; v < NV; ++v) qp[v] = q[v * fs + op];
    } else {
        const int idx = k * NFACE_NODES + j;
        law_boundary(-l - 1, qm, mm, nx, ny, face_xy[2 * idx], face_xy[2 * idx + 1], t, qp);
    }
    face_jump_of(qm, qp, mm, mp, nx, ny, fscale, jump);
}

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
            /* each face's link (its neighbour packed, LINK_NODE, or its boundary condition), so that no load goes
               through vmap_p, face_bc or neigh */
            int lk[3];
#pragma unroll
            for (int f = 0; f < 3; ++f) lk[f] = links[3 * k + f];
#define ELEM_FACE_JUMP(j, node) do { \
                real qm_[NV], jump_[NV]; \
                for (int v = 0; v < NV; ++v) qm_[v] = qe[v][node]; \
                face_jump_link(k, j, qm_, lk[(j) / NFP], q, face_geo, face_xy, mat, t, fs, jump_); \
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
            const double2 g01 = ((const double2*)geo)[2 * k], g23 = ((const double2*)geo)[2 * k + 1];
            const real rx = g01.x, sx = g01.y, ry = g23.x, sy = g23.y;

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

