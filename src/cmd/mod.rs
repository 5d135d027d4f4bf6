//! One module per subcommand, all of the same shape:
//! `run(&Args, &mut dyn Write) -> anyhow::Result<ExitStatus>`.

pub mod annotate_outcome;
pub mod convert;
pub mod perft;
pub mod validate;
