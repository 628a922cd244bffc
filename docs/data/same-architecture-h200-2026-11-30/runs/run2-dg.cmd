euler-isentropic-vortex --formulation nodal-tri --order 3 --nx 40 --t-end 0.01
