#!/usr/bin/env bash
# Device-machine session, last calls (≤ 10 min each), with the tuned database carried in gpu/db. Sections, chosen
# by the first argument (default: all): `ptxas` register and spill reports of the f32 winners; `sanitizer`
# (compute-sanitizer memcheck and racecheck on one launch of every winner); `run` (`dg run` twice with the same
# key: the second must hit the database); `ncu` (Nsight Compute DRAM bytes of the f32 winners, N = 3..8);
# `opencl` (NVIDIA OpenCL verification of maxwell2d, N = 1..8, f32 and f64). Results in $OUT/results-inspect-*.tgz.
set -u
SECTIONS=${1:-ptxas sanitizer run ncu opencl}
has() { case " $SECTIONS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
DG=./gpu/dg
OUT=${OUT:-/tmp/out}
R=$(mktemp -d)
export DG_CACHE_DIR=$R/cache
mkdir -p tuning-db && cp gpu/db/*.json tuning-db/
$DG bench maxwell2d --orders 1..8 --precision both --device cuda:0 --json > "$R/bench.json" 2> "$R/bench.log"
python3 - "$R/bench.json" > "$R/winners.txt" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1])):
    print(r["order"], r["winner"])
PY
if has ptxas; then
# compiler reports (registers, spills) of the f32 winners, compiled by nvcc for the same architecture
: > "$R/ptxas.txt"
grep "/f32" "$R/winners.txt" | while read -r order spec; do
  $DG emit maxwell2d --order "$order" --variant "$spec" --target cuda > "$R/k.cu" 2>/dev/null
  echo "== N=$order $spec" >> "$R/ptxas.txt"
  nvcc -std=c++17 -arch=sm_90 -cubin -Xptxas -v -o "$R/k.cubin" "$R/k.cu" 2>&1 | grep -E "registers|spill|Compiling entry" >> "$R/ptxas.txt"
done
grep -E "==|registers|spill" "$R/ptxas.txt" | grep -v "update\|lincomb" | cut -c1-160 | head -60
fi
if has ncu; then
# DRAM bytes actually moved by the f32 winners, against the cost model's minimum
: > "$R/ncu.txt"
for order in 3 4 5 6 7 8; do
  echo "== N=$order" >> "$R/ncu.txt"
  timeout 60 ncu --clock-control none --csv --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \
    -k regex:'^(volume|surface|rhs|flux|lift)$' --launch-skip 6 --launch-count 3 \
    $DG bench maxwell2d --orders $order --precision f32 --device cuda:0 >> "$R/ncu.txt" 2>&1
done
grep -E "^==|dram__bytes|gpu__time" "$R/ncu.txt" | awk -F'","' '{print $5, $(NF-2), $(NF-1), $NF}' | cut -c1-160 | head -60
fi
if has sanitizer; then
: > "$R/sanitizer.txt"
while read -r order spec; do
  for tool in memcheck racecheck; do
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $DG verify maxwell2d --order "$order" --device cuda:0 --variant "$spec" > "$R/san.log" 2>&1
    echo "N=$order $spec $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$R/san.log" | head -1)" >> "$R/sanitizer.txt"
  done
done < "$R/winners.txt"
cat "$R/sanitizer.txt"
fi
if has run; then
# dg run twice with the same key: the first tunes (greedy, 30 s budget) and fills the kernel cache, the second
# must hit the database and do no benchmarking
export DG_CACHE_DIR=$R/run-cache
for i in 1 2; do
  /usr/bin/time -f "wall %e s" $DG run maxwell-cavity --order 4 --nx 64 --device cuda:0 > "$R/run$i.txt" 2>&1
  grep -Ev "^\s*$" "$R/run$i.txt" | tail -8
done
$DG run maxwell-cavity --order 4 --nx 64 --device cpu > "$R/run_cpu.txt" 2>&1; grep -E "L2" "$R/run_cpu.txt"
fi
if has opencl; then
nvopencl=$($DG devices --json 2>/dev/null | python3 -c "import json,sys; d=json.load(sys.stdin); print(next((x['selector'] for x in d['devices'] if x['backend']=='opencl' and 'NVIDIA' in x['vendor']), ''))")
if [ -n "$nvopencl" ]; then
  timeout 400 $DG verify maxwell2d --order 1..8 --device "$nvopencl" --precision both --json > "$R/verify_nvopencl_maxwell2d.json" 2> "$R/verify_nvopencl_maxwell2d.log"
  echo "verify $nvopencl maxwell2d rc=$? $(grep -E '"(tested|passed|rejected)"' "$R/verify_nvopencl_maxwell2d.json" | tr -d ' \n')"
  grep "N=" "$R/verify_nvopencl_maxwell2d.log" | tr '\n' ';' | cut -c1-600; echo
fi
fi
tar -czf "$OUT/results-inspect-$(echo $SECTIONS | tr ' ' '-').tgz" -C "$R" --exclude cache --exclude run-cache --exclude k.cubin .
