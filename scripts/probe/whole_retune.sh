#!/usr/bin/env bash
# `whole<t>` (the faces-ahead mirror tiles unrolled over the whole element in one chunk, the neighbours from the
# faces' packed links; f32 in groups of 32, f64 of 16) in the tuner's list, on the H100, packed after every step.
# PART=tune: the shipped binary's winners benched first on the same card ($OLD, its compiled-in database; skipped
# without OLD), then the maxwell2d right-hand side tuned at N = 1..8 into an empty database with $NEW (every candidate verified first; the
# geometric-mean speed-up over the best fixed variant across N = 1..8) and benched, both precisions.
# PART=time: tuning N = 7 in two processes on empty kernel caches and databases, and untruncated
# (--every-variant --no-early-stop), both precisions.
# usage: PART=tune|time [OLD=path/to/dg-old] [PRECISIONS="f64 f32"] NEW=path/to/dg OUT=dir bash scripts/probe/whole_retune.sh
set -u
NEW=${NEW:?}; OUT=${OUT:?}; PART=${PART:?}; R=$OUT/r; DB=/tmp/db-final; mkdir -p "$R" "$DB"; D="--device cuda:0"
pack() { rm -rf "$OUT/db"; cp -r "$DB" "$OUT/db"; (cd "$OUT" && tar -czf results.tgz r db); }
row() { grep -E "^ *[0-9] " "$1" | awk '{print "N"$1, $2, $3, $4, $8}'; }
nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u +%FT%TZ | tee -a "$R/date"
if [ "$PART" = tune ] && [ -n "${OLD:-}" ]; then
  for p in f32 f64; do
    timeout 60 "$OLD" bench maxwell2d --orders 1..8 --precision $p $D > "$R/baseline-$p.txt" 2> "$R/baseline-$p.err"
    echo "baseline $p rc $?"; row "$R/baseline-$p.txt"
  done; pack
fi
if [ "$PART" = tune ]; then
  for p in ${PRECISIONS:-f32 f64}; do
    t0=$SECONDS
    DG_CACHE_DIR=$(mktemp -d) timeout 190 "$NEW" --db "$DB" autotune maxwell2d --orders 1..8 --precision $p $D > "$R/tune-$p.txt" 2> "$R/tune-$p.err"
    echo "tune $p rc $? ($(( SECONDS - t0 )) s)"; grep -E "winner|geometric" "$R/tune-$p.txt" | sed 's/ GFLOP.*roofline/ …/' | cut -c1-150; pack
    timeout 60 "$NEW" --db "$DB" bench maxwell2d --orders 1..8 --precision $p $D > "$R/bench-$p.txt" 2> "$R/bench-$p.err"
    echo "bench $p rc $?"; row "$R/bench-$p.txt"; pack
  done
fi
if [ "$PART" = time ]; then
  for p in f32 f64; do
    for run in a b; do
      C=$(mktemp -d); T=$(mktemp -d); t0=$(date +%s.%N)
      DG_CACHE_DIR=$C timeout 40 "$NEW" --db "$T" autotune maxwell2d --orders 7 --precision $p $D > "$R/tunetime-$p-$run.txt" 2>&1
      echo "tunetime $p $run rc $? (process $(python3 -c "print(round($(date +%s.%N) - $t0, 2))") s): $(grep winner "$R/tunetime-$p-$run.txt" | tail -1 | sed 's/.*winner //' | cut -c1-160)"
    done; pack
    C=$(mktemp -d); T=$(mktemp -d)
    DG_CACHE_DIR=$C timeout 60 "$NEW" --db "$T" autotune maxwell2d --orders 7 --precision $p --every-variant --no-early-stop $D > "$R/untruncated-$p.txt" 2>&1
    echo "untruncated $p rc $?: $(grep winner "$R/untruncated-$p.txt" | tail -1 | sed 's/.*winner //' | cut -c1-160)"; pack
  done
fi
date -u +%FT%TZ | tee -a "$R/date"; pack
