#!/usr/bin/env bash
# Where the tf32 mirror kernel's warps wait (issue 14): Nsight Compute's warp-state sampling of one stage launch of
# `mmamirror/wg16/…/f32/mixed` at N = 8 on the 16M-DOF mesh, per SASS instruction (CSV of the source page), and the
# totals per stall reason.
# Usage: DG=path/to/dg OUT=dir bash scripts/probe/mirror_tf32_stalls.sh
set -u
DG=${DG:?}; OUT=${OUT:-/tmp/stalls}; R="$OUT/r"; mkdir -p "$R"; D="--device cuda:0"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } | tee -a "$R/date"
V=${V:-mmamirror/wg16/seq1/field-local/merged/tiled/f32/mixed}; K=${K:-mmamirror}
# (BENCH=1: a launch of `dg bench`'s right-hand side, which stores L alone; else a stage launch of `dg run`, which
# also reads and writes the Runge–Kutta registers in its store)
if [ "${BENCH:-0}" = 1 ]; then
  timeout 200 ncu --launch-skip 10 --launch-count 1 -k "regex:$K" --section WarpStateStats --section SourceCounters \
    --import-source no -o "$R/rep" "$DG" bench maxwell2d --orders 8 --variant "$V" $D > "$R/ncu.log" 2>&1
else
  timeout 200 ncu --launch-skip 3 --launch-count 1 -k "regex:$K" --section WarpStateStats --section SourceCounters \
    --import-source no -o "$R/rep" "$DG" run maxwell-cavity --order 8 --nx 244 --t-end 1e-4 --precision f32 --variant "$V" $D > "$R/ncu.log" 2>&1
fi
echo "ncu rc $?"
ncu -i "$R/rep.ncu-rep" --page source --csv --print-source sass > "$R/source.csv" 2>&1; echo "source rc $?"
ncu -i "$R/rep.ncu-rep" --page details --section WarpStateStats --print-details all > "$R/warpstate.txt" 2>&1
rm -f "$R/rep.ncu-rep"
head -c 600 "$R/source.csv"; echo; wc -c "$R/source.csv"
grep -E "Stall|stall" "$R/warpstate.txt" | head -30
(cd "$OUT" && tar -czf results.tgz r)
