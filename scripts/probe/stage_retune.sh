#!/usr/bin/env bash
# The maxwell2d stage (`--operation stage`, the LSRK45 stage a run steps) tuned again on the H100 with the current
# list (the whole-element and balanced mirror tiles joined it after the stage entries were tuned): the shipped
# stage winners benched first (the binary's compiled-in database), then N = 1..8 tuned into an empty database
# (exhaustive, every candidate verified first) and benched, both precisions; then one short maxwell-cavity run at
# N = 8 on the 16M-DOF mesh with each database.
# usage: DG=path/to/dg OUT=dir bash scripts/probe/stage_retune.sh
set -u
DG=${DG:?}; OUT=${OUT:?}; R=$OUT/r; DB=/tmp/db-stage; mkdir -p "$R" "$DB"; D="--device cuda:0"
pack() { rm -rf "$OUT/db"; cp -r "$DB" "$OUT/db"; (cd "$OUT" && tar -czf results.tgz r db); }
row() { grep -E "^ *[0-9] " "$1" | awk '{print "N"$1, $2, $3, $4, $8}'; }
nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u +%FT%TZ | tee -a "$R/date"
for p in f32 f64; do
  timeout 60 "$DG" bench maxwell2d --operation stage --orders 1..8 --precision $p $D > "$R/shipped-$p.txt" 2> "$R/shipped-$p.err"
  echo "shipped stage $p rc $?"; row "$R/shipped-$p.txt"
done; pack
for p in f32 f64; do
  t0=$SECONDS
  DG_CACHE_DIR=$(mktemp -d) timeout 240 "$DG" --db "$DB" autotune maxwell2d --orders 1..8 --precision $p --operation stage $D > "$R/tune-$p.txt" 2> "$R/tune-$p.err"
  echo "tune stage $p rc $? ($(( SECONDS - t0 )) s)"; grep -E "winner" "$R/tune-$p.txt" | sed 's/ GFLOP.*roofline/ …/' | cut -c1-150; pack
  timeout 60 "$DG" --db "$DB" bench maxwell2d --operation stage --orders 1..8 --precision $p $D > "$R/bench-$p.txt" 2> "$R/bench-$p.err"
  echo "bench stage $p rc $?"; row "$R/bench-$p.txt"; pack
done
for p in f32 f64; do
  for which in shipped tuned; do
    dbarg=(); [ $which = tuned ] && dbarg=(--db "$DB")
    timeout 90 "$DG" "${dbarg[@]}" run maxwell-cavity --order 8 --nx 244 --t-end 2e-3 --precision $p $D > "$R/run-$p-$which.txt" 2>&1
    echo "run N=8 $p $which rc $?: $(grep -E '^(L2 error|throughput|kernels)' "$R/run-$p-$which.txt" | tr '\n' ' ' | cut -c1-260)"
  done
done
date -u +%FT%TZ | tee -a "$R/date"; pack
