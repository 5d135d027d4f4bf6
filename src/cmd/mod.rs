//! One module per subcommand, all of the same shape:
//! `run(&Args, &mut dyn Write) -> anyhow::Result<ExitStatus>`.

pub mod annotate_outcome;
pub mod convert;
pub mod perft;
pub mod validate;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::Context;

/// The worker count: `--threads`, or every core.
pub(crate) fn thread_count(threads: Option<u16>) -> usize {
    threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        usize::from,
    )
}

/// The writer for the product: `-o FILE`, or the `stdout` handed to `run`.
pub(crate) fn output_writer<'a>(
    path: Option<&Path>,
    stdout: &'a mut dyn Write,
) -> anyhow::Result<Box<dyn Write + 'a>> {
    match path {
        Some(p) if p != Path::new("-") => {
            let file = File::create(p).with_context(|| format!("cannot create {}", p.display()))?;
            Ok(Box::new(BufWriter::with_capacity(1 << 16, file)))
        }
        _ => Ok(Box::new(stdout)),
    }
}
