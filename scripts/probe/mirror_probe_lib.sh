# Functions the mirror kernels' probe scripts share (sourced; the caller sets DG, D and R, the results folder).
# The SASS counts of a listing, one line in ptxas.txt: sass_counts LABEL LISTING
sass_counts() {
  echo "$1 SASS: $(grep -c HMMA "$2") HMMA, $(grep -c 'LDS' "$2") LDS, $(grep -cE '^ +/\*[0-9a-f]+\*/' "$2") instructions" | tee -a "$R/ptxas.txt"
}
# maxwell2d's verification at N = 1..8, the last lines in check.txt: verify_maxwell SPEC
verify_maxwell() { "$DG" verify maxwell2d --order 1..8 --variant "$1" $D 2>&1 | tail -3 | tee -a "$R/check.txt"; }
# `dg bench` rows of maxwell2d, prefixed with the SPEC, in bench.txt: bench ORDERS SPEC
bench() { "$DG" bench maxwell2d --orders "$1" --variant "$2" $D 2>&1 | grep -E "^ *[0-9] " | sed "s|^|$2 |" | tee -a "$R/bench.txt"; }
# The other laws' verification of a group's f32 SPEC (PREFIX: the SPEC up to the precision), then the planted bug at
# maxwell2d N = 8, in check.txt (its output in planted.txt): verify_laws PREFIX [JOB ...], each JOB "law orders [/form]"
verify_laws() {
  local prefix=$1; shift
  for job in "$@"; do
    set -- $job
    "$DG" verify "$1" --order "$2" --variant "$prefix/f32${3:-}" $D 2>&1 | tail -2 | tee -a "$R/check.txt"
  done
  "$DG" verify maxwell2d --order 8 --variant "$prefix/f32/mixed" $D --plant-bug skip-last-group > "$R/planted.txt" 2>&1
  echo "planted bug: exit $? (must be non-zero)" | tee -a "$R/check.txt"
}
# The results folder R under OUT, the device option D, the device and the start time in date: probe_start
probe_start() {
  R="$OUT/r"; mkdir -p "$R"; D="--device cuda:0"
  { nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u; } | tee -a "$R/date"
}
# The results folder packed into one file (the device returns few files): pack
pack() { (cd "$OUT" && tar -czf results.tgz r); }
# The tf32 mirror kernel's SPECs up to the precision, in groups of 16 and of 32
M16=mmamirror/wg16/seq1/field-local/merged/tiled
M32=mmamirror/wg32/seq1/field-local/merged/tiled
# The N = 8 f32 SPECs the probes time beside their own: the FMA winner and the tf32 kernel under launch bounds for 9
# groups
B4=balanced4/wg32/seq1/matrix-local/merged/tiled/f32/mixed
B9=${M16/mmamirror/mmamirrorb9}/f32/mixed
# Two rounds of N = 8 timings in bench.txt: MAIN's and F's `mmamirrorb9`, in round 1 also what the function EXTRA
# times (called with DG=F; none when not given), then MAIN's `balanced4`; packed after each round: ab_rounds [EXTRA]
ab_rounds() {
  local round
  for round in 1 2; do
    echo "--- round $round" >> "$R/bench.txt"
    DG=$MAIN; bench 8 "$B9"
    echo "--- F" >> "$R/bench.txt"; DG=$F; bench 8 "$B9"
    [ $round = 1 ] && [ -n "${1:-}" ] && "$1"
    echo "--- main" >> "$R/bench.txt"; DG=$MAIN; bench 8 "$B4"
    pack
  done
}
# Each probe binary's maxwell2d verification (mixed, N = 1..8, groups of 16) in check.txt, then pack (DG unchanged):
# verify_probes BINARY ...
verify_probes() {
  local keep=$DG alt
  for alt in "$@"; do echo "--- $alt:" | tee -a "$R/check.txt"; DG=$alt; verify_maxwell "$M16/f32/mixed"; done
  DG=$keep; pack
}
# $DB copied to $OUT/db, then the results folder and it packed into one file: pack_db
pack_db() { rm -rf "$OUT/db"; cp -r "$DB" "$OUT/db"; (cd "$OUT" && tar -czf results.tgz r db); }
# $DG's tuning into $DB with a fresh kernel cache, its winners (and a stored winner it kept) printed, then pack_db:
# tune_into LABEL ARGS… (the autotune arguments)
tune_into() {
  local label=$1; shift; local t0=$SECONDS
  DG_CACHE_DIR=$(mktemp -d) timeout 300 "$DG" --db "$DB" autotune "$@" $D > "$R/tune-$label.txt" 2> "$R/tune-$label.err"
  echo "tune $label rc $? ($(( SECONDS - t0 )) s)"; grep -E "winner|kept" "$R/tune-$label.txt" | cut -c1-160
  pack_db
}
# One timed tuning of maxwell2d N = 8 f32 by $DG in a fresh process on an empty database and kernel cache (the cache
# left in C), its time and winner printed: timed_tuning RUN
timed_tuning() {
  C=$(mktemp -d); local T; T=$(mktemp -d); local t0; t0=$(date +%s.%N)
  DG_CACHE_DIR=$C timeout 60 "$DG" --db "$T" autotune maxwell2d --orders 8 --precision f32 $D > "$R/tunetime-$1.txt" 2>&1
  echo "tunetime $1 rc $? (process $(python3 -c "print(round($(date +%s.%N) - $t0, 2))") s): $(grep winner "$R/tunetime-$1.txt" | tail -1 | sed 's/.*winner //')"
}
# Nsight Compute on one timed launch at 16M DOFs (the 21st: past the verification's) of BINARY's SPEC at N = 8, the
# counters METRICS (default: executed warp instructions, DRAM bytes, grid, duration) in ncu-FILE.txt and one line in
# ncu.txt: ncu_launch FILE BINARY SPEC [METRICS]
ncu_launch() {
  local metrics=${4:-smsp__inst_executed.sum,dram__bytes.sum,launch__grid_size,gpu__time_duration.sum}
  local names; names=$(echo "$metrics" | tr ',' '\n' | sed 's/\..*//' | paste -sd'|')
  timeout 90 ncu --launch-skip 20 --launch-count 1 -k regex:mmamirror --metrics "$metrics" \
    "$2" bench maxwell2d --orders 8 --variant "$3" $D > "$R/ncu-$1.txt" 2>&1
  echo "ncu $1 rc $?: $(grep -E "$names" "$R/ncu-$1.txt" | awk '{print $1, $NF}' | tr '\n' ' ')" | tee -a "$R/ncu.txt"
}
# $DG's f32 entries whose list holds `mmamirrorb9` tuned into $DB (maxwell2d's right-hand side N = 1..8 and its stage
# at N = 8, exhaustive, each candidate verified first, fresh kernel cache), `dg bench maxwell2d --orders 1..8
# --precision f32` with them, the tuning of N = 8 timed in two processes on empty databases and caches and once
# untruncated; packed after each step: tune_b9_keys
tune_b9_keys() {
  mkdir -p "$DB"
  tune_into rhs-f32 maxwell2d --orders 1..8 --precision f32
  tune_into stage8-f32 maxwell2d --orders 8 --precision f32 --operation stage
  timeout 120 "$DG" --db "$DB" bench maxwell2d --orders 1..8 --precision f32 $D > "$R/bench-f32.txt" 2>&1
  echo "bench rc $?"; grep -E "^ *[0-9] " "$R/bench-f32.txt"; pack_db
  timed_tuning a; timed_tuning b
  local T; T=$(mktemp -d)
  DG_CACHE_DIR=$C timeout 120 "$DG" --db "$T" autotune maxwell2d --orders 8 --precision f32 --every-variant \
    --no-early-stop $D > "$R/tunetime-u.txt" 2>&1
  echo "tunetime untruncated rc $?: $(grep winner "$R/tunetime-u.txt" | tail -1 | sed 's/.*winner //')"
  date -u | tee -a "$R/date"; pack_db
}
