"""Regenerates square_hole.msh (MSH 4.1) and square_hole_v22.msh (MSH 2.2) with the gmsh Python API.

The unit square [0,1]^2 with a circular hole of radius 0.2 at its centre. Physical groups:
`outer` (the four sides), `hole` (the circle) and `domain` (the surface).
Run: python3 square_hole.py   (needs `pip install gmsh`; the .msh files are committed, so dg itself never needs gmsh)
"""
import gmsh

gmsh.initialize()
gmsh.option.setNumber("General.Terminal", 0)
gmsh.model.add("square_hole")
occ = gmsh.model.occ
square = occ.addRectangle(0, 0, 0, 1, 1)
hole = occ.addDisk(0.5, 0.5, 0, 0.2, 0.2)
occ.cut([(2, square)], [(2, hole)])
occ.synchronize()
curves = gmsh.model.getEntities(1)
outer, inner = [], []
for dim, tag in curves:
    x0, y0, _, x1, y1, _ = gmsh.model.getBoundingBox(dim, tag)
    (inner if (x0 > 0.01 and x1 < 0.99 and y0 > 0.01 and y1 < 0.99) else outer).append(tag)
gmsh.model.addPhysicalGroup(1, outer, name="outer")
gmsh.model.addPhysicalGroup(1, inner, name="hole")
surfaces = [t for _, t in gmsh.model.getEntities(2)]
gmsh.model.addPhysicalGroup(2, surfaces, name="domain")
gmsh.option.setNumber("Mesh.MeshSizeMax", 0.1)
gmsh.model.mesh.generate(2)
gmsh.option.setNumber("Mesh.MshFileVersion", 4.1)
gmsh.write("square_hole.msh")
gmsh.option.setNumber("Mesh.MshFileVersion", 2.2)
gmsh.write("square_hole_v22.msh")
gmsh.finalize()
