#!/usr/bin/env bash
# Issue 12's runs on the GPU machine, one section per call (each well under 10 minutes): `verify` (ceilings with
# the GEMM rate, CUDA verification counts of the three formulations), `modal` (modal winners for Rusanov and HLLC),
# `tet` (tetrahedral winners, f32 and f64, every strategy verified), `nodal` (nodal triangle winners, then `dg
# bench` re-verifying and re-timing them, then the isentropic-vortex run that must take its winner from the
# database). The user database accumulates in gpu/cache (carried there, returned in $OUT/<section>.tgz under db/).
set -u
SECTION=${1:?verify, modal, tet, nodal or convergence}
DG=${DG:-gpu/dg}
export DG_CACHE_DIR=$PWD/gpu/cache
mkdir -p "$DG_CACHE_DIR/tuning"
R=$(mktemp -d)
date -u +%FT%TZ > "$R/date"
D="--device cuda:0"
case $SECTION in
verify)
  "$DG" devices --measure > "$R/ceilings.txt" 2>&1; cat "$R/ceilings.txt"
  "$DG" verify maxwell2d --order 1..8 --precision both $D --json > "$R/nodal.json" 2> "$R/nodal.err"
  "$DG" verify euler2d --modal --order 1..5 --precision both $D --json > "$R/modal.json" 2> "$R/modal.err"
  for law in acoustics3d elastic3d; do
    "$DG" verify $law --tet --order 1..8 --precision both $D --json > "$R/tet-$law.json" 2> "$R/tet-$law.err"
  done
  for f in nodal modal tet-acoustics3d tet-elastic3d; do
    echo "$f: $(grep -oE '"(tested|passed|rejected)": [0-9]+' "$R/$f.json" | tr '\n' ' ')"
  done ;;
modal)
  timeout 560 "$DG" modal-bench --order 1..5 --precision both --flux numerical_flux,hllc_flux $D > "$R/modal.txt" 2> "$R/modal.err"
  echo "rc $?"; cat "$R/modal.txt" ;;
tet)
  for p in f32 f64; do
    timeout 270 "$DG" tet-bench --orders 1..8 --precision $p --store --json "$R/tet-$p.json" $D > "$R/tet-$p.txt" 2> "$R/tet-$p.err"
    echo "rc $?"; cat "$R/tet-$p.txt"
  done ;;
nodal)
  timeout 330 "$DG" autotune maxwell2d --orders 1..8 --precision both $D > "$R/autotune.txt" 2> "$R/autotune.err"
  echo "rc $?"; grep winner "$R/autotune.txt"
  timeout 100 "$DG" autotune euler2d --orders 1..4 --precision f64 $D > "$R/autotune-euler.txt" 2> "$R/autotune-euler.err"
  timeout 90 "$DG" bench maxwell2d --orders 1..8 --precision both $D > "$R/bench.txt" 2> "$R/bench.err"; cat "$R/bench.txt"
  "$DG" run euler-isentropic-vortex --order 3 --nx 600 $D --json > "$R/iv.json" 2> "$R/iv.err"
  grep -E "variant" "$R/iv.json" "$R/iv.err" ;;
convergence)
  # earlier results reproduced with the tuned winners (runs report where their variant came from)
  for c in "euler-isentropic-vortex --orders 1..4 --levels 4" "euler-supersonic-vortex --orders 1..4 --levels 4" \
           "maxwell-cavity --orders 1..6 --levels 4" "acoustic-cube --orders 1..6 --levels 3" \
           "elastic-cube --orders 1..6 --levels 3"; do
    name=${c%% *}
    timeout 150 "$DG" convergence $c $D --json > "$R/$name.json" 2> "$R/$name.err"
    echo "$name rc $?: $(grep -o '"rates":\[[^]]*\]' "$R/$name.json" | tr '\n' ' ')"
    grep -m1 -o "tuning database: [^(]*" "$R/$name.err"
  done ;;
esac
cp -r "$DG_CACHE_DIR/tuning" "$R/db"
grep -h gemm "$R/db/"cuda-*.json | head -2
tar -czf "$OUT/$SECTION.tgz" -C "$R" .
