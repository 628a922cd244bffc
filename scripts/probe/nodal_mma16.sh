#!/usr/bin/env bash
# The f64 operator on the 16-row tensor-core shape (`mma16`, `mma.sync.m16n8k4.f64`, compute capability 9.0) on one
# GPU: the instruction shapes' throughput (scripts/probe/dmma_shapes.cu, when nvcc is there), mma16 verified against
# the CPU at N = 1..8 (Maxwell, every group size, both storages) and 1..4 (Euler), a planted bug verification must
# catch, maxwell2d tuned exhaustively in f64 at N = 1..8 into a copy of the shipped database (the best candidate of
# each partition per order), the winners benched, and the folded time loop run with the tuned winner against the
# 8-row mma (errors must agree).
# Also: `ceilings` (the ceilings measured again and stored in a copy of the database, both precisions benched on it)
# and `ncu` (Nsight Compute on one launch of each f64 tensor-core kernel at N = 8).
# usage: DG=gpu/dg OUT=dir [PARTS="shapes verify tune bench loop ceilings ncu"] bash scripts/probe/nodal_mma16.sh
set -u
OUT=${OUT:-.}; DG=${DG:-gpu/dg}; D="--device cuda:0"
PARTS=${PARTS:-shapes verify tune bench loop}
nvidia-smi -L; date -u +%FT%TZ | tee "$OUT/date"
mma() { echo "$1/wg$2/seq1/$3/merged/node-major/f64"; }
for part in $PARTS; do case $part in
shapes)
  nvcc -O3 -arch=sm_90 scripts/probe/dmma_shapes.cu -o /tmp/dmma_shapes && /tmp/dmma_shapes | tee "$OUT/shapes.txt" ;;
verify)
  for s in field-local matrix-local; do for g in 8 16 32; do
    f="$OUT/verify-maxwell-wg$g-$s.txt"
    timeout 120 "$DG" verify maxwell2d --order 1..8 --precision f64 --variant "$(mma mma16 $g $s)" $D > "$f" 2>&1
    echo "verify maxwell2d $(mma mma16 $g $s): rc $? $(tail -1 "$f")"; grep -E "^  mma16" "$f" | awk '{print $2}' | tr '\n' ' '; echo
  done; done
  f="$OUT/verify-euler.txt"
  timeout 120 "$DG" verify euler2d --order 1..4 --precision f64 --variant "$(mma mma16 8 field-local)" $D > "$f" 2>&1
  echo "verify euler2d $(mma mma16 8 field-local): rc $? $(tail -1 "$f")"
  timeout 60 "$DG" verify maxwell2d --order 5..6 --precision f64 --variant "$(mma mma16 8 field-local)" --plant-bug skip-last-group $D > "$OUT/verify-planted.txt" 2>&1
  echo "planted skip-last-group: rc $? (must be non-zero)"; tail -2 "$OUT/verify-planted.txt" ;;
tune)
  cp -r tuning-db "$OUT/db"
  DG_CACHE_DIR=$(mktemp -d) timeout ${TUNE_LIMIT:-300} "$DG" autotune maxwell2d --orders ${TUNE_ORDERS:-1..8} --precision f64 $D --db "$OUT/db" > "$OUT/tune.txt" 2> "$OUT/tune.err"
  echo "rc $?"; cat "$OUT/tune.txt"
  python3 scripts/probe/best_by_partition.py --precision f64 "$OUT"/db/cuda-*.json | tee "$OUT/best-by-partition.txt" ;;
bench)
  db=tuning-db; [ -d "$OUT/db" ] && db="$OUT/db"
  "$DG" bench maxwell2d --orders 1..8 --precision f64 $D --db "$db" > "$OUT/bench.txt" 2> "$OUT/bench.err"
  echo "rc $?"; cat "$OUT/bench.txt"; cp "$db"/cuda-*.json "$OUT/" ;;
loop)
  # the folded LSRK45 loop on 180,000 triangles: the tuned winner against the 8-row mma
  db=tuning-db; [ -d "$OUT/db" ] && db="$OUT/db"
  for n in ${LOOP_ORDERS:-6 7 8}; do
    for V in auto "$(mma mma 8 field-local)"; do
      o="$OUT/loop-N$n-${V//\//_}"; args=(); [ "$V" != auto ] && args=(--variant "$V")
      DG_CACHE_DIR=$(mktemp -d) timeout 90 "$DG" --db "$db" run maxwell-cavity --order $n --nx 300 --t-end 0.2 --precision f64 $D "${args[@]}" --json > $o.json 2> $o.err
      python3 -c "
import json;d=json.load(open('$o.json'));v=d['device']
print('N=$n $V:',v['choice']['variant'],'folded',v['stages_folded'],'steps',d['steps'],'L2 %.9e'%d['l2_error'],'kernels %.3f s'%v['kernel_seconds'])" || tail -2 $o.err
    done
  done ;;
ceilings)
  # the ceilings measured again (the shipped ones lack the f64 m8n8k4 rate): an autotune of one entry into a copy
  # of the database measures and stores them; then the winners of both precisions benched on that copy
  cp -r tuning-db "$OUT/db-final"
  DG_CACHE_DIR=$(mktemp -d) "$DG" autotune maxwell2d --orders 1 --precision f32 $D --db "$OUT/db-final" > "$OUT/ceilings-tune.txt" 2>&1
  python3 -c "import json;print(json.load(open('$OUT/db-final/cuda-nvidia-h200-sm-90.json'))['ceilings'])" | tee "$OUT/ceilings.txt"
  "$DG" bench maxwell2d --orders 1..8 --precision both $D --db "$OUT/db-final" > "$OUT/bench-final.txt" 2> "$OUT/bench-final.err"
  echo "rc $?"; cat "$OUT/bench-final.txt" ;;
ncu)
  # one launch of each f64 tensor-core kernel at N = 8 (180,000 triangles), Nsight Compute's speed of light and occupancy
  for V in "$(mma mma16 8 field-local)" "$(mma mma 8 field-local)"; do
    ncu --section SpeedOfLight --section Occupancy --section LaunchStats -k regex:mma --launch-skip 3 --launch-count 1 \
      "$DG" run maxwell-cavity --order 8 --nx 300 --t-end 0.0004 --precision f64 $D --variant "$V" > "$OUT/ncu-${V%%/*}.txt" 2>&1
    echo "ncu $V: rc $?"; grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|L1/TEX Cache Throughput|DRAM Throughput|Achieved Occupancy|Registers Per|Theoretical Occupancy" "$OUT/ncu-${V%%/*}.txt"
  done ;;
esac; done
find "$OUT" -maxdepth 1 -name "*.err" -empty -delete
