#!/usr/bin/env bash
# Does the grid's last partial wave cost the N = 8 winners a share of their time? `dg bench maxwell2d --orders 8
# --variant V --min-dofs D` at sizes around the 16M-DOF timing mesh (243..260 cells a side: 6.99..8.0 waves of
# 32-element groups at four groups per multiprocessor) and far above it (32M, 64M, 128M DOFs), each process verifying
# first; then Nsight Compute's launch statistics and occupancy of one launch of each winner at 16M DOFs.
# usage: EXP=path/to/dg OUT=dir bash scripts/probe/tail_sizes.sh
set -u
EXP=${EXP:?}; OUT=${OUT:?}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
nvidia-smi -L; date -u +%FT%TZ | tee -a "$R/date"
F32=balanced4/wg32/seq1/matrix-local/merged/tiled/f32/mixed
F64=balanced7/wg16/seq1/matrix-local/merged/tiled/f64/mixed
for v in $F32 $F64; do
  for dofs in 15900000 16000000 16300000 16870000 17700000 18250000 32000000 64000000 128000000; do
    timeout 60 "$EXP" bench maxwell2d --orders 8 --variant $v --min-dofs $dofs $D > "$R/b.txt" 2>&1
    echo "${v%%/*} $dofs rc $?: $(grep -E '^ *8 ' "$R/b.txt" | awk '{print $3, $4, $8}') $(grep -c 'NOT VERIFIED' "$R/b.txt") unverified"
    cat "$R/b.txt" >> "$R/all.txt"
  done
done | tee "$R/sizes.txt"
for v in $F32 $F64; do
  p=${v#*/*/*/*/*/*/}; p=${p%%/*}
  timeout 120 ncu --launch-skip 3 --launch-count 1 -k regex:'mirror|tile|whole|bal' --section Occupancy --section LaunchStats --section SpeedOfLight \
    "$EXP" run maxwell-cavity --order 8 --nx 244 --t-end 1e-4 --precision $p --variant "$v" --device cuda:0 > "$R/ncu-$p.txt" 2>&1
  echo "== ncu $p rc $?"; grep -E "Duration|Waves Per SM|Grid Size|Block Size|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|Shared Memory Per Block|Memory Throughput|DRAM Through" "$R/ncu-$p.txt" | head -20
done
date -u +%FT%TZ | tee -a "$R/date"; (cd "$OUT" && tar -czf results.tgz r)
