#!/usr/bin/env python3
"""Reads dg's VTU output with meshio (a reader dg does not share code with) and checks it.

    check_vtu.py FILE.vtu|FILE.pvd --case CASE --order N --tol TOL [--time T] [--min-files M]

For every file (a .pvd lists files with their times): the cells are VTK Lagrange triangles (69) or tetrahedra
(71) with the point count of order N; every cell's points follow VTK's Lagrange ordering (vertices, then each
edge's points from its first vertex to its second at equal spacing, face points on their face, interior points
inside); points are shared (no two at the same place); and the point values match the case's exact solution
at the file's time within TOL (case `none`: finite values only). Exits non-zero, naming the first failure.
"""

import argparse
import math
import os
import sys
import xml.etree.ElementTree as ET

import meshio
import numpy as np

PI = math.pi


def cavity(x, t):
    """maxwell-cavity, mode (1, 1): (Hx, Hy, Ez)."""
    w = PI * math.sqrt(2.0)
    sx, cx = np.sin(PI * x[:, 0]), np.cos(PI * x[:, 0])
    sy, cy = np.sin(PI * x[:, 1]), np.cos(PI * x[:, 1])
    return {
        "hx": -(PI / w) * sx * cy * math.sin(w * t),
        "hy": (PI / w) * cx * sy * math.sin(w * t),
        "ez": sx * sy * math.cos(w * t),
    }


def acoustic_cube(x, t):
    """acoustic-cube: (p, vx, vy, vz)."""
    w = math.sqrt(3.0) * PI
    c, s = np.cos(PI * x), np.sin(PI * x)
    amp = PI / w * math.sin(w * t)
    return {
        "p": c[:, 0] * c[:, 1] * c[:, 2] * math.cos(w * t),
        "vx": amp * s[:, 0] * c[:, 1] * c[:, 2],
        "vy": amp * c[:, 0] * s[:, 1] * c[:, 2],
        "vz": amp * c[:, 0] * c[:, 1] * s[:, 2],
    }


def isentropic_vortex(x, t):
    """euler-isentropic-vortex on the periodic square [0, 20]²: the density."""
    beta, gamma, side = 5.0, 1.4, 20.0
    dx = np.mod(x[:, 0] - t, side) - 0.5 * side
    dy = np.mod(x[:, 1] - t, side) - 0.5 * side
    e = np.exp(1.0 - dx * dx - dy * dy)
    temperature = 1.0 - (gamma - 1.0) * beta * beta / (8.0 * gamma * PI * PI) * e
    return {"rho": temperature ** (1.0 / (gamma - 1.0))}


CASES = {"euler-isentropic-vortex": isentropic_vortex, "maxwell-cavity": cavity, "acoustic-cube": acoustic_cube, "none": None}
TRIANGLE_EDGES = [(0, 1), (1, 2), (2, 0)]
TETRAHEDRON_EDGES = [(0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (2, 3)]
TETRAHEDRON_FACES = [(0, 1, 3), (1, 2, 3), (2, 0, 3), (0, 2, 1)]


def fail(message):
    print(f"check_vtu: {message}", file=sys.stderr)
    sys.exit(1)


def check_cells(points, cells, order, kind):
    n = order
    vertices = 3 if kind == "triangle" else 4
    edges = TRIANGLE_EDGES if kind == "triangle" else TETRAHEDRON_EDGES
    expected = (n + 1) * (n + 2) // 2 if kind == "triangle" else (n + 1) * (n + 2) * (n + 3) // 6
    if cells.shape[1] != expected:
        fail(f"{cells.shape[1]} points per cell, order {n} needs {expected}")
    scale = np.max(np.ptp(points, axis=0))
    for c, cell in enumerate(cells):
        p = points[cell]
        at = vertices
        for a, b in edges:
            for i in range(n - 1):
                want = p[a] + (i + 1) / n * (p[b] - p[a])
                if np.linalg.norm(p[at] - want) > 1e-9 * scale:
                    fail(f"cell {c}: point {at} is not point {i + 1} of edge {a}-{b}")
                at += 1
        if kind == "tetrahedron":
            per_face = (n - 1) * (n - 2) // 2
            for f, (a, b, d) in enumerate(TETRAHEDRON_FACES):
                normal = np.cross(p[b] - p[a], p[d] - p[a])
                for _ in range(per_face):
                    if abs(np.dot(p[at] - p[a], normal)) > 1e-9 * scale**3:
                        fail(f"cell {c}: point {at} is not on face {f} ({a}, {b}, {d})")
                    at += 1


def check_file(path, case, order, tol, t):
    mesh = meshio.read(path)
    blocks = {block.type: block.data for block in mesh.cells}
    if set(blocks) == {"VTK_LAGRANGE_TRIANGLE"}:
        kind, cells = "triangle", blocks["VTK_LAGRANGE_TRIANGLE"]
    elif set(blocks) == {"VTK_LAGRANGE_TETRAHEDRON"}:
        kind, cells = "tetrahedron", blocks["VTK_LAGRANGE_TETRAHEDRON"]
    else:
        fail(f"{path}: cell types {sorted(blocks)}, expected one Lagrange simplex type")
    check_cells(mesh.points, cells, order, kind)
    if len(np.unique(cells)) != len(mesh.points):
        fail(f"{path}: {len(mesh.points)} points, {len(np.unique(cells))} used by cells")
    rounded = np.round(mesh.points, 12)
    if len(np.unique(rounded, axis=0)) != len(mesh.points):
        fail(f"{path}: points are duplicated, not shared between cells")
    if CASES[case] is None:
        for name, data in mesh.point_data.items():
            if not np.all(np.isfinite(np.asarray(data))):
                fail(f"{path}: field {name} holds values that are not finite")
        print(f"{path}: {len(cells)} {kind}s of order {order}, {len(mesh.points)} points, fields {sorted(mesh.point_data)}")
        return
    exact = CASES[case](mesh.points, t)
    worst = 0.0
    for name, values in exact.items():
        if name not in mesh.point_data:
            fail(f"{path}: no point field {name} (has {sorted(mesh.point_data)})")
        data = np.asarray(mesh.point_data[name])
        if not np.all(np.isfinite(data)):
            fail(f"{path}: field {name} holds values that are not finite")
        worst = max(worst, float(np.max(np.abs(data - values))))
    if not worst <= tol:
        fail(f"{path} (t = {t}): largest difference from the exact solution {worst:.3e} > {tol:.3e}")
    print(f"{path}: t = {t:.6g}, {len(cells)} {kind}s of order {order}, {len(mesh.points)} points, max error {worst:.3e}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file")
    parser.add_argument("--case", required=True, choices=sorted(CASES))
    parser.add_argument("--order", type=int, required=True)
    parser.add_argument("--tol", type=float, required=True)
    parser.add_argument("--time", type=float, help="the time of a single .vtu file")
    parser.add_argument("--min-files", type=int, default=1, help="the least number of files a .pvd must list")
    args = parser.parse_args()
    if args.file.endswith(".pvd"):
        root = ET.parse(args.file).getroot()
        sets = root.findall("./Collection/DataSet")
        if len(sets) < args.min_files:
            fail(f"{args.file} lists {len(sets)} files, expected at least {args.min_files}")
        times = [float(s.get("timestep")) for s in sets]
        if times != sorted(times) or len(set(times)) != len(times):
            fail(f"{args.file}: times {times} do not increase")
        base = os.path.dirname(args.file)
        for s, t in zip(sets, times):
            check_file(os.path.join(base, s.get("file")), args.case, args.order, args.tol, t)
    else:
        check_file(args.file, args.case, args.order, args.tol, args.time or 0.0)


if __name__ == "__main__":
    main()
