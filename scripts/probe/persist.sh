#!/usr/bin/env bash
# The N = 8 winners' passes without the register prefetch (DG_PROBE_NOPREFETCH=1: each pass loads its own states as
# seq1 does, the operator copied once per group), contiguous (seq<s>) or strided by the grid (DG_PROBE_STRIDE=1,
# DG_PROBE_GRID=G groups, pass s of group g on tile g + s·G: a grid of one wave that stays resident).
# usage: EXP=path/to/dg OUT=dir bash scripts/probe/persist.sh   (a binary built with scripts/probe/persist.patch)
set -u
EXP=${EXP:?}; OUT=${OUT:?}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
. "$(dirname "$0")/bench_variant_lib.sh"
nvidia-smi -L; date -u +%FT%TZ | tee -a "$R/date"
F=matrix-local/merged/tiled
N=DG_PROBE_NOPREFETCH=1; S="DG_PROBE_STRIDE=1 DG_PROBE_NOPREFETCH=1"
{
b 8 balanced4/wg32/seq1/$F/f32/mixed
b 8 balanced4/wg32/seq2/$F/f32/mixed $N
b 8 balanced4/wg32/seq4/$F/f32/mixed $N
b 8 balanced4/wg32/seq8/$F/f32/mixed $N
b 8 balanced4/wg32/seq8/$F/f32/mixed $S DG_PROBE_GRID=528
b 8 balanced4/wg32/seq4/$F/f32/mixed $S DG_PROBE_GRID=1056
b 8 balanced4/wg32/seq16/$F/f32/mixed $S DG_PROBE_GRID=396
b 8 balanced4/wg32/seq8/$F/f32/mixed $S DG_PROBE_GRID=466
b 8 balanced4/wg32/seq1/$F/f32/mixed
b 8 balanced7/wg16/seq1/$F/f64/mixed
b 8 balanced7/wg16/seq2/$F/f64/mixed $N
b 8 balanced7/wg16/seq4/$F/f64/mixed $N
b 8 balanced7/wg16/seq16/$F/f64/mixed $S DG_PROBE_GRID=528
b 8 balanced7/wg16/seq8/$F/f64/mixed $S DG_PROBE_GRID=1056
b 8 balanced7/wg16/seq15/$F/f64/mixed $S DG_PROBE_GRID=497
b 8 balanced7/wg16/seq1/$F/f64/mixed
b 7 whole5b5/wg32/seq1/$F/f32/mixed
b 7 whole5b5/wg32/seq8/$F/f32/mixed $S DG_PROBE_GRID=660
} 2>&1 | tee "$R/table.txt"
# the steady state: 128M DOFs (29,670 tiles of 32 elements)
D="--device cuda:0 --min-dofs 128000000"
{
b 8 balanced4/wg32/seq1/$F/f32/mixed
b 8 balanced4/wg32/seq64/$F/f32/mixed $S DG_PROBE_GRID=528
} 2>&1 | tee -a "$R/table.txt"
date -u +%FT%TZ | tee -a "$R/date"; (cd "$OUT" && tar -czf results.tgz r)
