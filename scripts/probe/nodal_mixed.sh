#!/usr/bin/env bash
# The tiles' mixed volume form (`tile<t>/…/mixed`: the gradient of a field that several variables' fluxes read summed
# once, Maxwell TM's ∇Ez serving Hx and Hy) on one GPU: compute-sanitizer on a mixed kernel; maxwell2d tuned
# exhaustively (right-hand side, then stage) at N = 1..8 in both precisions into a copy of the shipped database
# (every candidate verified first, the mixed tiles among them) and benched; the folded loop and the issue's
# 720,000-triangle run with those winners against the shipped ones; start-up of that run (warm and cold kernel cache).
# The sass part compiles the tiles' CUDA C with nvcc (as NVRTC does: the device's architecture, C++17) and counts the
# machine instructions of each kernel by opcode.
# usage: DG=gpu/dg OUT=dir [PARTS="sanitize tune bench loop startup ncu sass"] [OPERATIONS="unit stage"] [PRECISIONS="f32 f64"]
#        [DB=dir, the database the bench/loop/startup parts read: default $OUT/db of a tune part in the same call]
#        [BEFORE=dir, a database the loop part also runs with, for comparison]
#        [LOOP_RUNS="N,NX,T_END …", the loop part's runs: default "6,300,0.1 8,300,0.1 4,600,0.3"]
#        bash scripts/probe/nodal_mixed.sh
set -u
# everything is written under $OUT/r and packed into $OUT/results.tgz at the end (the device tool returns few files)
PACK=${OUT:-.}; OUT=$PACK/r; mkdir -p "$OUT"; DG=${DG:-gpu/dg}; D="--device cuda:0"
PARTS=${PARTS:-sanitize tune bench}
DB=${DB:-$OUT/db}
nvidia-smi -L; date -u +%FT%TZ | tee "$OUT/date"
for part in $PARTS; do case $part in
sanitize)
  v=tile4/wg32/seq1/matrix-const/merged/node-major/f64/mixed
  for tool in memcheck racecheck initcheck; do
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 "$DG" verify maxwell2d --order 5 --variant $v $D > "$OUT/sanitize-$tool.txt" 2>&1
    echo "compute-sanitizer $tool $v N=5: rc $? ($(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitize-$tool.txt" | tr -s ' ' | head -1))"
  done ;;
tune)
  [ -d "$DB" ] || cp -r tuning-db "$DB"
  for op in ${OPERATIONS:-unit stage}; do for p in ${PRECISIONS:-f32 f64}; do
    t0=$(date +%s)
    DG_CACHE_DIR=$(mktemp -d) timeout ${TUNE_LIMIT:-280} "$DG" autotune maxwell2d --orders ${TUNE_ORDERS:-1..8} --precision $p --operation $op $D --db "$DB" > "$OUT/tune-$op-$p.txt" 2> "$OUT/tune-$op-$p.err"
    echo "tune $op $p rc $? ($(( $(date +%s) - t0 )) s)"; grep -E "winner|speed-up" "$OUT/tune-$op-$p.txt" | cut -c1-200
  done; done ;;
bench)
  for op in ${OPERATIONS:-unit}; do
    "$DG" --db "$DB" bench maxwell2d --orders 1..8 --precision ${BENCH_PRECISION:-both} --operation $op $D > "$OUT/bench-$op.txt" 2> "$OUT/bench-$op.err"
    echo "bench $op rc $?"; cat "$OUT/bench-$op.txt"
  done ;;
loop)
  for p in ${PRECISIONS:-f32 f64}; do
    for db in ${BEFORE:+"$BEFORE"} "$DB"; do for run in ${LOOP_RUNS:-6,300,0.1 8,300,0.1 4,600,0.3}; do
      set -- ${run//,/ }; o="$OUT/loop-$p-N$1-nx$2-$(basename $db)"
      DG_CACHE_DIR=$(mktemp -d) timeout 90 "$DG" --db "$db" run maxwell-cavity --order $1 --nx $2 --t-end $3 --precision $p $D --json > $o.json 2> $o.err
      python3 -c "
import json;d=json.load(open('$o.json'));v=d['device']
print('$p N=$1 nx=$2 $(basename $db):',v['choice']['variant'],v['choice']['source'],'steps',d['steps'],'L2 %.6e'%d['l2_error'],'kernels %.3f s'%v['kernel_seconds'],'wall %.3f s'%d['wall_seconds'])" || tail -2 $o.err
    done; done
  done ;;
startup)
  # the issue's start-up: process start to the end of the first step, database hit; one cold kernel cache, then warm
  for p in ${PRECISIONS:-f32 f64}; do
    cache=$(mktemp -d)
    for run in cold warm1 warm2 warm3; do
      o="$OUT/startup-$p-$run"
      t0=$(date +%s.%N)
      DG_CACHE_DIR=$cache "$DG" --db "$DB" run maxwell-cavity --order 4 --nx 600 --precision $p --t-end 1e-5 $D --json > $o.json 2> $o.err
      t1=$(date +%s.%N)
      python3 -c "
import json;d=json.load(open('$o.json'));v=d['device']
m=d.get('startup',[]); prev=0.0; parts=[]
for x in m: parts.append('%s %.3f'%(x['phase'],x['seconds']-prev)); prev=x['seconds']
print('startup $p $run: to the end of the first step %.3f s'%prev,'(process %.2f s)'%($t1-$t0),'|',', '.join(parts),'|',v['choice']['source'],v['choice']['variant'])" || tail -2 $o.err
    done
  done ;;
ncu)
  # where the tiles spend their time, flux-first against mixed (one folded stage launch of each, in a run)
  for spec in "8 tile8/wg32/seq1/matrix-local/merged/node-major/f32/mixed" "8 tile4/wg32/seq1/matrix-local/merged/node-major/f32" \
              "7 tile4/wg32/seq1/matrix-local/merged/node-major/f32" "7 tile4/wg32/seq1/matrix-local/merged/node-major/f32/mixed"; do
    set -- $spec; f="$OUT/ncu-N$1-${2//\//_}.txt"
    timeout 150 ncu --clock-control none --kernel-name regex:tile --launch-skip 5 --launch-count 1 \
      --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section InstructionStats \
      "$DG" run maxwell-cavity --order $1 --nx 300 --t-end 0.002 --precision f32 --variant $2 $D > "$f" 2>&1
    echo "== N=$1 $2"
    grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|L1/TEX Cache Throughput|Registers Per Thread|Achieved Occupancy|Theoretical Occupancy|Warp Cycles Per Issued|Issue Slots Busy|Executed Instructions  |Block Limit (Registers|Shared Mem)" "$f" | tr -s ' ' | head -16
    grep -E "^ +(OPT|WRN).*(stall|Stall)" "$f" | head -3 | cut -c1-220
  done ;;
sass)
  # SASS_SPECS: order:spec pairs, separated by spaces
  for spec in ${SASS_SPECS:-8:tile8/wg32/seq1/matrix-local/merged/node-major/f32/mixed 8:tile4/wg32/seq1/matrix-local/merged/node-major/f32/mixed 7:tile4/wg32/seq1/matrix-local/merged/node-major/f32/mixed}; do
    set -- ${spec/:/ }; f="$OUT/sass-N$1-${2//\//_}"
    "$DG" emit maxwell2d --order $1 --variant $2 > "$f.cu" && nvcc -arch=sm_90 -std=c++17 -cubin --resource-usage -o "$f.cubin" "$f.cu" > "$f.usage" 2>&1 \
      && cuobjdump -sass "$f.cubin" > "$f.sass" && rm -f "$f.cubin"
    echo "== N=$1 $2: $(grep -o 'Used [0-9]* registers[^,]*' "$f.usage" | head -1)"
    grep -E '^ +/\*[0-9a-f]{4}\*/' "$f.sass" | awk '{op=$2; if (op ~ /^@/) op=$3; sub(/\..*/, "", op); n[op]++; t++} END {for (o in n) printf "%s %d\n", o, n[o]; print "TOTAL", t}' \
      | sort -k2 -n -r | head -14 | tr '\n' ' '; echo
  done ;;
esac; done
tar -czf "$PACK/results.tgz" -C "$OUT" . && rm -rf "$OUT" && echo packed
