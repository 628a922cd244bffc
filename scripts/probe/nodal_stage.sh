#!/usr/bin/env bash
# The nodal low-storage stage tuned as its own operation (`--operation stage`) on one GPU: a planted bug in the
# folded store that only the stage's check catches; maxwell2d tuned exhaustively on stages at N = 1..8 in both
# precisions into a copy of the shipped database; the folded LSRK45 loop (180,000 triangles) run with the
# right-hand side's winners (the shipped database, which has no stage entries: runs fall back to them) and with
# the stages' winners (errors must agree).
# usage: DG=gpu/dg OUT=dir [PARTS="planted tune loop"] [PRECISIONS="f64 f32"] [LOOP_ORDERS="4 6 8"] bash scripts/probe/nodal_stage.sh
set -u
# everything is written under $OUT/r and packed into $OUT/results.tgz at the end (the device tool returns few files)
PACK=${OUT:-.}; OUT=$PACK/r; mkdir -p "$OUT"; DG=${DG:-gpu/dg}; D="--device cuda:0"
PARTS=${PARTS:-planted tune loop}
nvidia-smi -L; date -u +%FT%TZ | tee "$OUT/date"
for part in $PARTS; do case $part in
planted)
  for v in mma16/wg8/seq1/field-local/merged/node-major/f64 tile4/wg32/seq1/matrix-local/merged/node-major/f32; do
    f="$OUT/planted-${v//\//_}.txt"
    timeout 60 "$DG" verify maxwell2d --order 6 --variant "$v" --plant-bug stage-register-dropped $D > "$f" 2>&1
    echo "planted stage-register-dropped $v: rc $? (must be non-zero): $(grep -E "^  (mma|tile)" "$f" | tr -s ' ')"
  done ;;
tune)
  cp -r tuning-db "$OUT/db"
  for p in ${PRECISIONS:-f64 f32}; do
    DG_CACHE_DIR=$(mktemp -d) timeout ${TUNE_LIMIT:-280} "$DG" autotune maxwell2d --orders ${TUNE_ORDERS:-1..8} --precision $p --operation stage $D --db "$OUT/db" > "$OUT/tune-$p.txt" 2> "$OUT/tune-$p.err"
    echo "tune $p rc $?"; cat "$OUT/tune-$p.txt"
  done ;;
loop)
  for p in ${PRECISIONS:-f64 f32}; do for n in ${LOOP_ORDERS:-4 6 8}; do
    for db in tuning-db "$OUT/db"; do
      o="$OUT/loop-$p-N$n-$(basename $db)"
      DG_CACHE_DIR=$(mktemp -d) timeout 60 "$DG" --db "$db" run maxwell-cavity --order $n --nx 300 --t-end 0.1 --precision $p $D --json > $o.json 2> $o.err
      python3 -c "
import json;d=json.load(open('$o.json'));v=d['device']
print('$p N=$n $(basename $db):',v['choice']['variant'],v['choice']['source'],'folded',v['stages_folded'],'steps',d['steps'],'L2 %.9e'%d['l2_error'],'kernels %.3f s'%v['kernel_seconds'])" || tail -2 $o.err
    done
  done; done ;;
esac; done
tar -czf "$PACK/results.tgz" -C "$OUT" . && rm -rf "$OUT" && echo packed
