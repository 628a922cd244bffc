#!/usr/bin/env bash
set -u
mkdir -p /tmp/b && tar -C /tmp/b -xJf gpu/r4.tar.xz; DG=/tmp/b/dg; R=$OUT; D="--device cuda:0"
nvidia-smi -L; date -u +%FT%TZ
export DG_PROBE_CAP=128 DG_PROBE_UNROLL=1
for pf in 0 1; do
  if [ $pf = 1 ]; then export DG_PROBE_PREFETCH=1; fi
  timeout 60 $DG verify maxwell2d --order 5..8 --precision f64 --variant mma16r/wg32/seq1/field-local/merged/node-major/f64 $D 2>&1 | tail -1
  $DG run maxwell-cavity --order 7 --nx 64 --precision f64 --variant mma16r/wg8/seq1/field-local/merged/node-major/f64 $D --json 2>/dev/null | python3 -c "import json,sys;d=json.load(sys.stdin);print('cavity N=7', d.get('l2_error') or d.get('relative_l2_error'))"
  for op in stage; do
    DG_CACHE_DIR=$(mktemp -d) timeout 100 $DG --db $(mktemp -d) autotune maxwell2d --orders 5..8 --precision f64 --operation $op $D > $R/ab-$op-$pf.txt 2> $R/ab-$op-$pf.err
    echo "prefetch $pf $op rc=$?"
    python3 - $R/ab-$op-$pf.err <<'PY'
import re, sys
sys.path.insert(0, "scripts/probe")
from tuner_log import candidate_times as read
t = read(sys.argv[1])
for key in sorted({k for k, _ in t}):
    fam = sorted((v, s) for (k, s), v in t.items() if k == key and s.startswith("mma16r"))
    other = min(((v, s) for (k, s), v in t.items() if k == key and not s.startswith("mma16r")), default=(float("nan"), "-"))
    print(f"  N={key[0]}: other {other[0]:.4f} {other[1].split('/')[0]}/{other[1].split('/')[1]} | mma16r best {fam[0][0]:.4f} {fam[0][1].split('/')[1]}/{fam[0][1].split('/')[2]} ({fam[0][0]/other[0]:.3f})")
PY
  done
done
