#!/usr/bin/env bash
set -u
cd "$(dirname "$0")/.."
mkdir -p gpu/old gpu/new; tar -C gpu/old -xJf gpu/check-links.tar.xz; tar -C gpu/new -xJf gpu/dg-bc2.tar.xz
OUT=${OUT:?}
mkdir -p $OUT/sass; for f in gpu/sass2/*.cu; do n=$(basename ${f%.cu}); nvcc -cubin -arch=sm_90 -std=c++17 --resource-usage -o /tmp/$n.cubin $f > $OUT/sass/$n.usage 2>&1; cuobjdump -sass /tmp/$n.cubin > /tmp/$n.sass; echo "$n: $(grep -A3 "properties for rhs" $OUT/sass/$n.usage | grep -o 'Used [0-9]* registers') instr $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' /tmp/$n.sass) LDG $(grep -c LDG /tmp/$n.sass) BRA $(grep -c BRA /tmp/$n.sass)" | tee -a $OUT/sass/counts.txt; done
OLD=gpu/old/dg NEW=gpu/new/dg AB_ORDERS=1..4 AB_PRECISION=both RETUNE_PRECISION=both OUT=$OUT PARTS="ab retune bench" bash scripts/probe/elem_lean_faces.sh 2>&1 | grep -v "^    " | cut -c1-200
