# Shared steps of the nodal-triangle re-tuning scripts (sourced; needs DG, DB, R and D set; TUNE_TIMEOUT, seconds per
# `dg autotune` process, default 200):
# nodal_retune P — the entries of precision P (f32, f64 or both) that a change to the nodal kernels touches, tuned
# exhaustively into $DB: maxwell2d's right-hand side and stage at N = 1..8 (nodal_retune_maxwell P), euler2d's
# right-hand side (nodal, both fluxes) at N = 1..4 (nodal_retune_euler P); logs in $R/tune-*.
# nodal_bench P — `dg bench maxwell2d --orders 1..8` of precision P on $DB, both operations; $R/bench-*.
nodal_retune_maxwell() {
  local p=$1 op t0
  for op in unit stage; do
    t0=$(date +%s)
    DG_CACHE_DIR=$(mktemp -d) timeout "${TUNE_TIMEOUT:-200}" "$DG" --db "$DB" autotune maxwell2d --orders 1..8 --precision "$p" --operation $op $D > "$R/tune-maxwell-$op.txt" 2> "$R/tune-maxwell-$op.err"
    echo "tune maxwell2d $op rc $? ($(( $(date +%s) - t0 )) s)"; grep -E "winner|faster" "$R/tune-maxwell-$op.txt" | cut -c1-170
  done
}
nodal_retune_euler() {
  local p=$1 flux t0
  for flux in numerical_flux hllc_flux; do
    t0=$(date +%s)
    DG_CACHE_DIR=$(mktemp -d) timeout "${TUNE_TIMEOUT:-200}" "$DG" --db "$DB" autotune euler2d --formulation nodal-tri --flux $flux --orders 1..4 \
      --precision "$p" $D > "$R/tune-euler-$flux.txt" 2> "$R/tune-euler-$flux.err"
    echo "tune euler2d $flux rc $? ($(( $(date +%s) - t0 )) s)"; grep winner "$R/tune-euler-$flux.txt" | cut -c1-150
  done
}
nodal_retune() {
  nodal_retune_maxwell "$1"
  nodal_retune_euler "$1"
}
nodal_bench() {
  local p=$1 op
  for op in unit stage; do
    timeout 120 "$DG" --db "$DB" bench maxwell2d --orders 1..8 --precision "$p" --operation $op $D > "$R/bench-$op.txt" 2> "$R/bench-$op.err"
    echo "bench $op rc $?"; cat "$R/bench-$op.txt"
  done
}
