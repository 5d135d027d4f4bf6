//! `pgnkit validate`: not built yet.

use std::io::Write;

use crate::cli::ValidateArgs;
use crate::exit::ExitStatus;

/// Runs the subcommand.
///
/// # Errors
///
/// Always, for now: the subcommand is not built yet.
pub fn run(_args: &ValidateArgs, _out: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("validate is not built yet")
}
