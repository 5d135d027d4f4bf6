//! `pgnkit schema`: [`crate::api::schema`] on the command line.

use std::io::Write;

use crate::api;
use crate::cli::SchemaArgs;
use crate::error::Error;
use crate::exit::ExitStatus;

/// Runs `schema`.
///
/// # Errors
///
/// As [`api::schema`].
pub fn run(args: &SchemaArgs, out: &mut dyn Write) -> Result<ExitStatus, Error> {
    api::schema(&args.options, out)
}
