//! Byte-range shards and how their outputs merge into the output one run
//! over the whole file gives: the logic of `pgnkit merge`, and of any
//! program that runs shards itself (the Spark job asks for the walk with
//! `pgnkit merge --plan`).
//!
//! The contract, per file (shards ordered by range start): a shard is
//! exact when it began where its predecessor's parse ended (`first_byte`
//! of one equals `end_byte` of the one before). Then its `game` and `line`
//! values are shifted by the games and lines of the shards before it. A
//! shard whose region its predecessor read to the end is skipped; one that
//! began inside a game its predecessor owns is run again from where that
//! game ended. `offset` is file-wide already and is kept.
//!
//! - [`plan`]: which shards tile a file and in what order, and the walk:
//!   given the statistics of each shard's latest run, what is accepted with
//!   which shift, what is skipped, and the one rerun each file needs next.
//! - [`verify`]: a shard's statistics and output checked against each
//!   other, and shards checked to come from one command with the same flags.
//! - [`renumber`]: `game` and `line` shifted, and `file` renamed, in CSV
//!   rows, JSON Lines records and Arrow batches.
//!
//! Those three are pure: no file, no process, no standard output. The I/O
//! is in [`read`] (a shard's statistics and records, from its files) and
//! [`rerun`] (a shard run again with the pgnkit binary).

pub mod plan;
pub mod read;
pub mod renumber;
pub mod rerun;
pub mod verify;

use crate::format::Subcommand;

/// Subcommands whose shards merge.
pub const MERGEABLE: [Subcommand; 3] = [
    Subcommand::Validate,
    Subcommand::AnnotateOutcome,
    Subcommand::Convert,
];

/// Whether the shards of the subcommand named `command` (as statistics
/// record it) merge.
pub fn is_mergeable(command: &str) -> bool {
    Subcommand::from_name(command).is_some_and(|c| MERGEABLE.contains(&c))
}

/// The flag that names the format, the same in every subcommand
/// (`convert`'s `--to` is another name for it).
pub const FORMAT_FLAG: &str = "-f";
