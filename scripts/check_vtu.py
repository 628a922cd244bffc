#!/usr/bin/env python3
"""Reads dg's VTU output with meshio (a reader dg does not share code with) and checks it.

    check_vtu.py FILE.vtu|FILE.pvd --case CASE --order N --tol TOL [--time T] [--min-files M]

For every file (a .pvd lists files with their times): the cells are VTK Lagrange triangles (69), tetrahedra
(71) or hexahedra (72) with the point count of order N; every cell's points follow VTK's Lagrange ordering
(vertices, then each edge's points from its first vertex to its second at equal spacing, face points on their
face, interior points inside; a hexahedron's face and interior points at the trilinear image of their lattice
point, in the order VTK's documentation gives); points are shared (no two at the same place); and the point values match the case's exact solution
at the file's time within TOL (case `none`: finite values only). Exits non-zero, naming the first failure.

Finite-volume files (the MHD cases, --order 1 or 2 is not read) hold VTK_QUAD (9) cells of a regular grid with one
value per cell: each cell must be an axis-aligned rectangle with counter-clockwise corners, the cells must tile the
case's domain, and the cell fields must be finite; at t = 0 every conserved variable must equal the case's initial
state at the cell centre within TOL, and at every time the total mass (density times cell area, summed) must be the
initial one within a relative 1e-12 (Orszag–Tang is periodic; Brio–Wu's waves do not reach its ends by t = 0.1), and
for Brio–Wu Bx must stay 0.75 and ψ 0 (a uniform normal field is a steady state of the GLM system).
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


def cavity3d(x, t):
    """maxwell3d-cavity, mode (1, 1, 1) with E0 = (cos sin sin, -sin cos sin, 0): (ex, ey, ez, hx, hy, hz)."""
    w = math.sqrt(3.0) * PI
    c, s = np.cos(PI * x), np.sin(PI * x)
    curl = [PI * s[:, 0] * c[:, 1] * c[:, 2], PI * c[:, 0] * s[:, 1] * c[:, 2], -2.0 * PI * c[:, 0] * c[:, 1] * s[:, 2]]
    return {
        "ex": c[:, 0] * s[:, 1] * s[:, 2] * math.cos(w * t),
        "ey": -s[:, 0] * c[:, 1] * s[:, 2] * math.cos(w * t),
        "ez": 0.0 * x[:, 0],
        "hx": -curl[0] * math.sin(w * t) / w,
        "hy": -curl[1] * math.sin(w * t) / w,
        "hz": -curl[2] * math.sin(w * t) / w,
    }


def isentropic_vortex(x, t):
    """euler-isentropic-vortex on the periodic square [0, 20]²: the density."""
    beta, gamma, side = 5.0, 1.4, 20.0
    dx = np.mod(x[:, 0] - t, side) - 0.5 * side
    dy = np.mod(x[:, 1] - t, side) - 0.5 * side
    e = np.exp(1.0 - dx * dx - dy * dy)
    temperature = 1.0 - (gamma - 1.0) * beta * beta / (8.0 * gamma * PI * PI) * e
    return {"rho": temperature ** (1.0 / (gamma - 1.0))}


def helmholtz_square(x, t):
    """helmholtz-square: u = sin 2πx sin 2πy (steady)."""
    return {"u": np.sin(2.0 * PI * x[:, 0]) * np.sin(2.0 * PI * x[:, 1])}


def conserved(gamma, rho, u, p, b):
    """Conserved MHD variables (rho, mx, my, mz, e, bx, by, bz, psi) from primitive ones, each an array."""
    kinetic = 0.5 * rho * (u[0] ** 2 + u[1] ** 2 + u[2] ** 2)
    magnetic = 0.5 * (b[0] ** 2 + b[1] ** 2 + b[2] ** 2)
    zero = 0.0 * rho
    return {
        "rho": rho,
        "mx": rho * u[0],
        "my": rho * u[1],
        "mz": rho * u[2],
        "e": p / (gamma - 1.0) + kinetic + magnetic,
        "bx": b[0] + zero,
        "by": b[1] + zero,
        "bz": b[2] + zero,
        "psi": zero,
    }


def orszag_tang(c):
    """mhd-orszag-tang at t = 0 at cell centres c (γ = 5/3, ρ = 25/(36π), p = 5/(12π), u = (−sin 2πy, sin 2πx),
    B = (−sin 2πy, sin 4πx)/√(4π))."""
    b0 = 1.0 / math.sqrt(4.0 * PI)
    sx, sy = np.sin(2.0 * PI * c[:, 0]), np.sin(2.0 * PI * c[:, 1])
    rho = np.full(len(c), 25.0 / (36.0 * PI))
    zero = 0.0 * rho
    return conserved(5.0 / 3.0, rho, [-sy, sx, zero], 5.0 / (12.0 * PI), [-b0 * sy, b0 * np.sin(4.0 * PI * c[:, 0]), zero])


def brio_wu(c):
    """mhd-brio-wu at t = 0 (γ = 2, Bx = 0.75; x < 0.5: ρ = 1, p = 1, By = 1; else ρ = 0.125, p = 0.1, By = −1)."""
    left = c[:, 0] < 0.5
    rho, p, by = np.where(left, 1.0, 0.125), np.where(left, 1.0, 0.1), np.where(left, 1.0, -1.0)
    zero = 0.0 * rho
    return conserved(2.0, rho, [zero, zero, zero], p, [0.75 + zero, by, zero])


# finite-volume cases: their initial state at cell centres
FV_CASES = {"mhd-orszag-tang": orszag_tang, "mhd-brio-wu": brio_wu}

CASES = {
    "euler-isentropic-vortex": isentropic_vortex,
    "helmholtz-square": helmholtz_square,
    "mhd-orszag-tang": None,
    "mhd-brio-wu": None,
    "maxwell-cavity": cavity,
    "acoustic-cube": acoustic_cube,
    "maxwell3d-cavity": cavity3d,
    "none": None,
}
HEXAHEDRON_CORNERS = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]
HEXAHEDRON_EDGES = [(0, 1), (1, 2), (3, 2), (0, 3), (4, 5), (5, 6), (7, 6), (4, 7), (0, 4), (1, 5), (2, 6), (3, 7)]
TRIANGLE_EDGES = [(0, 1), (1, 2), (2, 0)]
TETRAHEDRON_EDGES = [(0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (2, 3)]
TETRAHEDRON_FACES = [(0, 1, 3), (1, 2, 3), (2, 0, 3), (0, 2, 1)]


def fail(message):
    print(f"check_vtu: {message}", file=sys.stderr)
    sys.exit(1)


def hexahedron_lattice(n):
    """(i, j, k) of each point after the corners and edges: faces i = 0, i = n (j fastest, then k), j = 0, j = n
    (i, then k), k = 0, k = n (i, then j), then the interior (i, then j, then k)."""
    inner = range(1, n)
    lattice = []
    for side in (0, n):
        lattice += [(side, j, k) for k in inner for j in inner]
    for side in (0, n):
        lattice += [(i, side, k) for k in inner for i in inner]
    for side in (0, n):
        lattice += [(i, j, side) for j in inner for i in inner]
    lattice += [(i, j, k) for k in inner for j in inner for i in inner]
    return lattice


def trilinear(p, xi):
    weights = [np.prod([xi[d] if c[d] else 1.0 - xi[d] for d in range(3)]) for c in HEXAHEDRON_CORNERS]
    return sum(w * p[v] for v, w in enumerate(weights))


def check_cells(points, cells, order, kind):
    n = order
    if kind == "hexahedron":
        if cells.shape[1] != (n + 1) ** 3:
            fail(f"{cells.shape[1]} points per cell, order {n} needs {(n + 1) ** 3}")
        scale = np.max(np.ptp(points, axis=0))
        lattice = hexahedron_lattice(n)
        for c, cell in enumerate(cells):
            p = points[cell]
            at = 8
            for a, b in HEXAHEDRON_EDGES:
                for i in range(n - 1):
                    if np.linalg.norm(p[at] - (p[a] + (i + 1) / n * (p[b] - p[a]))) > 1e-9 * scale:
                        fail(f"cell {c}: point {at} is not point {i + 1} of edge {a}-{b}")
                    at += 1
            for ijk in lattice:
                if np.linalg.norm(p[at] - trilinear(p, [v / n for v in ijk])) > 1e-9 * scale:
                    fail(f"cell {c}: point {at} is not the lattice point {ijk}")
                at += 1
        return
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


def check_grid_file(path, mesh, case, tol, t):
    """A finite-volume file: quads tiling the domain, finite cell fields, the initial state, conserved mass."""
    cells = mesh.cells[0].data
    p = mesh.points[cells]  # cells × 4 corners × 3
    lower, upper = p[:, 0, :2], p[:, 2, :2]
    if not (np.all(p[:, 1, 1] == p[:, 0, 1]) and np.all(p[:, 1, 0] == p[:, 2, 0]) and np.all(p[:, 3, 0] == p[:, 0, 0])
            and np.all(p[:, 3, 1] == p[:, 2, 1]) and np.all(upper > lower)):
        fail(f"{path}: a cell is not an axis-aligned rectangle with counter-clockwise corners")
    area = np.prod(upper - lower, axis=1)
    box_lower, box_upper = mesh.points[:, :2].min(axis=0), mesh.points[:, :2].max(axis=0)
    if abs(area.sum() - np.prod(box_upper - box_lower)) > 1e-12 * np.prod(box_upper - box_lower):
        fail(f"{path}: the cells' areas sum to {area.sum()}, the domain's is {np.prod(box_upper - box_lower)}")
    if case == "mhd-orszag-tang" and not (np.allclose(box_lower, 0.0) and np.allclose(box_upper, 1.0)):
        fail(f"{path}: the domain is {box_lower}..{box_upper}, not the unit square")
    if case == "mhd-brio-wu" and not (np.allclose(box_lower, 0.0) and np.isclose(box_upper[0], 1.0)):
        fail(f"{path}: the domain is {box_lower}..{box_upper}, not [0, 1] along x")
    for name, data in mesh.cell_data.items():
        if not np.all(np.isfinite(np.asarray(data[0]))):
            fail(f"{path}: field {name} holds values that are not finite")
    centres = 0.5 * (lower + upper)
    initial = FV_CASES[case](centres)
    for name in initial:
        if name not in mesh.cell_data:
            fail(f"{path}: no cell field {name} (has {sorted(mesh.cell_data)})")
    value = {name: np.asarray(mesh.cell_data[name][0]) for name in initial}
    worst = 0.0
    if t == 0.0:
        worst = max(float(np.max(np.abs(value[n] - initial[n]))) for n in initial)
        if not worst <= tol:
            fail(f"{path} (t = 0): largest difference from the initial state {worst:.3e} > {tol:.3e}")
    mass, mass0 = float(np.sum(value["rho"] * area)), float(np.sum(initial["rho"] * area))
    if not abs(mass - mass0) <= 1e-12 * abs(mass0):
        fail(f"{path} (t = {t}): total mass {mass!r}, initially {mass0!r}")
    if case == "mhd-brio-wu":
        drift = max(float(np.max(np.abs(value["bx"] - 0.75))), float(np.max(np.abs(value["psi"]))))
        if not drift <= 1e-12:
            fail(f"{path} (t = {t}): Bx or ψ moved from 0.75 and 0 by {drift:.3e}")
    initially = f", largest difference from the initial state {worst:.3e}" if t == 0.0 else ""
    print(f"{path}: t = {t:.6g}, {len(cells)} cells, mass {mass:.15g}{initially}")


def check_file(path, case, order, tol, t):
    mesh = meshio.read(path)
    blocks = {block.type: block.data for block in mesh.cells}
    if case in FV_CASES:
        if set(blocks) != {"quad"}:
            fail(f"{path}: cell types {sorted(blocks)}, expected VTK_QUAD only")
        check_grid_file(path, mesh, case, tol, t)
        return
    if set(blocks) == {"VTK_LAGRANGE_TRIANGLE"}:
        kind, cells = "triangle", blocks["VTK_LAGRANGE_TRIANGLE"]
    elif set(blocks) == {"VTK_LAGRANGE_TETRAHEDRON"}:
        kind, cells = "tetrahedron", blocks["VTK_LAGRANGE_TETRAHEDRON"]
    elif set(blocks) == {"VTK_LAGRANGE_HEXAHEDRON"}:
        kind, cells = "hexahedron", blocks["VTK_LAGRANGE_HEXAHEDRON"]
    else:
        fail(f"{path}: cell types {sorted(blocks)}, expected one Lagrange cell type")
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
