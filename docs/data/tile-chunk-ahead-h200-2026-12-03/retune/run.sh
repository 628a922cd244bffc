#!/usr/bin/env bash
# Ship the tiles' one-chunk-ahead loads: re-tune every nodal-triangle entry (maxwell2d N=1..8 unit+stage, euler2d
# N=1..4 both fluxes, f32+f64) with the new binary, verify tiles on the GPU (a planted bug), bench on the new database.
set -u
cd "$(dirname "$0")/.."
mkdir -p gpu/new; tar -C gpu/new -xJf gpu/ship-pf.tar.xz
OUT=${OUT:?}; date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
DG=gpu/new/dg; DB=$OUT/db; R=$OUT/rt; mkdir -p "$R"; D="--device cuda:0"; cp -r tuning-db "$DB"
source scripts/probe/nodal_retune_lib.sh
nodal_retune both 2>&1 | grep -v "^    " | cut -c1-200
(cd "$OUT" && tar -czf all.tgz rt db/*h200*.json)
date -u +%FT%TZ
for spec in "maxwell2d f32 tile4/wg32/seq1/matrix-local/merged/node-major/f32/mixed" "maxwell2d f32 tile6/wg32/seq1/matrix-local/merged/node-major/f32/mixed" \
            "maxwell2d f32 tile8/wg32/seq2/matrix-const/merged/node-major/f32/mixed" "maxwell2d f64 tile4/wg32/seq1/matrix-const/merged/node-major/f64" \
            "acoustics2d f32 tile4/wg32/seq1/matrix-local/merged/node-major/f32/mixed" "euler2d --formulation nodal-tri f32 tile4/wg32/seq1/matrix-local/merged/node-major/f32"; do
  set -- $spec; v=${@: -1}; p=${@: -2:1}; law=${*:1:$#-2}; t=$(echo $law | cut -d' ' -f1); tag=$(echo $v | cut -d/ -f1,4 | tr / -)
  timeout 60 $DG verify $law --order 1..8 --precision $p --variant $v $D > "$R/verify-$t-$p-$tag.txt" 2>&1
  echo "verify $law $v: rc $? $(tail -1 $R/verify-$t-$p-$tag.txt | cut -c1-150)"
done
timeout 60 $DG verify maxwell2d --order 6..8 --precision f32 --variant tile4/wg32/seq1/matrix-local/merged/node-major/f32/mixed --plant-bug skip-last-group $D > "$R/verify-planted.txt" 2>&1
echo "planted skip-last-group: rc $? (must be non-zero) $(tail -1 "$R/verify-planted.txt")"
(cd "$OUT" && tar -czf all.tgz rt db/*h200*.json)
for op in unit stage; do
  timeout 120 "$DG" --db "$DB" bench maxwell2d --orders 1..8 --precision both --operation $op $D > "$R/bench-$op.txt" 2> "$R/bench-$op.err"
  echo "bench $op rc $?"; cat "$R/bench-$op.txt"; (cd "$OUT" && tar -czf all.tgz rt db/*h200*.json)
done
(cd "$OUT" && tar -czf all.tgz rt db/*h200*.json)
date -u +%FT%TZ
