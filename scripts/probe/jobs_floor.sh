#!/usr/bin/env bash
# Builds and runs scripts/probe/jobs_floor.cu for each configuration "N T BLOCK [STREAM]" (parallel builds), two runs each.
set -u
OUT=${OUT:-/tmp/floor_out}; BIN=${BIN:-/tmp/floor_bin}; mkdir -p "$OUT" "$BIN"
CONFIGS=${CONFIGS:-"3 1 128
3 2 128
4 1 128
4 2 128
5 1 128
5 2 128
5 4 128
6 2 128
6 4 128
7 4 128
7 6 192
8 2 128
8 4 128
8 6 192
8 8 256"}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/results.txt"
date -u | tee -a "$OUT/results.txt"
while read -r n t b st; do
  [ -z "$n" ] && continue
  ( nvcc -O3 -arch=sm_90 -DN=$n -DTPE=$t -DBLOCK=$b -DSTREAM=${st:-0} -Xptxas -v -o "$BIN/floor_${n}_${t}_${b}_${st:-0}" \
      scripts/probe/jobs_floor.cu > "$BIN/floor_${n}_${t}_${b}_${st:-0}.log" 2>&1 || echo "BUILD FAILED $n $t $b ${st:-0}" ) &
done <<< "$CONFIGS"
wait
for pass in 1 2; do
  while read -r n t b st; do
    [ -z "$n" ] && continue
    "$BIN/floor_${n}_${t}_${b}_${st:-0}" $((1 << 24)) ${CEILING:-4377.7} 2>&1 | sed "s/^/pass $pass /" | tee -a "$OUT/results.txt"
  done <<< "$CONFIGS"
done
grep -h "spill\|BUILD FAILED\|error" "$BIN"/*.log | sort | uniq -c | tee -a "$OUT/results.txt"
date -u | tee -a "$OUT/results.txt"
