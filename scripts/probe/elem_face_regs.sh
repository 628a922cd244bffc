#!/usr/bin/env bash
# The element-per-thread merged kernels take their own face states from the element's state in registers (no
# vmap_m load, no second read of the own face values): A/B of $NEW against $OLD (the binary before) through the
# exhaustive tuner's per-candidate times at N = 1..4, then the new code's nodal entries tuned into $DB.
# PARTS: ab (both binaries, maxwell2d N = 1..4, both precisions, throw-away databases), unit and stage (maxwell2d
# N = 1..8, both precisions, into $DB), euler (euler2d nodal-tri, both fluxes, N = 1..4, into $DB), bench (maxwell2d,
# both operations, on $DB), runs (the folded loop: maxwell-cavity), ptxas (registers and spills of gpu/src/*.cu, emitted
# by `dg emit`), tunetime (maxwell2d N = 7, each precision: two exhaustive tunings "a" and "b" in separate processes on
# empty kernel caches, then an untruncated one, --every-variant --no-early-stop, on b's cache; throw-away databases).
# Results under $OUT, the database copied there. Knobs (defaults as first run): PRECISION (both) of unit, stage and
# euler; AB_ORDERS (1..4), AB_PRECISION (both) and AB_OPERATION (unit) of ab; BENCH_OPS (unit stage). Packed after every part.
# usage: OLD=gpu/dg-old NEW=gpu/dg DB=gpu/db OUT=dir PARTS="ab unit" bash scripts/probe/elem_face_regs.sh
set -u
OUT=${OUT:?}; DB=${DB:?}; NEW=${NEW:-gpu/dg}; OLD=${OLD:-gpu/dg-old}; PARTS=${PARTS:-"ab unit stage"}
PRECISION=${PRECISION:-both}; AB_ORDERS=${AB_ORDERS:-1..4}; AB_PRECISION=${AB_PRECISION:-both}
R=$OUT/r; mkdir -p "$R" "$DB"; D="--device cuda:0"
nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u +%FT%TZ | tee -a "$R/date"
for part in $PARTS; do
  t0=$(date +%s)
  case $part in
    ab)
      for which in old new; do
        dg=$OLD; [ $which = new ] && dg=$NEW
        DG_CACHE_DIR=$(mktemp -d) timeout 200 "$dg" --db "$(mktemp -d)" autotune maxwell2d --orders $AB_ORDERS --precision $AB_PRECISION \
          --operation ${AB_OPERATION:-unit} $D > "$R/ab-$which.txt" 2> "$R/ab-$which.err"
        echo "ab $which rc $?"
      done
      python3 - "$R/ab-old.err" "$R/ab-new.err" <<'PY' | tee "$R/ab-table.txt"
import sys
sys.path.insert(0, "scripts/probe")
from tuner_log import candidate_times as read
old, new = read(sys.argv[1]), read(sys.argv[2])
for key in sorted({k for k, _ in new}):
    bo = min((v, s) for (k, s), v in old.items() if k == key)
    bn = min((v, s) for (k, s), v in new.items() if k == key)
    print(f"N={key[0]} {key[1]}: best old {bo[0]:.4f} {bo[1]}  best new {bn[0]:.4f} {bn[1]}")
    for (k, s), v in sorted(new.items()):
        if k == key and "/merged/" in s and s.split("/")[0] in ("elem", "mma", "mma16") and (k, s) in old:
            print(f"    {s:70s} {old[(k, s)]:.4f} -> {v:.4f}  ({v / old[(k, s)]:.3f})")
PY
      ;;
    unit|stage)
      DG_CACHE_DIR=$(mktemp -d) timeout 280 "$NEW" --db "$DB" autotune maxwell2d --orders 1..8 --precision $PRECISION --operation $part $D \
        > "$R/tune-$part.txt" 2> "$R/tune-$part.err"
      echo "tune $part rc $?"; grep -i winner "$R/tune-$part.txt" | cut -c1-150 ;;
    euler)
      for flux in numerical_flux hllc_flux; do
        DG_CACHE_DIR=$(mktemp -d) timeout 150 "$NEW" --db "$DB" autotune euler2d --formulation nodal-tri --flux $flux --orders 1..4 \
          --precision $PRECISION $D > "$R/tune-euler-$flux.txt" 2> "$R/tune-euler-$flux.err"
        echo "tune euler2d $flux rc $?"; grep -i winner "$R/tune-euler-$flux.txt" | cut -c1-150
      done ;;
    tunetime)
      for p in f32 f64; do
        b=$(mktemp -d)
        for run in a b u; do
          cache=$(mktemp -d); extra=""
          [ $run = b ] && cache=$b
          [ $run = u ] && { cache=$b; extra="--every-variant --no-early-stop"; }
          s0=$(date +%s.%N)
          DG_CACHE_DIR=$cache timeout 120 "$NEW" --db "$(mktemp -d)" autotune maxwell2d --orders 7 --precision $p $extra $D \
            > "$R/tunetime-$p-$run.txt" 2> "$R/tunetime-$p-$run.err"
          rc=$?; s1=$(date +%s.%N)
          echo "tunetime N=7 $p $run rc $rc wall $(python3 -c "print(f'{$s1-$s0:.1f}')") s: $(sed -nE 's/.*winner ([^ ]+) ([0-9.]+ ms).*\(([0-9]+) candidates.*tuned in ([0-9.]+ s).*/\1 \2, \3 candidates, tuned in \4/p' "$R/tunetime-$p-$run.txt")"
        done
      done | tee "$R/tunetime.txt" ;;
    ptxas)
      for f in gpu/src/*.cu; do
        echo "== $f"; nvcc -arch=sm_90 -c -o /dev/null -Xptxas -v "$f" 2>&1 | grep -A2 -E "Compiling entry function '(rhs|tile|mma)" | grep -E "Compiling|registers|spill"
      done | tee "$R/ptxas.txt" ;;
    bench)
      for op in ${BENCH_OPS:-unit stage}; do
        timeout 150 "$NEW" --db "$DB" bench maxwell2d --orders 1..8 --precision both --operation $op $D > "$R/bench-$op.txt" 2> "$R/bench-$op.err"
        echo "bench $op rc $?"; cat "$R/bench-$op.txt"
      done ;;
    runs)
      for run in f32,4,600,0.3 f64,4,600,0.3 f32,3,600,0.1 f64,3,600,0.1; do
        set -- ${run//,/ }; o="$R/loop-$1-N$2-nx$3"
        DG_CACHE_DIR=$(mktemp -d) timeout 90 "$NEW" --db "$DB" run maxwell-cavity --order $2 --nx $3 --t-end $4 --precision $1 $D --json > $o.json 2> $o.err
        python3 -c "
import json;d=json.load(open('$o.json'));v=d['device']
print('$1 N=$2 nx=$3:',v['choice']['variant'],v['choice']['source'],'steps',d['steps'],'L2 %.6e'%d['l2_error'],'kernels %.3f s'%v['kernel_seconds'])" || tail -2 $o.err
      done ;;
  esac
  echo "part $part: $(( $(date +%s) - t0 )) s"
  rm -rf "$R/db"; cp -r "$DB" "$R/db"; tar -czf "$OUT/results.tgz" -C "$R" .
done
echo packed
