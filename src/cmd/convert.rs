//! `pgnkit convert`: not built yet.

use std::io::Write;

use crate::cli::ConvertArgs;
use crate::exit::ExitStatus;

/// Runs the subcommand.
///
/// # Errors
///
/// Always, for now: the subcommand is not built yet.
pub fn run(_args: &ConvertArgs, _out: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("convert is not built yet")
}
