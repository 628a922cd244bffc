#!/usr/bin/env bash
# The f64 tensor-core kernels (field-local) reading the operator's fragments ahead of their use: $OLD (the binary
# before) against $NEW with DG_PROBE_MMA_PREFETCH = each of $DISTANCES, on one GPU. maxwell2d tuned exhaustively in
# f64 at $ORDERS (right-hand side, every candidate verified first) into a fresh copy of the shipped database per
# binary and distance; the mma/mma16 candidates' times side by side (from the tuner's logs).
# usage: OLD=gpu/dg NEW=gpu/dg-new OUT=dir [DISTANCES="2 4 6"] [ORDERS=5..8] bash scripts/probe/mma_prefetch.sh
set -u
OLD=${OLD:?}; NEW=${NEW:?}; OUT=${OUT:-.}; D="--device cuda:0"
nvidia-smi -L; date -u +%FT%TZ | tee "$OUT/date"
for cfg in old ${DISTANCES:-2 4 6}; do
  dg=$NEW; [ $cfg = old ] && dg=$OLD
  cp -r tuning-db "$OUT/db-$cfg"
  DG_PROBE_MMA_PREFETCH=$cfg DG_CACHE_DIR=$(mktemp -d) timeout 150 "$dg" autotune maxwell2d --orders ${ORDERS:-5..8} \
    --precision f64 $D --db "$OUT/db-$cfg" > "$OUT/tune-$cfg.txt" 2> "$OUT/tune-$cfg.err"
  echo "tune $cfg: rc $?"
done
# the tensor-core candidates' times side by side, from the tuner's log of each (ms per right-hand side)
python3 - "$OUT" ${DISTANCES:-2 4 6} <<'PY' | tee "$OUT/candidates.txt"
import re, sys
out, cfgs = sys.argv[1], ["old"] + sys.argv[2:]
times = {}
for cfg in cfgs:
    n = None
    for line in open(f"{out}/tune-{cfg}.err"):
        m = re.match(r"maxwell2d N=(\d+) F64", line)
        if m:
            n = int(m.group(1))
            continue
        m = re.match(r"\s+\[\s*[\d.]+ s\] (mma\S*): ([\d.]+) ms", line)
        if m and n:
            times.setdefault((n, m.group(1)), {})[cfg] = float(m.group(2))
print("N  variant" + " " * 44 + "".join(f"{c:>9}" for c in cfgs))
for (n, v), t in sorted(times.items()):
    print(f"{n}  {v:51}" + "".join(f"{t[c]:9.4f}" if c in t else "        -" for c in cfgs))
PY
