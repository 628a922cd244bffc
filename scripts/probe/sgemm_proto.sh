#!/usr/bin/env bash
# Builds and runs scripts/probe/sgemm_proto.cu over a list of configurations (N G TM TN ASRC MINB), in parallel builds.
set -u
OUT=${OUT:-/tmp/sgemm_out}; BIN=${BIN:-/tmp/sgemm_bin}; mkdir -p "$OUT" "$BIN"
CONFIGS=${CONFIGS:-"8 32 6 8 0 1
8 32 6 8 1 1
8 32 5 8 0 1
8 32 9 8 0 1
8 32 6 4 0 1
8 32 12 4 0 1
8 64 6 8 1 1
8 16 6 8 0 1
8 32 3 8 0 1
8 32 8 8 0 1
8 32 5 4 1 1
7 32 6 8 0 1
7 32 9 8 0 1
6 32 7 8 0 1
6 32 4 8 0 1
5 32 7 8 0 1
5 32 3 8 0 1"}
while read -r n g tm tn as mb extra; do
  [ -z "$n" ] && continue
  name="n${n}_g${g}_tm${tm}_tn${tn}_a${as}_m${mb}${extra:+_${extra//[^A-Za-z0-9]/_}}"
  defs=""; for d in ${extra//,/ }; do defs="$defs -D$d"; done
  ( nvcc -O3 -arch=sm_90 -std=c++17 -DN=$n -DG=$g -DTM=$tm -DTN=$tn -DASRC=$as -DMINB=$mb $defs ${extra:+-DEXTRA=\"$extra\"} \
      -Xptxas -v -o "$BIN/$name" scripts/probe/sgemm_proto.cu > "$BIN/$name.log" 2>&1 || echo "BUILD FAILED $name" ) &
done <<< "$CONFIGS"
wait
for b in "$BIN"/*; do
  case "$b" in *.log) continue;; esac
  "$b" 2>&1 | tee -a "$OUT/results.txt"
done
grep -h "FAILED\|error\|registers\|spill" "$BIN"/*.log | sort | uniq -c | head -40
