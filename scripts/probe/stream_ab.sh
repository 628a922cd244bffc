#!/usr/bin/env bash
# Partition `stream` (element per work item, the next element's data copied into local memory by cp.async while
# the current one is computed; scripts/probe/stream_partition.patch, measured and not kept): A/B through the
# exhaustive tuner of $NEW (a binary built with the patch applied: the stream candidates added to the search) against
# $OLD (the binary without it; every other kernel byte-identical, scripts/same_kernels.sh), maxwell2d, both precisions.
# Knobs: AB_ORDERS (1..5), AB_OPERATION (unit), AB_PRECISION (both). Then, with PARTS containing ncu, Nsight Compute
# on the best stream and best elem candidate of N = $NCU_ORDER f32 (registers, occupancy, DRAM throughput).
# usage: OLD=gpu/dg-old NEW=gpu/dg OUT=dir PARTS="ab" bash scripts/probe/stream_ab.sh
set -u
OUT=${OUT:?}; NEW=${NEW:-gpu/dg}; OLD=${OLD:-gpu/dg-old}; PARTS=${PARTS:-ab}
AB_ORDERS=${AB_ORDERS:-1..5}; AB_PRECISION=${AB_PRECISION:-both}; OP=${AB_OPERATION:-unit}
R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u +%FT%TZ | tee -a "$R/date"
for part in $PARTS; do
  case $part in
    ab)
      for which in old new; do
        dg=$OLD; [ $which = new ] && dg=$NEW
        s0=$(date +%s)
        DG_CACHE_DIR=$(mktemp -d) timeout 280 "$dg" --db "$(mktemp -d)" autotune maxwell2d --orders $AB_ORDERS \
          --precision $AB_PRECISION --operation $OP $D > "$R/ab-$OP-$which.txt" 2> "$R/ab-$OP-$which.err"
        echo "ab $OP $which rc $? $(( $(date +%s) - s0 )) s"
      done
      python3 - "$R/ab-$OP-old.err" "$R/ab-$OP-new.err" <<'PY' | tee "$R/ab-$OP-table.txt"
import sys
sys.path.insert(0, "scripts/probe")
from tuner_log import candidate_times as read
old, new = read(sys.argv[1]), read(sys.argv[2])
for key in sorted({k for k, _ in new}):
    bo = min((v, s) for (k, s), v in old.items() if k == key)
    bn = min((v, s) for (k, s), v in new.items() if k == key)
    be = min(((v, s) for (k, s), v in new.items() if k == key and s.startswith("elem/")), default=(float("nan"), "-"))
    bs = min(((v, s) for (k, s), v in new.items() if k == key and s.startswith("stream/")), default=(float("nan"), "-"))
    print(f"N={key[0]} {key[1]}: best old {bo[0]:.4f} {bo[1]} | best new {bn[0]:.4f} {bn[1]} | "
          f"best elem {be[0]:.4f} | best stream {bs[0]:.4f} {bs[1]} ({bs[0] / bo[0]:.3f} of old best)")
    for (k, s), v in sorted(new.items()):
        if k == key and s.startswith("stream/"):
            print(f"    {s:66s} {v:.4f}")
PY
      ;;
    ncu)
      N=${NCU_ORDER:-3}
      for spec in ${NCU_SPECS:?}; do
        tag=$(echo "$spec" | tr '/' '_')
        timeout 200 ncu --launch-skip 3 --launch-count 1 -k regex:rhs --section SpeedOfLight --section Occupancy \
          --section LaunchStats --section MemoryWorkloadAnalysis "$NEW" run maxwell-cavity --order $N --nx 400 \
          --t-end 1e-4 --precision f32 --variant "$spec" $D > "$R/ncu-$tag.txt" 2>&1
        echo "ncu $spec rc $?"
        grep -E "Duration|Registers Per|Achieved Occupancy|DRAM Throughput|Memory Throughput|Dynamic Shared|Static Shared" "$R/ncu-$tag.txt" | head -12
      done ;;
  esac
  (cd "$OUT" && tar -czf results.tgz r)
done
