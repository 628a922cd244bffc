#!/usr/bin/env bash
# The cost of the source kernel (a law with a source term: mhd2d) beside the right-hand side, per kernel under Nsight
# Compute; writes under $OUT. Needs gpu/src.tar.xz (the stripped dg).
set -u
mkdir -p gpu/src && tar -C gpu/src -xJf gpu/src.tar.xz
D=gpu/src/dg; export DG_CACHE_DIR=/tmp/dgcache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
$D --db /tmp/db.json autotune mhd2d --orders 2..4 --precision f32 --device cuda:0 > $OUT/tune.txt 2>&1; tail -4 $OUT/tune.txt
$D --db /tmp/db.json autotune mhd2d --formulation modal-tri --orders 2..3 --precision f32 --device cuda:0 > $OUT/tune-modal.txt 2>&1; tail -3 $OUT/tune-modal.txt
cp /tmp/db.json $OUT/db.json
for f in nodal-tri modal-tri; do
  o=3
  ncu --metrics gpu__time_duration.sum --launch-skip 20 --launch-count 40 $D --db /tmp/db.json bench mhd2d --formulation $f --orders $o --precision f32 --device cuda:0 > $OUT/ncu-$f.txt 2>&1
  python3 - "$OUT/ncu-$f.txt" <<'PY'
import re, sys, collections
t = collections.defaultdict(list); name = None
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"^  (\w+)\(", line) or re.match(r"^  (\w+) \(\d", line)
    if m: name = m.group(1)
    m = re.search(r"gpu__time_duration.sum\s+(\S+)\s+([\d.,]+)", line)
    if m and name:
        v = float(m.group(2).replace(",", "")); v *= {"nsecond": 1e-3, "usecond": 1, "msecond": 1e3}.get(m.group(1), 1)
        t[name].append(v)
for k, v in t.items(): print(f"{k:40s} n={len(v):3d} median {sorted(v)[len(v)//2]:9.2f} us")
PY
done
