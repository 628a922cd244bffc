//! The `dg` command line.

mod cli;

use clap::Parser;

fn main() -> std::process::ExitCode {
    restore_default_sigpipe();
    let args = cli::Cli::parse();
    match cli::dispatch(args) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// `dg … | head` should end quietly like any Unix tool when the reader goes away, not panic in `println!`:
/// Rust ignores SIGPIPE by default, so restore the default action.
fn restore_default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: setting the disposition of SIGPIPE to its default before any other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
