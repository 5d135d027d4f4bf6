//! `pgnkit dedupe`: [`crate::api::dedupe`] on the command line.

use std::io::Write;

use crate::api::{self, Stderr};
use crate::cli::DedupeArgs;
use crate::error::Error;
use crate::exit::ExitStatus;

/// Runs `dedupe`.
///
/// # Errors
///
/// As [`api::dedupe`].
pub fn run(args: &DedupeArgs, out: &mut dyn Write) -> Result<ExitStatus, Error> {
    let records = api::RecordSink::Stdout(out);
    let summary = api::dedupe(&args.options, args.input.inputs(), records, &Stderr)?;
    Ok(summary.status)
}
