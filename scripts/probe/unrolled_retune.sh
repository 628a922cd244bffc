#!/usr/bin/env bash
# `unrolled<t>` (the faces-ahead mirror tiles with their column loops unrolled, f32) in the tuner's list, on the H100,
# in the order of what the issue needs, packed after every step: the maxwell2d right-hand side in f32 tuned at
# N = 1..8 into an empty database (every candidate verified first; the geometric-mean speed-up over N = 1..8) and
# benched at N = 5..8; tuning N = 7 in f32 in two processes on empty kernel caches, and untruncated
# (--every-variant --no-early-stop) in f32; with F64=1 also untruncated in f64 and f64 tuned at N = 1..8 (its
# geometric mean).
# usage: NEW=path/to/dg OUT=dir bash scripts/probe/unrolled_retune.sh
set -u
NEW=${NEW:?}; OUT=${OUT:?}; R=$OUT/r; DB=/tmp/db-final; mkdir -p "$R" "$DB"; D="--device cuda:0"
pack() { rm -rf "$OUT/db"; cp -r "$DB" "$OUT/db"; (cd "$OUT" && tar -czf results.tgz r db); }
row() { grep -E "^ *[0-9] " "$1" | awk '{print "N"$1, $2, $3, $4, $8}'; }
nvidia-smi -L; date -u +%FT%TZ | tee -a "$R/date"
t0=$SECONDS; DG_CACHE_DIR=$(mktemp -d) timeout 100 "$NEW" --db "$DB" autotune maxwell2d --orders 1..8 --precision f32 $D > "$R/tune-f32.txt" 2> "$R/tune-f32.err"
echo "tune f32 rc $? ($(( SECONDS - t0 )) s)"; grep -E "winner|geometric" "$R/tune-f32.txt" | sed 's/ GFLOP.*roofline/ …/' | cut -c1-150; pack
timeout 40 "$NEW" --db "$DB" bench maxwell2d --orders 5..8 --precision f32 $D > "$R/bench-f32.txt" 2> "$R/bench-f32.err"
echo "bench f32 rc $?"; row "$R/bench-f32.txt"; pack
for run in a b; do
  C=$(mktemp -d); T=$(mktemp -d); t0=$(date +%s.%N)
  DG_CACHE_DIR=$C timeout 40 "$NEW" --db "$T" autotune maxwell2d --orders 7 --precision f32 $D > "$R/tunetime-f32-$run.txt" 2>&1
  echo "tunetime f32 $run rc $? (process $(python3 -c "print(round($(date +%s.%N) - $t0, 2))") s): $(grep winner "$R/tunetime-f32-$run.txt" | tail -1 | sed 's/.*winner //' | cut -c1-160)"
done; pack
PS="f32"; [ "${F64:-0}" = 1 ] && PS="f32 f64"
for p in $PS; do
  C=$(mktemp -d); T=$(mktemp -d)
  DG_CACHE_DIR=$C timeout 50 "$NEW" --db "$T" autotune maxwell2d --orders 7 --precision $p --every-variant --no-early-stop $D > "$R/untruncated-$p.txt" 2>&1
  echo "untruncated $p rc $?: $(grep winner "$R/untruncated-$p.txt" | tail -1 | sed 's/.*winner //' | cut -c1-160)"; pack
done
[ "${F64:-0}" = 1 ] || { date -u +%FT%TZ | tee -a "$R/date"; pack; exit 0; }
t0=$SECONDS; DG_CACHE_DIR=$(mktemp -d) timeout 110 "$NEW" --db "$DB" autotune maxwell2d --orders 1..8 --precision f64 $D > "$R/tune-f64.txt" 2> "$R/tune-f64.err"
echo "tune f64 rc $? ($(( SECONDS - t0 )) s)"; grep -E "winner|geometric" "$R/tune-f64.txt" | sed 's/ GFLOP.*roofline/ …/' | cut -c1-150
date -u +%FT%TZ | tee -a "$R/date"; pack
