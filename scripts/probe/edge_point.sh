# The modal edge kernel with one work item per (edge, point) against the committed one: the vortex with
# each precision's p = 1..4 winner SPEC (and the shared-table spelling where the winner reads constant tables),
# old and new binaries alternating twice. Usage on the device: R=$OUT OLD=gpu/a/dg-old NEW=gpu/a/dg bash this.
set -u
. scripts/probe/vortex_run.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
date -u
for pass in 1 2; do
  for spec in "4 f64 modal/wg128/edge-flux-pair/shared/mode-major/f64" "4 f32 modal/wg128/edge-flux/const/mode-major/f32" \
              "4 f32 modal/wg128/edge-flux/shared/mode-major/f32" "3 f64 modal/wg64/edge-flux/const/mode-major/f64" \
              "3 f64 modal/wg64/edge-flux/shared/mode-major/f64" "2 f64 modal/wg64/edge-flux/shared/mode-major/f64" \
              "4 f64 modal/wg128/edge-flux/shared/mode-major/f64"; do
    set -- $spec
    BIN=$OLD vortex $1 $2 old$pass $3
    BIN=$NEW vortex $1 $2 new$pass $3
  done
done
date -u
