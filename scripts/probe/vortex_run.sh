# Sourced by the modal probe scripts: `vortex p precision tag [variant]` runs the issue's isentropic vortex (720,000
# triangles, RK4, fixed dt, 500 steps) with $BIN (default $DG) on cuda:0, writes $R/iv-<precision>-<p>-<tag>.json and
# .err, and prints one line: Gpts·RHS/s over the loop, kernel seconds, density L2 error, how the variant was chosen.
vortex() {
  local extra=""; [ -n "${4:-}" ] && extra="--variant $4"
  ${BIN:-$DG} run euler-isentropic-vortex --order $1 --nx 600 --scheme rk4 --dt 5e-5 --t-end 0.025 --precision $2 --device cuda:0 $extra --json > $R/iv-$2-$1-$3.json 2> $R/iv-$2-$1-$3.err
  python3 -c "
import json; d=json.load(open('$R/iv-$2-$1-$3.json')); p=d['order']; pts=d['elements']*(p+1)*(p+2)//2
c=d['device'].get('choice') or {}
print('iv $2 p=$1 $3', round(pts*d['rhs_evaluations']/d['wall_seconds']/1e9,2), 'Gpts/s kernels', round(d['device']['kernel_seconds'],3), 's', d['density_l2_error'], c.get('source',''), c.get('variant','${4:-}'))" 2>/dev/null || { echo "iv $2 p=$1 $3 FAILED"; tail -3 $R/iv-$2-$1-$3.err; }
}
