#!/usr/bin/env bash
# Seed 002 on the GPU machine: `dg verify --formulation nodal-tet` (every tetrahedral kernel, N = 1..8, f32 + f64, GEMMs through
# cuBLAS), `dg bench --per-kernel` (~2M nodes, f32, both laws; winners stored in the tuning database seeded with the
# shipped H100 file), the convergence studies and the two-layer case on the GPU, and the largest meshes the
# kernels' 32-bit indices allow. Results in $OUT/tet.tar.gz.
# PARTS chooses what runs (default all): verify bench conv two-layer large; LAWS and CASES narrow verify and conv.
set -u
DG=${DG:-gpu/dg}
PARTS=${PARTS:-"verify bench conv two-layer large"}
LAWS=${LAWS:-"acoustics3d elastic3d"}
CASES=${CASES:-"acoustic-cube elastic-cube"}
on() { [[ " $PARTS " == *" $1 "* ]]; }
R=$(mktemp -d)
export DG_CACHE_DIR=$R/cache
mkdir -p "$R/cache/tuning"
cp tuning-db/cuda-nvidia-h100-80gb-hbm3-sm-90.json "$R/cache/tuning/" 2>/dev/null
# cuBLAS: cudarc looks for libcublas.so (or .so.12/.so.11 …) on the loader path
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/lib/x86_64-linux-gnu; do
  if ls "$d"/libcublas.so* >/dev/null 2>&1; then export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"; break; fi
done
date -u +%FT%TZ > "$R/date"
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader > "$R/gpu.txt"; cat "$R/gpu.txt"
on verify && for law in $LAWS; do
  "$DG" verify "$law" --formulation nodal-tet --order 1..8 --device cuda:0 --json > "$R/verify-$law.json" 2> "$R/verify-$law.err"
  echo "verify $law rc=$? $(grep -E '"(tested|passed|rejected)"' "$R/verify-$law.json" | tr -d '\n ')"
done
if on bench; then
  "$DG" autotune acoustics3d --orders 1..8 --device cuda:0 && "$DG" autotune elastic3d --orders 1..8 --device cuda:0 && "$DG" bench acoustics3d,elastic3d --per-kernel --device cuda:0 --out "$R/bench.json" > "$R/bench.txt" 2> "$R/bench.err"
  echo "bench rc=$?"; cat "$R/bench.txt"
fi
on conv && for c in $CASES; do
  "$DG" convergence $c --orders 1..6 --levels 3 --device cuda:0 --json > "$R/conv-$c.json" 2> "$R/conv-$c.err"
  echo "conv $c rc=$? $(python3 -c "import json;d=json.load(open('$R/conv-$c.json'));print([(r['order'],round(r['rates'][-1],2)) for r in d['results']])" 2>/dev/null)"
done
on two-layer && for s in lsrk45 ab3; do
  "$DG" run acoustic-two-layer --order 4 --nx 16 --device cuda:0 --precision f64 --scheme $s --json > "$R/two-layer-$s.json" 2> "$R/two-layer-$s.err"
  echo "two-layer $s rc=$? $(grep -A4 coefficients "$R/two-layer-$s.json" | tr -d '\n ')"
done
on large && for lo in "acoustics3d 6 165000000" "elastic3d 3 71000000" "acoustics3d 1 120000000"; do set -- $lo
  /usr/bin/time -f "%e s, %M kB host" "$DG" bench $1 --per-kernel --orders $2 --nodes $3 --repeats 5 --device cuda:0 \
    --out "$R/large-$1-$2.json" > "$R/large-$1-$2.txt" 2> "$R/large-$1-$2.err"
  echo "large $1 N=$2 rc=$? $(cat "$R/large-$1-$2.txt") $(tail -1 "$R/large-$1-$2.err")"
done
tar -czf "$OUT/tet.tar.gz" -C "$R" --exclude cache/kernels .
