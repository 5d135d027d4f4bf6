//! `pgnkit crosstable`: [`crate::api::crosstable`] on the command line.

use std::io::Write;

use crate::api::{self, Stderr};
use crate::cli::CrosstableArgs;
use crate::error::Error;
use crate::exit::ExitStatus;

/// Runs `crosstable`.
///
/// # Errors
///
/// As [`api::crosstable`].
pub fn run(args: &CrosstableArgs, out: &mut dyn Write) -> Result<ExitStatus, Error> {
    let records = api::RecordSink::Stdout(out);
    let summary = api::crosstable(&args.options, args.input.inputs(), records, &Stderr)?;
    Ok(summary.status)
}
