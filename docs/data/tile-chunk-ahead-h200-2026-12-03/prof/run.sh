#!/usr/bin/env bash
# Nsight Compute of the f32 tile winners at N = 6, 7, 8 (one folded stage each), split at barriers by sass_phases.py
set -u
cd "$(dirname "$0")/.."
tar -C gpu -xJf gpu/ship-commit.tar.xz
R=$OUT/prof; mkdir -p $R; date -u +%FT%TZ | tee $R/date; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for spec in 8:tile4/wg32/seq1/matrix-local/merged/node-major/f32/mixed:300 6:tile4/wg32/seq1/matrix-local/merged/node-major/f32/mixed:300 7:tile6/wg32/seq1/matrix-local/merged/node-major/f32/mixed:300; do
  IFS=: read -r n v nx <<< "$spec"; name=N$n-${v%%/*}
  timeout 150 ncu --clock-control none --launch-skip 5 --launch-count 1 -k regex:tile \
    --section SourceCounters --section WarpStateStats --section SpeedOfLight --section Occupancy --section LaunchStats \
    --section ComputeWorkloadAnalysis --section InstructionStats --section SchedulerStats --section MemoryWorkloadAnalysis -o "$R/$name" \
    gpu/dg run maxwell-cavity --order $n --nx $nx --t-end 0.001 --precision f32 --variant $v --device cuda:0 > "$R/$name-run.txt" 2>&1
  echo "ncu $name rc $?"
  ncu -i "$R/$name.ncu-rep" --page source --csv --print-source sass 2> "$R/$name-sass.err" | gzip > "$R/$name-sass.csv.gz"
  ncu -i "$R/$name.ncu-rep" --page details > "$R/$name-details.txt" 2>&1
  rm -f "$R/$name.ncu-rep"
  python3 scripts/probe/sass_phases.py "$R/$name-sass.csv.gz" | tail -8
  grep -E "Duration|Achieved Occupancy|Registers Per|Block Limit (Reg|Sh)|DRAM Throughput|Compute \(SM\)|Issue Slots Busy|Issued Ipc|No Eligible|Warp Cycles Per Issued|Executed Instructions  |FMA|Stall" "$R/$name-details.txt" | head -30
done
tar -czf "$OUT/prof.tgz" -C "$R" . && echo packed
