#!/usr/bin/env bash
# mma16r probe: verify, planted bug, exhaustive A/B through the tuner (f64, unit and stage)
set -u
mkdir -p /tmp/b && tar -C /tmp/b -xJf gpu/r1.tar.xz; DG=/tmp/b/dg; R=$OUT; D="--device cuda:0"
nvidia-smi -L; date -u +%FT%TZ
V=field-local/merged/node-major/f64
for spec in mma16r/wg8/seq1/$V mma16r/wg16/seq2/$V mma16r/wg32/seq1/$V; do
  timeout 120 $DG verify maxwell2d --order 1..8 --precision f64 --variant $spec $D > $R/verify-$(echo $spec|tr / _).txt 2>&1; echo "verify maxwell2d $spec rc=$?"; tail -2 $R/verify-$(echo $spec|tr / _).txt
done
for fl in numerical_flux hllc_flux; do
  timeout 120 $DG verify euler2d --order 1..8 --precision f64 --flux $fl --variant mma16r/wg8/seq1/$V $D > $R/verify-euler-$fl.txt 2>&1; echo "verify euler2d $fl rc=$?"; tail -2 $R/verify-euler-$fl.txt
done
timeout 60 $DG verify maxwell2d --order 5..8 --precision f64 --variant mma16r/wg8/seq1/$V --plant-bug skip-last-group $D > $R/planted.txt 2>&1; echo "planted rc=$? (must be nonzero)"; tail -2 $R/planted.txt
for op in unit stage; do
  s0=$(date +%s)
  DG_CACHE_DIR=$(mktemp -d) timeout 200 $DG --db $(mktemp -d) autotune maxwell2d --orders 3..8 --precision f64 --operation $op $D > $R/ab-$op.txt 2> $R/ab-$op.err
  echo "autotune $op rc=$? $(( $(date +%s) - s0 )) s"
  python3 - $R/ab-$op.err <<'PY'
import re, sys
sys.path.insert(0, "scripts/probe")
from tuner_log import candidate_times as read
t = read(sys.argv[1])
for key in sorted({k for k, _ in t}):
    best = min((v, s) for (k, s), v in t.items() if k == key)
    fam = sorted((v, s) for (k, s), v in t.items() if k == key and s.startswith("mma16r"))
    other = min(((v, s) for (k, s), v in t.items() if k == key and not s.startswith("mma16r")), default=(float("nan"), "-"))
    print(f"N={key[0]} {key[1]}: best other {other[0]:.4f} {other[1]} | best mma16r {fam[0][0] if fam else float('nan'):.4f} {fam[0][1] if fam else '-'} ({(fam[0][0]/other[0]) if fam else float('nan'):.3f})")
    for v, s in fam: print(f"    {s:60s} {v:.4f}")
PY
done
