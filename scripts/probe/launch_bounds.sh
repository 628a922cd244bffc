#!/usr/bin/env bash
# Register caps through __launch_bounds__ on the nodal-triangle element, tile and mma kernels: the exhaustive
# tuner's per-candidate times of maxwell2d N = 1..8, both precisions, with the cap at each of $CAPS registers per work
# item ("off": none), one instance, throw-away databases. Needs a binary built with scripts/probe/launch_bounds.patch
# applied (its render reads DG_EXP_LB_REGS; the patch was made against 3e5199c, the run used the same change on 019a5a5).
# usage: DG=gpu/dg OUT=dir CAPS="off 64 80" bash scripts/probe/launch_bounds.sh
set -u
OUT=${OUT:?}; DG=${DG:-gpu/dg}; CAPS=${CAPS:-"off 64 80"}; ORDERS=${ORDERS:-1..8}
R=$OUT/r; mkdir -p "$R"
nvidia-smi -L; date -u +%FT%TZ | tee -a "$R/date"
for cap in $CAPS; do
  t0=$(date +%s)
  if [ "$cap" = off ]; then unset DG_EXP_LB_REGS; else export DG_EXP_LB_REGS=$cap; fi
  DG_CACHE_DIR=$(mktemp -d) timeout 190 "$DG" --db "$(mktemp -d)" autotune maxwell2d --orders $ORDERS --precision both \
    --device cuda:0 > "$R/cap-$cap.txt" 2> "$R/cap-$cap.err"
  echo "cap $cap rc $? $(( $(date +%s) - t0 )) s"
done
unset DG_EXP_LB_REGS
python3 - "$R" $CAPS <<'PY' | tee "$R/table.txt"
# per order and precision: the best candidate of each cap, then per kind (partition/storage[/form]) within 1.3× of
# the best without a cap, the best of each cap
import sys
sys.path.insert(0, "scripts/probe")
from tuner_log import candidate_times as read
R, caps = sys.argv[1], sys.argv[2:]
runs = {c: read(f"{R}/cap-{c}.err") for c in caps}
for key in sorted({k for t in runs.values() for k, _ in t}):
    best = {c: min((v, s) for (k, s), v in runs[c].items() if k == key) for c in caps}
    print(f"N={key[0]} {key[1]}: " + "  ".join(f"{c} {best[c][0]:.4f}" for c in caps) + f"  (uncapped winner {best[caps[0]][1]})")
    kinds = {}
    for c in caps:
        for (k, s), v in runs[c].items():
            if k == key:
                p = s.split("/")
                per = kinds.setdefault("/".join([p[0], p[3]] + p[7:]), {})
                per[c] = min(v, per.get(c, float("inf")))
    for kind, per in sorted(kinds.items(), key=lambda kv: kv[1].get(caps[0], 9)):
        if min(per.values()) < 1.3 * best[caps[0]][0]:
            print(f"    {kind:32s}" + "".join(f" {c}:{per.get(c, float('nan')):.4f}" for c in caps))
PY
tar -czf "$OUT/results.tgz" -C "$R" . && echo packed
