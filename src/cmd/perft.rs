//! `pgnkit perft`: not built yet.

use std::io::Write;

use crate::cli::PerftArgs;
use crate::exit::ExitStatus;

/// Runs the subcommand.
///
/// # Errors
///
/// Always, for now: the subcommand is not built yet.
pub fn run(_args: &PerftArgs, _out: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("perft is not built yet")
}
