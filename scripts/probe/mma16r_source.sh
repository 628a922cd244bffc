#!/usr/bin/env bash
# mhd2d (a law with a source) through the f64 tensor-core kernel with B in registers (mma16r): verified with the
# source added in its store, the planted source-dropped bug caught, and its right-hand side and stage timed against
# the previous binary (a separate source kernel after the right-hand side).
# Usage (device machine): OLD=gpu/x/dg-old NEW=gpu/x/dg OUT=$OUT bash scripts/probe/mma16r_source.sh
set -u
OLD=${OLD:?}; NEW=${NEW:?}; OUT=${OUT:-/tmp/mma16r-source}
mkdir -p "$OUT"
V=field-local/merged/node-major/f64
for g in 8 16 32; do
  "$NEW" verify mhd2d --order 2..7 --precision f64 --variant mma16r/wg$g/seq1/$V --device cuda:0 > "$OUT/verify-wg$g.txt" 2>&1
  echo "verify mma16r/wg$g N=2..7: exit $? $(tail -1 "$OUT/verify-wg$g.txt")"
done
"$NEW" verify mhd2d --order 3..6 --precision f64 --variant mma16r/wg32/seq1/$V --plant-bug source-dropped --device cuda:0 > "$OUT/planted.txt" 2>&1
echo "planted source-dropped (must fail): exit $? $(tail -1 "$OUT/planted.txt")"
for op in unit stage; do for n in 5 6 7; do for pass in 1 2; do for bin in OLD NEW; do
  b=${!bin}
  if "$b" bench mhd2d --orders $n --operation $op --variant mma16r/wg32/seq1/$V --device cuda:0 --json > "$OUT/bench.json" 2> "$OUT/bench.err"; then
    python3 -c "import json; r=json.load(open('$OUT/bench.json'))[0]; print('$op N=$n pass $pass $bin', '%.4f ms' % r['ms'], 'verified', r['verified_now'], '%.2e' % r['relative_error'])"
  else
    echo "$op N=$n $bin FAILED: $(tail -1 "$OUT/bench.err")"
  fi
done; done; done; done
