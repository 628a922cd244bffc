maxwell3d-cavity --order 3 --nx 20
