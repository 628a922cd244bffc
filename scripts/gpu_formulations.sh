#!/usr/bin/env bash
# Nodal vs modal on the isentropic vortex (H100): tune the nodal euler2d kernels (f64, N = 1..4, into a database
# seeded with the shipped H100 file), then the same convergence study with both formulations, Rusanov's flux for
# both (the flux the stored winners were tuned with). Results in $OUT/formulations.tar.gz.
set -u
DG=${DG:-gpu/dg}
R=$(mktemp -d)
export DG_CACHE_DIR=$R/cache
mkdir -p "$R/cache/tuning"
cp tuning-db/cuda-nvidia-h100-80gb-hbm3-sm-90.json "$R/cache/tuning/"
date -u +%FT%TZ > "$R/date"
"$DG" autotune euler2d --orders 1..4 --precision f64 --device cuda:0 > "$R/autotune.txt" 2>&1
tail -6 "$R/autotune.txt"
for f in modal nodal; do
  "$DG" convergence euler-isentropic-vortex --orders 1..4 --levels 4 --flux numerical_flux --formulation $f \
    --device cuda:0 --json > "$R/$f.json" 2> "$R/$f.err"
  echo "$f: $(grep -o '"seconds":\[[^]]*\]' "$R/$f.json" | tr '\n' ' ')"
done
tar -czf "$OUT/formulations.tar.gz" -C "$R" --exclude cache/kernels .
