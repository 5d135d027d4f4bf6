//! `pgnkit merge`: [`crate::api::merge`] on the command line, rerunning
//! shards with this binary.

use std::io::Write;
use std::path::Path;

use anyhow::Context;

use crate::api::{self, Stderr};
use crate::cli::MergeArgs;
use crate::error::Error;
use crate::exit::ExitStatus;

/// Runs `merge`, rerunning shards with this pgnkit binary.
///
/// # Errors
///
/// As [`api::merge`].
pub fn run(args: &MergeArgs, out: &mut dyn Write) -> Result<ExitStatus, Error> {
    let exe = std::env::current_exe().context("cannot find the pgnkit binary to rerun a shard")?;
    merge(args, out, &exe)
}

/// Runs `merge`, rerunning shards with the pgnkit binary `exe`.
///
/// # Errors
///
/// As [`api::merge`].
pub fn merge(args: &MergeArgs, out: &mut dyn Write, exe: &Path) -> Result<ExitStatus, Error> {
    let records = api::RecordSink::Stdout(out);
    api::merge(&args.options, &args.shards, records, exe, &Stderr)
}
