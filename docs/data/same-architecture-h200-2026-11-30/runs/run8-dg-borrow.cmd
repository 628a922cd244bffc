acoustic-cube --order 4 --nx 8
