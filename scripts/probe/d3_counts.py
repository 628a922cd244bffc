#!/usr/bin/env python3
"""Multiply-adds per element of the nodal Maxwell TM operator (mixed form: the flux-first divergence of one field,
the shared gradient of another, the lift of three) on triangles of order N, dense, folded by the mirror symmetry
(the mirror tiles, formulations/nodal-tri/src/mirror.rs) and block-diagonalised by the triangle's whole symmetry
group D3 (three rotations, three reflections). Counts only, from the orbits of the nodes (barycentric (i, j, k),
i + j + k = N: the centroid, orbits of 3 and of 6) and of the face nodes (3 (N + 1) slots: orbits of 6 and, at even N,
the faces' middles, an orbit of 3): an orbit of 1 carries A1, of 3 A1 + E, of 6 A1 + A2 + 2E; a vector field is the
scalar field times E (A1·E = A2·E = E, E·E = A1 + A2 + E). By Schur's lemma an equivariant map has one block per
irreducible representation, E's block acting on both of its components. The basis changes (the rotations' 3-point
transforms on top of the mirror's sums and differences, both ways) are not counted.
usage: scripts/probe/d3_counts.py"""


def node_orbits(n):
    one = 1 if n % 3 == 0 else 0
    three = sum(1 for a in range(n // 2 + 1) if 3 * a != n)
    total = (n + 1) * (n + 2) // 2
    six = (total - one - 3 * three) // 6
    assert one + 3 * three + 6 * six == total
    return one, three, six


def irreps(one, three, six):
    return one + three + six, six, three + 2 * six  # multiplicities of A1, A2, E


print(" N  np  dense  mirror  D3  (volume + lift)  D3/mirror")
for n in range(1, 11):
    np_, nfp = (n + 1) * (n + 2) // 2, n + 1
    a, b, c = irreps(*node_orbits(n))
    three_f = 1 if n % 2 == 0 else 0
    six_f = (nfp - three_f) // 2
    af, bf, cf = irreps(0, three_f, six_f)
    assert af + bf + 2 * cf == 3 * nfp and a + b + 2 * c == np_
    vec = (c, c, a + b + c)  # the vector field's A1, A2, E multiplicities
    grad = vec[0] * a + vec[1] * b + 2 * vec[2] * c  # scalar -> vector (the divergence is its transpose's size)
    lift = a * af + b * bf + 2 * c * cf
    sym, anti = (np_ + (n // 2 + 1)) // 2, (np_ - (n // 2 + 1)) // 2  # mirror representatives, pairs
    face_cols = (3 * nfp + three_f) // 2
    mirror = 2 * np_ * (sym + anti) + 3 * np_ * face_cols
    dense = 4 * np_ * np_ + 3 * np_ * 3 * nfp
    d3 = 2 * grad + 3 * lift
    print(f"{n:2} {np_:3} {dense:6} {mirror:7} {d3:5}  ({2 * grad} + {3 * lift})  {d3 / mirror:.2f}")
