#!/usr/bin/env python3
"""Tables, model and plot of issue 16's scaling runs (the JSON reports `scripts/gpu_mpi_scaling.sh scaling` leaves).

usage: python3 scripts/mpi_scaling_table.py DIR [PLOT.svg]

Prints markdown: the weak- and strong-scaling efficiencies of every exchange × schedule (per right-hand side, the
slowest rank's time from each run's own trials) and of the whole time loop, the measured exchange costs, and the
model of larger runs; writes the efficiency plot as SVG. Nothing is typed in: every figure comes from DIR's reports
or from the model's stated assumptions below.
"""
import json
import math
import glob
import os
import sys

# Links the model assumes beyond one node (not measured here: the device machine is one host). A typical H100
# node has one 400 Gb/s InfiniBand port per GPU (50 GB/s); half of it is taken as what a halo exchange reaches.
NETWORK_BANDWIDTH = 25e9  # bytes/s per GPU
NETWORK_LATENCY = 10e-6  # s per exchange
GPUS_PER_NODE = 8
# Steps between the ranks' agreement on the state check (dg-run's CHECK_EVERY), and stages per LSRK45 step.
CHECK_EVERY, STAGES = 8, 5
REDUCTION_LATENCY = 5e-6  # s per level of an allreduce tree


def load(directory, name):
    path = os.path.join(directory, name + ".json")
    return json.load(open(path)) if os.path.exists(path) else None


def trials(report):
    return {(t["exchange"], t["schedule"]): t["seconds_per_rhs"] for t in report["device"]["schedule"]["trials"]}


def loop_per_rhs(report):
    # the hexahedral reports give steps, not right-hand sides: LSRK45 takes five per step
    evaluations = report.get("rhs_evaluations") or report["steps"] * {"lsrk45": 5}[report["scheme"]]
    return report["wall_seconds"] / evaluations


def ranks(report):
    return len(report["ranks"])


def dofs(report):
    """Degrees of freedom: the nodal-triangle reports give them; the hexahedral ones give nodes (6 fields each)."""
    return report["dofs"] if "dofs" in report else report["nodes"] * 6


def per_gpu(report):
    """DOF per GPU, to compare weak-scaling runs whose meshes split into slightly different sizes (cubes of cells)."""
    return dofs(report) / ranks(report)


def problem(report):
    """`Maxwell TM N = 4` or `Maxwell 3D on hexahedra D = 3`."""
    if report.get("law") == "maxwell3d":
        return f"Maxwell 3D on hexahedra D = {report['order']}"
    return f"Maxwell TM N = {report['order']}"


def fit_link(points):
    """alpha + bytes/beta through the exchange times of the runs (least squares on two or more points). Where the
    messages are too alike for a latency (the fit's alpha comes out negative), the line is taken through the origin:
    alpha = 0, beta the least-squares bandwidth."""
    n = len(points)
    mx = sum(b for b, _ in points) / n
    my = sum(t for _, t in points) / n
    sxx = sum((b - mx) ** 2 for b, _ in points)
    slope = sum((b - mx) * (t - my) for b, t in points) / sxx if sxx > 0 else float("nan")
    alpha = my - slope * mx
    if not slope > 0 or alpha < 0:
        slope = sum(b * t for b, t in points) / sum(b * b for b, _ in points)
        alpha = 0.0
    return alpha, 1.0 / slope if slope > 0 else float("inf")


def main():
    directory = sys.argv[1]
    plot = sys.argv[2] if len(sys.argv) > 2 else None
    dated = sorted(glob.glob(os.path.join(directory, "date*")))
    date = open(dated[0]).read().strip() if dated else "?"
    weak = [r for r in (load(directory, n) for n in ["weak1", "weak2", "weak4"]) if r]
    strong = [r for r in (load(directory, n) for n in ["strong1", "weak2", "strong4"]) if r]
    strong = [r for r in strong if dofs(r) == dofs(strong[0])]
    extra = [r for r in (load(directory, n) for n in ["weak4-sync-host", "weak4-async-nccl"]) if r]
    device = weak[0]["device"]["device"]
    combos = [("host-staged", "sync"), ("host-staged", "async"), ("nccl", "sync"), ("nccl", "async")]
    # the eager schedule where the runs timed it (reports before it existed have none)
    combos += [(x, "eager") for x in ["host-staged", "nccl"] if any((x, "eager") in trials(r) for r in weak)]
    base = weak[0]
    t1 = min(trials(base).values())
    print(f"Measured {date} on {device.split(' (')[0]} ×{ranks(weak[-1])}, `scripts/gpu_mpi_scaling.sh "
          f"{'hex-scaling' if base.get('law') == 'maxwell3d' else 'scaling'}`;"
          f" variant {base['device']['choice']['variant']}.\n")
    print(f"**Weak scaling**, {problem(base)}, f64, ≈ 50M DOF per GPU. Efficiency = one GPU's seconds per"
          " right-hand side per DOF ÷ P GPUs' per DOF of a GPU (slowest rank, each run's own 30-evaluation trials;"
          " the one-GPU time is its best trial):\n")
    print("| GPUs | DOF | " + " | ".join(f"{x} {s}" for x, s in combos) + " | loop (chosen) |")
    print("|---|---|" + "---|" * (len(combos) + 1))
    def eff(r, t):
        return t1 / t * per_gpu(r) / per_gpu(base)
    for r in weak:
        t = trials(r)
        cells = [f"{t[c] * 1e3:.4f} ms ({eff(r, t[c]) * 100:.1f}%)" if c in t else "—" for c in combos]
        s = r["device"]["schedule"]
        loop = f"{loop_per_rhs(r) * 1e3:.3f} ms/RHS ({eff(r, loop_per_rhs(r)) * loop_per_rhs(base) / t1 * 100:.1f}%, {s['exchange']} {s['chosen']})"
        print(f"| {ranks(r)} | {dofs(r) / 1e6:.1f}M | " + " | ".join(cells) + f" | {loop} |")
    for r in extra:
        s = r["device"]["schedule"]
        print(f"| {ranks(r)}, whole loop given {s['exchange']} {s['chosen']} | {dofs(r) / 1e6:.1f}M | "
              + " | ".join("" for _ in combos)
              + f" | {loop_per_rhs(r) * 1e3:.3f} ms/RHS ({eff(r, loop_per_rhs(r)) * loop_per_rhs(base) / t1 * 100:.1f}%) |")
    print("\n**Strong scaling**, the same problem of "
          f"{dofs(strong[0]) / 1e6:.1f}M DOF on {', '.join(str(ranks(r)) for r in strong)} GPUs (speed-up and efficiency per right-hand side, best"
          " combination; whole loop):\n")
    print("| GPUs | best per RHS | speed-up | efficiency | loop per RHS | loop speed-up |")
    print("|---|---|---|---|---|---|")
    s1 = min(trials(strong[0]).values())
    for r in strong:
        t = trials(r)
        best = min(t, key=t.get)
        p = ranks(r)
        sp = s1 / t[best]
        lsp = loop_per_rhs(strong[0]) / loop_per_rhs(r)
        print(f"| {p} | {t[best] * 1e3:.4f} ms ({best[0]} {best[1]}) | {sp:.2f}× | {sp / p * 100:.1f}% |"
              f" {loop_per_rhs(r) * 1e3:.3f} ms | {lsp:.2f}× |")
    # the exchanges alone and the model
    print("\n**Exchange alone** (pack, transfer, unpack; the busiest rank's message; seconds the slowest rank took):\n")
    print("| GPUs | values sent | bytes | host-staged | nccl | compute, all own elements | compute, overlapped |")
    print("|---|---|---|---|---|---|---|")
    points = {"host-staged": [], "nccl": []}
    for r in weak[1:] + extra + strong[2:]:
        s = r["device"]["schedule"]
        values, real = s["halo_values"]
        x = dict((e, t) for e, t in s["exchange_seconds"])
        for e in points:
            if e in x:
                points[e].append((values * real, x[e]))
        cells = [f"{x[e] * 1e6:.1f} µs" if e in x else "—" for e in ["host-staged", "nccl"]]
        print(f"| {ranks(r)} ({dofs(r) / 1e6:.0f}M DOF) | {values} | {values * real / 1e3:.0f} kB | "
              + " | ".join(cells)
              + f" | {s['compute_seconds'][0] * 1e3:.4f} ms | {s['compute_seconds'][1] * 1e3:.4f} ms |")
    links = {e: fit_link(p) for e, p in points.items() if len(p) >= 2}
    if len(weak) < 3:
        print("\n(The model of larger runs needs the 4-GPU runs: not printed.)")
        return
    print("\nFitted (α + bytes/β over the rows above): "
          + "; ".join(f"{e}: α = {a * 1e6:.1f} µs, β = {b / 1e9:.2f} GB/s" for e, (a, b) in links.items()) + ".")
    # model inputs from the largest weak run
    big = weak[-1]
    s = big["device"]["schedule"]
    t_rank, t_inner = s["compute_seconds"]
    values4 = s["halo_values"][0]
    overlapping = [trials(big)[c] for c in [("nccl", "async"), ("nccl", "eager")] if c in trials(big)]
    t_async = min(overlapping) if overlapping else min(trials(big).values())
    overhead = max(t_async - t_rank, 0.0)
    hexahedra = base.get("law") == "maxwell3d"
    if hexahedra:
        # a rank inside a large box of cells owns a cube of them, n per GPU, with 6·n^(2/3) cells across its faces;
        # each travels as the busiest 4-GPU rank's halo cells did on average
        busiest = max(big["ranks"], key=lambda r: r["values_sent"])
        per_cell = values4 / busiest["halo_elements"]
        n = big["elements"] / ranks(big)
        interior_values = round(per_cell * 6 * n ** (2 / 3))
        shape = (f"a cube of {n:,.0f} cells with 6·n^(2/3) = {6 * n ** (2 / 3):,.0f} cells across its faces, each"
                 f" {per_cell:.0f} values as the busiest 4-GPU rank's {busiest['halo_elements']} halo cells took on"
                 " average")
    else:
        # a rank far from the boundary of a square mesh has four sides of faces to others; the busiest 4-GPU rank
        # (a quadrant) has two: its message, doubled, with the partitioner's shape as measured
        interior_values = 2 * values4
        shape = "twice the 4-GPU quadrant's, whose two other sides are the domain's boundary"
    print(f"\n**Model of larger runs** (weak, 50M DOF per GPU): the one-GPU time t₁ = {t1 * 1e3:.4f} ms, a rank's"
          f" compute t_c = {t_rank * 1e3:.4f} ms (all own elements; the partition's cost), of which"
          f" t_i = {t_inner * 1e3:.4f} ms overlaps the exchange; the asynchronous schedule's measured cost beyond"
          f" t_c at 4 GPUs o = {overhead * 1e6:.1f} µs (the halo-adjacent elements' launch after the traces arrive, the"
          f" packing and NCCL's kernels beside the interior's). A rank inside a larger mesh sends {interior_values} values"
          f" ({interior_values * 8 / 1e3:.0f} kB; {shape}) to its neighbours. Exchange t_x = α + bytes/β: within a node the fitted NCCL link;"
          f" across nodes ({GPUS_PER_NODE} GPUs each) α = {NETWORK_LATENCY * 1e6:.0f} µs, β ="
          f" {NETWORK_BANDWIDTH / 1e9:.0f} GB/s per GPU (assumed, not measured: one host here). Synchronous:"
          f" t = t_c + t_x; asynchronous: t = max(t_i, t_x) + (t_c − t_i) + o. Every {CHECK_EVERY} steps an"
          f" allreduce of log₂P levels ({REDUCTION_LATENCY * 1e6:.0f} µs each) is spread over"
          f" {CHECK_EVERY * STAGES} right-hand sides.\n")
    print("| GPUs | exchange | t_x | synchronous | asynchronous |")
    print("|---|---|---|---|---|")
    rows = []
    alpha_n, beta_n = links.get("nccl", (float("nan"), float("nan")))
    alpha_h, beta_h = links.get("host-staged", (float("nan"), float("nan")))
    for p in [8, 64, 512]:
        bytes_ = interior_values * 8
        for name, (alpha, beta) in [
            ("nccl in a node" if p <= GPUS_PER_NODE else "network", (alpha_n, beta_n) if p <= GPUS_PER_NODE else (NETWORK_LATENCY, NETWORK_BANDWIDTH)),
            ("host-staged", (alpha_h, beta_h)),
        ]:
            t_x = alpha + bytes_ / beta
            reduction = math.log2(p) * REDUCTION_LATENCY / (CHECK_EVERY * STAGES)
            sync = t_rank + t_x + reduction
            asyn = max(t_inner, t_x) + (t_rank - t_inner) + overhead + reduction
            rows.append((p, name, t1 / sync, t1 / asyn))
            print(f"| {p} | {name} | {t_x * 1e6:.1f} µs | {t1 / sync * 100:.1f}% | {t1 / asyn * 100:.1f}% |")
    if plot:
        write_plot(plot, weak, base, t1, rows, combos)
        print(f"\n(plot: {plot})")


def write_plot(path, weak, base, t1, rows, combos):
    """Weak-scaling efficiency against GPUs (log₂), measured and modelled, as a small SVG."""
    w, h, left, bottom, top, right = 640, 360, 60, 40, 20, 170
    xs = [1, 2, 4, 8, 64, 512]
    def eff(r, c):
        return t1 / trials(r)[c] * per_gpu(r) / per_gpu(base)
    lowest = min([eff(r, c) for r in weak for c in combos if c in trials(r)] + [v for row in rows if row[1] != "host-staged" for v in row[2:]])
    floor = 0.5 if lowest >= 0.5 else 0.0
    def x(p):
        return left + (w - left - right) * math.log2(p) / math.log2(512)
    def y(e):
        return top + (h - top - bottom) * (1 - (e - floor) / (1 - floor))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="11">',
           f'<rect width="{w}" height="{h}" fill="white"/>']
    for e in [floor + (1 - floor) * i / 5 for i in range(6)]:
        out.append(f'<line x1="{left}" y1="{y(e):.1f}" x2="{w - right}" y2="{y(e):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{y(e) + 4:.1f}" text-anchor="end">{e * 100:.0f}%</text>')
    for p in xs:
        out.append(f'<text x="{x(p):.1f}" y="{h - bottom + 16}" text-anchor="middle">{p}</text>')
    out.append(f'<text x="{(left + w - right) / 2}" y="{h - 6}" text-anchor="middle">GPUs (weak scaling, 50M DOF each)</text>')
    colours = {("host-staged", "sync"): "#d62728", ("host-staged", "async"): "#ff7f0e", ("nccl", "sync"): "#1f77b4", ("nccl", "async"): "#2ca02c",
               ("host-staged", "eager"): "#8c564b", ("nccl", "eager"): "#9467bd"}
    legend = 0
    for c in combos:
        pts = [(ranks(r), eff(r, c)) for r in weak if c in trials(r)]
        if len(pts) < 2:
            continue
        poly = " ".join(f"{x(p):.1f},{y(e):.1f}" for p, e in pts)
        out.append(f'<polyline points="{poly}" fill="none" stroke="{colours[c]}" stroke-width="2"/>')
        out += [f'<circle cx="{x(p):.1f}" cy="{y(e):.1f}" r="3" fill="{colours[c]}"/>' for p, e in pts]
        out.append(f'<text x="{w - right + 10}" y="{top + 14 * legend + 4}" fill="{colours[c]}">{c[0]} {c[1]} (measured)</text>')
        legend += 1
    for kind, idx, colour in [("sync", 2, "#1f77b4"), ("async", 3, "#2ca02c")]:
        pts = [(p, r[idx]) for r in rows for p in [r[0]] if r[1] != "host-staged"]
        last = (4, eff(weak[-1], ("nccl", kind))) if ("nccl", kind) in trials(weak[-1]) else None
        if last:
            pts = [last] + pts
        poly = " ".join(f"{x(p):.1f},{y(e):.1f}" for p, e in pts)
        out.append(f'<polyline points="{poly}" fill="none" stroke="{colour}" stroke-width="2" stroke-dasharray="5,4"/>')
        out.append(f'<text x="{w - right + 10}" y="{top + 14 * legend + 4}" fill="{colour}">nccl/network {kind} (model)</text>')
        legend += 1
    out.append("</svg>")
    open(path, "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
