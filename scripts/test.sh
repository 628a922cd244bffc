#!/usr/bin/env bash
# The README's test command: every test of the workspace, then the installed binary checked.
# With Open MPI's development files present (mpicc, mpirun), dg is built with its `mpi` feature and the MPI tests run
# (`mpirun -n 2` and `-n 4 --oversubscribe`); without them dg is built without MPI and those tests say they are
# skipped, unless DG_REQUIRE_MPI=1 (as in CI), which makes a missing MPI a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
features=()
if command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1; then
    features=(--features dg/mpi)
elif [ "${DG_REQUIRE_MPI:-0}" = 1 ]; then
    echo "DG_REQUIRE_MPI=1 but Open MPI is missing (Debian: apt-get install libopenmpi-dev openmpi-bin libclang-dev)" >&2
    exit 1
else
    echo "note: Open MPI not found (mpicc, mpirun): dg is built without MPI, the MPI tests are skipped" >&2
fi
# The targets whose Cargo.toml says `test = false` (no unit-test harness: it would compile the crate a second time)
# must have no unit tests: one added there would never run.
for src in src dg-run/src laws/src dg-macros/src examples/custom-law/src; do
    if grep -rlE '#\[(cfg\(test\)|test)\]' "$src" --include=*.rs; then
        echo "unit tests in $src, whose Cargo.toml says test = false: they would not run (set it to true)" >&2
        exit 1
    fi
done
# The `ci` profile is the release profile without its cross-unit LTO pass (Cargo.toml): the same code, optimised the
# same way within each codegen unit, built in about 60 % of the time on two cores.
cargo test --profile ci --workspace "${features[@]}"
DG_BUILT=target/ci/dg bash scripts/install_check.sh
