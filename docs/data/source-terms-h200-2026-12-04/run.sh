#!/usr/bin/env bash
# Source terms in the generated kernels on the GPU (dg and the custom-law example's binary, built here, carried in
# gpu/src1.tar.xz, or the archive named third): every command of the list (commands.txt, or the file named second), a log each, a summary line each (rc, seconds).
set -u
LIMIT="${1:-560}"; LIST="${2:-docs/data/source-terms-h200-2026-12-04/commands.txt}"; BIN="${3:-gpu/src1.tar.xz}"
mkdir -p /tmp/dgbin && tar -C /tmp/dgbin -xJf "$BIN"
export PATH=/tmp/dgbin:$PATH DG_CACHE_DIR=/tmp/dgcache
mkdir -p "$OUT/logs"; date -u > "$OUT/date"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> "$OUT/date"
start=$(date +%s); i=0
while IFS= read -r line; do
  case "$line" in ''|'#'*) continue;; esac
  i=$((i+1)); now=$(date +%s)
  if [ $((now - start)) -gt "$LIMIT" ]; then printf "%2d  SKIP (time)  %s\n" $i "$line" | tee -a "$OUT/summary.txt"; continue; fi
  s=$(date +%s.%N)
  timeout ${CMD_LIMIT:-240} bash -c "$line" > "$OUT/logs/$i.out" 2> "$OUT/logs/$i.err" < /dev/null; rc=$?
  e=$(date +%s.%N)
  printf "%2d rc=%3d %6.1fs  %s\n" $i $rc "$(python3 -c "print($e-$s)")" "$line" | tee -a "$OUT/summary.txt"
  tail -n 2 "$OUT/logs/$i.err" | sed 's/^/      /'
done < "$LIST"
tar -C "$OUT" -czf "$OUT/logs.tar.gz" logs && rm -rf "$OUT/logs"
