set -u
cd gpu && tar -xJf bins.tar.xz && cd ..
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/device
date -u | tee $R/date
run() { name=$1; shift; /usr/bin/time -f "%M KB max RSS, %e s" "$@" > $R/$name.out 2> $R/$name.err; rc=$?; echo "== $name rc=$rc $(tail -1 $R/$name.err)"; grep -v "KB max RSS" $R/$name.err | tail -2; }
run big-hex timeout 300 gpu/dg run maxwell3d-plane-wave --order 3 --nx 128 --precision f32 --t-end 2e-4 --device cuda:0 --json
python3 -c "import json; d=json.load(open('$R/big-hex.out')); print([(p['phase'], round(p['seconds'],2)) for p in d['startup']], d['l2_error'], d['wall_seconds'])"
run wrap-hex timeout 200 gpu/dg run euler3d-density-wave --order 3 --nx 160 --precision f32 --t-end 1e-4 --device cuda:0
run verify-hex gpu/dg verify maxwell3d --formulation hex --order 1..3 --precision both --device cuda:0
tail -1 $R/verify-hex.out
run verify-fv gpu/dg verify mhd2d --formulation fv --device cuda:0
tail -1 $R/verify-fv.out
tar -C $OUT -czf $OUT/results.tgz r
