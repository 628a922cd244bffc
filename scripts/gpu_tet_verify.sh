#!/usr/bin/env bash
# Tetrahedral kernels on the GPU machine: dg verify --formulation nodal-tet for both wave laws, then bench --per-kernel on ~30M-node meshes.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export DG_CACHE_DIR=$(mktemp -d)
for law in acoustics3d elastic3d; do gpu/dg verify $law --formulation nodal-tet --order 1..8 --device cuda:0 --json > $OUT/verify-$law.json 2> $OUT/verify-$law.err; echo "$law rc=$? $(grep -E '"(tested|passed|rejected)"' $OUT/verify-$law.json | tr -d '\n ')"; done
# the largest meshes of this session: ~30M nodes, f32
for lo in "acoustics3d 1" "acoustics3d 6" "elastic3d 3"; do set -- $lo
  /usr/bin/time -f "%e s host+device" gpu/dg bench $1 --per-kernel --orders $2 --nodes 30000000 --repeats 5 --device cuda:0 --out $OUT/large-$1-$2.json 2>&1 | grep -v "^\s*$" | tail -2
done
nvidia-smi --query-gpu=memory.used --format=csv,noheader
