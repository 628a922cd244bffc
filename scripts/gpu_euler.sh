#!/usr/bin/env bash
# Issue 5's runs on the GPU machine, in one call: CUDA verification of every modal variant with the
# time-stepping kernels, the two convergence studies on the device, the double Mach reflection at p = 1 with the
# limiter on ~74k triangles (timed, with its density picture), and a few diagnostic studies. Results in
# $OUT/euler.tar.gz.
set -u
DG=${DG:-gpu/dg}
R=$(mktemp -d)
export DG_CACHE_DIR=$R/cache
date -u +%FT%TZ > "$R/date"
D="--device cuda:0"
"$DG" verify euler2d --formulation modal-tri --order 1..5 $D --json > "$R/verify.json" 2> "$R/verify.err"
echo "verify: $(grep -o '"passed": [0-9]*' "$R/verify.json") of $(grep -o '"tested": [0-9]*' "$R/verify.json")"
"$DG" run euler-double-mach --nx 96 $D --png "$R/double-mach.png" --png-width 1600 --json \
  > "$R/dmr.json" 2> "$R/dmr.err"
grep -E '"(elements|steps|min_density|min_pressure|wall_seconds)"' "$R/dmr.json" | tr -d '\n'; echo
"$DG" convergence euler-supersonic-vortex --orders 1..4 --levels 4 $D --json > "$R/sv.json" 2> "$R/sv.err"
"$DG" convergence euler-isentropic-vortex --orders 1..4 --levels 4 $D --json > "$R/iv.json" 2> "$R/iv.err"
"$DG" convergence euler-isentropic-vortex --orders 4 --levels 4 --cfl 0.125 $D --json > "$R/iv_p4_cfl.json" 2> "$R/iv_p4_cfl.err"
"$DG" convergence euler-isentropic-vortex --orders 2 --levels 4 --flux numerical_flux $D --json > "$R/iv_p2_rusanov.json" 2>&1
"$DG" convergence euler-supersonic-vortex --orders 1..4 --levels 4 --flux hllc_flux $D --json > "$R/sv_hllc.json" 2>&1
for f in sv iv iv_p4_cfl iv_p2_rusanov sv_hllc; do echo "$f: $(grep -o '"rates":\[[^]]*\]' "$R/$f.json" | tr '\n' ' ')"; done
tar -czf "$OUT/euler.tar.gz" -C "$R" --exclude cache .
