#!/usr/bin/env bash
# The folded LSRK45 loop (maxwell-cavity, 180,000 triangles, f64) with mma16 at 8 and 16 elements per group, run by two
# binaries: gpu/dg_nb (this commit's kernels) and gpu/dg_lb (the same with `__launch_bounds__(threads, groups)` on the
# mma16 kernel, an experiment not kept). Data: docs/data/nodal-mma16-h200-2026-11-29/launch-bounds.
# usage: OUT=dir bash scripts/probe/nodal_mma16_loop_ab.sh
set -u
for n in 8 6; do for b in nb lb; do for g in 8 16; do
  V=mma16/wg$g/seq1/field-local/merged/node-major/f64
  o=$OUT/loop-N$n-$b-wg$g
  DG_CACHE_DIR=$(mktemp -d) timeout 90 gpu/dg_$b run maxwell-cavity --order $n --nx 300 --t-end 0.2 --precision f64 --device cuda:0 --variant $V --json > $o.json 2> $o.err
  python3 -c "
import json;d=json.load(open('$o.json'));v=d['device']
print('N=$n $b wg$g steps',d['steps'],'L2 %.9e'%d['l2_error'],'kernels %.3f s'%v['kernel_seconds'])" || tail -2 $o.err
done; done; done
