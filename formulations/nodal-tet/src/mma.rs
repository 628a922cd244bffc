//! The GEMM strategy's products on generated tensor-core kernels (`templates/nodal-tet/tet_gemm_mma.tera`; CUDA,
//! f32 as three tf32 products of split operands): their shapes, tiles and load modes, and the constant operator
//! in the order the kernels read its fragments.

use dg_codegen::tensor_cores::tf32_split;

/// One of the GEMM strategy's three products.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum TetGemm {
    /// [Dr; Ds; Dt]·Q_u per differentiated field u (rows 3·Np, depth Np, β = 0).
    Gradient,
    /// −[Dr Ds Dt]·G_v per output v formed from its flux (rows Np, depth 3·Np, β = 0).
    Divergence,
    /// LIFT·J over every element and variable, added to the right-hand side (rows Np, depth 4·Nfp, β = 1).
    Lift,
    /// The lift, then an AB3 step's update of the state from the right-hand side it writes and the two before.
    LiftAb3,
}

impl TetGemm {
    /// Whether its operator is LIFT (the lift and the lift with the update share one fragment buffer).
    pub fn lifts(self) -> bool {
        matches!(self, TetGemm::Lift | TetGemm::LiftAb3)
    }
}

/// Which depth indices a lane's two values of B in a step are (it reads them as one 8-byte word from shared
/// memory).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum MmaLoad {
    /// Lane t of a step pair reads depth indices 4t..4t + 4 of the pair's 16 (depth a multiple of 16) as one
    /// 16-byte word, no bank conflict.
    Quad,
    /// Lane t reads depth indices 2t, 2t + 1 of its step's 8.
    Pair,
}

/// One tensor-core GEMM kernel: C = α·A·B (+ C) with A the constant operator (`rows_used` × `depth`), B and C
/// column-major with leading dimensions `ldb` and `ldc`, over every column.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MmaGemm {
    /// Which product.
    pub gemm: TetGemm,
    /// Kernel name.
    pub name: String,
    /// Rows of C written (the rest are padding, neither read nor written).
    pub rows_used: usize,
    /// Depth (columns of A, rows of B read).
    pub depth: usize,
    /// Leading dimension of B.
    pub ldb: usize,
    /// Leading dimension of C.
    pub ldc: usize,
    /// α.
    pub alpha: f64,
    /// β = 1 (else 0: C is not read).
    pub accumulate: bool,
    /// Row tiles of 16 per warp.
    pub tiles_per_warp: usize,
    /// Row chunks (`tiles_per_warp` tiles each; the operator's fragments are zero past its rows).
    pub chunks: usize,
    /// Column tiles of 8 per warp.
    pub column_tiles: usize,
    /// Warps per work group.
    pub warps: usize,
    /// How B is read.
    pub load: MmaLoad,
    /// Slabs in flight (`cp.async` stages).
    pub stages: usize,
    /// Whether every column of B starts 16-byte aligned (the leading dimension and every offset a multiple of
    /// 4 values), which the kernel's 16-byte copies need: the kernel is rendered only then.
    pub aligned: bool,
}

impl MmaGemm {
    /// The kernel for `gemm` with rows, depth and leading dimensions as given, B read at the element offsets
    /// `offsets` (one launch each), default tiles: 4 column tiles, 4 warps, 3 stages, and up to 4 row tiles per
    /// warp (as few chunks as hold every row tile so): 48 KiB of shared memory.
    pub fn new(
        gemm: TetGemm,
        (rows_used, depth): (usize, usize),
        (ldb, ldc): (usize, usize),
        offsets: &[usize],
    ) -> Self {
        let row_tiles = rows_used.div_ceil(16).max(1);
        let chunks = row_tiles.div_ceil(4);
        let (alpha, accumulate) = match gemm {
            TetGemm::Gradient => (1.0, false),
            TetGemm::Divergence => (-1.0, false),
            // C is loaded into the accumulators: α = 1
            TetGemm::Lift | TetGemm::LiftAb3 => (1.0, true),
        };
        let name = match gemm {
            TetGemm::Gradient => "tet_mma_gradient",
            TetGemm::Divergence => "tet_mma_divergence",
            TetGemm::Lift => "tet_mma_lift",
            TetGemm::LiftAb3 => "tet_mma_lift_ab3",
        };
        Self {
            gemm,
            name: name.into(),
            rows_used,
            depth,
            ldb,
            ldc,
            alpha,
            accumulate,
            tiles_per_warp: row_tiles.div_ceil(chunks),
            chunks,
            column_tiles: 4,
            warps: 4,
            load: if depth % 16 == 0 { MmaLoad::Quad } else { MmaLoad::Pair },
            stages: 3,
            aligned: ldb % 4 == 0 && offsets.iter().all(|o| o % 4 == 0),
        }
    }

    /// Steps of 8 depth indices (the last one padded with zeros), even for [`MmaLoad::Quad`].
    pub fn steps(&self) -> usize {
        self.depth.div_ceil(8)
    }

    /// Columns of C one work group computes.
    pub fn columns_per_group(&self) -> usize {
        8 * self.column_tiles * self.warps
    }

    /// Work groups for `n` columns.
    pub fn groups(&self, n: usize) -> usize {
        n.div_ceil(self.columns_per_group()).max(1) * self.chunks
    }

    /// Work groups a multiprocessor should hold at once (`__launch_bounds__`' second bound): as many as 228 KiB
    /// of shared memory hold (an H100's or H200's), at most 4 — the lift's 132 registers would allow only 3.
    pub fn min_groups(&self) -> usize {
        (228 * 1024 / (self.shared_bytes() + 1024)).clamp(1, 4)
    }

    /// Work items per group.
    pub fn local_size(&self) -> usize {
        32 * self.warps
    }

    /// The depth index the instruction's position `kk` (0..8) of step `s` stands for: lane (g, t) holds positions
    /// t and t + 4, which are made consecutive depth indices (and, for [`MmaLoad::Quad`], the two steps of a pair
    /// four consecutive ones) so that one vector load reads them.
    pub fn depth_index(&self, s: usize, kk: usize) -> usize {
        let (t, high) = (kk % 4, kk / 4);
        match self.load {
            MmaLoad::Quad => 16 * (s / 2) + 4 * t + 2 * (s % 2) + high,
            MmaLoad::Pair => 8 * s + 2 * t + high,
        }
    }

    /// Steps per slab a work group copies into shared memory at a time.
    pub fn slab(&self) -> usize {
        2
    }

    /// Bytes of shared memory the kernel declares: per stage, a slab's fragments (1 KiB per step and row tile)
    /// and the group's columns of B at 16 depth indices.
    pub fn shared_bytes(&self) -> usize {
        self.stages * (self.slab() * self.tiles_per_warp * 1024 + self.columns_per_group() * 16 * 4)
    }

    /// The position of fragment (row tile `tile`, step `s`) in [`Self::fragments`], in fragments of 256 values:
    /// chunk-major, then step, then the tile within the chunk (a slab of steps of a chunk is contiguous).
    pub fn fragment_index(&self, tile: usize, s: usize) -> usize {
        let (chunk, within) = (tile / self.tiles_per_warp, tile % self.tiles_per_warp);
        (chunk * self.steps() + s) * self.tiles_per_warp + within
    }

    /// The operator `a(row, depth)` (read for rows below `rows_used` and depths below `depth`, zero elsewhere) in
    /// the order the kernel reads it ([`Self::fragment_index`]), each fragment 32 lanes l = 4g + t of the high tf32
    /// parts of a_0..a_3, then their low parts, a_j = A(16·tile + g + 8·(j % 2), depth_index(s, t + 4·(j / 2)))
    /// — the `mma.m16n8k8.tf32` A fragment.
    pub fn fragments(&self, a: impl Fn(usize, usize) -> f64) -> Vec<f32> {
        let (tiles, steps) = (self.chunks * self.tiles_per_warp, self.steps());
        let mut out = vec![0.0f32; tiles * steps * 256];
        for tile in 0..tiles {
            for s in 0..steps {
                let at = self.fragment_index(tile, s) * 256;
                for lane in 0..32 {
                    let (g, t) = (lane / 4, lane % 4);
                    for j in 0..4 {
                        let row = 16 * tile + g + 8 * (j % 2);
                        let col = self.depth_index(s, t + 4 * (j / 2));
                        let (high, low) =
                            if row < self.rows_used && col < self.depth { tf32_split(a(row, col)) } else { (0.0, 0.0) };
                        out[at + lane * 8 + j] = high;
                        out[at + lane * 8 + 4 + j] = low;
                    }
                }
            }
        }
        out
    }
}

/// The tensor-core GEMM kernels of a program (gradient, divergence, lift, lift with the AB3 update): `np` nodes,
/// `nface` face nodes, state column stride `ldq`, reference-derivative stride `m3`, `nv` variables, the plan's
/// differentiated fields and flux-differentiated outputs (their offsets decide the alignment).
pub fn mma_gemms(
    (np, nface, ldq, m3, nv): (usize, usize, usize, usize, usize),
    gradient: &[usize],
    divergence: &[usize],
) -> [MmaGemm; 4] {
    [
        MmaGemm::new(
            TetGemm::Gradient,
            (3 * np, np),
            (nv * ldq, nv * m3),
            &gradient.iter().map(|u| u * ldq).collect::<Vec<_>>(),
        ),
        MmaGemm::new(
            TetGemm::Divergence,
            (np, 3 * np),
            (nv * m3, nv * ldq),
            &divergence.iter().map(|v| v * m3).collect::<Vec<_>>(),
        ),
        MmaGemm::new(TetGemm::Lift, (np, nface), (nface, ldq), &[0]),
        MmaGemm::new(TetGemm::LiftAb3, (np, nface), (nface, ldq), &[0]),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The depth index lane (g, t) reads for position kk of step s, as the template reads B from the slab of
    /// 16 depth indices (16 · (s / 2) on) in shared memory: the 8-byte word at 4t + 2u (quad: the 16-byte word
    /// at 4t read once per slab, its first half for step u = 0, its second for u = 1) or 8u + 2t (pair) for the
    /// slab's step u = s % 2, value h for position t + 4h.
    fn kernel_reads(m: &MmaGemm, s: usize, kk: usize) -> usize {
        let (t, h, u) = (kk % 4, kk / 4, s % 2);
        16 * (s / 2)
            + h
            + match m.load {
                MmaLoad::Quad => 4 * t + 2 * u,
                MmaLoad::Pair => 8 * u + 2 * t,
            }
    }

    /// C = A·B for one column b as the kernel forms it: for each row tile and step, the fragment's a_j at
    /// (16·tile + g + 8·(j % 2), position t + 4·(j / 2)) times B at the depth the lane reads for that position,
    /// as the three split products (and as the high product alone).
    fn emulate(m: &MmaGemm, fragments: &[f32], b: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let (tiles, steps) = (m.chunks * m.tiles_per_warp, m.steps());
        let mut split = vec![0.0; tiles * 16];
        let mut high_only = vec![0.0; tiles * 16];
        for tile in 0..tiles {
            for s in 0..steps {
                for lane in 0..32 {
                    let (g, t) = (lane / 4, lane % 4);
                    let base = (m.fragment_index(tile, s) * 32 + lane) * 8;
                    for j in 0..4 {
                        let (ah, al) = (fragments[base + j] as f64, fragments[base + 4 + j] as f64);
                        let row = 16 * tile + g + 8 * (j % 2);
                        let depth = kernel_reads(m, s, t + 4 * (j / 2));
                        let x = if depth < m.depth { b[depth] } else { 0.0 };
                        let (bh, bl) = tf32_split(x);
                        let (bh, bl) = (bh as f64, bl as f64);
                        split[row] += al * bh + ah * bl + ah * bh;
                        high_only[row] += ah * bh;
                    }
                }
            }
        }
        (split, high_only)
    }

    #[test]
    fn the_fragments_and_the_kernels_loads_multiply_to_the_operator_to_f32_accuracy() {
        let mut loads = std::collections::HashSet::new();
        // the tetrahedra's shapes at N = 1..8 (np, 4·nfp), with acoustics' and elasticity's offsets
        for order in 1..=8usize {
            let np = (order + 1) * (order + 2) * (order + 3) / 6;
            let nface = 2 * (order + 1) * (order + 2);
            let (ldq, m3) = (crate::pad_np(np), crate::pad_three_np(3 * np));
            for (nv, grad, div) in [(4, vec![0], vec![0]), (9, vec![0, 1, 2], vec![0, 1, 2])] {
                for m in mma_gemms((np, nface, ldq, m3, nv), &grad, &div) {
                    loads.insert(m.load);
                    let a = |r: usize, c: usize| ((r * 7 + c * 13) % 17) as f64 / 17.0 - 0.4 + 1e-3 * (r as f64).sqrt();
                    let fragments = m.fragments(a);
                    assert_eq!(fragments.len(), m.chunks * m.tiles_per_warp * m.steps() * 256);
                    let b: Vec<f64> = (0..m.depth).map(|i| ((i * 29) % 31) as f64 / 31.0 - 0.45).collect();
                    let (split, high_only) = emulate(&m, &fragments, &b);
                    let exact: Vec<f64> =
                        (0..m.rows_used).map(|r| (0..m.depth).map(|c| a(r, c) * b[c]).sum()).collect();
                    let scale = exact.iter().fold(0.0f64, |s, v| s.max(v.abs()));
                    let err = |got: &[f64]| {
                        (0..m.rows_used).map(|r| (got[r] - exact[r]).abs()).fold(0.0f64, |e, d| {
                            if d > e || d.is_nan() {
                                d
                            } else {
                                e
                            }
                        })
                    };
                    let (e_split, e_high) = (err(&split) / scale, err(&high_only) / scale);
                    assert!(e_split < 1e-6, "N={order} {:?}: split products off by {e_split:e}", m.gemm);
                    assert!(e_high > 1e-5, "N={order} {:?}: the high product alone is {e_high:e} off", m.gemm);
                    // padding rows of the last tile come out zero
                    assert!(split[m.rows_used..].iter().all(|&v| v == 0.0), "N={order} {:?}", m.gemm);
                }
            }
        }
        assert_eq!(loads.len(), 2, "quad and pair orders are both exercised: {loads:?}");
    }

    #[test]
    fn seed_002s_order_7_shapes_take_aligned_copies_and_whole_tiles() {
        let [gradient, divergence, lift, _] = mma_gemms((120, 144, 128, 384, 4), &[0], &[0]);
        assert_eq!((lift.load, lift.steps(), lift.chunks, lift.tiles_per_warp), (MmaLoad::Quad, 18, 2, 4));
        assert_eq!((gradient.load, gradient.chunks, gradient.tiles_per_warp), (MmaLoad::Pair, 6, 4));
        assert_eq!((divergence.load, divergence.steps(), divergence.chunks), (MmaLoad::Pair, 45, 2));
        assert_eq!((gradient.ldb, gradient.ldc, divergence.ldb, divergence.ldc), (512, 1536, 1536, 512));
        assert!(lift.aligned && gradient.aligned && divergence.aligned);
        assert_eq!(lift.shared_bytes(), 48 * 1024);
        assert_eq!(lift.groups(65856), 65856usize.div_ceil(128) * 2);
        // N = 4, elasticity: the state's columns are Np = 35 values apart, not 16-byte aligned
        let [gradient, divergence, lift, _] = mma_gemms((35, 60, 35, 128, 9), &[0, 1, 2], &[0, 1, 2]);
        assert!(!gradient.aligned && divergence.aligned && lift.aligned);
    }
}
