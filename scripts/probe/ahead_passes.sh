#!/usr/bin/env bash
# The mirror tiles with faces read ahead (`ahead<t>`) in several passes per group, a later pass's first chunk, face
# indices, face data and geometry read during the lift of the one before (seq2, seq4), beside other group sizes
# (wg16 in f64 at N = 8, where wg32 needs more local memory than a group may have; wg64), on the H100 at the orders
# where the 60 % point fails (f32 N = 6..8, f64 N = 7..8): each variant benched at 16M DOF (`dg bench --variant`,
# each process verifying first), the shipped winners among them (seq1 and mma16 kernels unchanged). Then, with an experimental
# binary ($EXP, scripts/probe/ahead_passes_exp.patch: `__launch_bounds__(threads, G)` from DG_MIRROR_MIN_GROUPS and
# NVRTC's -lineinfo from DG_NVRTC_LINEINFO, the volume's and the lift's column loops unrolled from DG_MIRROR_UNROLL),
# the winners under G and unrolled, and Nsight Compute's warp states and per-source-line
# stall samples on the N = 6 and N = 8 f32 winners. Packed after every step.
# usage: DG=path/to/dg EXP=path/to/experimental/dg OUT=dir bash scripts/probe/ahead_passes.sh
set -u
DG=${DG:?}; EXP=${EXP:?}; OUT=${OUT:?}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
pack() { (cd "$OUT" && tar -czf results.tgz r); }
nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u +%FT%TZ | tee -a "$R/date"
row() { grep -E "^ *[0-9] " "$1" | awk '{print "N"$1, $2, $3, $4, $8}'; }
i=0
for job in "6..8 ahead4/wg32/seq1 f32" "6..8 ahead4/wg32/seq2 f32" "6..8 ahead4/wg32/seq4 f32" "6..8 ahead5/wg32/seq2 f32" \
  "8 ahead7/wg32/seq1 f32" "8 ahead7/wg32/seq2 f32" "8 ahead7/wg32/seq4 f32" "6..7 ahead3/wg32/seq2 f32" \
  "6..8 ahead4/wg64/seq1 f32" "8 ahead7/wg64/seq1 f32" \
  "7..8 ahead4/wg32/seq1 f64" "7..8 ahead4/wg32/seq2 f64" "7..8 ahead4/wg16/seq2 f64" "8 ahead4/wg16/seq1 f64" \
  "8 ahead5/wg16/seq1 f64" "8 ahead7/wg16/seq1 f64" "8 ahead5/wg16/seq2 f64" "8 ahead3/wg16/seq2 f64" \
  "8 mma16/wg8/seq1/field-local/merged/tiled/f64"; do
  set -- $job; i=$((i + 1)); v=$2; [ $# -gt 2 ] && v=$2/matrix-local/merged/tiled/$3/mixed
  timeout 60 "$DG" bench maxwell2d --orders $1 --variant $v $D > "$R/v$i.txt" 2>&1
  echo "$v rc $?: $(row "$R/v$i.txt" | awk '{print $1, $4, $5}' | tr '\n' ' ')$(grep -c 'NOT VERIFIED' "$R/v$i.txt") unverified"
done | tee "$R/sweep.txt"; pack
for job in "6..7 ahead4/wg32/seq1 f32 5 6" "8 ahead7/wg32/seq1 f32 5 6" "6..8 ahead4/wg32/seq2 f32 5 6" "7 ahead4/wg32/seq1 f64 4"; do
  set -- $job; orders=$1; v=$2/matrix-local/merged/tiled/$3/mixed; shift 3
  for g in "$@"; do
    DG_MIRROR_MIN_GROUPS=$g timeout 60 "$EXP" bench maxwell2d --orders $orders --variant $v $D > "$R/g.txt" 2>&1
    echo "$v G=$g rc $?: $(row "$R/g.txt" | awk '{print $1, $4, $5}' | tr '\n' ' ')$(grep -c 'NOT VERIFIED' "$R/g.txt") unverified"
  done
done | tee "$R/bounds.txt"; pack
for job in "6..8 ahead4/wg32/seq1 f32" "8 ahead7/wg32/seq1 f32" "6..8 ahead4/wg32/seq2 f32" "7..8 ahead4/wg32/seq1 f64" "8 ahead4/wg16/seq1 f64"; do
  set -- $job; v=$2/matrix-local/merged/tiled/$3/mixed
  for g in 0 6; do
    [ $3 = f64 ] && [ $g = 6 ] && continue
    DG_MIRROR_UNROLL=1 DG_MIRROR_MIN_GROUPS=$g timeout 60 "$EXP" bench maxwell2d --orders $1 --variant $v $D > "$R/u.txt" 2>&1
    echo "$v unrolled G=$g rc $?: $(row "$R/u.txt" | awk '{print $1, $4, $5}' | tr '\n' ' ')$(grep -c 'NOT VERIFIED' "$R/u.txt") unverified"
  done
done | tee "$R/unroll.txt"; pack
for job in "6 ahead4/wg32/seq1 f32" "8 ahead7/wg32/seq1 f32"; do
  set -- $job; v=$2/matrix-local/merged/tiled/$3/mixed; tag=n$1-$3-${2%%/*}
  DG_NVRTC_LINEINFO=1 timeout 150 ncu --launch-skip 3 --launch-count 1 -k regex:mirror --section SpeedOfLight \
    --section Occupancy --section LaunchStats --section WarpStateStats --section SourceCounters -o "$R/ncu-$tag" \
    "$EXP" run maxwell-cavity --order $1 --nx 400 --t-end 1e-4 --precision $3 --variant "$v" $D > "$R/ncu-$tag.log" 2>&1
  echo "== ncu $tag rc $?"
  ncu -i "$R/ncu-$tag.ncu-rep" --print-details all > "$R/ncu-$tag.txt" 2>&1
  grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit Reg|Block Limit Shared|DRAM Throughput|Warp Cycles Per Issued|No Eligible" "$R/ncu-$tag.txt" | head -12
  timeout 60 ncu -i "$R/ncu-$tag.ncu-rep" --page source --csv --print-source cuda,sass > "$R/ncu-$tag-source.csv" 2> "$R/ncu-$tag-source.err"
  echo "source page rc $? ($(wc -l < "$R/ncu-$tag-source.csv") lines)"; pack
done
date -u +%FT%TZ | tee -a "$R/date"; pack
