//! The command line, as clap derive definitions and nothing else.
//!
//! Doc comments here are the `--help` text and the man page (`man/pgnkit.1`
//! is generated from these definitions; a test fails when it drifts).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

const EXIT_CODES: &str = "\
Exit status:
  0  ran to completion, no problems found
  1  ran to completion, problems found (an invalid game, a wrong result, a perft mismatch)
  2  could not do the job (bad arguments, unreadable input, write failure); 2 wins over 1";

/// Validate, annotate, count and convert chess games (PGN) and positions (FEN),
/// exact to the FIDE Laws of Chess.
#[derive(Debug, Parser)]
#[command(name = "pgnkit", version, about, after_help = EXIT_CODES, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Replay every game and report every problem: illegal, ambiguous or
    /// malformed moves, bad FEN or tags, moves after the end, wrong results.
    #[command(after_help = EXIT_CODES)]
    Validate(ValidateArgs),
    /// Say what the FIDE Laws say happened in every game: mate, stalemate,
    /// dead position, repetitions, move-count rules, unfair losses.
    #[command(after_help = EXIT_CODES)]
    AnnotateOutcome(AnnotateOutcomeArgs),
    /// Count the leaf nodes of the legal move tree from a position.
    #[command(after_help = EXIT_CODES)]
    Perft(PerftArgs),
    /// Convert games and positions between PGN, CSV, JSON Lines, UCI, SAN,
    /// LAN, FEN and EPD.
    ///
    /// Every move written, in the main line and in variations, is legal in
    /// its position and in normalised SAN: a variation is replayed from the
    /// position before the move it replaces, a nested one from the position
    /// before the move of its own line it replaces. A variation that does
    /// not replay is reported and left out whole, however many of its moves
    /// were legal (a nested variation is left out alone). Damaged movetext
    /// (an unclosed comment or variation, a stray `)` or `}`, no
    /// termination marker) is reported as `validate` reports it, and the
    /// game is written without what could not be read. Either makes the
    /// exit status 1. PGN output re-reads without a syntax finding and
    /// converts to the same bytes.
    #[command(after_help = EXIT_CODES)]
    Convert(ConvertArgs),
    /// Merge the CSV or JSON Lines outputs of `--byte-range` shards into the
    /// output one run over the whole file gives.
    #[command(after_help = MERGE_HELP)]
    Merge(MergeArgs),
}

const MERGE_HELP: &str = "\
Each SHARD is the output of one `--byte-range` run, with its header, and
SHARD.stats.json the `--stats` it wrote. Shards are ordered by file (in the
order first named) and range start, whatever their order here. A shard that
began inside a game its predecessor read to the end is run again from where
that game ended, with the arguments its statistics recorded.

Exit status:
  0  merged
  2  could not merge (a missing or unreadable shard, shards that do not
     tile their file, different headers, a rerun that failed)";

#[derive(Debug, Clone, Args)]
pub struct MergeArgs {
    /// Shard outputs (CSV or JSON Lines), in any order.
    #[arg(value_name = "SHARD", required = true)]
    pub shards: Vec<PathBuf>,

    /// Format of the shard outputs.
    #[arg(short = 'f', long, value_enum, default_value_t = MergeFormat::Csv)]
    pub format: MergeFormat,

    /// Write the merged output to FILE instead of standard output.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// CSV without its header line.
    #[arg(long)]
    pub no_header: bool,
}

/// Formats `merge` reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MergeFormat {
    Csv,
    Jsonl,
}

/// Where games come from and where the product goes: shared by every
/// streaming subcommand.
#[derive(Debug, Clone, Args)]
pub struct InputArgs {
    /// PGN files to read; `-` or none reads standard input. zstd, gzip and
    /// bzip2 input is detected by content and decompressed on the fly.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Worker threads (default: all cores; at most 4 per core). The output
    /// is identical for any value.
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,

    /// Write the output to FILE instead of standard output (`-` is standard
    /// output). A FILE that is also an input (by any name or link) is
    /// refused, exit 2, before anything is read.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// No progress bar and no summary on standard error.
    #[arg(short = 'q', long)]
    pub quiet: bool,

    /// Process only the games that start in bytes START..END of one
    /// uncompressed PGN file (either end may be left out), reading past END
    /// to finish the last one: ranges that tile a file process every game
    /// exactly once. Boundaries move forward to the next line that opens a
    /// tag after a blank line or movetext. `offset` columns stay file-wide;
    /// `game` and `line` count from the range's start (see `--stats` and
    /// `pgnkit merge`).
    #[arg(long, value_name = "START..END")]
    pub byte_range: Option<crate::input::range::ByteRange>,

    /// Write a JSON summary of what each input gave to FILE: games, bytes
    /// and lines consumed, first and last game offsets, findings per code,
    /// and the arguments of the run (what `pgnkit merge` reads).
    #[arg(long, value_name = "FILE")]
    pub stats: Option<PathBuf>,

    /// CSV output without its header line (so shard outputs concatenate).
    #[arg(long)]
    pub no_header: bool,
}

#[derive(Debug, Clone, Args)]
pub struct ValidateArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// Report format: one line per finding.
    #[arg(short = 'f', long, value_enum, default_value_t = ReportFormat::Text)]
    pub format: ReportFormat,
}

/// Formats of the `validate` report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// `FILE:LINE: game G (White - Black), ply P (12... Nf3): code: message`
    Text,
    /// A header row, then `file,game,line,ply,san,severity,code,message`.
    Csv,
    /// One JSON object per finding, with the CSV fields.
    Jsonl,
}

#[derive(Debug, Clone, Args)]
pub struct AnnotateOutcomeArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// Output format: one CSV row or JSON object per game, or the games
    /// written back as PGN with the outcome as tags and comments. Damaged
    /// movetext (an unclosed comment or variation, a stray `)` or `}`, no
    /// termination marker) is reported on standard error as `validate`
    /// reports it, exit status 1; the game keeps its row and is written
    /// back without what could not be read.
    #[arg(short = 'f', long, value_enum, default_value_t = AnnotateFormat::Csv)]
    pub format: AnnotateFormat,

    /// Which reading of the rules to apply.
    #[arg(long, value_enum, default_value_t = RulesProfile::Fide)]
    pub rules: RulesProfile,

    /// With `--format pgn`: overwrite the Result tag and termination marker
    /// with the result the rules give (an error with the other formats).
    #[arg(long)]
    pub fix_results: bool,

    /// With `--format csv|jsonl`: the values of these tags too
    /// (comma-separated, named as in the PGN), so rows join to the games:
    /// CSV columns after the fixed ones, empty when a game lacks the tag;
    /// in JSON a `tags` object, `null` when a game lacks the tag.
    #[arg(long, value_name = "T1,T2", value_delimiter = ',')]
    pub tags: Option<Vec<String>>,
}

/// Output formats of `annotate-outcome`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AnnotateFormat {
    /// One row per game.
    Csv,
    /// Every game written back, with outcome tags and comments (damaged
    /// movetext without what could not be read).
    Pgn,
    /// One JSON object per game: the CSV fields plus the helpmate line.
    Jsonl,
}

/// Rule profiles: the FIDE Laws, or the readings of apps and online sites
/// (the README says what each changes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RulesProfile {
    /// The FIDE Laws of Chess in force since 1 January 2023.
    Fide,
    /// Apps with a claim button: claims only once the repetition or the 50
    /// moves have happened; material draws only in the three simple cases.
    App,
    /// Sites without an arbiter: threefold and fifty moves draw at once;
    /// a loss on time is a draw only against a bare king.
    Online,
}

#[derive(Debug, Clone, Args)]
pub struct PerftArgs {
    /// Position as FEN, quoted (missing fields default); `startpos` or none:
    /// the start position. Standard, X-FEN and Shredder-FEN castling.
    #[arg(value_name = "FEN")]
    pub fen: Option<String>,

    /// The fields of an unquoted FEN after the first, as the shell split
    /// them: refused with a message that says to quote the FEN.
    #[arg(hide = true, value_name = "FIELD")]
    pub fen_rest: Vec<String>,

    /// Depth to count to (0 counts the position itself). Required unless
    /// `--suite` is given; with it, the largest depth checked.
    #[arg(short = 'd', long, value_name = "N")]
    pub depth: Option<u32>,

    /// One line per legal root move, `<uci>: <count>`, then a blank line and
    /// the total.
    #[arg(long)]
    pub divide: bool,

    /// Treat the position as Chess960 (also detected from the FEN).
    #[arg(long)]
    pub chess960: bool,

    /// Moves to play before counting, in UCI, separated by spaces or commas.
    #[arg(long, value_name = "MOVES")]
    pub moves: Option<String>,

    /// Worker threads (default: all cores; at most 4 per core). Counts are
    /// identical for any value.
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,

    /// Transposition table size in MiB (0 disables it).
    #[arg(long, value_name = "MB", default_value_t = 64)]
    pub hash: usize,

    /// Verify a whole perft suite (EPD `;D1 20` lines or `epd`/`perft` blocks).
    #[arg(long, value_name = "FILE")]
    pub suite: Option<PathBuf>,

    /// With `--suite`: skip checks whose expected count exceeds N; a check
    /// whose real count passes N stops there and fails (`got=>N`), so a
    /// suite that understates a count cannot run forever.
    #[arg(long, value_name = "N")]
    pub max_nodes: Option<u64>,

    /// No timing or progress on standard error.
    #[arg(short = 'q', long)]
    pub quiet: bool,
}

#[derive(Debug, Clone, Args)]
pub struct ConvertArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// Output format.
    #[arg(short = 't', long, value_enum, value_name = "FORMAT")]
    pub to: ConvertFormat,

    /// Input format (default: detected from the content). FEN and EPD
    /// inputs hold one position a line; blank lines and lines starting with
    /// `#` are skipped. A FEN line holds nothing after its six fields; an
    /// EPD line's operations are ignored.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub from: Option<SourceFormat>,

    /// Write games that cannot be replayed up to their last legal move, with
    /// a comment saying where they broke, and keep variations that cannot
    /// be replayed (or that the game ends inside) as a comment holding
    /// their text and why, where they stood, instead of leaving them out.
    /// They are still reported on standard error, and the exit status is
    /// still 1.
    #[arg(long)]
    pub keep_invalid: bool,

    /// Drop comments (PGN and JSON Lines output).
    #[arg(long)]
    pub no_comments: bool,

    /// Drop NAGs (PGN and JSON Lines output).
    #[arg(long)]
    pub no_nags: bool,

    /// Drop variations (PGN and JSON Lines output).
    #[arg(long)]
    pub no_variations: bool,

    /// With `--to fen|epd`: the final position only, or every position.
    #[arg(long, value_enum, default_value_t = Positions::Final)]
    pub positions: Positions,

    /// With `--to csv`: exactly these tags after the Seven Tag Roster
    /// (comma-separated). Default: every tag the first 1,000 games use.
    /// Whatever the tags, the `start_fen` column keeps the start position
    /// (empty for the standard one), and every game gets a row, with the
    /// `error` column saying why one could not be converted.
    #[arg(long, value_name = "T1,T2", value_delimiter = ',')]
    pub tags: Option<Vec<String>>,
}

/// Output formats of `convert`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ConvertFormat {
    Pgn,
    Uci,
    San,
    Lan,
    Fen,
    Epd,
    Csv,
    Jsonl,
}

/// Input formats of `convert`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SourceFormat {
    Pgn,
    Fen,
    Epd,
    Uci,
}

/// Which positions `--to fen|epd` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Positions {
    Final,
    All,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn verify_cli() {
        Cli::command().debug_assert();
    }
}
