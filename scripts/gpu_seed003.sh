#!/usr/bin/env bash
# Seed 003 on the GPU machine: the finite-volume and hexahedral autotunes (every candidate verified on the device,
# then timed in full; winners into tuning-db/), planted bugs, Orszag-Tang on 4096^2 and the issue's hexahedral
# convergence study. Results in $OUT/seed003.tgz (with the updated tuning-db file); a short table on stdout.
# PARTS chooses what runs (default all): fv bugs ot hex conv.
set -u
DG=${DG:-gpu/dg}
PARTS=${PARTS:-"fv bugs ot hex conv"}
on() { [[ " $PARTS " == *" $1 "* ]]; }
R=$(mktemp -d)
export DG_CACHE_DIR=${DG_CACHE_DIR:-$PWD/gpu/cache}
mkdir -p "$DG_CACHE_DIR"
date -u +%FT%TZ > "$R/date"
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader | tee "$R/gpu.txt"
stamp() { echo "[$(date -u +%T)] $*"; }
if on fv; then
  stamp fv autotune
  "$DG" autotune mhd2d --formulation fv --orders 1..2 --precision both --min-dofs 16777216 --no-early-stop \
    --device cuda:0 --db tuning-db --json > "$R/fv-autotune.txt" 2> "$R/fv-autotune.err"
  echo "fv autotune rc=$?"; python3 scripts/fv_table.py "$R/fv-autotune.txt" 9 2925.9
fi
if on bugs; then
  for b in skip-last-group last-element-unwritten; do
    "$DG" verify mhd2d --formulation fv --order 1..2 --precision f32 --device cuda:0 --plant-bug $b --json > "$R/fv-bug-$b.json" 2>/dev/null
    echo "fv planted $b rc=$? $(python3 -c "import json;d=json.load(open('$R/fv-bug-$b.json'));print(d['tested'],'tested',len(d['failed']),'failed')" 2>&1)"
  done
  for b in skip-last-group last-element-unwritten wrong-stride; do
    "$DG" verify euler3d --formulation hex --order 2 --precision f32 --device cuda:0 --plant-bug $b --json > "$R/hex-bug-$b.json" 2>/dev/null
    echo "hex planted $b rc=$? $(python3 -c "import json;d=json.load(open('$R/hex-bug-$b.json'));print(d['tested'],'tested',len(d['failed']),'failed')" 2>&1)"
  done
fi
if on ot; then
  for p in f32 f64; do
    stamp ot $p
    "$DG" run mhd-orszag-tang --nx 4096 --order 2 --device cuda:0 --db tuning-db --precision $p --json --png "$R/ot-$p.png" \
      > "$R/ot-$p.json" 2> "$R/ot-$p.err"
    echo "orszag-tang $p rc=$? $(python3 -c "
import json;d=json.load(open('$R/ot-$p.json'));dev=d['device'];n=d['steps']
print(dev['variant'], n, 'steps', round(1e3*dev['kernel_seconds']/n,3), 'ms/step kernels', round(1e3*dev['seconds_per_step'],3), 'ms/step wall')" 2>&1)"
  done
  "$DG" run mhd-orszag-tang --nx 4096 --order 1 --t-end 0.05 --device cuda:0 --db tuning-db --precision f32 --json > "$R/ot-o1-f32.json" 2> "$R/ot-o1.err"
  echo "orszag-tang order 1 rc=$?"
fi
if on hex; then
  stamp hex autotune
  "$DG" autotune maxwell3d --formulation hex --orders 1..6 --precision both --device cuda:0 --no-early-stop \
    --db tuning-db --json > "$R/hex-autotune.txt" 2> "$R/hex-autotune.err"
  echo "hex autotune rc=$?"; python3 scripts/hex_table.py "$R/hex-autotune.txt" 6
fi
if on conv; then
  stamp conv
  "$DG" convergence maxwell3d-plane-wave --orders 1..6 --levels 3 --device cuda:0 --db tuning-db --json > "$R/conv-maxwell3d.json" 2> "$R/conv.err"
  echo "conv rc=$? $(python3 -c "import json;d=json.load(open('$R/conv-maxwell3d.json'));print([(r['order'],round(r['rates'][-1],2)) for r in d['results']])" 2>&1)"
fi
stamp done
cp tuning-db/cuda-nvidia-h100-80gb-hbm3-sm-90.json "$R/" 2>/dev/null
tar czf "$OUT/seed003.tgz" -C "$R" .
