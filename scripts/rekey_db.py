#!/usr/bin/env python3
"""Moves tuning-database entries from old code fingerprints to this program's, per formulation.

Only after `scripts/same_kernels.sh OLD_DG NEW_DG` has shown that the two programs generate the same kernels byte
for byte (a change that moved or reformatted generator source without changing its output): then a result
measured on the old code describes the new code exactly. The new fingerprints are read from `dg db list`.
usage: scripts/rekey_db.py NEW_DG FILE.json [FILE.json ...]
"""
import json
import re
import subprocess
import sys

dg, files = sys.argv[1], sys.argv[2:]
listing = subprocess.run([dg, "db", "list"], capture_output=True, text=True, check=True).stdout
header = listing.splitlines()[0]
current = {(f, e): cg for f, e, cg in re.findall(r"\(([a-z-]+)\|([a-z]+)\) cg([0-9a-f]+)", header)}
if not current:
    sys.exit(f"no fingerprints in `{header}`")
for path in files:
    with open(path) as fh:
        doc = json.load(fh)
    moved = {}
    for key, entry in doc["entries"].items():
        parts = key.split("|")
        cg = current.get((parts[2], parts[3]))
        if cg is None:
            sys.exit(f"{path}: no formulation {parts[2]}|{parts[3]} in this program")
        parts[-1] = "cg" + cg
        moved["|".join(parts)] = entry
    changed = sum(1 for k in moved if k not in doc["entries"])
    doc["entries"] = dict(sorted(moved.items()))
    with open(path, "w") as fh:
        json.dump(doc, fh, indent=2)
        fh.write("\n")
    print(f"{path}: {changed} of {len(moved)} entries moved to {sorted(set(current.values()))}")
