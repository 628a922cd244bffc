#!/usr/bin/env bash
# Device-machine session, part 2: NVIDIA OpenCL verification (maxwell2d), autotuning of maxwell2d (N = 1..8,
# f32 and f64, exhaustive, ≥ 4M DOFs per timing), the bench table, and compute-sanitizer (memcheck and
# racecheck) on one launch of every winning kernel. Runs the carried binary gpu/dg; results under $OUT.
set -u
DG=./gpu/dg
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT/db"
t0=$(date +%s)
timeout 150 $DG verify maxwell2d --order 1..8 --device opencl:1:0 --precision both --json > "$OUT/verify_nvopencl_maxwell2d.json" 2> "$OUT/verify_nvopencl.log"
echo "nvidia-opencl maxwell2d rc=$? $(( $(date +%s) - t0 ))s $(grep -E '"(tested|passed|rejected)"' "$OUT/verify_nvopencl_maxwell2d.json" | tr -d ' \n')"
for p in f32 f64; do
  t0=$(date +%s)
  timeout 200 $DG autotune maxwell2d --orders 1..8 --precision $p --device cuda:0 --db "$OUT/db" > "$OUT/autotune_$p.txt" 2> "$OUT/autotune_$p.log"
  echo "autotune $p rc=$? $(( $(date +%s) - t0 ))s"; cat "$OUT/autotune_$p.txt"
done
cp tuning-db/*.json "$OUT/db/" 2>/dev/null
mkdir -p tuning-db && cp "$OUT"/db/*.json tuning-db/ 2>/dev/null
$DG bench maxwell2d --orders 1..8 --precision both --device cuda:0 --json > "$OUT/bench.json" 2>/dev/null
$DG bench maxwell2d --orders 1..8 --precision both --device cuda:0 2>/dev/null | tee "$OUT/bench.txt"
# sanitizers on one launch of each winner (a verify run launches every kernel of the variant once)
python3 - "$OUT/bench.json" > "$OUT/winners.txt" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1])):
    print(r["order"], r["winner"])
PY
: > "$OUT/sanitizer.txt"
while read -r order spec; do
  for tool in memcheck racecheck; do
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $DG verify maxwell2d --order "$order" --device cuda:0 --variant "$spec" > "$OUT/san.log" 2>&1
    rc=$?; echo "N=$order $spec $tool rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san.log" | head -1)" >> "$OUT/sanitizer.txt"
  done
done < "$OUT/winners.txt"
cat "$OUT/sanitizer.txt"
