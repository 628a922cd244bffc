#!/usr/bin/env bash
# `ahead<t>` in two passes per group (seq2: the second pass's first chunk, indices, face data and geometry read
# during the first's lift) and in groups of 16 in f64, both now in the tuner's list, on the H100, N = 5..8, sized to
# the device time left and packed after every step: the shipped binary's database winners benched first on the same
# card ($OLD, the baseline); then with $NEW the maxwell2d right-hand side tuned into an empty database (every
# candidate verified first) and `dg --db DB bench maxwell2d --orders 5..8`; then with an experimental binary ($EXP,
# scripts/probe/ahead_passes_exp.patch) the winners' column loops unrolled (DG_MIRROR_UNROLL); tuning N = 7 in two
# processes on empty kernel caches. BOUNDS=1: also `__launch_bounds__(threads, 6)` without the unrolling; NCU=1:
# Nsight Compute's warp states and stall samples by SASS line of the N = 8 f32 winner.
# usage: OLD=path/to/dg-old NEW=path/to/dg EXP=path/to/experimental/dg OUT=dir bash scripts/probe/ahead_passes_retune.sh
set -u
OLD=${OLD:?}; NEW=${NEW:?}; EXP=${EXP:?}; OUT=${OUT:?}; R=$OUT/r; DB=/tmp/db-final; mkdir -p "$R" "$DB"; D="--device cuda:0"
pack() { rm -rf "$OUT/db"; cp -r "$DB" "$OUT/db"; (cd "$OUT" && tar -czf results.tgz r db); }
row() { grep -E "^ *[0-9] " "$1" | awk '{print "N"$1, $2, $3, $4, $8}'; }
nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u +%FT%TZ | tee -a "$R/date"
for p in f32 f64; do
  timeout 60 "$OLD" bench maxwell2d --orders 5..8 --precision $p $D > "$R/baseline-$p.txt" 2> "$R/baseline-$p.err"
  echo "baseline $p rc $?"; row "$R/baseline-$p.txt"
done; pack
for p in f32 f64; do
  t0=$SECONDS
  DG_CACHE_DIR=$(mktemp -d) timeout 130 "$NEW" --db "$DB" autotune maxwell2d --orders 5..8 --precision $p $D > "$R/tune-$p.txt" 2> "$R/tune-$p.err"
  echo "tune $p rc $? ($(( SECONDS - t0 )) s)"; pack
  timeout 60 "$NEW" --db "$DB" bench maxwell2d --orders 5..8 --precision $p $D > "$R/bench-$p.txt" 2> "$R/bench-$p.err"
  echo "bench $p rc $?"; row "$R/bench-$p.txt"; pack
done
for job in "6..7 ahead4/wg32/seq1 f32 0" "8 ahead7/wg32/seq1 f32 0" "6..8 ahead4/wg32/seq2 f32 0" "7 ahead4/wg32/seq1 f64 0" \
  "8 ahead4/wg16/seq1 f64 0"; do
  set -- $job; orders=$1; p=$3; v=$2/matrix-local/merged/tiled/$p/mixed; shift 3
  for g in "$@"; do
    DG_MIRROR_UNROLL=1 DG_MIRROR_MIN_GROUPS=$g timeout 40 "$EXP" bench maxwell2d --orders $orders --variant $v $D > "$R/u.txt" 2>&1
    echo "$v unrolled G=$g rc $?: $(row "$R/u.txt" | awk '{print $1, $4, $5}' | tr '\n' ' ')$(grep -c 'NOT VERIFIED' "$R/u.txt") unverified"
  done
  [ $p = f64 ] || [ "${BOUNDS:-0}" = 0 ] && continue
  DG_MIRROR_MIN_GROUPS=6 timeout 40 "$EXP" bench maxwell2d --orders $orders --variant $v $D > "$R/u.txt" 2>&1
  echo "$v G=6 rc $?: $(row "$R/u.txt" | awk '{print $1, $4, $5}' | tr '\n' ' ')$(grep -c 'NOT VERIFIED' "$R/u.txt") unverified"
done | tee "$R/unroll-bounds.txt"; pack
for p in f32 f64; do for run in a b; do
  C=$(mktemp -d); T=$(mktemp -d); t0=$(date +%s.%N)
  DG_CACHE_DIR=$C timeout 40 "$NEW" --db "$T" autotune maxwell2d --orders 7 --precision $p $D > "$R/tunetime-$p-$run.txt" 2>&1
  echo "tunetime $p $run rc $? (process $(python3 -c "print(round($(date +%s.%N) - $t0, 2))") s): $(grep winner "$R/tunetime-$p-$run.txt" | tail -1 | sed 's/.*winner //')"
  pack
done; done
[ "${NCU:-0}" = 1 ] || { date -u +%FT%TZ | tee -a "$R/date"; pack; exit 0; }
v=ahead7/wg32/seq1/matrix-local/merged/tiled/f32/mixed
DG_NVRTC_LINEINFO=1 timeout 100 ncu --launch-skip 3 --launch-count 1 -k regex:mirror --section SpeedOfLight --section Occupancy \
  --section LaunchStats --section WarpStateStats --section SourceCounters -o "$R/ncu-n8" \
  "$EXP" run maxwell-cavity --order 8 --nx 400 --t-end 1e-4 --precision f32 --variant $v $D > "$R/ncu-n8.log" 2>&1
echo "== ncu rc $?"; ncu -i "$R/ncu-n8.ncu-rep" --print-details all > "$R/ncu-n8.txt" 2>&1
grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit Reg|DRAM Throughput|Warp Cycles Per Issued|Issued Ipc|No Eligible" "$R/ncu-n8.txt" | head -12
timeout 40 ncu -i "$R/ncu-n8.ncu-rep" --page source --csv --print-source sass > "$R/ncu-n8-sass.csv" 2> "$R/ncu-n8-sass.err"
echo "sass page rc $? ($(wc -l < "$R/ncu-n8-sass.csv") lines)"
date -u +%FT%TZ | tee -a "$R/date"; pack
