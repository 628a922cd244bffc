#!/usr/bin/env bash
# The --help examples that need a GPU, run as printed (dg = the committed binary); one list per call.
set -u
LIST="$1"; LIMIT="${2:-540}"
mkdir -p /tmp/dgbin && tar -C /tmp/dgbin -xJf gpu/r1.tar.xz
export PATH=/tmp/dgbin:$PATH DG_CACHE_DIR=/tmp/dgcache
mkdir -p "$OUT/logs"; date -u > "$OUT/date"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> "$OUT/date"
start=$(date +%s); i=0
while IFS= read -r line; do
  [ -z "$line" ] && continue
  i=$((i+1)); now=$(date +%s)
  if [ $((now - start)) -gt "$LIMIT" ]; then printf "%2d  SKIP (time)  %s\n" $i "$line" | tee -a "$OUT/summary.txt"; continue; fi
  s=$(date +%s.%N)
  timeout ${CMD_LIMIT:-280} bash -c "$line" > "$OUT/logs/$i.out" 2> "$OUT/logs/$i.err" < /dev/null; rc=$?
  e=$(date +%s.%N)
  printf "%2d rc=%3d %6.1fs  %s\n" $i $rc "$(python3 -c "print($e-$s)")" "$line" | tee -a "$OUT/summary.txt"
done < "$LIST"
[ -f tet.json ] && cp tet.json "$OUT/" 
tar -C "$OUT" -czf "$OUT/logs.tar.gz" logs && rm -rf "$OUT/logs"
