#[dg_macros::conservation_law(dim = 2)]
mod law {
    pub struct State { pub u: Real, pub v: Real }
    pub fn flux(q: State) -> [State; 2] { [q, q] }
    pub fn max_speed(q: State, n: Normal) -> Real { 1.0 }
    pub fn numerical_flux(qm: State, qp: State, n: Normal) -> State { upwind(qm, qp, n) }
}
fn main() {}
