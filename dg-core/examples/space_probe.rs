//! How long the structured mesh, its face connectivity and the DG space of order 4 take to build on this machine
//! (`cargo run --release -p dg-core --example space_probe -- 600`: 720,000 triangles, issue 14's start-up case),
//! twice; `scripts/probe/startup_probe.sh` runs it on the device machine beside `dg run`.
fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(600);
    for _ in 0..2 {
        let t = std::time::Instant::now();
        let spec = dg_core::mesh::RectangleSpec::unit_square(n);
        let mesh = dg_core::mesh::rectangle(&spec).expect("a mesh");
        let t1 = t.elapsed().as_secs_f64();
        let connectivity = dg_core::mesh::Connectivity::build(&mesh).expect("conforming");
        let t2 = t.elapsed().as_secs_f64();
        let space = dg_core::space::DgSpace2d::with_connectivity(mesh, 4, connectivity).expect("a space");
        let t3 = t.elapsed().as_secs_f64();
        println!("K={} mesh {:.3} connectivity {:.3} space {:.3}", space.num_elements(), t1, t2 - t1, t3 - t2);
    }
}
