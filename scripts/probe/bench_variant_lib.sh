# Helpers the H100 probes of the mirror tiles share (sourced; EXP, R and D set by the caller):
# row FILE: each order's row of a `dg bench` output as "N<order> <ms> <roofline>";
# b ORDERS VARIANT [VAR=VALUE ...]: `dg bench maxwell2d --orders ORDERS --variant VARIANT` with EXP under those
# environment variables (each process verifies first), one line with its rows and how many were not verified, the
# whole output appended to $R/all.txt;
# bench_jobs: each line of its standard input "ORDER GROUP PRECISION PARTITION…" benched as
# PARTITION/GROUP/seq1/matrix-local/merged/tiled/PRECISION/mixed at ORDER, partition by partition.
row() { grep -E "^ *[0-9] " "$1" | awk '{print "N"$1, $4, $8}' | tr '\n' ' '; }
b() {
  local orders=$1 v=$2; shift 2
  env "$@" timeout 40 "$EXP" bench maxwell2d --orders $orders --variant $v $D > "$R/b.txt" 2>&1
  echo "$v [$*] rc $?: $(row "$R/b.txt")$(grep -c 'NOT VERIFIED' "$R/b.txt") unverified"
  cat "$R/b.txt" >> "$R/all.txt"
}
bench_jobs() {
  local job o g p t
  while read -r job; do
    set -- $job; o=$1; g=$2; p=$3; shift 3
    for t in "$@"; do
      b "$o" "$t/$g/seq1/matrix-local/merged/tiled/$p/mixed"
    done
  done
}
