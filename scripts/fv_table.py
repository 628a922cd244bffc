#!/usr/bin/env python3
"""The finite-volume performance table of docs/performance.md from the output of
`dg autotune <law> --formulation fv --orders 1..2 --precision both --no-early-stop --min-dofs CELLS --json`
(every candidate timed in full): per order, precision, y-sweep access and face-flux choice (twice | once) the best
time per step over the sweep widths, the bytes the step must move (each sweep and each transpose reads and writes the state once: the model of
`dg_fv::tuning::step_cost`) per second, and that rate against the device's measured copy ceiling.

usage: scripts/fv_table.py AUTOTUNE_OUTPUT NVARS COPY_CEILING_GBS
"""
import json
import sys


def main():
    text = open(sys.argv[1]).read()
    nvars, ceiling = int(sys.argv[2]), float(sys.argv[3])
    doc = json.loads(text[text.index("\n{") + 1:] if not text.startswith("{") else text)
    print("| order | precision | y-sweep | face fluxes | best variant | ms/step | GB/s | % of copy ceiling |")
    print("|---|---|---|---|---|---|---|---|")
    for key, entry in doc.items():
        parts = key.split("|")
        order, precision = int(parts[4][1:]), parts[5]
        cells = entry["dofs"]
        size = 4 if precision == "f32" else 8
        for access, faces in [(a, f) for a in ["tiled", "naive", "strided", "across"] for f in ["twice", "once"]]:
            found = [(c["median_s"], c["variant"]) for c in entry["candidates"]
                     if c["verified"] and c["median_s"] and f"/{access}/{faces}/" in c["variant"]]
            if not found:
                continue
            t, variant = min(found)
            passes = 4 if access in ("tiled", "naive") else 2
            gbs = passes * 2 * nvars * cells * size / t / 1e9
            mark = " (winner)" if variant == entry["winner"] else ""
            print(f"| {order} | {precision} | {access} | {faces} | `{variant}`{mark} | {t * 1e3:.3f} | {gbs:.0f} "
                  f"| {100 * gbs / ceiling:.1f} |")


if __name__ == "__main__":
    main()
