#!/usr/bin/env bash
# The release binary installed alone into a temporary root (what `cargo install --path .` puts there; copied from
# the build the test command just made: `cargo install` resolves features without the workspace's dev-dependencies
# and rebuilt half of dg, three minutes of CI), then run from another directory, must list the shipped H100
# winners: the shipped tuning database is compiled into the binary, not looked up in the source tree.
# INSTALL_CHECK_CARGO_INSTALL=1 runs `cargo install` itself; DG_BUILT names the built binary (default
# target/release/dg; `scripts/test.sh` passes its `ci` profile's).
set -euo pipefail
cd "$(dirname "$0")/.."
built="${DG_BUILT:-target/release/dg}"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
if [ "${INSTALL_CHECK_CARGO_INSTALL:-0}" = 1 ] || [ ! -x "$built" ]; then
    cargo install --quiet --locked --path . --root "$root" --target-dir target
else
    mkdir -p "$root/bin" && cp "$built" "$root/bin/dg"
fi
cd "$root"
listing=$(env -u DG_CACHE_DIR XDG_CACHE_HOME="$root/cache" "$root/bin/dg" db list)
file="shipped:cuda-nvidia-h100-80gb-hbm3-sm-90.json (NVIDIA H100 80GB HBM3"
if ! grep -qF "$file" <<<"$listing"; then
    echo "install check: the installed dg does not list the shipped H100 file:" >&2
    echo "$listing" >&2
    exit 1
fi
winners=$(grep -c "^  [a-z0-9_]*@.*|cg" <<<"$listing" || true)
if [ "$winners" -lt 1 ]; then
    echo "install check: the shipped H100 file lists no winner" >&2
    exit 1
fi
echo "install check: the installed dg, run from $root, lists $winners shipped winners"
echo "install_check: 1 passed, 0 failed"
