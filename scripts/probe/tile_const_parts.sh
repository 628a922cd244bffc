#!/usr/bin/env bash
# The matrix-const tiles written out once per work item's part (every operator index a compile-time constant, each
# entry an operand of the multiply-add): verified on CUDA, then each variant timed by `dg bench --variant` with the
# new binary, the old one and the new one again (one process per variant and binary, orders $ORDERS), and the
# machine code of the emitted sources in $SRC (nvcc -cubin; FFMA, FFMA with a constant-bank operand, LDC, LDS).
# NEW is built with scripts/probe/tile_const_parts.patch applied (`git apply`), OLD without it. Measured and not
# kept (docs/performance.md, "The constant-memory tiles written out per part"): the nvcc builds and the CUDA
# verification took about 6.5 minutes of the first call and the written-out tiles build slowly — keep VARIANTS short.
# usage: OLD=gpu/dg-old NEW=gpu/dg SRC=gpu/src OUT=dir bash scripts/probe/tile_const_parts.sh
set -u
OUT=${OUT:?}; NEW=${NEW:-gpu/dg}; OLD=${OLD:-gpu/dg-old}; SRC=${SRC:-}
ORDERS=${ORDERS:-4..8}
VARIANTS=${VARIANTS:-"tile4/wg32/seq1/matrix-const/merged/tiled/f32/mixed tile6/wg32/seq1/matrix-const/merged/tiled/f32/mixed
tile8/wg32/seq1/matrix-const/merged/tiled/f32/mixed tile4/wg32/seq1/matrix-local/merged/tiled/f32/mixed
tile6/wg32/seq1/matrix-local/merged/tiled/f32/mixed tile4/wg32/seq1/matrix-const/merged/tiled/f64"}
R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.max.sm --format=csv,noheader; date -u +%FT%TZ | tee "$R/date"
if [ -n "$SRC" ]; then
  for f in "$SRC"/*.cu; do
    b=$(basename "$f" .cu)
    nvcc -O3 -arch=sm_90 -cubin -Xptxas -v -o "$R/$b.cubin" "$f" > "$R/$b.ptxas" 2>&1 || { echo "nvcc $b failed"; continue; }
    cuobjdump -sass "$R/$b.cubin" > "$R/$b.sass"
    printf '%-40s FFMA %5d  FFMA c[] %5d  LDC %5d  LDS %5d  %s\n' "$b" "$(grep -c 'FFMA\|DFMA' "$R/$b.sass")" \
      "$(grep -E 'FFMA|DFMA' "$R/$b.sass" | grep -c 'c\[0x3\]')" "$(grep -c ' LDC' "$R/$b.sass")" \
      "$(grep -c ' LDS' "$R/$b.sass")" "$(grep -o 'Used [0-9]* registers' "$R/$b.ptxas" | head -1)"
  done | tee "$R/sass-summary.txt"
fi
pack() { (cd "$OUT" && tar -czf results.tgz r); }  # after every step: a call that runs out of time keeps what it has
pack
for v in $VARIANTS; do
  timeout 120 "$NEW" verify maxwell2d --order 1..8 --variant "$v" $D > "$R/verify-$(echo "$v" | tr / _).txt" 2>&1
  echo "verify $v rc $? $(tail -1 "$R/verify-$(echo "$v" | tr / _).txt")"
done
timeout 60 "$NEW" verify maxwell2d --order 6 --variant tile4/wg32/seq1/matrix-const/merged/tiled/f32/mixed \
  --plant-bug skip-last-group $D > "$R/verify-planted.txt" 2>&1
echo "planted bug: rc $? (1 expected)"
pack
for v in $VARIANTS; do
  for which in new old new2; do
    dg=$NEW; [ $which = old ] && dg=$OLD
    timeout 150 "$dg" --db "$(mktemp -d)" bench maxwell2d --orders "$ORDERS" --variant "$v" $D \
      > "$R/bench-$(echo "$v" | tr / _)-$which.txt" 2> "$R/bench-$(echo "$v" | tr / _)-$which.err"
    echo "bench $which $v rc $?"
    grep -E '^ *[0-9] ' "$R/bench-$(echo "$v" | tr / _)-$which.txt" | awk '{print "   ", $1, $2, $3, $4, $NF}'
    pack
  done
done
