#!/usr/bin/env bash
# The folded Maxwell loop on the shipped database after the mma kernels' closed-form face mask: `dg run maxwell-cavity`
# at N = 5..8 f64 (mma winners) with the database's winner, and the same run with an element-per-thread variant
# (`--variant`), whose L2 errors must agree; then `dg bench maxwell2d --operation stage`, both precisions.
# usage: DG=gpu/dg OUT=dir bash scripts/probe/mma_face_runs.sh
set -u
OUT=${OUT:?}; DG=${DG:-gpu/dg}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"; DB=$(mktemp -d)
nvidia-smi -L; date -u +%FT%TZ | tee "$R/date"
for n in 5 6 7 8; do
  for which in db elem; do
    v=""; [ $which = elem ] && v="--variant elem/wg128/seq1/matrix-local/merged/node-major/f64"
    o="$R/run-N$n-$which"
    DG_CACHE_DIR=$(mktemp -d) timeout 90 "$DG" --db "$DB" run maxwell-cavity --order $n --nx 200 --t-end 0.05 \
      --precision f64 $D $v --json > $o.json 2> $o.err
    python3 -c "
import json;d=json.load(open('$o.json'));v=d['device']
print('N=$n $which:',v['choice']['variant'],v['choice']['source'],'steps',d['steps'],'L2 %.9e'%d['l2_error'],'kernels %.3f s'%v['kernel_seconds'])" || tail -2 $o.err
  done
done | tee "$R/runs.txt"
timeout 150 "$DG" --db "$DB" bench maxwell2d --orders 1..8 --precision both --operation stage $D > "$R/bench-stage.txt" 2> "$R/bench-stage.err"
echo "bench stage rc $?"; cat "$R/bench-stage.txt"
tar -czf "$OUT/results.tgz" -C "$R" . && echo packed
