//! `pgnkit select`: [`crate::api::select`] on the command line.

use std::io::Write;

use crate::api::{self, Stderr};
use crate::cli::SelectArgs;
use crate::error::Error;
use crate::exit::ExitStatus;

/// Runs `select`.
///
/// # Errors
///
/// As [`api::select`].
pub fn run(args: &SelectArgs, out: &mut dyn Write) -> Result<ExitStatus, Error> {
    let records = api::RecordSink::Stdout(out);
    let summary = api::select(&args.options, args.input.inputs(), records, &Stderr)?;
    Ok(summary.status)
}
