#!/usr/bin/env bash
# The modal autotuner and the double Mach timings on the GPU machine: `dg autotune euler2d --formulation modal-tri` for p = 1..5, f32 + f64
# (verifies, times and stores each degree's winner in the tuning database, seeded with the shipped H100 file), and
# the double Mach reflection at p = 1 on three meshes near seed 001's Table 4 sizes. Results in $OUT/tune.tar.gz.
set -u
DG=${DG:-gpu/dg}
R=$(mktemp -d)
export DG_CACHE_DIR=$R/cache
mkdir -p "$R/cache/tuning"
cp tuning-db/cuda-nvidia-h100-80gb-hbm3-sm-90.json "$R/cache/tuning/" 2>/dev/null
date -u +%FT%TZ > "$R/date"
"$DG" autotune euler2d --formulation modal-tri --orders 1..5 --device cuda:0 --json > "$R/bench.json" 2> "$R/bench.err"
grep "winner" "$R/bench.err"
for n in 96 174 348; do
  png=""; [ $n = 348 ] && png="--png $R/double-mach-348.png --png-width 1600"
  "$DG" run euler-double-mach --nx $n --device cuda:0 $png --json > "$R/dmr$n.json" 2> "$R/dmr$n.err"
  echo "n=$n $(grep -E '"(elements|steps|min_density|min_pressure|wall_seconds|kernel_seconds|variant|variant_source)"' "$R/dmr$n.json" | tr -d '\n ')"
done
tar -czf "$OUT/tune.tar.gz" -C "$R" --exclude cache/kernels .
