#!/usr/bin/env bash
# Builds and runs scripts/probe/tma_floor.cu for each configuration "N W STAGES FMAS [NEIGH [ILP]]" and, for comparison on
# the same card, scripts/probe/jobs_floor.cu for each "N TPE BLOCK STREAM FMAS" of JOBS (parallel builds), two passes.
set -u
OUT=${OUT:-/tmp/tma_out}; BIN=${BIN:-/tmp/tma_bin}; mkdir -p "$OUT" "$BIN"
CONFIGS=${CONFIGS:-"3 32 2 0
3 32 2 37
3 32 3 37
3 64 2 37
5 32 2 0
5 32 2 55
5 32 3 55
5 64 2 55
5 32 2 55 0
8 32 2 0
8 32 2 47
8 32 2 95"}
JOBS=${JOBS-"3 1 128 1 0
3 1 128 1 37
5 1 128 0 0
5 1 128 0 55
8 1 128 1 0
8 2 128 1 95"}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/results.txt"
nvcc --version | tail -1 | tee -a "$OUT/results.txt"
date -u | tee -a "$OUT/results.txt"
while read -r n w s fm ne il; do
  [ -z "$n" ] && continue
  name="tma_${n}_${w}_${s}_${fm}_${ne:-1}_${il:-0}"
  ( nvcc -O3 -arch=sm_90a -DORD=$n -DTW=$w -DSTAGES=$s -DFMAS=$fm -DNEIGH=${ne:-1} -DILP=${il:-0} -DILP_ROLLED=${ROLLED:-0} -Xptxas -v -o "$BIN/$name" \
      scripts/probe/tma_floor.cu -ldl > "$BIN/$name.log" 2>&1 || { echo "BUILD FAILED $name"; cat "$BIN/$name.log"; } ) &
done <<< "$CONFIGS"
while read -r n t b st fm; do
  [ -z "$n" ] && continue
  name="floor_${n}_${t}_${b}_${st}_${fm}"
  ( nvcc -O3 -arch=sm_90 -DN=$n -DTPE=$t -DBLOCK=$b -DSTREAM=$st -DFMAS=$fm -Xptxas -v -o "$BIN/$name" \
      scripts/probe/jobs_floor.cu > "$BIN/$name.log" 2>&1 || echo "BUILD FAILED $name" ) &
done <<< "$JOBS"
wait
for pass in 1 2; do
  while read -r n w s fm ne il; do
    [ -z "$n" ] && continue
    "$BIN/tma_${n}_${w}_${s}_${fm}_${ne:-1}_${il:-0}" $((1 << 24)) ${CEILING:-4377.7} 2>&1 | sed "s/^/pass $pass tma /" | tee -a "$OUT/results.txt"
  done <<< "$CONFIGS"
  while read -r n t b st fm; do
    [ -z "$n" ] && continue
    "$BIN/floor_${n}_${t}_${b}_${st}_${fm}" $((1 << 24)) ${CEILING:-4377.7} 2>&1 | sed "s/^/pass $pass jobs /" | tee -a "$OUT/results.txt"
  done <<< "$JOBS"
done
grep -h "spill\|BUILD FAILED\|error" "$BIN"/*.log | sort | uniq -c | tee -a "$OUT/results.txt"
date -u | tee -a "$OUT/results.txt"
