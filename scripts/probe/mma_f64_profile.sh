#!/usr/bin/env bash
# The f64 right-hand-side winners on the tensor cores (`mma`, N = 5; `mma16`, N = 8): Nsight Compute's source counters
# of one folded stage each (`scripts/probe/sass_phases.py` splits them at the kernel's barriers), and `dg bench` of
# the committed database at N = 4..8 in both precisions (how far one instance's figures sit from another's).
# usage: DG=gpu/dg OUT=dir bash scripts/probe/mma_f64_profile.sh
set -u
DG=${DG:-gpu/dg}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
nvidia-smi -L; date -u +%FT%TZ | tee "$R/date"
"$DG" bench maxwell2d --orders 4..8 --precision both --operation unit $D > "$R/bench-unit.txt" 2> "$R/bench-unit.err"
echo "bench rc $?"; cat "$R/bench-unit.txt"
for spec in 5:mma/wg8/seq1/field-local/merged/node-major/f64:300 8:mma16/wg8/seq1/field-local/merged/node-major/f64:300; do
  IFS=: read -r n v nx <<< "$spec"; name=N$n-f64-${v%%/*}
  timeout 200 ncu --clock-control none --launch-skip 5 --launch-count 1 -k regex:mma \
    --section SourceCounters --section WarpStateStats --section SpeedOfLight --section Occupancy \
    --section MemoryWorkloadAnalysis -o "$R/$name" \
    "$DG" run maxwell-cavity --order $n --nx $nx --t-end 0.001 --precision f64 --variant $v $D > "$R/$name-run.txt" 2>&1
  echo "ncu $name rc $?"
  ncu -i "$R/$name.ncu-rep" --page source --csv --print-source sass 2> "$R/$name-sass.err" | gzip > "$R/$name-sass.csv.gz"
  ncu -i "$R/$name.ncu-rep" --page details > "$R/$name-details.txt" 2>&1
  rm -f "$R/$name.ncu-rep"
  python3 scripts/probe/sass_phases.py "$R/$name-sass.csv.gz" | tail -8
  grep -E "^  [a-z_0-9]+\(|Duration|Achieved Occupancy|Registers Per|Block Limit (Reg|Sh)|DRAM Throughput|Compute \(SM\)" "$R/$name-details.txt"
done
tar -czf "$OUT/results.tgz" -C "$R" . && echo packed
