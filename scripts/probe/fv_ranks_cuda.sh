#!/usr/bin/env bash
# Finite volumes over MPI ranks on CUDA (the ghost rows through `Device::upload_range` and `download_range`), on one
# GPU: Orszag–Tang in one process and on 2 and 3 ranks sharing cuda:0, an f64 and an f32 variant; the split runs'
# final VTU files compared byte for byte with the one-process run's (the same writer: equal bytes are equal
# states), and their reports' steps, density range and divergence samples.
# usage: DG=path/to/dg-with-mpi OUT=dir bash scripts/probe/fv_ranks_cuda.sh
set -u
DG=${DG:?}; R=$OUT/r; mkdir -p "$R"; cd "$R" || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPI="mpirun --oversubscribe --bind-to none --mca pml ob1 --mca btl self,vader"
nvidia-smi -L; date -u +%FT%TZ | tee date
for V in fv/tiled/twice/w64/f64 fv/naive/once/w128/f32; do
  tag=$(echo "$V" | tr / -)
  base=(run mhd-orszag-tang --nx 200 --t-end 0.2 --variant "$V" --json --out-every 0.1)
  timeout 120 "$DG" "${base[@]}" --device "${D1:-cuda:0}" --out "one-$tag.vtu" > "one-$tag.json" 2> "one-$tag.err"
  echo "$V one process rc $?: $(python3 -c "import json;d=json.load(open('one-$tag.json'));print(d['steps'],'steps',d['density_range'],d['device']['variant'])" 2>&1)"
  for n in 2 3; do
    timeout 120 $MPI -n $n "$DG" "${base[@]}" --device "${DN:-cuda}" --out "r$n-$tag.vtu" > "r$n-$tag.json" 2> "r$n-$tag.err"
    rc=$?
    same=$(python3 - "$tag" "$n" <<'PY'
import json, sys, filecmp, glob
tag, n = sys.argv[1], sys.argv[2]
a, b = json.load(open(f"one-{tag}.json")), json.load(open(f"r{n}-{tag}.json"))
keys = ["steps", "dt_range", "density_range", "mass_change", "divergence"]
diff = [k for k in keys if a[k] != b[k]]
files = sorted(glob.glob(f"one-{tag}*.vtu"))
vtu = [filecmp.cmp(f, f.replace("one-", f"r{n}-"), shallow=False) for f in files]
print(f"{len(files)} VTU files, {sum(vtu)} byte-identical; report differs in {diff or 'nothing'}; bands {b['ranks']['bands'] if 'ranks' in b else '?'}")
PY
)
    echo "$V $n ranks rc $rc: $same"; [ $rc = 0 ] || tail -3 "r$n-$tag.err"
  done
done
date -u +%FT%TZ | tee -a date
rm -f ./*.vtu
