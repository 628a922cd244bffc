#!/usr/bin/env bash
# The tetrahedral GEMM strategy with its products on the tf32 tensor cores (issue 14), on one CUDA GPU: the
# standalone probe of the kernel's tiles against cuBLAS (scripts/probe/gemm_mma_probe.cu), then
# `dg bench acoustics3d|elastic3d --per-kernel --orders 7 --precision f32` (every kernel verified on the device
# first, every strategy timed, the winner's AB3 step measured), then `dg autotune` of both laws at N = 7 into an
# empty database; then runs of the acoustic and elastic cubes at N = 7 with AB3 in f32 with the BLAS, the mma and
# the mma-ab3 engines (their errors against the exact solutions), and compute-sanitizer's memcheck on a short run of
# the mma-ab3 engine; with VERIFY=1 first `dg verify` of both laws at N = 3, 7, 8 in f32 on the device and a planted
# bug that must fail it. usage: DG=path/to/dg OUT=dir [PROBE=0 | PROBE_SHAPE=ac-grad] [VERIFY=1] bash scripts/probe/tet_mma.sh
set -u
R=${OUT:?}/tet-mma; mkdir -p $R
start=$(date +%s); budget=${BUDGET:-540}
left() { echo $(( budget - ($(date +%s) - start) )); }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
date -u | tee $R/date
if [ "${PROBE:-1}" = 1 ]; then
  nvcc -O3 -arch=sm_90 -Xptxas -v scripts/probe/gemm_mma_probe.cu -lcublas -o /tmp/gp > $R/probe-build.txt 2>&1
  echo "probe build rc $?"; grep -E "error" $R/probe-build.txt | head -5
  timeout 120 /tmp/gp ${PROBE_SHAPE:-} > $R/probe.txt 2>&1; echo "probe rc $?"; cat $R/probe.txt
fi
if [ "${VERIFY:-0}" = 1 ]; then
  for law in acoustics3d elastic3d; do for o in 3 7..8; do
    timeout 150 "$DG" verify $law --formulation nodal-tet --order $o --precision f32 --device cuda:0 > $R/verify-$law-$o.txt 2>&1
    echo "verify $law N=$o rc $?"; tail -2 $R/verify-$law-$o.txt | cut -c1-250
  done; done
  timeout 100 "$DG" verify acoustics3d --formulation nodal-tet --order 7 --precision f32 --device cuda:0 --plant-bug skip-last-group > $R/planted.txt 2>&1
  echo "planted skip-last-group rc $? (must be non-zero)"; tail -2 $R/planted.txt | cut -c1-250
fi
for law in acoustics3d elastic3d; do
  l=$(left); [ "$l" -gt 40 ] || { echo "bench $law: skipped"; continue; }
  timeout "$l" "$DG" bench $law --per-kernel --orders 7 --precision f32 --device cuda:0 --out $R/bench-$law.json > $R/bench-$law.txt 2> $R/bench-$law.err
  echo "bench $law rc $?"; grep -vE "^ +f32 m" $R/bench-$law.txt | head -30 | cut -c1-260; tail -3 $R/bench-$law.err | cut -c1-300
done
for law in acoustics3d elastic3d; do
  l=$(left); [ "$l" -gt 40 ] || { echo "autotune $law: skipped"; continue; }
  s=$(date +%s.%N)
  timeout "$l" "$DG" --db $R/db.json autotune $law --orders 7 --precision f32 --device cuda:0 > $R/tune-$law.txt 2> $R/tune-$law.err
  echo "autotune $law rc $? in $(python3 -c "print(round($(date +%s.%N) - $s, 1))") s"; tail -12 $R/tune-$law.txt | cut -c1-220; tail -3 $R/tune-$law.err | cut -c1-300
done
for case in acoustic-cube elastic-cube; do
  for v in tet/gemm-merged/u1/f32 tet/gemm/mma/u2/f32 tet/gemm-merged/mma-ab3/u1/f32; do
    l=$(left); [ "$l" -gt 20 ] || { echo "run $case $v: skipped"; continue; }
    f=$R/run-$case-$(echo $v | tr '/' '_').json
    timeout "$l" "$DG" run $case --order 7 --nx 12 --scheme ab3 --precision f32 --variant $v --device cuda:0 --json > $f 2> $f.err
    echo "run $case $v rc $? $(python3 -c "import json; d=json.load(open('$f')); print('l2', d.get('l2_error'), 'rel', d.get('relative_l2_error'), 'steps', d.get('steps'))" 2>&1 | tail -1)"
  done
done
l=$(left); if [ "$l" -gt 30 ]; then
  timeout "$l" compute-sanitizer --tool memcheck "$DG" run elastic-cube --order 7 --nx 3 --scheme ab3 --precision f32 --variant tet/gemm-merged/mma-ab3/u1/f32 --device cuda:0 --t-end 0.01 > $R/memcheck.txt 2>&1
  echo "memcheck rc $?"; grep -E "ERROR SUMMARY|Invalid" $R/memcheck.txt | head -5
fi
tar -C ${OUT} -czf ${OUT}/tet-mma.tgz tet-mma && rm -rf $R
