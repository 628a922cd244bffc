#!/bin/bash
set -u
mkdir -p gpu/bin && tar -C gpu/bin -xJf gpu/ab.tar.xz
export OLD=gpu/bin/dg-old NEW=gpu/bin/dg
FOCUS='^mma' OUT=$OUT/u AB_ORDERS=4..8 AB_PRECISION=both AB_OPERATION=unit TAG=unit PARTS=ab bash scripts/probe/family_ab.sh 2>&1 | grep -v "^    "
FOCUS='^mma' OUT=$OUT/s AB_ORDERS=5..8 AB_PRECISION=f64 AB_OPERATION=stage TAG=stage PARTS=ab bash scripts/probe/family_ab.sh 2>&1 | grep -v "^    "
# correctness of the new path with planted bug
for N in 5 8; do gpu/bin/dg verify maxwell2d --order $N --precision f64 --variant mma16/wg8/seq1/field-local/merged/node-major/f64 --device cuda:0 2>&1 | tail -2; done
gpu/bin/dg verify maxwell2d --order 6 --precision f32 --variant mma/wg8/seq1/field-local/merged/node-major/f32 --device cuda:0 2>&1 | tail -2
gpu/bin/dg verify euler2d --formulation nodal-tri --order 3 --precision f64 --variant mma/wg16/seq1/field-local/merged/node-major/f64 --device cuda:0 2>&1 | tail -2
gpu/bin/dg verify maxwell2d --order 7 --precision f64 --variant mma/wg8/seq1/field-local/merged/node-major/f64 --plant-bug skip-last-group --device cuda:0 > $OUT/planted.txt 2>&1; echo "planted rc $?"; tail -2 $OUT/planted.txt
for b in dg-old dg; do gpu/bin/$b run maxwell-cavity --order 6 --nx 100 --t-end 0.05 --precision f64 --variant mma16/wg8/seq1/field-local/merged/node-major/f64 --device cuda:0 --json > $OUT/run-$b.json 2>$OUT/run-$b.err; echo "$b rc $?"; grep -o '"l2_error[^,]*' $OUT/run-$b.json | head -3; done
