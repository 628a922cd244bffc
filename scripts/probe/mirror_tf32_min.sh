#!/usr/bin/env bash
# The shortest look at the tf32 mirror kernel (scripts/probe/mirror_tf32.sh's first benches, for a call with little
# device time left): `dg bench --variant` at N = 8 f32 (each process verifying its kernel on the device first) of
# mmamirror on the tf32 tensor cores, of the shipped winner balanced4, and with PROBE, of the pre-split probe.
# Usage: DG=path/to/dg OUT=dir [PROBE=path/to/probe-dg] bash scripts/probe/mirror_tf32_min.sh
set -u
DG=${DG:?DG=path to the dg binary}; OUT=${OUT:-/tmp/mirror_tf32}; R="$OUT/r"; mkdir -p "$R"; D="--device cuda:0"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } | tee -a "$R/date"
MM=mmamirror/wg16/seq1/field-local/merged/tiled/f32/mixed
bench() { env $4 "$1" bench maxwell2d --orders 8 --variant "$2" $D 2>&1 | tail -4 | sed "s|^|$3 |" | tee -a "$R/bench.txt"; }
bench "$DG" "$MM" tf32 DG_NOTHING=0
bench "$DG" balanced4/wg32/seq1/matrix-local/merged/tiled/f32/mixed balanced4 DG_NOTHING=0
[ -n "${PROBE:-}" ] && bench "$PROBE" "$MM" presplit DG_PROBE_PRESPLIT=1
(cd "$OUT" && tar -czf results.tgz r)
date -u | tee -a "$R/date"
