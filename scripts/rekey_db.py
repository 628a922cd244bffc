#!/usr/bin/env python3
"""Moves tuning-database entries from the old program's code fingerprints to the new program's, per formulation.

Only after `scripts/same_kernels.sh OLD_DG NEW_DG` has shown that the two programs generate the same kernels byte
for byte (a change that moved or reformatted generator source without changing its output), or has shown which laws'
kernels differ (pass those laws, or law:precision pairs, to --skip): then a result measured on the old code describes the new code exactly.
Only entries keyed with the old program's own fingerprint move; entries of older code, and of the skipped laws, stay
where they are (stale: `dg db list` marks them "other generated code: not used"). An old entry whose key the file
already holds under the new fingerprint (tuned again with the new program) is dropped: the new measurement stays. The fingerprints are read from
`dg db list` of each program.
usage: scripts/rekey_db.py OLD_DG NEW_DG [--skip LAW[:PRECISION][,...]] FILE.json [FILE.json ...]
"""
import json
import re
import subprocess
import sys


def fingerprints(dg):
    listing = subprocess.run([dg, "db", "list"], capture_output=True, text=True, check=True).stdout
    header = listing.splitlines()[0]
    found = {(f, e): cg for f, e, cg in re.findall(r"\(([a-z-]+)\|([a-z-]+)\) cg([0-9a-f]+)", header)}
    if not found:
        sys.exit(f"{dg}: no fingerprints in `{header}`")
    return found


args = sys.argv[1:]
if len(args) < 3:
    sys.exit(__doc__)
old, new, rest = fingerprints(args[0]), fingerprints(args[1]), args[2:]
skip = set()
if rest[0] == "--skip":
    skip = set(rest[1].split(","))
    rest = rest[2:]
for path in rest:
    with open(path) as fh:
        doc = json.load(fh)
    moved, count, dropped = {}, 0, 0
    entries = doc["entries"]
    for key, entry in entries.items():
        parts = key.split("|")
        formulation = (parts[2], parts[3])
        law = parts[0].split("@")[0]
        skipped = law in skip or f"{law}:{parts[5]}" in skip
        if parts[-1] == "cg" + old.get(formulation, "-") and formulation in new and not skipped:
            parts[-1] = "cg" + new[formulation]
        new_key = "|".join(parts)
        if new_key != key:
            if new_key in entries:
                dropped += 1
                continue
            count += 1
        moved[new_key] = entry
    doc["entries"] = dict(sorted(moved.items()))
    with open(path, "w") as fh:
        json.dump(doc, fh, indent=2, ensure_ascii=False)
        fh.write("\n")
    print(f"{path}: {count} of {len(moved)} entries moved to the new fingerprints; {dropped} old entries dropped "
          "(their keys tuned again under the new fingerprint)")
