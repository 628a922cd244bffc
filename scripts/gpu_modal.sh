#!/usr/bin/env bash
# Issue 5 on the GPU machine, in one call: CUDA verification of every modal variant (p = 1..5, f32 + f64), the
# modal benchmark (every variant, ~16M DOFs), a p = 1 run on 4M triangles, and — on the host's CPU cores at
# the same time — the two Euler convergence studies, one process per degree. Results in $OUT/modal.tar.gz.
set -u
DG=${DG:-gpu/dg}
R=$(mktemp -d)
export DG_CACHE_DIR=$R/cache
date -u +%FT%TZ > "$R/date"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$R/gpu.txt" 2>&1
for p in 1 2 3 4; do
  RAYON_NUM_THREADS=3 timeout 540 "$DG" convergence euler-supersonic-vortex --orders $p --levels 4 --json \
    > "$R/sv_p$p.json" 2> "$R/sv_p$p.err" &
done
RAYON_NUM_THREADS=2 timeout 540 "$DG" convergence euler-isentropic-vortex --orders 1..4 --levels 4 --json \
  > "$R/iv.json" 2> "$R/iv.err" &
"$DG" verify euler2d --formulation modal-tri --order 1..5 --device cuda:0 --json > "$R/verify.json" 2> "$R/verify.err"
echo "verify: $(grep -o '"passed": [0-9]*' "$R/verify.json") of $(grep -o '"tested": [0-9]*' "$R/verify.json")"
"$DG" autotune euler2d --formulation modal-tri --orders 1..5 --device cuda:0 --json > "$R/bench.json" 2> "$R/bench.err"
"$DG" autotune euler2d --formulation modal-tri --orders 1 --min-dofs 4000000 --precision both --device cuda:0 --json > "$R/bench4m.json" 2> "$R/bench4m.err"
grep -h "^p=\|GB/s" "$R"/bench*.err | tail -3
wait
tar -czf "$OUT/modal.tar.gz" -C "$R" .
ls -la "$R"
