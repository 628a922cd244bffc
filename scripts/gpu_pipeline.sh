#!/usr/bin/env bash
# Issue 12's runs on the GPU machine, one section per call (each under 10 minutes), every formulation through the
# same commands (`--formulation`): `verify` (ceilings with the GEMM rate, CUDA verification counts of the three
# formulations), `modal` (modal winners for Rusanov and HLLC), `tet` (tetrahedral winners, f32 and f64, each
# variant timed as a whole AB3 step), `nodal` (nodal triangle winners, then `dg bench` re-verifying and re-timing
# them, then the isentropic-vortex run that must take its winner from the database), `bench` (every shipped
# winner re-verified and re-timed), `convergence` (device convergence of every family through the shared time
# loop and study). The user database
# accumulates in gpu/cache (carried there, returned in $OUT/<section>.tgz under db/).
set -u
SECTION=${1:?verify, modal, tet, nodal, bench, stability, trust or convergence}
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
  "$DG" verify euler2d --formulation modal-tri --order 1..5 --precision both $D --json > "$R/modal.json" 2> "$R/modal.err"
  for law in acoustics3d elastic3d; do
    "$DG" verify $law --formulation nodal-tet --order 1..8 --precision both $D --json > "$R/tet-$law.json" 2> "$R/tet-$law.err"
  done
  for f in nodal modal tet-acoustics3d tet-elastic3d; do
    echo "$f: $(grep -oE '"(tested|passed|rejected)": [0-9]+' "$R/$f.json" | tr '\n' ' ')"
  done ;;
modal)
  for flux in ${FLUXES:-hllc_flux numerical_flux}; do
    timeout 270 "$DG" autotune euler2d --formulation modal-tri --flux $flux --orders 1..5 --precision both $D \
      > "$R/modal-$flux.txt" 2> "$R/modal-$flux.err"
    echo "rc $?"; cat "$R/modal-$flux.txt"
  done
  timeout 60 "$DG" bench euler2d --formulation modal-tri --flux hllc_flux --orders 1..5 --precision both $D > "$R/modal-bench.txt" 2> "$R/modal-bench.err"
  cat "$R/modal-bench.txt"
  "$DG" run euler-isentropic-vortex --order 3 --nx 600 $D --json > "$R/iv.json" 2> "$R/iv.err"
  grep -E "variant" "$R/iv.json" "$R/iv.err" ;;
tet)
  for law in acoustics3d elastic3d; do
    timeout 270 "$DG" autotune $law --orders ${ORDERS:-1..8} --precision both $D > "$R/tet-$law.txt" 2> "$R/tet-$law.err"
    echo "rc $?"; cat "$R/tet-$law.txt"
  done
  [ -n "${SKIP_KERNELS:-}" ] || timeout 100 "$DG" bench acoustics3d --per-kernel --orders 1..8 --out "$R/tet-kernels.json" $D > "$R/tet-kernels.txt" 2> "$R/tet-kernels.err"
  cat "$R/tet-kernels.txt" 2>/dev/null ;;
nodal)
  timeout 420 "$DG" autotune maxwell2d --orders 1..8 --precision ${PRECISION:-both} $D > "$R/autotune.txt" 2> "$R/autotune.err"
  echo "rc $?"; grep winner "$R/autotune.txt"
  timeout 100 "$DG" autotune euler2d --orders 1..4 --precision f64 $D > "$R/autotune-euler.txt" 2> "$R/autotune-euler.err"
  timeout 90 "$DG" bench maxwell2d --orders 1..8 --precision both $D > "$R/bench.txt" 2> "$R/bench.err"; cat "$R/bench.txt"
  "$DG" run euler-isentropic-vortex --order 3 --nx 600 $D --json > "$R/iv.json" 2> "$R/iv.err"
  grep -E "variant" "$R/iv.json" "$R/iv.err" ;;
bench)
  # every shipped winner re-verified and re-timed by `dg bench` (fresh figures), then the run that must take its
  # winner from the database
  "$DG" bench maxwell2d --orders 1..8 --precision both $D > "$R/bench-nodal.txt" 2> "$R/bench-nodal.err"
  "$DG" bench euler2d --orders 1..2 --precision f64 $D > "$R/bench-nodal-euler.txt" 2> "$R/bench-nodal-euler.err"
  for flux in hllc_flux numerical_flux; do
    "$DG" bench euler2d --formulation modal-tri --flux $flux --orders 1..5 --precision both $D \
      > "$R/bench-modal-$flux.txt" 2> "$R/bench-modal-$flux.err"
  done
  for law in acoustics3d elastic3d; do
    "$DG" bench $law --orders 1..8 --precision both $D > "$R/bench-tet-$law.txt" 2> "$R/bench-tet-$law.err"
  done
  for f in "$R"/bench-*.txt; do echo "== $(basename "$f")"; cat "$f"; grep -i "error\|fail" "${f%.txt}.err" | head -3; done
  "$DG" run euler-isentropic-vortex --order 3 --nx 600 $D --json > "$R/iv.json" 2> "$R/iv.err"
  grep -E '"(variant|source|detail)"' "$R/iv.json" ;;
stability)
  # stability limits on the device (Arnoldi through the device system), every scheme at its default step,
  # refusals, a blow-up stopped, and the large run's start-up with the limit estimated
  for s in lsrk45 rk4 ab3 ssprk3 rk2; do
    "$DG" run maxwell-cavity --scheme $s --order 6 --nx 64 $D --json > "$R/cav-$s.json" 2> "$R/cav-$s.err"
    echo "$s rc $?: $(grep -oE '"(l2_error|steps|energy_initial|energy_final|first_step_seconds)": [^,]*' "$R/cav-$s.json" | tr '\n' ' ')"
  done
  for a in "--cfl 50" "--dt 1e300" "--cfl 2 --allow-unstable"; do
    "$DG" run maxwell-cavity --order 6 --nx 64 $D $a > /dev/null 2> "$R/refuse.err"; echo "$a rc $?: $(tail -1 "$R/refuse.err")"
  done
  "$DG" run euler-isentropic-vortex --order 3 --nx 600 $D --json > "$R/iv.json" 2> "$R/iv.err"
  echo "iv rc $?: $(grep -oE '"(density_l2_error|steps|first_step_seconds|wall_seconds|source)": [^,]*' "$R/iv.json" | tr '\n' ' ')"
  "$DG" run acoustic-two-layer --scheme ab3 --order 4 --nx 16 $D --json > "$R/tl.json" 2> "$R/tl.err"
  echo "two-layer ab3 rc $?: $(grep -oE '"(l2_error|steps|reflection|transmission)": [^,]*' "$R/tl.json" | tr '\n' ' ')"
  for s in rk4 ab3; do
    "$DG" convergence maxwell-cavity --orders 1..4 --levels 3 --scheme $s $D --json > "$R/conv-$s.json" 2> "$R/conv-$s.err"
    echo "convergence $s rc $?: $(grep -o '"rates":\[[^]]*\]' "$R/conv-$s.json" | tr '\n' ' ')"
  done ;;
trust)
  # issue 13 on CUDA: checkpoint and restart bit for bit (nodal, modal with the adaptive step, tetrahedral fused
  # AB3, f32), a step 10% beyond the limit stopped at the step it shows (per-step reduction) with the last good
  # state left behind, the per-step check's cost in a large run
  cd "$R"
  DGA=$OLDPWD/$DG
  for c in "cav|maxwell-cavity --order 6 --nx 64|37" "cav32|maxwell-cavity --order 4 --nx 128 --precision f32|41" \
           "iv|euler-isentropic-vortex --order 3 --nx 200 --t-end 0.2|13" "cube|acoustic-cube --order 4 --nx 8 --scheme ab3|29"; do
    IFS='|' read -r name args every <<< "$c"
    "$DGA" run $args $D --json --checkpoint-every $every --checkpoint $name.restart --out $name-a.vtu > $name-a.json 2> $name-a.err
    "$DGA" run --restart $name.restart --out $name-b.vtu --json > $name-b.json 2> $name-b.err
    same=$(cmp -s $name-a.vtu $name-b.vtu && echo identical || echo DIFFERENT)
    echo "restart $name: $same; $(grep -oE '"(steps|variant)": [^,]*' $name-a.json | tr '\n' ' ')"
  done
  limit=$("$DGA" run maxwell-cavity --order 3 --nx 16 --device cpu --json | grep -A3 stability_limit | grep -oE '"dt": [^,]*' | cut -d' ' -f2)
  dt=$(python3 -c "print(1.1 * $limit)")
  for dev in cpu cuda:0; do
    "$DGA" run maxwell-cavity --order 3 --nx 16 --t-end 20 --device $dev --dt $dt --allow-unstable > /dev/null 2> stop-$dev.err
    echo "blow-up on $dev rc $?: $(grep -oE 'stopped at step [0-9]+|last good state \(step [0-9]+' stop-$dev.err | tr '\n' ' ')"
  done
  for p in f32 f64; do
    "$DGA" run maxwell-cavity --order 4 --nx 600 --t-end 0.3 --precision $p $D --json > big-$p.json 2> big-$p.err
    echo "cavity N4 nx600 t=0.3 $p: $(grep -oE '"(steps|wall_seconds|kernel_seconds|state_check_seconds|loop_seconds)": [^,]*' big-$p.json | tr '\n' ' ')"
  done
  rm -f ./*.vtu; cd "$OLDPWD" ;;
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
