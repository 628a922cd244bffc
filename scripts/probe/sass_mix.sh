#!/usr/bin/env bash
# The submitted binary's compiled-in winners benched (`dg bench maxwell2d --orders 1..8`, both precisions, each
# verified first), then what the N = 8 f32 winner's instruction stream is made of: the emitted source compiled by
# nvcc -arch=sm_90 -cubin, its SASS counted by opcode (scripts/probe/sass_mix.py), beside N = 7's (which passes 60 %),
# and Nsight Compute on the 16M-DOF bench with the clocks left as the bench runs them (--clock-control none).
# usage: EXP=path/to/dg OUT=dir bash scripts/probe/sass_mix.sh
set -u
EXP=${EXP:?}; OUT=${OUT:?}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"; H=$(dirname "$0")
nvidia-smi -L; nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,power.draw --format=csv; date -u +%FT%TZ | tee -a "$R/date"
if [ -z "${SKIP_SHIPPED:-}" ]; then
  for p in f32 f64; do
    timeout 90 "$EXP" bench maxwell2d --orders 1..8 --precision $p $D > "$R/shipped-$p.txt" 2>&1
    echo "shipped $p rc $?"; grep -E "^ *[0-9] " "$R/shipped-$p.txt" | awk '{print "N"$1, $3, $4, $5, $8}'
  done
fi
M=seq1/matrix-local/merged/tiled
for job in "8 balanced4/wg32/$M/f32/mixed" "7 whole5b5/wg32/$M/f32/mixed" ${EXTRA_SASS:-}; do
  o=${job%% *}; v=${job#* }; n=$(echo "$v-n$o" | tr '/' '-')
  "$EXP" emit maxwell2d --order "$o" --variant "$v" --target cuda > "$R/$n.cu"
  nvcc -arch=sm_90 -cubin -o "$R/$n.cubin" -Xptxas -v "$R/$n.cu" > "$R/$n.ptxas" 2>&1
  cuobjdump -sass "$R/$n.cubin" > "$R/$n.sass" 2>&1
  echo "== $v N=$o: $(grep -E 'registers|spill' "$R/$n.ptxas" | tr -s ' ' | tr '\n' ' ')"
  python3 "$H/sass_mix.py" "$R/$n.sass" | tee "$R/$n.mix"
done
if [ -z "${SKIP_NCU:-}" ]; then
  n=ncu-balanced4-n8
  timeout 150 ncu --clock-control none --launch-skip 5 --launch-count 1 -k regex:mirror --section SpeedOfLight \
    --section Occupancy --section LaunchStats --section WarpStateStats --section ComputeWorkloadAnalysis \
    --section MemoryWorkloadAnalysis -o "$R/$n" "$EXP" bench maxwell2d --orders 8 \
    --variant "balanced4/wg32/$M/f32/mixed" $D > "$R/$n.log" 2>&1
  echo "== ncu rc $?"; ncu -i "$R/$n.ncu-rep" --print-details all > "$R/$n.txt" 2>&1
  grep -E "SM Frequency|Duration|Registers Per|Achieved Occupancy|Issue Slots Busy|Compute \(SM\) Throughput|DRAM Throughput|Stall (Long|Short|Wait|Not Sel|No Inst|Barrier|MIO|Math)|Warp Cycles Per Issued|Mem Busy|Max Bandwidth" "$R/$n.txt" | head -30
  rm -f "$R/$n.ncu-rep"
fi
date -u +%FT%TZ | tee -a "$R/date"; (cd "$OUT" && tar -czf results.tgz r)
