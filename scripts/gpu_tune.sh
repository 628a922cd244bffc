#!/usr/bin/env bash
# Device-machine session, calls 2 and 3 (≤ 10 min each): exhaustive autotune of maxwell2d, jobs given as
# "precision:orders" (e.g. "f32:1..8" or "f32:5..8 f64:1..4"), ≥ 16M DOFs per timing so that state and right-hand
# side are well above the 50 MB L2; the database of earlier calls is carried in gpu/db and extended. With `bench`
# as second argument, `dg bench` (the winners timed again) follows. Results in $OUT/results-tune.tgz.
set -u
JOBS=${1:-f32:1..8}
DG=./gpu/dg
OUT=${OUT:-/tmp/out}
R=$(mktemp -d)
export DG_CACHE_DIR=$R/cache
mkdir -p "$R/db" tuning-db
cp gpu/db/*.json "$R/db/" 2>/dev/null
for job in $JOBS; do
  P=${job%%:*}; O=${job##*:}
  t0=$(date +%s)
  timeout 400 $DG autotune maxwell2d --orders "$O" --precision "$P" --device cuda:0 --db "$R/db" > "$R/autotune_${P}_$O.txt" 2> "$R/autotune_${P}_$O.log"
  echo "autotune $P $O rc=$? $(( $(date +%s) - t0 ))s"
  grep -E "winner" "$R/autotune_${P}_$O.txt" "$R/autotune_${P}_$O.log" | cut -c1-200
done
if [ "${2:-}" = bench ]; then
  cp "$R"/db/*.json tuning-db/
  $DG bench maxwell2d --orders 1..8 --precision both --device cuda:0 --json > "$R/bench.json" 2> "$R/bench.log"
  $DG bench maxwell2d --orders 1..8 --precision both --device cuda:0 2>/dev/null | tee "$R/bench.txt" | cut -c1-200
fi
tar -czf "$OUT/results-tune.tgz" -C "$R" --exclude cache .
