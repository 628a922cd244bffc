#!/usr/bin/env bash
# The mirror tiles' work items per element and groups in sequence: registers and spills of the emitted sources in
# $SRC (ptxas), then `dg bench maxwell2d --variant mirror<t>/wg32/seq<s>/matrix-local/merged/tiled/<p>/mixed` at
# ORDERS for t in THREADS, s in SEQS, both precisions (each process verifies its variant first).
# usage: DG=path/to/dg SRC=dir OUT=dir [ORDERS=5..8] [THREADS="2 3 4 5 6 8"] [SEQS="1 2"] bash scripts/probe/mirror_sweep.sh
set -u
DG=${DG:?}; OUT=${OUT:?}; ORDERS=${ORDERS:-5..8}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
pack() { (cd "$OUT" && tar -czf results.tgz r); }
nvidia-smi -L; date -u +%FT%TZ | tee -a "$R/date"
if [ -n "${SRC:-}" ]; then
  for f in "$SRC"/*.cu; do
    echo "$(basename "$f"): $(nvcc -arch=sm_90 -c -o /dev/null -Xptxas -v "$f" 2>&1 | grep -A3 -E "Compiling entry function '_?Z?[0-9]*mirror" | grep -E "registers|spill" | tr -s ' ' | tr '\n' ' ')"
  done | tee "$R/ptxas.txt"; pack
fi
for p in ${PRECISIONS:-f32 f64}; do for t in ${THREADS:-2 3 4 5 6 8}; do for s in ${SEQS:-1 2}; do
  v=mirror$t/wg32/seq$s/matrix-local/merged/tiled/$p/mixed; o="$R/bench-$p-t$t-s$s"
  timeout 60 "$DG" bench maxwell2d --orders "$ORDERS" --variant "$v" $D --json > "$o.json" 2> "$o.err"
  python3 - "$o.json" "$v" "$?" <<'PY'
import json, sys
try:
    rows = json.load(open(sys.argv[1]))
except Exception as e:
    print(sys.argv[2], "rc", sys.argv[3], "no rows"); sys.exit()
print(sys.argv[2], "rc", sys.argv[3], " ".join("N%d %.4f ms %.1f%%%s" % (r["order"], r["ms"], r["roofline_percent"], "" if r["verified_now"] else " NOT-VERIFIED") for r in rows))
PY
  pack
done; done; done | tee "$R/sweep.txt"
echo "N=8 f64 mirror4 verify: $(timeout 60 "$DG" verify maxwell2d --order 8 --variant mirror4/wg32/seq1/matrix-local/merged/tiled/f64/mixed $D 2>&1 | tail -3 | tr '\n' ' ')"
date -u +%FT%TZ | tee -a "$R/date"; pack
