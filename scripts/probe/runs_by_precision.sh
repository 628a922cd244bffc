#!/usr/bin/env bash
# One call on the GPU machine after the runners took a `Precision` (dg-run instantiates their generic bodies once):
# `dg bench maxwell2d` (unit and stage, both precisions; the roofline's minimum bytes no longer count vmapM), then one
# run of every runner family on the device in f32 and f64 (nodal and modal triangles, the nodal Euler run,
# tetrahedra, hexahedra, finite volumes, HDG), each with its report in $OUT/runs/. Usage on the device machine:
#   OUT=… DG=gpu/dg bash scripts/probe/runs_by_precision.sh
set -u
DG=${DG:-gpu/dg}
O=${OUT:?}/runs
mkdir -p "$O"
export DG_CACHE_DIR=$(mktemp -d)
D="--device cuda:0"
date -u +%FT%TZ > "$O/date"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/gpu.txt" 2>&1
for op in unit stage; do
  timeout 150 "$DG" bench maxwell2d --orders 1..8 --precision both --operation $op $D > "$O/bench-$op.txt" 2> "$O/bench-$op.err"
  echo "bench $op rc $?"; cat "$O/bench-$op.txt"
done
run() { # name, then dg run arguments
  local name=$1; shift
  timeout 120 "$DG" run "$@" $D --json > "$O/$name.json" 2> "$O/$name.err"
  local rc=$?
  printf '%-28s rc %s  %s\n' "$name" "$rc" "$(grep -oE '"(l2_error|density_l2_error|max_error|kernel_seconds)": [-0-9.e+]+' "$O/$name.json" | head -3 | tr '\n' ' ')"
}
for p in f32 f64; do
  run maxwell-n4-$p maxwell-cavity --order 4 --nx 600 --t-end 0.3 --precision $p
  run vortex-modal-p3-$p euler-isentropic-vortex --order 3 --nx 600 --scheme rk4 --dt 5e-5 --t-end 0.025 --precision $p
  run vortex-nodal-n3-$p euler-isentropic-vortex --formulation nodal-tri --order 3 --nx 100 --t-end 0.5 --precision $p
  run acoustic-cube-n4-$p acoustic-cube --order 4 --precision $p
  run maxwell3d-cavity-d3-$p maxwell3d-cavity --order 3 --precision $p
  run orszag-tang-$p mhd-orszag-tang --nx 256 --precision $p
done
run helmholtz-p5 helmholtz-square --order 5 --nx 40
(cd "$O/.." && tar -czf runs.tgz runs && rm -rf runs)
