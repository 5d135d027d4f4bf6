//! `pgnkit convert`: [`crate::api::convert`] on the command line.

use std::io::Write;

use crate::api::{self, Stderr};
use crate::cli::ConvertArgs;
use crate::error::Error;
use crate::exit::ExitStatus;

/// Runs `convert`.
///
/// # Errors
///
/// As [`api::convert`].
pub fn run(args: &ConvertArgs, out: &mut dyn Write) -> Result<ExitStatus, Error> {
    let records = api::RecordSink::Stdout(out);
    let summary = api::convert(&args.options, args.input.inputs(), records, &Stderr)?;
    Ok(summary.status)
}
