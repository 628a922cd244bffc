#!/usr/bin/env python3
"""The hexahedral performance table of docs/performance.md from the output of
`dg autotune <law> --formulation hex --orders A..B --precision both --no-early-stop --json`
(every candidate timed in full): per order and precision the winner, its time per right-hand side, GDOF/s
(nodes x variables per second), % of roofline, fused vs split, layout kvi vs vki and specialised vs generic (the
best of each), next to seed 003's Table 1.2 specialised speed-ups.

usage: scripts/hex_table.py AUTOTUNE_OUTPUT NVARS
"""
import json
import sys

SEED_003 = {0: 1.6, 1: 1.8, 2: 2.8, 3: 3.6, 4: 5.5}


def main():
    text = open(sys.argv[1]).read()
    nvars = int(sys.argv[2])
    doc = json.loads(text[text.index("\n{") + 1:] if not text.startswith("{") else text)
    print("| D | precision | winner | ms/RHS | GDOF/s | % roofline | best fused | best split | best specialised "
          "| best generic | specialised speed-up | seed 003 (order D) | best kvi | best vki |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for key, entry in doc.items():
        parts = key.split("|")
        order = int(parts[4][1:])
        precision = parts[5]
        times = {c["variant"]: c["median_s"] for c in entry["candidates"] if c["verified"] and c["median_s"]}

        def best(pred):
            ts = [t for v, t in times.items() if pred(v)]
            return min(ts) if ts else float("nan")

        fused, split = best(lambda v: "/fused/" in v), best(lambda v: "/split/" in v)
        spec, gen = best(lambda v: "/spec/" in v), best(lambda v: "/gen/" in v)
        kvi, vki = best(lambda v: "/kvi/" in v), best(lambda v: "/vki/" in v)
        gdofs = entry["dofs"] * nvars / entry["median_s"] / 1e9
        seed = SEED_003.get(order)
        print(f"| {order} | {precision} | `{entry['winner']}` | {entry['median_s'] * 1e3:.3f} | {gdofs:.0f} "
              f"| {entry['roofline_percent']:.1f} | {fused * 1e3:.3f} | {split * 1e3:.3f} | {spec * 1e3:.3f} "
              f"| {gen * 1e3:.3f} | {gen / spec:.2f}x | {f'{seed}x' if seed else '-'} | {kvi * 1e3:.3f} "
              f"| {vki * 1e3:.3f} |")


if __name__ == "__main__":
    main()
