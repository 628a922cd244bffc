#!/usr/bin/env bash
# Runs with the tiled winners of the compiled-in database (2026-12-04): the issue's start-up (scripts/probe/startup.sh,
# one cold kernel cache then two warm runs per precision), the folded Maxwell loop at N = 4 (720,000 triangles,
# t = 0.3) and the nodal vortex at N = 3, both precisions; the L2 errors to compare with the node-major winners'.
# usage: DG=path/to/dg OUT=dir bash scripts/probe/tiled_runs.sh
set -u
DG=${DG:?}; OUT=${OUT:?}; mkdir -p "$OUT"
DGS=$DG RUNS="cold warm1 warm2" OUT=$OUT/startup bash scripts/probe/startup.sh
for p in f32 f64; do
  o=$OUT/loop-maxwell-N4-$p
  DG_CACHE_DIR=$(mktemp -d) timeout 120 "$DG" run maxwell-cavity --order 4 --nx 600 --t-end 0.3 --precision $p --device cuda:0 --json > $o.json 2> $o.err
  echo "maxwell-cavity N=4 $p rc $?: $(python3 -c "
import json;d=json.load(open('$o.json'));v=d['device']
print(v['choice']['source'],v['choice']['variant'],'L2 %.6e'%d['l2_error'],'kernels %.3f s'%v.get('kernel_seconds',float('nan')))" 2>&1 | tail -1)"
  o=$OUT/vortex-nodal-N3-$p
  DG_CACHE_DIR=$(mktemp -d) timeout 120 "$DG" run euler-isentropic-vortex --formulation nodal-tri --order 3 --nx 100 --t-end 0.5 --precision $p --device cuda:0 > $o.txt 2>&1
  echo "vortex nodal N=3 $p rc $?: $(grep -iE 'L2|variant|winner' $o.txt | head -3 | tr '\n' ' ' | cut -c1-300)"
done
