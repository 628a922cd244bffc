#!/usr/bin/env bash
# The committed binary on a device, once: issue 14's first point (every nodal Maxwell winner a database hit,
# verified and timed), the hexahedral and finite-volume winners (their entries re-keyed), the step-list time system
# (hexahedra, tetrahedra with a generic integrator), and the vortex at p = 4 in both precisions.
# Usage (device machine): DG=gpu/fin/dg OUT=$OUT bash scripts/probe/final_check.sh
set -u
DG=${DG:?}; OUT=${OUT:-/tmp/final}; R=$OUT
mkdir -p "$OUT"
. scripts/probe/vortex_run.sh
"$DG" bench maxwell2d --orders 1..8 --precision both --device cuda:0 > "$OUT/bench-maxwell2d.txt" 2> "$OUT/bench-maxwell2d.err"
echo "bench maxwell2d: exit $?"; cat "$OUT/bench-maxwell2d.txt"
grep -c 'tuning (' "$OUT/bench-maxwell2d.err" | sed 's/^/tunings started (want 0): /'
"$DG" bench maxwell3d --formulation hex --orders 1..4 --precision both --device cuda:0 > "$OUT/bench-hex.txt" 2>&1
echo "bench hex: exit $?"; grep -v '^device\|…' "$OUT/bench-hex.txt" | tail -12
"$DG" bench mhd2d --formulation fv --orders 1..2 --precision both --device cuda:0 > "$OUT/bench-fv.txt" 2>&1
echo "bench fv: exit $?"; grep -v '^device\|…' "$OUT/bench-fv.txt" | tail -6
"$DG" run maxwell3d-cavity --order 3 --nx 8 --device cuda:0 > "$OUT/run-hex.txt" 2>&1
echo "run maxwell3d-cavity (hex, device): exit $?"; grep -E 'L2 error|throughput|kernels' "$OUT/run-hex.txt"
"$DG" run acoustic-cube --order 3 --nx 4 --scheme lsrk45 --device cuda:0 > "$OUT/run-tet.txt" 2>&1
echo "run acoustic-cube lsrk45 (tet, device): exit $?"; grep -E 'L2 error|throughput|kernels' "$OUT/run-tet.txt"
"$DG" run acoustic-cube --order 3 --nx 4 --scheme lsrk45 --device cpu > "$OUT/run-tet-cpu.txt" 2>&1
echo "run acoustic-cube lsrk45 (cpu): exit $?"; grep -E 'L2 error' "$OUT/run-tet-cpu.txt"
BIN=$DG
for P in f32 f64; do vortex 4 $P shipped; done
