#!/usr/bin/env bash
# `cargo install --path .` into a temporary root, reusing the build's target directory, then the installed binary,
# run from another directory, must list the shipped H100 winners: the shipped tuning database is compiled into the
# binary, not looked up in the source tree.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
cargo install --quiet --locked --path . --root "$root" --target-dir target
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
