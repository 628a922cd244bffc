#!/usr/bin/env bash
# Times variants a search does not visit (other group sizes of the element and tile kernels) beside the shipped
# winners, through `dg bench --variant` (each verified first, then timed at 16M DOF), two passes in alternating order.
# Usage (device machine): DG=gpu/dg/dg OUT=$OUT bash scripts/probe/named_variants.sh
# Prints one line per (pass, order, variant): ms, GDOF/s, % of roofline; the JSON rows go to $OUT/rows-<pass>.jsonl.
set -u
DG=${DG:-target/release/dg}
OUT=${OUT:-/tmp/named}
mkdir -p "$OUT"
L=maxwell2d
DEVICE=${DEVICE:-cuda:0}
EXTRA=${EXTRA:-}
E=merged/node-major
SPECS="${SPECS:-
3 elem/wg128/seq1/matrix-const/$E/f32/mixed
3 elem/wg32/seq1/matrix-const/$E/f32/mixed
3 elem/wg64/seq1/matrix-const/$E/f32/mixed
3 elem/wg256/seq1/matrix-const/$E/f32/mixed
3 elem/wg512/seq1/matrix-const/$E/f32/mixed
3 elem/wg64/seq2/matrix-const/$E/f32/mixed
3 elem/wg256/seq2/matrix-const/$E/f32/mixed
3 elem/wg256/seq1/matrix-local/$E/f32/mixed
4 elem/wg128/seq1/matrix-local/$E/f64/diff-first
4 elem/wg64/seq1/matrix-local/$E/f64/diff-first
4 elem/wg256/seq1/matrix-local/$E/f64/diff-first
4 elem/wg512/seq1/matrix-local/$E/f64/diff-first
4 elem/wg256/seq2/matrix-local/$E/f64/diff-first
4 elem/wg128/seq2/matrix-local/$E/f32/mixed
4 elem/wg64/seq2/matrix-local/$E/f32/mixed
4 elem/wg256/seq2/matrix-local/$E/f32/mixed
4 elem/wg256/seq1/matrix-local/$E/f32/mixed
4 elem/wg512/seq1/matrix-local/$E/f32/mixed
5 tile4/wg32/seq1/matrix-local/$E/f32/mixed
5 tile4/wg16/seq1/matrix-local/$E/f32/mixed
5 elem/wg64/seq1/matrix-local/$E/f32/mixed
5 elem/wg256/seq1/matrix-local/$E/f32/mixed
6 tile4/wg32/seq1/matrix-local/$E/f32/mixed
6 tile4/wg16/seq1/matrix-local/$E/f32/mixed
6 tile6/wg16/seq1/matrix-local/$E/f32/mixed
8 tile6/wg32/seq1/matrix-local/$E/f32/mixed
8 tile6/wg16/seq1/matrix-local/$E/f32/mixed
8 tile4/wg16/seq1/matrix-local/$E/f32/mixed
}"
one() {  # pass order spec
  if "$DG" bench $L --orders "$2" --variant "$3" --device "$DEVICE" $EXTRA --json > "$OUT/row.json" 2> "$OUT/row.err"; then
    python3 - "$1" "$OUT/row.json" >> "$OUT/rows-$1.jsonl" <<'PY'
import json, sys
r = json.load(open(sys.argv[2]))[0]
r["pass"] = sys.argv[1]
print(json.dumps(r))
PY
    python3 -c "import json,sys; r=json.load(open('$OUT/row.json'))[0]; print('$1', r['order'], r['precision'], r['winner'], '%.4f ms' % r['ms'], '%.1f GDOF/s' % r['gdofs'], '%.1f %%' % r['roofline_percent'])"
  else
    echo "$1 $2 $3 FAILED: $(tail -1 "$OUT/row.err")"
  fi
}
echo "$SPECS" | grep -v '^$' > "$OUT/specs.txt"
while read -r n s; do one a "$n" "$s"; done < "$OUT/specs.txt"
tac "$OUT/specs.txt" | while read -r n s; do one b "$n" "$s"; done
