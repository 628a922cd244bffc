#!/usr/bin/env bash
# Two dg binaries' tetrahedral tensor-core engines against each other on one GPU: `dg verify` of both laws at N = 7
# in f32 with the new binary, then `dg --db DB autotune acoustics3d,elastic3d --orders 7 --precision f32` into an
# empty database per binary, new, old, new (every candidate verified first), each tuning's candidate list kept.
# usage: DG=new/dg DG_OLD=old/dg OUT=dir bash scripts/probe/tet_mma_ab.sh
set -u
R=${OUT:?}/ab; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt; date -u | tee $R/date
for law in acoustics3d elastic3d; do
  timeout 100 "$DG" verify $law --formulation nodal-tet --order 7 --precision f32 --device cuda:0 > $R/verify-$law.txt 2>&1
  echo "verify $law rc $?"; tail -1 $R/verify-$law.txt | cut -c1-200
done
i=0
for pair in "new $DG" "old $DG_OLD" "new $DG"; do
  set -- $pair; i=$((i+1))
  for law in acoustics3d elastic3d; do
    timeout 100 "$2" --db $R/db-$i-$1 autotune $law --orders 7 --precision f32 --device cuda:0 > $R/tune-$i-$1-$law.txt 2> $R/tune-$i-$1-$law.err
    echo "[$i $1] $law rc $?: $(grep -E 'mma' $R/tune-$i-$1-$law.err | sed 's/.*\] //' | sort -t: -k2 -n | grep -E '(gemm|gemm-merged)/mma(-ab3)?/u[12]/' | head -4 | tr '\n' ' ')"
  done
done
tar -C ${OUT} -czf ${OUT}/ab.tgz ab && rm -rf $R
