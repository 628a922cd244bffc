#!/usr/bin/env bash
# After the tiles' own face index came from the face mask (2026-11-30): euler2d's nodal entries re-tuned into the
# database $DB (maxwell2d's were tuned by `PARTS=tune scripts/probe/nodal_mixed.sh`), then the bench of maxwell2d on
# it (right-hand side and stage) and the folded loop. Results packed into $OUT/results.tgz.
# usage: DG=gpu/dg DB=gpu/db OUT=dir bash scripts/probe/tile_face_retune.sh
set -u
DG=${DG:-gpu/dg}; DB=${DB:?}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
nvidia-smi -L; date -u +%FT%TZ | tee "$R/date"
for flux in numerical_flux hllc_flux; do
  t0=$(date +%s)
  DG_CACHE_DIR=$(mktemp -d) timeout 150 "$DG" --db "$DB" autotune euler2d --formulation nodal-tri --flux $flux --orders 1..4 \
    --precision both $D > "$R/tune-euler-$flux.txt" 2> "$R/tune-euler-$flux.err"
  echo "tune euler2d $flux rc $? ($(( $(date +%s) - t0 )) s)"; grep winner "$R/tune-euler-$flux.txt" | cut -c1-150
done
for op in unit stage; do
  timeout 150 "$DG" --db "$DB" bench maxwell2d --orders 1..8 --precision both --operation $op $D > "$R/bench-$op.txt" 2> "$R/bench-$op.err"
  echo "bench $op rc $?"; cat "$R/bench-$op.txt"
done
for run in f32,4,600,0.3 f64,4,600,0.3 f32,8,300,0.1 f32,5,300,0.1; do
  set -- ${run//,/ }; o="$R/loop-$1-N$2-nx$3"
  DG_CACHE_DIR=$(mktemp -d) timeout 90 "$DG" --db "$DB" run maxwell-cavity --order $2 --nx $3 --t-end $4 --precision $1 $D --json > $o.json 2> $o.err
  python3 -c "
import json;d=json.load(open('$o.json'));v=d['device']
print('$1 N=$2 nx=$3:',v['choice']['variant'],v['choice']['source'],'steps',d['steps'],'L2 %.6e'%d['l2_error'],'kernels %.3f s'%v['kernel_seconds'])" || tail -2 $o.err
done
cp -r "$DB" "$R/db"; tar -czf "$OUT/results.tgz" -C "$R" . && echo packed
