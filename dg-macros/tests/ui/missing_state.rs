#[dg_macros::conservation_law(dim = 2)]
mod law {
    pub fn max_speed(n: Normal) -> Real { 1.0 }
}
fn main() {}
