//! `pgnkit annotate-outcome`: not built yet.

use std::io::Write;

use crate::cli::AnnotateOutcomeArgs;
use crate::exit::ExitStatus;

/// Runs the subcommand.
///
/// # Errors
///
/// Always, for now: the subcommand is not built yet.
pub fn run(_args: &AnnotateOutcomeArgs, _out: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("annotate-outcome is not built yet")
}
