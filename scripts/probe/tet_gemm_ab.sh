#!/usr/bin/env bash
# Tetrahedra, GEMM strategy: the face kernel reading the state (no trace extraction in its AB3 update) and the
# divergence GEMM with β = 0, against the previous binary. On the GPU machine:
#   DG=gpu/dg DG_OLD=gpu/dg_old OUT=dir bash scripts/probe/tet_gemm_ab.sh
# PARTS (default "verify planted ab"): verify = `dg verify` of every tetrahedral kernel and variant, both laws,
# N = VERIFY_ORDERS, f32 and f64; planted = a planted bug at N = 7 must fail verification; ab = `dg bench
# --per-kernel` at N = AB_ORDERS (f32 and f64) with the old and the new binary, alternating, twice; bench = `dg
# bench --per-kernel` at N = 1..8, f32 and f64, new binary; runs = `dg run` of both cube cases with AB3 and each
# GEMM variant, old and new binary (the errors must agree); cublas = `dg bench --per-kernel` at N = AB_ORDERS with
# the new binary and DG_GEMM=cublas (cuBLAS for every GEMM, no cublasLt search). Files in $OUT/tet.tar.gz; a short
# table on stdout (each bench's summary lines and the GEMM routines it chose).
set -u
DG=${DG:-gpu/dg}
DG_OLD=${DG_OLD:-gpu/dg_old}
PARTS=${PARTS:-"verify planted ab"}
VERIFY_ORDERS=${VERIFY_ORDERS:-1..8}
AB_ORDERS=${AB_ORDERS:-7}
AB_PRECISIONS=${AB_PRECISIONS:-"f32 f64"}
on() { [[ " $PARTS " == *" $1 "* ]]; }
R=$(mktemp -d)
export DG_CACHE_DIR=$R/cache
mkdir -p "$R/cache/tuning"
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/lib/x86_64-linux-gnu; do
  if ls "$d"/libcublas.so* >/dev/null 2>&1; then export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"; break; fi
done
date -u +%FT%TZ | tee "$R/date"
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader | tee "$R/gpu.txt"
on verify && for law in acoustics3d elastic3d; do
  "$DG" verify "$law" --formulation nodal-tet --order "$VERIFY_ORDERS" --precision both --device cuda:0 --json \
    > "$R/verify-$law.json" 2> "$R/verify-$law.err"
  echo "verify $law rc=$? $(grep -E '"(tested|passed|failed|rejected)"' "$R/verify-$law.json" | tr -d '\n ' | head -c 300)"
done
on planted && for bug in skip-last-group wrong-stride; do
  "$DG" verify acoustics3d --formulation nodal-tet --order 7 --precision f32 --device cuda:0 --plant-bug $bug \
    > "$R/planted-$bug.txt" 2>&1
  echo "planted $bug rc=$? (must be non-zero): $(grep -c 'gemm' "$R/planted-$bug.txt") gemm lines, $(tail -1 "$R/planted-$bug.txt")"
done
if on ab; then
  for i in 1 2; do for which in old new; do
    bin=$DG; [ $which = old ] && bin=$DG_OLD
    for p in $AB_PRECISIONS; do
      "$bin" bench acoustics3d,elastic3d --per-kernel --orders "$AB_ORDERS" --precision $p --device cuda:0 \
        --out "$R/bench-$which-$p-$i.json" > "$R/bench-$which-$p-$i.txt" 2> "$R/bench-$which-$p-$i.err"
      echo "bench $which $p run $i rc=$?"; grep -E "N=|GEMM|^  f(32|64) " "$R/bench-$which-$p-$i.txt"
    done
  done; done
fi
if on cublas; then
  for p in $AB_PRECISIONS; do
    DG_GEMM=cublas "$DG" bench acoustics3d,elastic3d --per-kernel --orders "$AB_ORDERS" --precision $p --device cuda:0 \
      --out "$R/bench-cublas-$p.json" > "$R/bench-cublas-$p.txt" 2> "$R/bench-cublas-$p.err"
    echo "bench DG_GEMM=cublas $p rc=$?"; grep -E "N=|GEMM|^  f(32|64) " "$R/bench-cublas-$p.txt"
  done
fi
if on bench; then
  for p in f32 f64; do
    "$DG" bench acoustics3d,elastic3d --per-kernel --orders 1..8 --precision $p --device cuda:0 \
      --out "$R/bench-all-$p.json" > "$R/bench-all-$p.txt" 2> "$R/bench-all-$p.err"
    echo "bench 1..8 $p rc=$?"; cat "$R/bench-all-$p.txt"
  done
fi
if on runs; then
  for c in "acoustic-cube 6 10" "elastic-cube 4 10"; do set -- $c
    for p in f32 f64; do
      for v in old:gemm new:gemm new:gemm-merged; do
        bin=$DG; [ ${v%%:*} = old ] && bin=$DG_OLD
        f="$R/run-$1-$p-${v/:/-}.json"
        "$bin" run $1 --order $2 --nx $3 --scheme ab3 --precision $p --device cuda:0 --variant "tet/${v#*:}/u1/$p" \
          --json > "$f" 2> "${f%.json}.err"
        echo "run $1 N=$2 $p ${v}: rc=$? $(python3 -c "import json,sys;d=json.load(open('$f'));print(d['l2_error'], d['steps'], d['wall_seconds'])" 2>/dev/null)"
      done
    done
  done
fi
tar -czf "$OUT/tet.tar.gz" -C "$R" --exclude cache/kernels .
