#!/usr/bin/env bash
# The faces-ahead mirror tiles reading each face's packed link (one int per face: the neighbour's element, face and
# orientation, or the boundary condition) instead of vmap_p per face node and face_bc and neigh per face
# (DG_MIRROR_LINKS=1), and other chunk sizes (DG_MIRROR_CHUNK=n), on the H100: an experimental binary
# (scripts/probe/links_chunk_exp.patch), `dg bench --variant` at 16M DOF (each process verifies first), the shipped
# kernels (no variable set) timed beside each, twice, alternating. NCU=1: Nsight Compute of N = 6 f32 with and without.
# usage: EXP=path/to/experimental/dg OUT=dir bash scripts/probe/links_chunk.sh
set -u
EXP=${EXP:?}; OUT=${OUT:?}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
pack() { (cd "$OUT" && tar -czf results.tgz r); }
. "$(dirname "$0")/bench_variant_lib.sh"
nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u +%FT%TZ | tee -a "$R/date"
M=matrix-local/merged/tiled
for pass in 1 2; do
  b 6 unrolled4/wg32/seq1/$M/f32/mixed X=0
  b 6 unrolled4/wg32/seq1/$M/f32/mixed DG_MIRROR_LINKS=1
  b 7 unrolled4/wg32/seq1/$M/f32/mixed X=0
  b 7 unrolled4/wg32/seq1/$M/f32/mixed DG_MIRROR_LINKS=1
  b 8 ahead7/wg32/seq1/$M/f32/mixed X=0
  b 8 ahead7/wg32/seq1/$M/f32/mixed DG_MIRROR_LINKS=1
  b 8 ahead5/wg16/seq1/$M/f64/mixed X=0
  b 8 ahead5/wg16/seq1/$M/f64/mixed DG_MIRROR_LINKS=1
  pack
done | tee "$R/links.txt"
{
  b 5 ahead3/wg32/seq1/$M/f32/mixed X=0
  b 5 ahead3/wg32/seq1/$M/f32/mixed DG_MIRROR_LINKS=1
  b 8 unrolled7/wg32/seq1/$M/f32/mixed DG_MIRROR_LINKS=1
  b 6..7 ahead4/wg32/seq1/$M/f64/mixed X=0
  b 6..7 ahead4/wg32/seq1/$M/f64/mixed DG_MIRROR_LINKS=1
  b 8 unrolled4/wg16/seq1/$M/f64/mixed DG_MIRROR_LINKS=1
  b 8 ahead5/wg32/seq1/$M/f64/mixed DG_MIRROR_LINKS=1 DG_MIRROR_CHUNK=13
  b 6 unrolled4/wg32/seq1/$M/f32/mixed DG_MIRROR_LINKS=1 DG_MIRROR_CHUNK=16
  b 6 unrolled4/wg32/seq1/$M/f32/mixed DG_MIRROR_LINKS=1 DG_MIRROR_CHUNK=8
  b 7 unrolled4/wg32/seq1/$M/f32/mixed DG_MIRROR_LINKS=1 DG_MIRROR_CHUNK=20
  b 7 unrolled4/wg32/seq1/$M/f32/mixed DG_MIRROR_LINKS=1 DG_MIRROR_CHUNK=10
  b 8 ahead7/wg32/seq1/$M/f32/mixed DG_MIRROR_LINKS=1 DG_MIRROR_CHUNK=25
  b 8 ahead7/wg32/seq1/$M/f32/mixed DG_MIRROR_LINKS=1 DG_MIRROR_CHUNK=9
} | tee "$R/more.txt"; pack
[ "${NCU:-0}" = 1 ] || { date -u +%FT%TZ | tee -a "$R/date"; pack; exit 0; }
for l in 0 1; do
  env $([ $l = 1 ] && echo DG_MIRROR_LINKS=1 || echo X=0) timeout 100 ncu --launch-skip 3 --launch-count 1 -k regex:mirror \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis \
    -o "$R/ncu-n6-l$l" "$EXP" run maxwell-cavity --order 6 --nx 400 --t-end 1e-4 --precision f32 \
    --variant unrolled4/wg32/seq1/$M/f32/mixed $D > "$R/ncu-n6-l$l.log" 2>&1
  echo "== ncu links=$l rc $?"; ncu -i "$R/ncu-n6-l$l.ncu-rep" --print-details all > "$R/ncu-n6-l$l.txt" 2>&1
  grep -E "Duration|Registers Per|Achieved Occupancy|DRAM Throughput|Memory Throughput|Issued Ipc|No Eligible|dram__bytes" "$R/ncu-n6-l$l.txt" | head -12
  pack
done
date -u +%FT%TZ | tee -a "$R/date"; pack
