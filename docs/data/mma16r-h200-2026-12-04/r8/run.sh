#!/usr/bin/env bash
# probe: mma16r with two warps per 8 elements (each half the row tiles), against one
set -u
mkdir -p /tmp/b && tar -C /tmp/b -xJf gpu/r8.tar.xz; DG=/tmp/b/dg; R=$OUT; D="--device cuda:0"
nvidia-smi -L; date -u +%FT%TZ | tee $R/date
export DG_PROBE_SPLIT=2
timeout 60 $DG verify maxwell2d --order 1..8 --precision f64 --variant mma16r/wg16/seq1/field-local/merged/node-major/f64 $D 2>&1 | tail -1
timeout 60 $DG verify euler2d --order 5..8 --precision f64 --flux hllc_flux --variant mma16r/wg8/seq2/field-local/merged/node-major/f64 $D 2>&1 | tail -1
timeout 60 $DG verify maxwell2d --order 7 --precision f64 --variant mma16r/wg8/seq1/field-local/merged/node-major/f64 --plant-bug skip-last-group $D > /dev/null 2>&1; echo "planted rc=$? (nonzero expected)"
for split in 2 1; do
  export DG_PROBE_SPLIT=$split
  for op in unit stage; do
    DG_CACHE_DIR=$(mktemp -d) timeout 100 $DG --db $(mktemp -d) autotune maxwell2d --orders 5..8 --precision f64 --operation $op $D > $R/ab-$op-$split.txt 2> $R/ab-$op-$split.err
    echo "split $split $op rc=$?"
    python3 - $R/ab-$op-$split.err <<'PY'
import sys
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
