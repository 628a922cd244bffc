#!/usr/bin/env bash
set -u
mkdir -p /tmp/b && tar -C /tmp/b -xJf gpu/r2.tar.xz; DG=/tmp/b/dg; R=$OUT; D="--device cuda:0"
nvidia-smi -L; date -u +%FT%TZ
V=field-local/merged/node-major/f64
timeout 120 $DG verify maxwell2d --order 1..8 --precision f64 --variant mma16r/wg8/seq1/$V $D > $R/verify.txt 2>&1; echo "verify rc=$?"; tail -1 $R/verify.txt
for spec in mma16r/wg8/seq1/$V mma16/wg8/seq1/$V; do
  $DG run maxwell-cavity --order 6 --nx 64 --precision f64 --variant $spec $D --json > $R/cav-$(echo $spec|cut -d/ -f1).json 2>/dev/null; python3 -c "import json;d=json.load(open('$R/cav-$(echo $spec|cut -d/ -f1).json'));print('cavity $spec', d.get('l2_error') or d.get('relative_l2_error'))"
done
for op in unit stage; do
  DG_CACHE_DIR=$(mktemp -d) timeout 150 $DG --db $(mktemp -d) autotune maxwell2d --orders 5..8 --precision f64 --operation $op $D > $R/ab-$op.txt 2> $R/ab-$op.err
  echo "autotune $op rc=$?"
  python3 - $R/ab-$op.err <<'PY'
import re, sys
sys.path.insert(0, "scripts/probe")
from tuner_log import candidate_times as read
t = read(sys.argv[1])
for key in sorted({k for k, _ in t}):
    fam = sorted((v, s) for (k, s), v in t.items() if k == key and s.startswith("mma16r"))
    other = min(((v, s) for (k, s), v in t.items() if k == key and not s.startswith("mma16r")), default=(float("nan"), "-"))
    print(f"N={key[0]} {key[1]}: best other {other[0]:.4f} {other[1]} | mma16r " + ", ".join(f"{s.split('/')[1]}/{s.split('/')[2]} {v:.4f}" for v, s in fam))
PY
done
for spec in mma16r/wg8/seq1/$V mma16/wg8/seq1/$V; do
  tag=$(echo $spec|cut -d/ -f1)
  timeout 120 ncu --launch-skip 3 --launch-count 1 -k regex:mma --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis $DG run maxwell-cavity --order 8 --nx 300 --t-end 1e-4 --precision f64 --variant $spec $D > $R/ncu-$tag.txt 2>&1
  echo "ncu $spec rc=$?"; grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Memory Throughput|L1/TEX Hit|Issue Slots|Stall|Warp Cycles Per Issued" $R/ncu-$tag.txt | head -14
done
