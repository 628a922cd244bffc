#!/usr/bin/env bash
# The GEMM partition on triangles (seed 002's strategy: a flux kernel, then one cuBLAS GEMM per variable applying
# [−Dr −Ds LIFT] to every element), on one GPU: both GEMM variants verified against the CPU at N = 1..8 (Maxwell) and
# 1..4 (Euler) in f32 and f64, a planted bug verification must catch, maxwell2d tuned exhaustively at N = 1..8 in
# both precisions into a copy of the shipped database (best GEMM against best other candidate per order), the
# winners benched, and the time loop run with a GEMM variant against the tuned winner (errors must agree).
# usage: DG=gpu/dg OUT=dir [PARTS="verify tune bench loop"] bash scripts/probe/nodal_gemm.sh
set -u
OUT=${OUT:-.}; DG=${DG:-gpu/dg}; D="--device cuda:0"
PARTS=${PARTS:-verify tune bench loop}
nvidia-smi -L; date -u +%FT%TZ | tee "$OUT/date"
gemm() { echo "gemm/wg$1/seq1/field-local/merged/node-major/$2"; }
for part in $PARTS; do case $part in
verify)
  for p in f64 f32; do for g in 32 128; do
    f="$OUT/verify-maxwell-wg$g-$p.txt"
    timeout 120 "$DG" verify maxwell2d --order 1..8 --precision $p --variant "$(gemm $g $p)" $D > "$f" 2>&1
    echo "verify maxwell2d $(gemm $g $p): rc $? $(tail -1 "$f")"; grep -E "^  gemm" "$f" | awk '{print $2}' | tr '\n' ' '; echo
  done
  f="$OUT/verify-euler-$p.txt"
  timeout 120 "$DG" verify euler2d --order 1..4 --precision $p --variant "$(gemm 128 $p)" $D > "$f" 2>&1
  echo "verify euler2d $(gemm 128 $p): rc $? $(tail -1 "$f")"; done
  timeout 60 "$DG" verify maxwell2d --order 3..4 --precision f64 --variant "$(gemm 128 f64)" --plant-bug skip-last-group $D > "$OUT/verify-planted.txt" 2>&1
  echo "planted skip-last-group: rc $? (must be non-zero)"; tail -2 "$OUT/verify-planted.txt" ;;
tune)
  cp -r tuning-db "$OUT/db"
  DG_CACHE_DIR=$(mktemp -d) timeout ${TUNE_LIMIT:-330} "$DG" autotune maxwell2d --orders ${TUNE_ORDERS:-1..8} --precision both $D --db "$OUT/db" > "$OUT/tune.txt" 2> "$OUT/tune.err"
  echo "rc $?"; cat "$OUT/tune.txt"
  python3 scripts/probe/gemm_against_rest.py "$OUT"/db/cuda-*.json | tee "$OUT/gemm-against-the-rest.txt"
  ;;
bench)
  db=tuning-db; [ -d "$OUT/db" ] && db="$OUT/db"
  "$DG" bench maxwell2d --orders 1..8 --precision both $D --db "$db" > "$OUT/bench.txt" 2> "$OUT/bench.err"
  echo "rc $?"; cat "$OUT/bench.txt"; cp "$db"/cuda-*.json "$OUT/" ;;
loop)
  # the LSRK45 loop on 180,000 triangles: the tuned winner against the GEMM variant (unfolded stages)
  db=tuning-db; [ -d "$OUT/db" ] && db="$OUT/db"
  for p in f64 f32; do for n in ${LOOP_ORDERS:-4 8}; do
    for V in auto "$(gemm 128 $p)"; do
      o="$OUT/loop-N$n-$p-${V//\//_}"; args=(); [ "$V" != auto ] && args=(--variant "$V")
      DG_CACHE_DIR=$(mktemp -d) timeout 90 "$DG" --db "$db" run maxwell-cavity --order $n --nx 300 --t-end 0.05 --precision $p $D "${args[@]}" --json > $o.json 2> $o.err
      python3 -c "
import json;d=json.load(open('$o.json'));v=d['device']
print('N=$n $p $V:',v['choice']['variant'],'folded',v['stages_folded'],'steps',d['steps'],'L2 %.9e'%d['l2_error'],'kernels %.3f s'%v['kernel_seconds'],'GDOF.RHS/s %.1f'%(d['throughput']/1e9))" || tail -2 $o.err
    done
  done; done ;;
esac; done
find "$OUT" -maxdepth 1 -name "*.err" -empty -delete
