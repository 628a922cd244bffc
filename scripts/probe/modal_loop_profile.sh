#!/bin/bash
# per-kernel durations and DRAM bytes of the modal vortex loop (RK4 stages) and of the bench's stage
set -u
R=$(mktemp -d)
DG=./gpu/dg
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
for pp in "1 f64" "2 f32" "2 f64" "4 f64"; do
  set -- $pp
  timeout 100 ncu --clock-control none --csv --metrics $M --launch-skip 120 --launch-count 15 \
    $DG run euler-isentropic-vortex --order $1 --nx 600 --scheme rk4 --dt 5e-5 --t-end 0.0025 --precision $2 --device cuda:0 \
    > $R/loop-$1-$2.csv 2>$R/loop-$1-$2.err
  timeout 100 ncu --clock-control none --csv --metrics $M --kernel-name regex:modal --launch-skip 20 --launch-count 4 \
    $DG bench euler2d --formulation modal-tri --flux hllc_flux --orders $1 --precision $2 --device cuda:0 \
    > $R/bench-$1-$2.csv 2>$R/bench-$1-$2.err
  $DG run euler-isentropic-vortex --order $1 --nx 600 --scheme rk4 --dt 5e-5 --t-end 0.025 --precision $2 --device cuda:0 --json > $R/iv-$1-$2.json 2>/dev/null
  python3 - $R $1 $2 <<'PY'
import csv,sys,json
R,p,P=sys.argv[1:]
for tag in ('loop','bench'):
    rows=list(csv.reader([l for l in open(f'{R}/{tag}-{p}-{P}.csv') if l.startswith('"')]))
    h=rows[0]; ix={k:i for i,k in enumerate(h)}
    for r in rows[1:]:
        if r[ix['Metric Name']]=='gpu__time_duration.sum':
            print(tag,p,P,r[ix['ID']],r[ix['Kernel Name']][:28],r[ix['Metric Value']],r[ix['Metric Unit']])
        elif 'dram' in r[ix['Metric Name']]:
            print('     ',r[ix['Metric Name']][:16],r[ix['Metric Value']],r[ix['Metric Unit']])
d=json.load(open(f'{R}/iv-{p}-{P}.json'))
print('vortex',p,P,d['throughput']/1e9*0+ d['elements']*(int(p)+1)*(int(p)+2)/2*d['rhs_evaluations']/d['wall_seconds']/1e9,'Gpts/s kernel_s',d['device']['kernel_seconds'],'wall',d['wall_seconds'])
PY
done
tar czf $OUT/prof.tgz -C $R .
