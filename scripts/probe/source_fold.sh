#!/usr/bin/env bash
# The law's source term folded into the nodal merged store and the modal volume integral, against the previous
# program's separate source kernel: mhd2d verified on the GPU (new program), tuned by each program into its own
# database (nodal right-hand side and stage at N = 3, 4; modal stage at p = 2, 3; f32), per-kernel times under Nsight
# Compute. Needs gpu/fold.tar.xz (dg-old, dg-new: stripped). Writes under $OUT.
set -u
mkdir -p gpu/fold && tar -C gpu/fold -xJf gpu/fold.tar.xz
export DG_CACHE_DIR=/tmp/dgcache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
NEW=gpu/fold/dg-new
$NEW verify mhd2d --order 1..4 --precision both --device cuda:0 > $OUT/verify-nodal.txt 2>&1; tail -1 $OUT/verify-nodal.txt
$NEW verify mhd2d --formulation modal-tri --order 1..4 --precision both --device cuda:0 > $OUT/verify-modal.txt 2>&1; tail -1 $OUT/verify-modal.txt
for b in old new; do
  D=gpu/fold/dg-$b; DB=/tmp/db-$b
  $D --db $DB autotune mhd2d --orders 3..4 --precision f32 --device cuda:0 > $OUT/tune-nodal-$b.txt 2>&1
  $D --db $DB autotune mhd2d --orders 3..4 --precision f32 --operation stage --device cuda:0 > $OUT/tune-stage-$b.txt 2>&1
  $D --db $DB autotune mhd2d --formulation modal-tri --orders 2..3 --precision f32 --device cuda:0 > $OUT/tune-modal-$b.txt 2>&1
  grep -h "winner" $OUT/tune-*-$b.txt | sed "s/^/$b: /" | cut -c1-150
  for f in nodal-tri modal-tri; do
    op=""; [ $f = nodal-tri ] && op="--operation stage"
    ncu --metrics gpu__time_duration.sum --launch-skip 20 --launch-count 40 $D --db $DB bench mhd2d --formulation $f --orders 3 --precision f32 $op --device cuda:0 > $OUT/ncu-$f-$b.txt 2>&1
    python3 - "$OUT/ncu-$f-$b.txt" "$b $f" <<'PY'
import re, sys, collections
t = collections.defaultdict(list); name = None
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"^  (\w+)\(", line) or re.match(r"^  (\w+) \(\d", line)
    if m: name = m.group(1)
    m = re.search(r"gpu__time_duration.sum\s+(\S+)\s+([\d.,]+)", line)
    if m and name:
        v = float(m.group(2).replace(",", "")); v *= {"nsecond": 1e-3, "usecond": 1, "msecond": 1e3}.get(m.group(1), 1)
        t[name].append(v)
for k, v in t.items(): print(f"{sys.argv[2]}: {k:32s} n={len(v):3d} median {sorted(v)[len(v)//2]:9.2f} us")
PY
  done
done
