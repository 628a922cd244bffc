#!/usr/bin/env python3
"""The best GEMM candidate against the best other one, per nodal-triangle entry of a tuning-database file (each
candidate's median, ms per right-hand side), from the candidate lists the tuner stored.
usage: scripts/probe/gemm_against_rest.py FILE.json [FILE.json ...]"""
import json
import sys

if len(sys.argv) < 2:
    sys.exit(__doc__)
rows = []
for key, entry in (kv for path in sys.argv[1:] for kv in json.load(open(path))["entries"].items()):
    if "nodal-strong|tri" not in key:
        continue
    parts = key.split("|")
    timed = [c for c in entry["candidates"] if c["verified"] and c["median_s"]]
    gemm = [c for c in timed if c["variant"].startswith("gemm/")]
    other = [c for c in timed if not c["variant"].startswith("gemm/")]
    if not gemm or not other:
        continue
    g, o = (min(cs, key=lambda c: c["median_s"]) for cs in (gemm, other))
    rows.append((int(parts[4][1:]), parts[5], g, o))
for n, precision, g, o in sorted(rows):
    print(f"N={n} {precision}: best gemm {g['median_s'] * 1e3:.4f} ms {g['variant']}  best other "
          f"{o['median_s'] * 1e3:.4f} ms {o['variant']}  ratio {g['median_s'] / o['median_s']:.2f}")
