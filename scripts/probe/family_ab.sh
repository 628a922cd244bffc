#!/usr/bin/env bash
# A/B of one family of nodal-triangle candidates through the exhaustive tuner: $NEW (a binary whose search holds the
# family) against $OLD (one without it; every other kernel the same), maxwell2d. For each (order, precision): the
# best candidate of each binary, the best of the family ($FOCUS, a regular expression on the variant) and the best
# of the rest of $NEW's element-per-thread candidates, then every family candidate's median. Then, with PARTS
# containing ncu, Nsight Compute on the variants of $NCU_SPECS at N = $NCU_ORDER f32.
# Knobs: FOCUS (required for ab), AB_ORDERS (1..5), AB_OPERATION (unit), AB_PRECISION (both), TAG (a name for the files).
# usage: FOCUS='/mixed$' OLD=gpu/dg-old NEW=gpu/dg OUT=dir PARTS="ab" bash scripts/probe/family_ab.sh
set -u
OUT=${OUT:?}; NEW=${NEW:-gpu/dg}; OLD=${OLD:-gpu/dg-old}; PARTS=${PARTS:-ab}; FOCUS=${FOCUS:-}
AB_ORDERS=${AB_ORDERS:-1..5}; AB_PRECISION=${AB_PRECISION:-both}; OP=${AB_OPERATION:-unit}; TAG=${TAG:-$OP}
R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u +%FT%TZ | tee -a "$R/date"
for part in $PARTS; do
  case $part in
    ab)
      [ -n "$FOCUS" ] || { echo "FOCUS (a regular expression on the variant) is needed for the A/B" >&2; exit 2; }
      for which in old new; do
        dg=$OLD; [ $which = new ] && dg=$NEW
        s0=$(date +%s)
        DG_CACHE_DIR=$(mktemp -d) timeout 280 "$dg" --db "$(mktemp -d)" autotune maxwell2d --orders $AB_ORDERS \
          --precision $AB_PRECISION --operation $OP $D > "$R/ab-$TAG-$which.txt" 2> "$R/ab-$TAG-$which.err"
        echo "ab $TAG $which rc $? $(( $(date +%s) - s0 )) s"
      done
      python3 - "$R/ab-$TAG-old.err" "$R/ab-$TAG-new.err" "$FOCUS" <<'PY' | tee "$R/ab-$TAG-table.txt"
import re, sys
sys.path.insert(0, "scripts/probe")
from tuner_log import candidate_times as read
old, new, focus = read(sys.argv[1]), read(sys.argv[2]), re.compile(sys.argv[3])
nan = (float("nan"), "-")
for key in sorted({k for k, _ in new}):
    bo = min(((v, s) for (k, s), v in old.items() if k == key), default=nan)
    bn = min((v, s) for (k, s), v in new.items() if k == key)
    bf = min(((v, s) for (k, s), v in new.items() if k == key and focus.search(s)), default=nan)
    be = min(((v, s) for (k, s), v in new.items() if k == key and s.startswith("elem/") and not focus.search(s)),
             default=nan)
    print(f"N={key[0]} {key[1]}: best old {bo[0]:.4f} {bo[1]} | best new {bn[0]:.4f} {bn[1]} | "
          f"best other elem {be[0]:.4f} {be[1]} | best of family {bf[0]:.4f} {bf[1]} ({bf[0] / bo[0]:.3f} of old best)")
    for (k, s), v in sorted(new.items()):
        if k == key and focus.search(s):
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
