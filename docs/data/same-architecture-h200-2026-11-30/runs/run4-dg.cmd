euler-supersonic-vortex --order 2 --refine 2
