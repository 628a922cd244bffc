#!/usr/bin/env bash
# Builds and runs scripts/probe/jobs_floor.cu for each configuration "N T BLOCK [STREAM [FMAS]]" (parallel builds), two runs each;
# LAYOUT=1|2 in the environment: the state in tiles of 32 elements (see the .cu); REAL=double: the probe in f64
# (CEILING then the bandwidth as before; the stand-in multiply-adds on the f64 pipe).
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
while read -r n t b st fm; do
  [ -z "$n" ] && continue
  name="floor_${n}_${t}_${b}_${st:-0}_${fm:-0}_${LAYOUT:-0}_${REAL:-float}"
  ( nvcc -O3 -arch=sm_90 -DN=$n -DTPE=$t -DBLOCK=$b -DSTREAM=${st:-0} -DFMAS=${fm:-0} -DLAYOUT=${LAYOUT:-0} -DREAL=${REAL:-float} -Xptxas -v -o "$BIN/$name" \
      scripts/probe/jobs_floor.cu > "$BIN/$name.log" 2>&1 || echo "BUILD FAILED $name" ) &
done <<< "$CONFIGS"
wait
for pass in 1 2; do
  while read -r n t b st fm; do
    [ -z "$n" ] && continue
    "$BIN/floor_${n}_${t}_${b}_${st:-0}_${fm:-0}_${LAYOUT:-0}_${REAL:-float}" $((1 << 24)) ${CEILING:-4377.7} 2>&1 | sed "s/^/pass $pass /" | tee -a "$OUT/results.txt"
  done <<< "$CONFIGS"
done
grep -h "spill\|BUILD FAILED\|error" "$BIN"/*.log | sort | uniq -c | tee -a "$OUT/results.txt"
date -u | tee -a "$OUT/results.txt"
