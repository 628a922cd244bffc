euler-isentropic-vortex --order 4 --nx 100 --t-end 0.05
