#!/usr/bin/env bash
# After the 8-row f64 tensor-core kernels (field-local, seq1) read the operator's fragments ahead of their use
# (2026-12-01): the f64 nodal-triangle entries that meet those kernels re-tuned into $DB (a copy of the shipped
# database) — maxwell2d's right-hand side and stage at N = 1..8, euler2d's right-hand side (both fluxes) at N = 1..4 —
# the ring kernel verified (and a planted bug that verification must catch), then maxwell2d benched on it (both operations, f64) and the folded f64 loop run with the shipped
# database ($OLD_DG) and the new one ($DG). Results packed into $OUT/results.tgz.
# usage: DG=gpu/dg OLD_DG=gpu/dg-old DB=dir OUT=dir bash scripts/probe/mma_ring_retune.sh
set -u
DG=${DG:-gpu/dg}; OLD_DG=${OLD_DG:?}; DB=${DB:?}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
nvidia-smi -L; date -u +%FT%TZ | tee "$R/date"
[ -d "$DB" ] || cp -r tuning-db "$DB"
source scripts/probe/nodal_retune_lib.sh
nodal_retune f64
V=mma/wg8/seq1/field-local/merged/node-major/f64
timeout 100 "$DG" verify maxwell2d --order 1..8 --precision f64 --variant $V $D > "$R/verify.txt" 2>&1; echo "verify $V: rc $? $(tail -1 "$R/verify.txt")"
timeout 100 "$DG" verify euler2d --order 1..4 --precision f64 --variant $V $D > "$R/verify-euler.txt" 2>&1; echo "verify euler2d: rc $? $(tail -1 "$R/verify-euler.txt")"
timeout 60 "$DG" verify maxwell2d --order 5..8 --precision f64 --variant $V --plant-bug skip-last-group $D > "$R/verify-planted.txt" 2>&1
echo "planted skip-last-group: rc $? (must be non-zero) $(tail -1 "$R/verify-planted.txt")"
nodal_bench f64
for run in 5,300,0.2 7,300,0.2 8,300,0.2; do
  set -- ${run//,/ }
  for which in old new; do
    dg=$DG; db=$DB; [ $which = old ] && { dg=$OLD_DG; db=tuning-db; }
    o="$R/loop-f64-N$1-$which"
    DG_CACHE_DIR=$(mktemp -d) timeout 90 "$dg" --db "$db" run maxwell-cavity --order $1 --nx $2 --t-end $3 --precision f64 $D --json > $o.json 2> $o.err
    python3 -c "
import json;d=json.load(open('$o.json'));v=d['device']
print('f64 N=$1 nx=$2 $which:',v['choice']['variant'],v['choice']['source'],'steps',d['steps'],'L2 %.9e'%d['l2_error'],'kernels %.3f s'%v['kernel_seconds'])" || tail -2 $o.err
  done
done
cp -r "$DB" "$R/db"; tar -czf "$OUT/results.tgz" -C "$R" . && echo packed
