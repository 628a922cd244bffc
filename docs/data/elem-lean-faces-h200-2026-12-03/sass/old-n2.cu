/* dg kernels: maxwell2d N=2 elem/wg128/seq1/matrix-const/merged/node-major/f32/mixed */

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


#define NP 6
#define NFP 3
#define NFACE_NODES 9
#define NV 3
#define NMAT 0
#define MBE 5
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


CONST_MEM real C_DR[36] = { -1.5f, 2.0f, -0.49999999999999983f, -3.349642552035741e-17f, 3.349642552035741e-17f, 0.0f, -0.5000000000000001f, 0.0f, 0.5000000000000001f, -3.349642552035741e-17f, 3.349642552035741e-17f, 0.0f, 0.49999999999999983f, -2.0f, 1.5f, -3.349642552035741e-17f, 3.349642552035741e-17f, 0.0f, -0.4999999999999999f, 1.0f, -0.5f, -1.0000000000000002f, 1.0000000000000002f, 0.0f, 0.5f, -1.0f, 0.4999999999999999f, -1.0000000000000002f, 1.0000000000000002f, 0.0f, 0.5000000000000001f, 0.0f, -0.5000000000000001f, -2.0000000000000004f, 2.0000000000000004f, 0.0f };
CONST_MEM real C_DS[36] = { -1.5f, 4.67081404006936e-17f, -2.33540702003468e-17f, 2.0f, -1.770664795952169e-16f, -0.49999999999999994f, -0.5f, -0.9999999999999999f, -9.861610038888275e-17f, 1.0f, 0.9999999999999999f, -0.49999999999999994f, 0.5000000000000002f, -2.0f, -6.723082995566006e-17f, -1.550517538843165e-16f, 2.0f, -0.49999999999999994f, -0.5f, -3.2157081030911026e-17f, 1.6078540515455513e-17f, 1.100736285545021e-17f, -9.427408970233695e-17f, 0.5f, 0.5000000000000001f, -1.0000000000000002f, 2.1895736253427797e-17f, -1.0000000000000002f, 1.0f, 0.5f, 0.4999999999999999f, -1.028515235106223e-16f, 1.1386737401410836e-16f, -1.9999999999999998f, -1.234470775044685e-16f, 1.5f };
CONST_MEM real C_LIFT[54] = { 4.5f, 2.0000000000000018f, -0.49999999999999956f, 1.0f, 4.0f, 1.0000000000000002f, 4.499999999999999f, 2.0f, -0.5000000000000001f, 0.5000000000000003f, 5.000000000000002f, 0.5000000000000003f, -0.6249999999999999f, -1.5000000000000004f, 0.6250000000000001f, -0.6249999999999999f, -1.5000000000000004f, 0.6250000000000001f, -0.4999999999999998f, 2.0000000000000018f, 4.499999999999999f, 4.499999999999999f, 2.0f, -0.5000000000000001f, 1.0f, 4.0f, 1.0000000000000002f, -0.6250000000000002f, -1.5000000000000007f, 0.6249999999999999f, 0.625f, -1.5000000000000004f, -0.6250000000000002f, 0.5f, 5.000000000000001f, 0.5000000000000001f, 0.625f, -1.5000000000000007f, -0.625f, 0.5f, 5.000000000000001f, 0.5000000000000001f, 0.625f, -1.5000000000000004f, -0.6250000000000002f, 1.0000000000000004f, 4.000000000000003f, 1.0000000000000004f, -0.5000000000000001f, 1.9999999999999998f, 4.5f, -0.5000000000000001f, 1.9999999999999998f, 4.5f };


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
            ELEM_FACE_JUMP(3, 2);
            ELEM_FACE_JUMP(4, 4);
            ELEM_FACE_JUMP(5, 5);
            ELEM_FACE_JUMP(6, 0);
            ELEM_FACE_JUMP(7, 3);
            ELEM_FACE_JUMP(8, 5);
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

