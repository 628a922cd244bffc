//! The `dg` command line: a thin `main` over [`dg::cli::main`], which a user's own crate calls the same way to get
//! the whole command line for its own laws.

fn main() -> std::process::ExitCode {
    dg::cli::main()
}
