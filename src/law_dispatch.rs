//! Calling generic code with a law chosen by name at run time (the 2D laws the triangle kernels handle).

/// The 2D laws of `dg-laws`, by name.
pub const LAWS_2D: [&str; 6] = ["advection2d", "burgers2d", "maxwell2d", "euler2d", "acoustics2d", "shallow_water2d"];

/// Runs `$body` with `$law` bound to the default instance of the named 2D law; evaluates to
/// `Err(message)` for an unknown name. The body must evaluate to `Result<_, anyhow::Error>`-compatible.
#[macro_export]
macro_rules! with_law_2d {
    ($name:expr, |$law:ident| $body:expr) => {{
        use $crate::dg_laws as laws;
        match $name {
            "advection2d" => {
                let $law = laws::advection2d::Law::default();
                Ok($body)
            }
            "burgers2d" => {
                let $law = laws::burgers2d::Law::default();
                Ok($body)
            }
            "maxwell2d" => {
                let $law = laws::maxwell2d::Law::default();
                Ok($body)
            }
            "euler2d" => {
                let $law = laws::euler2d::Law::default();
                Ok($body)
            }
            "acoustics2d" => {
                let $law = laws::acoustics2d::Law::default();
                Ok($body)
            }
            "shallow_water2d" => {
                let $law = laws::shallow_water2d::Law::default();
                Ok($body)
            }
            other => Err(format!(
                "law `{other}` has no kernels yet: the nodal triangle kernels take the 2D laws {}",
                $crate::law_dispatch::LAWS_2D.join(", ")
            )),
        }
    }};
}

/// The 3D laws the tetrahedral kernels handle (linear fluxes, seed 002).
pub const LAWS_3D: [&str; 2] = ["acoustics3d", "elastic3d"];

/// Runs `$body` with `$law` bound to the default instance of the named 3D wave law; `Err(message)` for another
/// name.
#[macro_export]
macro_rules! with_law_3d {
    ($name:expr, |$law:ident| $body:expr) => {{
        use $crate::dg_laws as laws;
        match $name {
            "acoustics3d" => {
                let $law = laws::acoustics3d::Law::default();
                Ok($body)
            }
            "elastic3d" => {
                let $law = laws::elastic3d::Law::default();
                Ok($body)
            }
            other => Err(format!(
                "law `{other}` has no tetrahedral kernels: they take the 3D laws {}",
                $crate::law_dispatch::LAWS_3D.join(", ")
            )),
        }
    }};
}
