#!/bin/bash
set -u
mkdir -p gpu/bin && tar -C gpu/bin -xJf gpu/pf.tar.xz
export OLD=gpu/bin/dg-old NEW=gpu/bin/dg
FOCUS='^mma' OUT=$OUT/u AB_ORDERS=5..8 AB_PRECISION=f64 AB_OPERATION=unit TAG=unit PARTS=ab bash scripts/probe/family_ab.sh 2>&1 | grep -v "^    "
FOCUS='^mma' OUT=$OUT/s AB_ORDERS=5..8 AB_PRECISION=f64 AB_OPERATION=stage TAG=stage PARTS=ab bash scripts/probe/family_ab.sh 2>&1 | grep -v "^    "
ratio=$(python3 - <<'PY'
import sys, statistics
sys.path.insert(0,'scripts/probe')
from tuner_log import candidate_times as read
import os
out=os.environ['OUT']; rs=[]
for tag,d in [('unit',out+'/u/r'),('stage',out+'/s/r')]:
    old=read(f'{d}/ab-{tag}-old.err'); new=read(f'{d}/ab-{tag}-new.err')
    for key in sorted({k for k,_ in new}):
        ch=[new[(key,s)]/old[(key,s)] for (k,s) in new if k==key and (key,s) in old and s.startswith('mma')]
        bo=min(v for (k,s),v in old.items() if k==key); bn=min(v for (k,s),v in new.items() if k==key)
        print(f"{tag} N={key[0]} {key[1]}: mma median {statistics.median(ch):.3f} ({min(ch):.3f}-{max(ch):.3f}) best {bo:.4f} -> {bn:.4f}", file=sys.stderr)
        rs.append(bn/bo)
print(f"{statistics.median(rs):.4f}")
PY
)
echo "median best new/old: $ratio"
if python3 -c "import sys; sys.exit(0 if float('$ratio') < 0.99 else 1)"; then
  export DG=$NEW DB=gpu/db R=$OUT/rt D="--device cuda:0"; mkdir -p $R
  source scripts/probe/nodal_retune_lib.sh
  nodal_retune f64; nodal_bench f64
  $DG verify maxwell2d --order 5..8 --precision f64 --variant mma16/wg8/seq1/field-local/merged/node-major/f64 --plant-bug skip-last-group $D > $R/planted.txt 2>&1; echo "planted rc $?"
  cp gpu/db/cuda-nvidia-h200-sm-90.json $R/
fi
cd $OUT && tar -czf r.tgz u/r s/r rt 2>/dev/null; rm -rf u s rt
