#!/usr/bin/env bash
cd "$(dirname "$0")"
mkdir -p $OUT/sass
for f in *.cu; do
  n=${f%.cu}
  nvcc -cubin -arch=sm_90 -std=c++17 --resource-usage -o $OUT/sass/$n.cubin $f > $OUT/sass/$n.usage 2>&1
  cuobjdump -sass $OUT/sass/$n.cubin > $OUT/sass/$n.sass
  echo "$n: $(grep -o 'REG:[0-9]*\|registers, [0-9]*' $OUT/sass/$n.usage | tr '\n' ' ') $(grep -i 'rhs' $OUT/sass/$n.usage | grep -o 'REG:[0-9]*' | head -1) instr $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' $OUT/sass/$n.sass) LDG $(grep -c 'LDG' $OUT/sass/$n.sass) BRA $(grep -c 'BRA' $OUT/sass/$n.sass) STL $(grep -c 'STL' $OUT/sass/$n.sass)"
done
cat $OUT/sass/old-n3.usage | head
rm $OUT/sass/*.cubin
