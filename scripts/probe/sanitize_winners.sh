#!/usr/bin/env bash
# compute-sanitizer on every winner the shipped tuning file of this GPU holds for the current kernel code: maxwell2d
# nodal-tri right-hand sides (`dg verify`, memcheck, racecheck, initcheck) and stages (a short `dg run` of the cavity
# with the variant, memcheck, racecheck), euler2d modal-tri stages (a short vortex run), acoustics3d and elastic3d
# nodal-tet AB3 steps (`dg verify`). Meshes of 338 triangles (no multiple of any group size) for the runs; `dg
# verify` takes its own verification mesh. Jobs run JOBS at a time; one line per job, then a summary.
# usage: DG=gpu/dg OUT=dir [JOBS=8] [FILE=tuning-db/….json] [TOOLS_RHS="memcheck racecheck initcheck"]
#        [TOOLS_RUN="memcheck racecheck"] [ONLY=regex of the jobs' names] [LIMIT=300, seconds per job]
#        [SANITIZER_ARGS="--kernel-regex kns=tet_", only dg's kernels: racecheck of cuBLAS takes minutes]
#        bash scripts/probe/sanitize_winners.sh
set -u
PACK=${OUT:-.}; OUT=$PACK/r; mkdir -p "$OUT/log"; DG=${DG:-gpu/dg}
nvidia-smi -L; date -u +%FT%TZ | tee "$OUT/date"
if [ -z "${FILE:-}" ]; then
  case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
    *H100*) FILE=tuning-db/cuda-nvidia-h100-80gb-hbm3-sm-90.json ;;
    *) FILE=tuning-db/cuda-nvidia-h200-sm-90.json ;;
  esac
fi
export DG_CACHE_DIR=$OUT/cache
fingerprints=$("$DG" db list 2>/dev/null | head -1)
# one job per line: name|command (the command run under compute-sanitizer)
python3 - "$FILE" "$fingerprints" "$DG" "${TOOLS_RHS:-memcheck racecheck initcheck}" "${TOOLS_RUN:-memcheck racecheck}" > "$OUT/jobs.txt" <<'EOF'
import json, sys
path, fps, dg, tools_rhs, tools_run = sys.argv[1:6]
entries = json.load(open(path))["entries"]
seen = set()
for key, e in sorted(entries.items()):
    law, flux, family, element, n, prec, role, _size, code = key.split("|")
    if code not in fps:
        continue
    law, order, spec = law.split("@")[0], n[1:], e["winner"]
    if (law, order, prec, role, spec) in seen:
        continue
    seen.add((law, order, prec, role, spec))
    device = f"--precision {prec} --device cuda:0"
    if law == "maxwell2d" and role == "rhs":
        cmd, tools = f"{dg} verify maxwell2d --order {order} --variant {spec} {device}", tools_rhs
    elif law == "maxwell2d" and role == "stage":
        cmd, tools = f"{dg} run maxwell-cavity --order {order} --nx 13 --t-end 0.005 --variant {spec} {device}", tools_run
    elif law == "euler2d" and role == "rk-stage" and flux == "hllc_flux":
        cmd = f"{dg} run euler-isentropic-vortex --order {order} --nx 13 --scheme rk4 --dt 1e-3 --t-end 0.004 --variant {spec} {device}"
        tools = tools_run
    elif law in ("acoustics3d", "elastic3d") and role == "ab3-step" and order == "7":
        cmd, tools = f"{dg} verify {law} --formulation nodal-tet --order {order} --variant {spec} {device}", tools_run
    else:
        continue
    for tool in tools.split():
        print(f"{law} {role} N={order} {prec} {spec} {tool}|{tool}|{cmd}")
EOF
grep -E "${ONLY:-.}" "$OUT/jobs.txt" > "$OUT/jobs.sel"; mv "$OUT/jobs.sel" "$OUT/jobs.txt"
echo "$(wc -l < "$OUT/jobs.txt") jobs from $FILE"
# warm the kernel cache once per job command, so that the sanitized runs do not all compile at once
cut -d'|' -f3 "$OUT/jobs.txt" | sort -u | xargs -P "${JOBS:-8}" -I{} sh -c '{} > /dev/null 2>&1' 
job() {
  IFS='|' read -r name tool cmd <<< "$1"
  log="$OUT/log/$(echo "$name" | tr ' /=' '___').txt"
  t0=$(date +%s)
  timeout "${LIMIT:-300}" compute-sanitizer --tool "$tool" ${SANITIZER_ARGS:-} --error-exitcode 9 $cmd > "$log" 2>&1
  rc=$?
  echo "$name: rc $rc ($(( $(date +%s) - t0 )) s) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tr -s ' ' | head -1)"
}
export -f job; export OUT LIMIT SANITIZER_ARGS
tr '\n' '\0' < "$OUT/jobs.txt" | xargs -0 -P "${JOBS:-8}" -I{} bash -c 'job "$@"' _ {} | tee "$OUT/results.txt"
echo "summary: $(grep -c ': rc 0 ' "$OUT/results.txt") clean (rc 0) of $(wc -l < "$OUT/results.txt"); not clean:"
grep -v ': rc 0 ' "$OUT/results.txt" || echo "  none"
rm -rf "$OUT/cache"
tar -czf "$PACK/results.tgz" -C "$OUT" . && rm -rf "$OUT" && echo packed
