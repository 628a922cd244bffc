#!/usr/bin/env bash
# The submitted binary at N = 8 f32 on an H100: the tuning of maxwell2d's right-hand side on an empty user database
# (the shipped file's winner is the stored one; the tuner's report of a faster candidate it kept out), `dg bench` with
# the shipped winners, and `mmamirrorb9` verified at N = 1..8.
# Usage: DG=path/to/dg OUT=dir bash scripts/probe/final_b9_check.sh
set -u
DG=${DG:?}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u; } | tee -a "$R/date"
DG_CACHE_DIR=$(mktemp -d) timeout 90 "$DG" --db "$(mktemp -d)" autotune maxwell2d --orders 8 --precision f32 $D \
  > "$R/tune.txt" 2> "$R/tune.err"; echo "tune rc $?"; cat "$R/tune.txt"
timeout 60 "$DG" bench maxwell2d --orders 8 --precision f32 $D 2>&1 | tee "$R/bench.txt" | grep -E "^ *8 "
timeout 120 "$DG" verify maxwell2d --order 1..8 --variant mmamirrorb9/wg16/seq1/field-local/merged/tiled/f32/mixed $D \
  2>&1 | tail -2 | tee "$R/check.txt"
date -u | tee -a "$R/date"; (cd "$OUT" && tar -czf results.tgz r)
