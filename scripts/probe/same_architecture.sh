#!/usr/bin/env bash
# Two things on one sm_90 card:
#  borrow — a run and a bench on a device whose own shipped file holds only stale results take the winners of
#           another device of its architecture: `dg-borrow` is dg built with the two shipped files' devices swapped
#           (on an H200 the stale H100 file is "its own", the current H200 file another sm_90 device's), so the H200
#           meets what an H100 meets with the shipped database; `dg` (the real files) is the control.
#  tune   — the winners the H200 file lacks for this code (STEPS: hex, fv, modal5, rusanov, rusanov1-f64,
#           rusanov23, rusanov45, nodal-euler, nodal-hllc, euler3d), each into a copy of the shipped H200 file, stopped before the call's limit
#           (STOP_AFTER seconds).
#  runs   — a run of every formulation with dg-borrow and with dg, and a greedy search seeded across devices.
# usage: OUT=dir [PARTS="borrow runs tune"] [STEPS="hex fv modal5 rusanov euler3d"] bash scripts/probe/same_architecture.sh
set -u
PACK=${OUT:-.}; OUT=$PACK/r; mkdir -p "$OUT"
START=$(date +%s); STOP_AFTER=${STOP_AFTER:-520}
nvidia-smi -L; date -u +%FT%TZ | tee "$OUT/date"
left() { echo $(( STOP_AFTER - ($(date +%s) - START) )); }
if [[ " ${PARTS:-borrow tune} " == *" borrow "* ]]; then
  EMPTY=$(mktemp -d)
  for p in f32 f64; do
    cache=$(mktemp -d)
    for DG in gpu/dg-borrow gpu/dg; do
      for run in cold warm1 warm2; do
        [ "$DG" = gpu/dg ] && [ "$run" = cold ] && continue
        name=$(basename "$DG"); o="$OUT/startup-$name-$p-$run"
        db=$EMPTY; [ "$DG" = gpu/dg ] && db=tuning-db
        DG_CACHE_DIR=$cache "$DG" --db "$db" run maxwell-cavity --order 4 --nx 600 --precision $p --t-end 1e-5 \
          --device cuda:0 --json > $o.json 2> $o.err
        python3 -c "
import json;d=json.load(open('$o.json'));v=d['device']
print('$name $p $run: first step %.3f s'%v['first_step_seconds'],'|',v['choice']['source'],v['choice']['variant'],'| L2 %.6e'%d['l2_error'])" || tail -3 $o.err
      done
    done
  done
  grep -h "tuning database" $OUT/startup-dg-borrow-f32-cold.err | head -2
  for o in 4 8; do
    gpu/dg-borrow --db "$EMPTY" bench maxwell2d --orders $o --precision both --operation stage --device cuda:0 \
      > $OUT/bench-borrow-N$o.txt 2> $OUT/bench-borrow-N$o.err; echo "bench N=$o rc $?"
    cat $OUT/bench-borrow-N$o.txt; grep "tuned on" $OUT/bench-borrow-N$o.err
  done
fi
if [[ " ${PARTS:-borrow tune} " == *" runs "* ]]; then
  # every formulation's run as an H100 meets it (dg-borrow) and with the H200's own file (dg), and a greedy search
  # seeded from the other device's winners
  EMPTY=$(mktemp -d)
  i=0
  while IFS= read -r RUN; do
    i=$((i+1))
    for DG in gpu/dg-borrow gpu/dg; do
      name=$(basename "$DG"); o="$OUT/run$i-$name"; db=$EMPTY; [ "$DG" = gpu/dg ] && db=tuning-db
      "$DG" --db "$db" run $RUN --device cuda:0 --json > $o.json 2> $o.err
      rc=$?; echo "$RUN" > $o.cmd
      python3 -c "
import json;d=json.load(open('$o.json'));c=d['device']['choice']
print('run$i $name rc $rc:',c['source'],c['variant'],'| L2 %.6e'%(d.get('l2_error') or float('nan')))" 2>/dev/null || { echo "run$i $name rc $rc"; tail -2 $o.err; }
    done
  done <<'RUNS'
maxwell-cavity --order 4 --nx 600 --precision f32 --t-end 1e-5
euler-isentropic-vortex --formulation nodal-tri --order 3 --nx 40 --t-end 0.01
euler-isentropic-vortex --order 4 --nx 100 --t-end 0.05
euler-supersonic-vortex --order 2 --refine 2
maxwell3d-cavity --order 3 --nx 20
euler3d-density-wave --order 3 --nx 16 --t-end 0.01
mhd-orszag-tang --nx 256 --t-end 0.01
acoustic-cube --order 4 --nx 8
RUNS
  for DG in gpu/dg-borrow gpu/dg; do
    name=$(basename "$DG"); db=$(mktemp -d); [ "$DG" = gpu/dg ] && cp tuning-db/*.json $db/
    t0=$(date +%s.%N)
    "$DG" --db $db autotune acoustics2d --orders 6 --precision f32 --strategy greedy --device cuda:0 \
      > $OUT/greedy-$name.txt 2> $OUT/greedy-$name.err
    echo "greedy $name rc $? $(python3 -c "print('%.1f s'%($(date +%s.%N)-$t0))"): $(grep winner $OUT/greedy-$name.txt)"
  done
fi
if [[ " ${PARTS:-borrow tune} " == *" tune "* ]]; then
  DB=$OUT/db; mkdir -p $DB; cp tuning-db/cuda-nvidia-h200-sm-90.json $DB/
  for step in ${STEPS:-hex fv modal5 rusanov euler3d}; do
    case $step in
      hex) args="maxwell3d --formulation hex --orders 1..6 --precision both" ;;
      fv) args="mhd2d --formulation fv --orders 1..2 --precision both" ;;
      modal5) args="euler2d --formulation modal-tri --flux hllc_flux --orders 5 --precision both" ;;
      rusanov) args="euler2d --formulation modal-tri --flux numerical_flux --orders 1..5 --precision both" ;;
      rusanov1-f64) args="euler2d --formulation modal-tri --flux numerical_flux --orders 1 --precision f64" ;;
      rusanov23) args="euler2d --formulation modal-tri --flux numerical_flux --orders 2..3 --precision both" ;;
      rusanov45) args="euler2d --formulation modal-tri --flux numerical_flux --orders 4..5 --precision both" ;;
      nodal-euler) args="euler2d --formulation nodal-tri --orders 1..4 --precision both" ;;
      nodal-hllc) args="euler2d --formulation nodal-tri --flux hllc_flux --orders 1..4 --precision both" ;;
      euler3d) args="euler3d --formulation hex --flux hllc_flux --orders 1..4 --precision both" ;;
    esac
    l=$(left); if [ "$l" -lt 30 ]; then echo "skip $step: ${l} s left"; continue; fi
    t0=$(date +%s)
    timeout $l gpu/dg --db $DB autotune $args --device cuda:0 > $OUT/tune-$step.txt 2> $OUT/tune-$step.err
    echo "tune $step rc $? $(( $(date +%s) - t0 )) s"; tail -n 12 $OUT/tune-$step.txt
  done
fi
tar -czf "$PACK/results.tgz" -C "$OUT" . && rm -rf "$OUT" && echo packed
