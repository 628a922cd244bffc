#!/usr/bin/env bash
# Registers and local memory of the bulk-copy mirror tiles (scripts/probe/bulk_tiles.patch): each job line
# "ORDER SPEC BULK" emitted by EXP (DG_PROBE_BULK=BULK) and compiled by nvcc -arch=sm_90 -Xptxas -v; then the
# non-bulk passes benched beside the one-pass kernels (`dg bench maxwell2d --variant`, 16M DOF, verified first).
# usage: EXP=path/to/dg-with-the-patch OUT=dir JOBS="…" BENCH="…" bash scripts/probe/bulk_ptxas.sh
set -u
EXP=${EXP:?}; OUT=${OUT:?}; JOBS=${JOBS:?}; BENCH=${BENCH:-}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
. "$(dirname "$0")/bench_variant_lib.sh"
nvidia-smi -L; date -u +%FT%TZ | tee -a "$R/date"
echo "$JOBS" | while read -r o v bulk; do
  f=$R/k.cu
  DG_PROBE_BULK=$bulk "$EXP" emit maxwell2d --order "$o" --variant "$v" --target cuda > "$f"
  echo "$v N=$o bulk=$bulk: $(nvcc -arch=sm_90 -c -o /dev/null -Xptxas -v "$f" 2>&1 | grep -A3 -E "Compiling entry function '_?Z?[0-9]*mirror" | grep -E "registers|spill" | tr -s ' ' | tr '\n' ' ')"
done | tee "$R/ptxas.txt"
[ -n "$BENCH" ] && echo "$BENCH" | while read -r o v envs; do b "$o" "$v" $envs; done | tee "$R/bench.txt"
date -u +%FT%TZ | tee -a "$R/date"; (cd "$OUT" && tar -czf results.tgz r)
