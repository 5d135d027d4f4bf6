//! `pgnkit validate`: [`crate::api::validate`] on the command line.

use std::io::Write;

use crate::api::{self, Stderr};
use crate::cli::ValidateArgs;
use crate::error::Error;
use crate::exit::ExitStatus;

/// Runs `validate`.
///
/// # Errors
///
/// As [`api::validate`].
pub fn run(args: &ValidateArgs, out: &mut dyn Write) -> Result<ExitStatus, Error> {
    let records = api::RecordSink::Stdout(out);
    let summary = api::validate(&args.options, args.input.inputs(), records, &Stderr)?;
    Ok(summary.status)
}
