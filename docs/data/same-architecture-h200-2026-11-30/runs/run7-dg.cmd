mhd-orszag-tang --nx 256 --t-end 0.01
