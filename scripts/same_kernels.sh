#!/usr/bin/env bash
# Whether two dg binaries generate the same kernels, byte for byte: every nodal triangle variant of maxwell2d and
# euler2d (N = 1..8), every modal variant of euler2d with Rusanov's and HLLC's flux (p = 1..5), the tetrahedral
# program of acoustics3d and elastic3d (N = 1..8), every hexahedral variant of maxwell3d (N = 1..6) and every
# finite-volume variant of mhd2d, f32 and f64, CUDA C. Used when a change moves or reformats
# generator source without meaning to change its output: if nothing differs, tuning results keyed by the old code
# fingerprint describe the new code too (scripts/rekey_db.py then moves them to the new fingerprint).
# A change that adds variants (a new partition) changes no kernel the old program generates: LIST=old takes the
# nodal triangle and hexahedral variant lists from OLD_DG, so that only the kernels both programs generate are compared
# (the tuning results of the old fingerprint then describe the new code, less the new variants, which they never timed).
# usage: [LIST=old] scripts/same_kernels.sh OLD_DG NEW_DG
set -u
OLD=${1:?old dg binary}; NEW=${2:?new dg binary}
LISTER=$NEW; [ "${LIST:-new}" = old ] && LISTER=$OLD
W=$(mktemp -d)
n=0; diff=0
emit() { # law order spec [flux]
  local args=("$1" --order "$2" --variant "$3" --target cuda); [ -n "${4:-}" ] && args+=(--flux "$4")
  a=$("$OLD" emit "${args[@]}" 2>&1 | sha256sum); b=$("$NEW" emit "${args[@]}" 2>&1 | sha256sum)
  n=$((n+1)); if [ "$a" != "$b" ]; then diff=$((diff+1)); echo "DIFFERS: ${args[*]}"; fi
}
for law in maxwell2d euler2d; do for N in 1 2 3 4 5 6 7 8; do for p in f32 f64; do
  "$LISTER" variants $law --order $N --precision $p | awk '/^  (valid|rejected) /{print $2}' | sed 's/:$//' > "$W/specs"
  while read -r spec; do emit $law $N "$spec"; done < "$W/specs"
done; done; done
for flux in numerical_flux hllc_flux; do for N in 1 2 3 4 5; do for p in f32 f64; do
  for g in 64 128 256; do for s in edge edge-flux edge-flux-pair atomic element element-regs mma; do for t in const shared; do for l in mode-major elem-major; do
    emit euler2d $N "modal/wg$g/$s/$t/$l/$p" $flux
  done; done; done; done
done; done; done
for law in acoustics3d elastic3d; do for N in 1 2 3 4 5 6 7 8; do for p in f32 f64; do
  emit $law $N "tet/node/v1/s1/u1/$p"
done; done; done
for N in 1 2 3 4 5 6; do for p in f32 f64; do
  "$LISTER" variants maxwell3d --formulation hex --order $N --precision $p | awk '/^  valid /{print $2}' > "$W/specs"
  while read -r spec; do emit maxwell3d $N "$spec"; done < "$W/specs"
done; done
for p in f32 f64; do
  "$LISTER" variants mhd2d --formulation fv --order 1 --precision $p | awk '/^  valid /{print $2}' > "$W/specs"
  while read -r spec; do emit mhd2d 1 "$spec"; done < "$W/specs"
done
echo "$n kernels compared, $diff differ"
rm -rf "$W"
[ "$diff" = 0 ]
