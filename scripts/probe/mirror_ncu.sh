#!/usr/bin/env bash
# Where the mirror tiles' time goes: Nsight Compute (speed of light, occupancy, launch statistics, warp states,
# memory) on the N = 7 winners of both precisions and on the tile they replaced (the right-hand side of a short
# maxwell-cavity run with the variant forced), then the minimum bytes' floor in f64 (scripts/probe/jobs_floor.sh,
# REAL=double, dg's tiled layout) with stand-ins that add the mirror winners' multiply-adds per value.
# usage: DG=path/to/dg OUT=dir bash scripts/probe/mirror_ncu.sh
set -u
DG=${DG:?}; OUT=${OUT:?}; R=$OUT/r; mkdir -p "$R"
pack() { (cd "$OUT" && tar -czf results.tgz r); }
date -u +%FT%TZ | tee -a "$R/date"
CONFIGS="5 1 128 1
6 2 128
7 1 128 1
7 2 128
8 2 128
8 1 128 1
6 2 128 0 38
7 1 128 1 44
7 2 128 0 44
8 2 128 0 51" REAL=double LAYOUT=2 CEILING=3094.7 OUT=$R/floor64 BIN=/tmp/floor_bin timeout 200 bash scripts/probe/jobs_floor.sh > "$R/floor64.txt" 2>&1
echo "floor64 rc $?"; grep -E "^pass" "$R/floor64/results.txt" | sed 's/ LAYOUT=2//; s/, multiply-adds alone/; FMA/' | cut -c1-200; pack
for job in "7 f32 mirror5/wg32/seq1/matrix-local/merged/tiled/f32/mixed" "7 f32 tile6/wg32/seq1/matrix-local/merged/tiled/f32/mixed" "7 f64 mirror4/wg32/seq1/matrix-local/merged/tiled/f64/mixed"; do
  set -- $job; tag=n$1-$2-${3%%/*}
  timeout 150 ncu --launch-skip 3 --launch-count 1 -k regex:'mirror|tile' --section SpeedOfLight --section Occupancy --section LaunchStats \
    --section WarpStateStats --section MemoryWorkloadAnalysis \
    "$DG" run maxwell-cavity --order $1 --nx 400 --t-end 1e-4 --precision $2 --variant "$3" --device cuda:0 > "$R/ncu-$tag.txt" 2>&1
  echo "== $tag rc $?"
  grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|DRAM Throughput|L1/TEX Hit|L2 Hit|Memory Throughput|Compute \(SM\)|No Eligible|Warp Cycles Per Issued|Shared Memory Configuration Size|Dynamic Shared|Static Shared" "$R/ncu-$tag.txt" | head -24
  pack
done
date -u +%FT%TZ | tee -a "$R/date"; pack
