#!/usr/bin/env bash
# The mirror tiles with their face indices read ahead (`ahead<t>`, in the tuner's list beside `mirror<t>`) on the
# H100, N = 5..8 (where the mirror tiles win), sized to the device time left: the shipped binary's database winners
# benched first on the same card ($OLD, the baseline); then with $NEW the maxwell2d right-hand side tuned into an
# empty database (every candidate verified first), `dg --db DB bench maxwell2d --orders 5..8`, and tuning N = 7 in two
# processes on empty kernel caches. Packed after every step.
# usage: OLD=path/to/dg-old NEW=path/to/dg OUT=dir bash scripts/probe/faces_ahead_retune.sh
set -u
OLD=${OLD:?}; NEW=${NEW:?}; OUT=${OUT:?}; R=$OUT/r; DB=/tmp/db-final; mkdir -p "$R" "$DB"; D="--device cuda:0"
pack() { rm -rf "$OUT/db"; cp -r "$DB" "$OUT/db"; (cd "$OUT" && tar -czf results.tgz r db); }
nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u +%FT%TZ | tee -a "$R/date"
for p in f32 f64; do
  timeout 60 "$OLD" bench maxwell2d --orders 5..8 --precision $p $D > "$R/baseline-$p.txt" 2> "$R/baseline-$p.err"
  echo "baseline $p rc $?"; grep -E "^ *[0-9] " "$R/baseline-$p.txt" | awk "{print \$1, \$2, \$3, \$4, \$8}"
done; pack
for p in f32 f64; do
  t0=$SECONDS
  DG_CACHE_DIR=$(mktemp -d) timeout 120 "$NEW" --db "$DB" autotune maxwell2d --orders 5..8 --precision $p $D > "$R/tune-$p.txt" 2> "$R/tune-$p.err"
  echo "tune $p rc $? ($(( SECONDS - t0 )) s)"; pack
  timeout 60 "$NEW" --db "$DB" bench maxwell2d --orders 5..8 --precision $p $D > "$R/bench-$p.txt" 2> "$R/bench-$p.err"
  echo "bench $p rc $?"; grep -E "^ *[0-9] " "$R/bench-$p.txt" | awk "{print \$1, \$2, \$3, \$4, \$8}"; pack
done
for p in f32 f64; do for run in a b; do
  C=$(mktemp -d); T=$(mktemp -d); t0=$(date +%s.%N)
  DG_CACHE_DIR=$C timeout 60 "$NEW" --db "$T" autotune maxwell2d --orders 7 --precision $p $D > "$R/tunetime-$p-$run.txt" 2>&1
  echo "tunetime $p $run rc $? (process $(python3 -c "print(round($(date +%s.%N) - $t0, 2))") s): $(grep winner "$R/tunetime-$p-$run.txt" | tail -1 | sed 's/.*winner //')"
  pack
done; done
date -u +%FT%TZ | tee -a "$R/date"; pack
