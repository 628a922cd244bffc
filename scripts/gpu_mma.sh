#!/usr/bin/env bash
# The nodal triangle operator on the tensor cores (partition `mma`: f64, or f32 as three tf32 products), on one
# GPU: registers and spills of the mma kernel (nvcc) and its tensor-core instructions, every mma variant of precision
# P verified against the CPU at N = 1..8 (Maxwell) and 1..4 (Euler), a planted bug that verification must catch,
# then maxwell2d tuned exhaustively at N = 1..8 (every variant, mma among them, into a copy of the shipped
# database) and its winners benched.
# usage: DG=gpu/dg OUT=dir [P=f64|f32] [SECTIONS="ptxas verify tune bench loop ncu"] [TUNE_PRECISION=both] bash scripts/gpu_mma.sh
set -u
OUT=${OUT:-.}; DG=${DG:-gpu/dg}; D="--device cuda:0"
SECTIONS=${SECTIONS:-ptxas verify tune bench}; P=${P:-f64}
nvidia-smi -L; date -u +%FT%TZ | tee "$OUT/date"
mma() { echo "mma/wg$1/seq$2/${3:-field-local}/merged/node-major/$P"; }
for s in $SECTIONS; do case $s in
ptxas)
  for o in ${PTXAS_ORDERS:-4 8}; do for g in 8 16; do for st in field-local matrix-local; do
    "$DG" emit maxwell2d --order $o --variant "$(mma $g 1 $st)" --target cuda 2>/dev/null | sed '/KERNEL void update/,$d' > "$OUT/k.cu"
    echo "N=$o wg$g $st: $(nvcc -arch=sm_90 -cubin -o "$OUT/k.cubin" -Xptxas -v "$OUT/k.cu" 2>&1 | grep -oE "Used [0-9]* registers.*|[0-9]+ bytes spill.*|error.*" | tr '\n' ' ')"
  done; done; done
  cuobjdump -sass "$OUT/k.cubin" | grep -oE "\b[DH]MMA[.0-9A-Z]*\b" | sort | uniq -c ;;
verify)
  # (wg32 does not fit 48 KiB of local memory from N = 6 on: the rules reject it there)
  for st in field-local matrix-local; do for g in 8 16 32; do for q in 1 2; do
    f="$OUT/verify-$st-wg$g-seq$q.txt"
    timeout 150 "$DG" verify maxwell2d --order ${VERIFY_ORDERS:-1..8} --precision $P --variant "$(mma $g $q $st)" $D > "$f" 2>&1
    echo "rc $? $(tail -1 "$f")"; grep -E "^  mma" "$f" | awk '{print $2}' | tr '\n' ' '; echo
  done; done; done
  timeout 150 "$DG" verify euler2d --order 1..4 --precision $P --variant "$(mma 16 2)" $D > "$OUT/verify-euler.txt" 2>&1
  echo "verify euler2d $(mma 16 2): rc $?"; tail -5 "$OUT/verify-euler.txt"
  timeout 150 "$DG" verify maxwell2d --order 3..4 --precision $P --variant "$(mma 16 2)" --plant-bug skip-last-group $D > "$OUT/verify-planted.txt" 2>&1
  echo "planted skip-last-group: rc $? (must be non-zero)"; tail -3 "$OUT/verify-planted.txt" ;;
tune)
  cp -r tuning-db "$OUT/db"
  DG_CACHE_DIR=$(mktemp -d) timeout ${TUNE_LIMIT:-330} "$DG" autotune maxwell2d --orders ${TUNE_ORDERS:-1..8} --precision ${TUNE_PRECISION:-$P} $D --db "$OUT/db" > "$OUT/tune.txt" 2> "$OUT/tune.err"
  echo "rc $?"; cat "$OUT/tune.txt"
  python3 - "$OUT/tune.err" <<'PY'
import re, sys
order, best = None, {}
for line in open(sys.argv[1]):
    m = re.search(r"N=(\d+) (F32|F64)", line)
    if "candidates" in line and m: order = (int(m.group(1)), m.group(2))
    m = re.search(r"\]\s+(\S+): ([0-9.]+) ms", line)
    if m and order:
        kind = "mma" if m.group(1).startswith("mma") else "other"
        t = float(m.group(2)); b = best.setdefault(order, {})
        if kind not in b or t < b[kind][0]: b[kind] = (t, m.group(1))
for o, b in sorted(best.items()):
    print(f"N={o[0]} {o[1]}: best mma {b.get('mma')}  best other {b.get('other')}")
PY
  ;;
bench)
  db=tuning-db; [ -d "$OUT/db" ] && db="$OUT/db"
  "$DG" bench maxwell2d --orders ${TUNE_ORDERS:-1..8} --precision ${TUNE_PRECISION:-$P} $D --db "$db" > "$OUT/bench.txt" 2> "$OUT/bench.err"
  echo "rc $?"; cat "$OUT/bench.txt"; cp "$db"/cuda-*.json "$OUT/" ;;
loop)
  # the whole LSRK45 loop (stages folded into the merged kernel) on 180,000 triangles: the previous f64 winner
  # (tile4) against the mma winner the bench used; final errors must agree to round-off
  db=tuning-db; [ -d "$OUT/db" ] && db="$OUT/db"
  for n in ${LOOP_ORDERS:-5 6 7 8}; do
    for V in ${LOOP_BEFORE:-tile4/wg32/seq1/matrix-const/merged/node-major/f64} "$(mma ${LOOP_GROUP:-8} 1)"; do
      o="$OUT/loop-N$n-${V//\//_}"
      timeout 60 "$DG" run maxwell-cavity --order $n --nx 300 --t-end ${LOOP_T:-0.05} --precision $P $D --variant $V --json > $o.json 2> $o.err
      python3 -c "
import json;d=json.load(open('$o.json'));v=d['device']
print('N=$n $V steps',d['steps'],'L2 %.9e'%d['l2_error'],'loop %.3f s'%sum(v['loop_split'].values()),'kernels %.3f s'%v['kernel_seconds'],'GDOF.RHS/s %.1f'%(d['throughput']/1e9),'folded',v.get('stages_folded'))" || tail -2 $o.err
    done
  done ;;
ncu)
  # where the N = 8 mma winner spends its time (one timing launch, after verification's)
  timeout 150 ncu --clock-control none --kernel-name regex:mma --launch-skip 5 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section ComputeWorkloadAnalysis \
    "$DG" bench maxwell2d --orders 8 --precision $P $D --db tuning-db > "$OUT/ncu.txt" 2>&1
  grep -E "Throughput|Occupancy|Stall|Registers|Block Limit|Duration|Warp Cycles|Issue|Pipe" "$OUT/ncu.txt" | head -60 ;;
esac; done
rm -f "$OUT/k.cu" "$OUT/k.cubin"
find "$OUT" -maxdepth 1 -name "*.err" -empty -delete
