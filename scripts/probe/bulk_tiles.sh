#!/usr/bin/env bash
# The whole-element mirror tiles fed by the Hopper bulk copy: a binary built with scripts/probe/bulk_tiles.patch
# (applies to 1f6ebb9) renders the whole/balanced tiles in passes of 32 elements (seq > 1, tiled layout, CUDA) under
# DG_PROBE_BULK=1 with each pass's tile of states brought into (dynamic) local memory by one
# cp.async.bulk completing on an mbarrier, issued as soon as the pass before has read its own tile (so that the next
# tile travels during the volume sum, the face stage, the lift and the store); DG_PROBE_DSMEM=bytes sets the launch's
# dynamic local memory (NV·NP·32 values). Job lines: ORDER SPEC [VAR=VALUE ...]; `dg bench maxwell2d --variant` at
# 16M DOF, each process verifying first. ptxas lines of the bulk kernels from nvcc on the emitted sources.
# usage: EXP=path/to/dg-with-the-patch OUT=dir JOBS="…" bash scripts/probe/bulk_tiles.sh
set -u
EXP=${EXP:?}; OUT=${OUT:?}; JOBS=${JOBS:?}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
. "$(dirname "$0")/bench_variant_lib.sh"
nvidia-smi -L; date -u +%FT%TZ | tee -a "$R/date"
echo "$JOBS" | while read -r o v envs; do
  b "$o" "$v" $envs
done | tee "$R/bulk.txt"
date -u +%FT%TZ | tee -a "$R/date"; (cd "$OUT" && tar -czf results.tgz r)
