#!/usr/bin/env bash
# After the tiled layout joined the tuner's list (2026-12-04): the nodal-triangle entries tuned again into $DB (a copy
# of the shipped database, or the one a previous part left) — PARTS "maxwell" (maxwell2d's right-hand side and stage,
# N = 1..8, both precisions), "euler" (euler2d's right-hand side, nodal, both fluxes, N = 1..4), "bench" (maxwell2d
# on $DB, both operations and precisions), "tunetime" (N = 7 in separate processes on empty kernel caches, twice,
# then untruncated on the second's cache). P (f32, f64 or both, the default) limits every part to one precision.
# Results in $OUT/results.tgz (r/, the database in r/db).
# usage: DG=path/to/dg DB=dir OUT=dir PARTS="maxwell euler bench tunetime" [P=f64] bash scripts/probe/tiled_retune.sh
# (P=f64 was used on 2026-12-05 once the f64 tensor-core kernels' tiled twins joined the list)
set -u
DG=${DG:?}; DB=${DB:?}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
PARTS=" ${PARTS:-maxwell euler bench tunetime} "; P=${P:-both}
nvidia-smi -L; date -u +%FT%TZ | tee -a "$R/date"
[ -d "$DB" ] || cp -r tuning-db "$DB"
source scripts/probe/nodal_retune_lib.sh
case "$PARTS" in *" maxwell "*) TUNE_TIMEOUT=290 nodal_retune_maxwell "$P"; esac
case "$PARTS" in *" euler "*) TUNE_TIMEOUT=150 nodal_retune_euler "$P"; esac
case "$PARTS" in *" bench "*) nodal_bench "$P"; esac
case "$PARTS" in *" tunetime "*)
  for p in $( [ "$P" = both ] && echo f32 f64 || echo "$P" ); do
    for run in a b; do
      C=$R/cache-$p-$run; rm -rf "$C"; mkdir -p "$C"; T=$(mktemp -d)
      DG_CACHE_DIR=$C timeout 60 "$DG" --db "$T" autotune maxwell2d --orders 7 --precision $p $D > "$R/tunetime-$p-$run.txt" 2>&1
      echo "tunetime $p $run rc $?: $(grep -iE "winner|candidates" "$R/tunetime-$p-$run.txt" | tail -1 | sed 's/.*winner //')"
    done
    T=$(mktemp -d)
    DG_CACHE_DIR=$R/cache-$p-b timeout 90 "$DG" --db "$T" autotune maxwell2d --orders 7 --precision $p --every-variant --no-early-stop $D > "$R/tunetime-$p-u.txt" 2>&1
    echo "tunetime $p untruncated rc $?: $(grep -iE "winner|candidates" "$R/tunetime-$p-u.txt" | tail -1 | sed 's/.*winner //')"
    rm -rf "$R"/cache-$p-*
  done
esac
rm -rf "$R/db"; cp -r "$DB" "$R/db"
date -u +%FT%TZ | tee -a "$R/date"
# one archive (the device returns a limited number of files)
(cd "$OUT" && tar -czf results.tgz r && rm -rf r)
