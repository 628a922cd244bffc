#!/usr/bin/env bash
# Device-machine session, call 1 (≤ 10 min): the card, `dg devices`, verification of every valid variant on CUDA
# (maxwell2d, advection2d, euler2d; N = 1..8; f32 and f64) and on NVIDIA OpenCL (maxwell2d). Builds nothing: runs
# the carried binary gpu/dg. Everything lands in $OUT/results-verify.tgz; a short table is printed.
set -u
DG=./gpu/dg
OUT=${OUT:-/tmp/out}
R=$(mktemp -d)
export DG_CACHE_DIR=$R/cache
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee "$R/gpu.txt"
$DG devices --json > "$R/devices.json" 2>&1
$DG devices | tee "$R/devices.txt"
nvopencl=$($DG devices --json 2>/dev/null | python3 -c "import json,sys; d=json.load(sys.stdin); print(next((x['selector'] for x in d['devices'] if x['backend']=='opencl' and 'NVIDIA' in x['vendor']), ''))")
for job in "cuda:0 maxwell2d" "cuda:0 advection2d" "cuda:0 euler2d" "$nvopencl maxwell2d"; do
  set -- $job; dev=$1; law=${2:-}
  [ -z "$law" ] && { echo "no NVIDIA OpenCL device"; continue; }
  {
    t0=$(date +%s)
    tag=$(echo "$dev" | tr ':' '_')
    timeout 130 $DG verify $law --order 1..8 --device "$dev" --precision both --json > "$R/verify_${tag}_$law.json" 2> "$R/verify_${tag}_$law.log"
    rc=$?
    grep -E "N=" "$R/verify_${tag}_$law.log" | tr '\n' ';' | cut -c1-400; echo
    echo "verify $dev $law rc=$rc $(( $(date +%s) - t0 ))s $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('tested', d['tested'], 'passed', d['passed'], 'rejected', d['rejected'], 'failed', len(d['failed']))" "$R/verify_${tag}_$law.json" 2>/dev/null)"
  }
done
tar -czf "$OUT/results-verify.tgz" -C "$R" --exclude cache .
