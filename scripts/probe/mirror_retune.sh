#!/usr/bin/env bash
# The H100's nodal-triangle entries tuned again for a list with mirror7 added (tried 2026-12-05 19:38 UTC: the machine
# stopped answering; the list was left without mirror7):
# maxwell2d right-hand side and stage, N = 1..8, f32/f64, into an empty database; `dg bench` of the right-hand side;
# tuning time at N = 7 (two processes on empty kernel caches, then untruncated). Packed after every step.
# usage: DG=path/to/dg OUT=dir bash scripts/probe/mirror_retune.sh
set -u
DG=${DG:?}; OUT=${OUT:?}; R=$OUT/r; DB=/tmp/db-final; mkdir -p "$R" "$DB"; D="--device cuda:0"
pack() { rm -rf "$OUT/db"; cp -r "$DB" "$OUT/db"; (cd "$OUT" && tar -czf results.tgz r db); }
date -u +%FT%TZ | tee -a "$R/date"
for op in unit stage; do for p in f32 f64; do
  t0=$SECONDS
  DG_CACHE_DIR=$(mktemp -d) timeout 150 "$DG" --db "$DB" autotune maxwell2d --orders 1..8 --precision $p --operation $op $D > "$R/tune-$op-$p.txt" 2> "$R/tune-$op-$p.err"
  echo "tune $op $p rc $? ($(( SECONDS - t0 )) s)"; grep winner "$R/tune-$op-$p.txt" | sed 's/maxwell2d nodal-tri //; s/ GFLOP.*roofline/ …/; s/ (\([0-9]*\) candidates.*/ (\1)/'
  pack
done; done
for p in f32 f64; do
  timeout 60 "$DG" --db "$DB" bench maxwell2d --orders 1..8 --precision $p $D > "$R/bench-$p.txt" 2> "$R/bench-$p.err"
  echo "bench $p rc $?"; cat "$R/bench-$p.txt"; pack
done
for p in f32 f64; do
  C=$(mktemp -d)
  for run in a b; do
    C=$(mktemp -d); T=$(mktemp -d); t0=$(date +%s.%N)
    DG_CACHE_DIR=$C timeout 60 "$DG" --db "$T" autotune maxwell2d --orders 7 --precision $p $D > "$R/tunetime-$p-$run.txt" 2>&1
    echo "tunetime $p $run rc $? (process $(python3 -c "print(round($(date +%s.%N) - $t0, 2))") s): $(grep winner "$R/tunetime-$p-$run.txt" | tail -1 | sed 's/.*winner //')"
  done
  T=$(mktemp -d)
  DG_CACHE_DIR=$C timeout 90 "$DG" --db "$T" autotune maxwell2d --orders 7 --precision $p --every-variant --no-early-stop $D > "$R/tunetime-$p-u.txt" 2>&1
  echo "tunetime $p untruncated rc $?: $(grep winner "$R/tunetime-$p-u.txt" | tail -1 | sed 's/.*winner //')"
done
date -u +%FT%TZ | tee -a "$R/date"; pack
