#[dg_macros::conservation_law]
mod law {
    pub struct State { pub u: Real }
}
fn main() {}
