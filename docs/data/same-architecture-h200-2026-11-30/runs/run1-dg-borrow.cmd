maxwell-cavity --order 4 --nx 600 --precision f32 --t-end 1e-5
