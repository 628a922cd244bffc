#!/usr/bin/env bash
# The staged mirror tiles (`staged<t>`, valid on request) against the listed mirror tiles and the tuned winners:
# ptxas registers, spills and shared memory of each staged kernel at N = 7 (emitted on the device, compiled with
# nvcc -Xptxas -v), then `dg bench maxwell2d --orders ORDERS --variant SPEC` for every SPEC below (each process
# verifies its variant first; rows marked NOT-VERIFIED failed or were refused), then `dg bench` of the shipped
# database's winners (the baseline, same card and same run). Packed after every step.
# usage: DG=path/to/dg OUT=dir [ORDERS=5..8] [PRECISIONS="f32 f64"] bash scripts/probe/staged_sweep.sh
set -u
DG=${DG:?}; OUT=${OUT:?}; ORDERS=${ORDERS:-5..8}; R=$OUT/r; mkdir -p "$R" "$R/src"; D="--device cuda:0"
pack() { (cd "$OUT" && tar -czf results.tgz r); }
nvidia-smi -L; date -u +%FT%TZ | tee -a "$R/date"
specs() { # precision
  local p=$1 t g s
  for t in 3 4 5 7; do echo "mirror$t/wg32/seq1/matrix-local/merged/tiled/$p/mixed"; done
  for t in 3 4 5 7; do for g in 8 16 32; do for s in 1 2; do
    echo "staged$t/wg$g/seq$s/matrix-local/merged/tiled/$p/mixed"
  done; done; done
  for t in 4 5; do echo "staged$t/wg16/seq4/matrix-local/merged/tiled/$p/mixed"; done
  for t in 4 5 7; do for g in 16 32; do echo "staged$t/wg$g/seq1/field-local/merged/tiled/$p/mixed"; done; done
}
for p in ${PRECISIONS:-f32 f64}; do
  for v in $(specs $p | grep '^staged' | grep seq1); do
    f="$R/src/$(echo "$v" | tr '/' '_').cu"
    "$DG" emit maxwell2d --order 7 --variant "$v" --target cuda > "$f" 2>/dev/null || { rm -f "$f"; continue; }
    echo "$v N=7: $(nvcc -arch=sm_90 -c -o /dev/null -Xptxas -v "$f" 2>&1 | grep -A3 -E "Compiling entry function '_?Z?[0-9]*mirror" | grep -E "registers|spill" | tr -s ' ' | tr '\n' ' ')"
  done | tee -a "$R/ptxas.txt"; pack
  for v in $(specs $p); do
    o="$R/bench-$(echo "$v" | tr '/' '_')"
    timeout 60 "$DG" bench maxwell2d --orders "$ORDERS" --variant "$v" $D --json > "$o.json" 2> "$o.err"
    python3 - "$o.json" "$v" "$?" <<'PY'
import json, sys
try:
    rows = json.load(open(sys.argv[1]))
except Exception:
    print(sys.argv[2], "rc", sys.argv[3], "no rows"); sys.exit()
print(sys.argv[2], "rc", sys.argv[3], " ".join("N%d %.4f ms %.1f%%%s" % (r["order"], r["ms"], r["roofline_percent"], "" if r["verified_now"] else " NOT-VERIFIED") for r in rows))
PY
    pack
  done | tee -a "$R/sweep.txt"
  timeout 90 "$DG" bench maxwell2d --orders "$ORDERS" --precision $p $D > "$R/winners-$p.txt" 2>&1
  echo "winners $p rc $?"; cat "$R/winners-$p.txt"; pack
done
date -u +%FT%TZ | tee -a "$R/date"; pack
