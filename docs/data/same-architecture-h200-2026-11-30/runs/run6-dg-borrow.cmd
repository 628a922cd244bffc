euler3d-density-wave --order 3 --nx 16 --t-end 0.01
