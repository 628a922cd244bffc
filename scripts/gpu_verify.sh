#!/usr/bin/env bash
# Device-machine session, part 1: devices, ceilings, verification of every valid variant on CUDA (maxwell2d,
# advection2d, euler2d; N = 1..8; f32 and f64) and on NVIDIA OpenCL (maxwell2d). Builds nothing: runs the
# carried binary gpu/dg. Results go to $OUT.
set -u
DG=./gpu/dg
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
$DG devices --json > "$OUT/devices.json" 2>&1; $DG devices
for law in maxwell2d advection2d euler2d; do
  start=$(date +%s)
  $DG verify $law --order 1..8 --device cuda:0 --precision both --json > "$OUT/verify_cuda_$law.json" 2> "$OUT/verify_cuda_$law.log"
  echo "cuda $law rc=$? $(( $(date +%s) - start ))s $(grep -E '"(tested|passed)"' "$OUT/verify_cuda_$law.json" | tr -d ' \n')"
done
