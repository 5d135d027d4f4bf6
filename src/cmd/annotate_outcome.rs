//! `pgnkit annotate-outcome`: [`crate::api::annotate_outcome`] on the
//! command line.

use std::io::Write;

use crate::api::{self, Stderr};
use crate::cli::AnnotateOutcomeArgs;
use crate::error::Error;
use crate::exit::ExitStatus;

/// Runs `annotate-outcome`.
///
/// # Errors
///
/// As [`api::annotate_outcome`].
pub fn run(args: &AnnotateOutcomeArgs, out: &mut dyn Write) -> Result<ExitStatus, Error> {
    let records = api::RecordSink::Stdout(out);
    let summary = api::annotate_outcome(&args.options, args.input.inputs(), records, &Stderr)?;
    Ok(summary.status)
}
