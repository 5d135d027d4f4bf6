//! The command line, as clap derive definitions and nothing else.
//!
//! Doc comments here are the `--help` text and the man page (`man/pgnkit.1`
//! is generated from these definitions; a test fails when it drifts).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Validate, annotate, count and convert chess games (PGN) and positions (FEN),
/// exact to the FIDE Laws of Chess.
#[derive(Debug, Parser)]
#[command(name = "pgnkit", version, about, propagate_version = true,
    after_help = short_help("pgnkit"), after_long_help = long_help("pgnkit"))]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Replay every game and report every problem: illegal, ambiguous or
    /// malformed moves, bad FEN or tags, moves after the end, wrong results.
    #[command(after_help = short_help("validate"), after_long_help = long_help("validate"))]
    Validate(ValidateArgs),
    /// Say what the FIDE Laws say happened in every game: mate, stalemate,
    /// dead position, repetitions, move-count rules, unfair losses.
    #[command(
        after_help = short_help("annotate-outcome"),
        after_long_help = long_help("annotate-outcome")
    )]
    AnnotateOutcome(AnnotateOutcomeArgs),
    /// Count the leaf nodes of the legal move tree from a position.
    #[command(after_help = short_help("perft"), after_long_help = long_help("perft"))]
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
    /// termination marker, or one that disagrees with the Result tag) is
    /// reported as `validate` reports it, and the game is written without
    /// what could not be read (with the Result tag's result). Either makes the
    /// exit status 1. PGN output re-reads without a syntax finding and
    /// converts to the same bytes.
    #[command(after_help = short_help("convert"), after_long_help = long_help("convert"))]
    Convert(ConvertArgs),
    /// Merge the CSV or JSON Lines outputs of `--byte-range` shards into the
    /// output one run over the whole file gives.
    ///
    /// Each SHARD is the CSV, JSON Lines, Parquet or Arrow output of one
    /// `--byte-range` run (CSV with its header or without), and
    /// SHARD.stats.json the `--stats` it wrote. Shards are ordered by file
    /// (in the order first named) and range start, whatever their order
    /// here. A shard that began inside a
    /// game its predecessor read to the end is run again from where that
    /// game ended, on the recorded file with the recorded output flags.
    /// Nothing is written unless every shard checks out against its
    /// statistics (checksum, size and digest, record counts, one command
    /// with the same flags, ranges that tile the file to its end); the
    /// output goes to a temporary file beside -o, renamed when whole.
    /// With --plan, merge prints how the shards merge, for a program that
    /// runs them and their reruns itself.
    #[command(after_help = short_help("merge"), after_long_help = long_help("merge"))]
    Merge(MergeArgs),
    /// Print the columns of a record kind: name, type, when it is null,
    /// which formats hold it, and what it means.
    ///
    /// RECORD is a subcommand (its record), or the name of a record or of
    /// a struct column (`finding`, `outcome`, `game`, `move`, `error`);
    /// without one, every record kind. The columns are those of the CSV
    /// and JSON Lines outputs, in order, from the one definition the
    /// writers use; `--json` prints them for programs (the Spark job reads
    /// its column types from it).
    #[command(after_help = short_help("schema"), after_long_help = long_help("schema"))]
    Schema(SchemaArgs),
    /// Print a completion script for a shell on standard output.
    #[command(
        after_help = short_help("completions"),
        after_long_help = long_help("completions")
    )]
    Completions(CompletionsArgs),
}

/// One titled part of the text after the options: the same text ends
/// `--help` (`-h` shows only the exit status and the examples) and makes a
/// section of the man page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelpSection {
    pub title: &'static str,
    /// Preformatted lines, without indentation.
    pub body: String,
}

/// A command line from the examples of `--help`, with what it shows. Each
/// runs as written from the repository root (tests run them all).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Example {
    pub what: &'static str,
    pub command: &'static str,
}

const EXIT_STATUS: &str = "\
0  ran to completion, no problems found
1  ran to completion, problems found (an invalid game, a wrong result, a perft mismatch)
2  could not do the job (bad arguments, unreadable input, write failure); 2 wins over 1";

const MERGE_EXIT_STATUS: &str = "\
0  merged
2  could not merge (a missing or unreadable shard, shards that do not
   tile their file, different headers, a rerun that failed)";

/// The finding codes of `validate` and their severity (README "Finding codes").
pub const FINDING_CODES: &str = "\
syntax               error    a token that is not PGN (e8Q, Nf3++, exd6e.p., figurines,
                              o-o, UCI moves, an unclosed comment or variation, a malformed tag)
illegal-move         error    a SAN that no legal move matches
ambiguous-move       error    a SAN that several legal moves match
null-move            error    a null move (--, Z0) on the main line
move-after-end       error    a move after the game had ended automatically (checkmate,
                              stalemate, fivefold repetition, 75 moves, dead position)
invalid-fen          error    a FEN tag that does not parse or is not a legal setup
result-mismatch      error    the Result tag and the termination marker disagree, or either
                              is missing or invalid
wrong-result         error    the result contradicts the board
unsupported-variant  error    a Variant pgnkit does not replay: reported once, moves unchecked
missing-tag          warning  a tag of the Seven Tag Roster is absent, or SetUp \"1\" without FEN
invalid-tag          warning  a roster tag with a malformed value
duplicate-tag        warning  the same tag twice in one tag section
check-suffix         warning  + or # missing or wrong
layout               warning  damage the reader recovers from (blank lines inside a game,
                              text between or after games, NUL bytes, a glued tag,
                              control characters in a tag value or a comment)
invalid-command      warning  a [%clk …] or [%eval …] in a comment that cannot be read
                              (read as none, never as zero)
played-on            warning  a move after the game had ended automatically, the recorded
                              result being the one that end gives (move-after-end otherwise)";

/// The examples of `command`'s `--help` (`pgnkit` for the top level).
pub fn examples(command: &str) -> &'static [Example] {
    macro_rules! ex {
        ($what:expr, $command:expr $(,)?) => {
            Example {
                what: $what,
                command: $command,
            }
        };
    }
    match command {
        "pgnkit" => &[
            ex!(
                "Validate real games (exit status 1: two have errors)",
                "pgnkit validate fixtures/pgn/twic1599_excerpt.pgn fixtures/pgn/illegal_move_ply_61.pgn",
            ),
            ex!(
                "Count the moves of the start position to depth 5",
                "pgnkit perft -d 5"
            ),
        ],
        "validate" => &[
            ex!(
                "Every finding, one line each, and a summary on standard error",
                "pgnkit validate fixtures/pgn/twic1599_excerpt.pgn fixtures/pgn/illegal_move_ply_61.pgn",
            ),
            ex!(
                "The findings as CSV, without progress or summary",
                "pgnkit validate -q -f csv fixtures/pgn/layout_damage.pgn",
            ),
            ex!(
                "Only whether a file is clean, from the exit status",
                "pgnkit validate -q fixtures/pgn/chess960.pgn > /dev/null",
            ),
        ],
        "annotate-outcome" => &[
            ex!(
                "One CSV row per game: how it ended and whether the result is right",
                "pgnkit annotate-outcome fixtures/annotate/fivefold_real.pgn",
            ),
            ex!(
                "The games written back with the result the Laws give",
                "pgnkit annotate-outcome -q -f pgn --fix-results fixtures/annotate/time_forfeit_walled_in.pgn",
            ),
            ex!(
                "JSON Lines, as a site without an arbiter scores the games",
                "pgnkit annotate-outcome -q -f jsonl --rules online fixtures/annotate/seventy_five_moves_real.pgn",
            ),
        ],
        "perft" => &[
            ex!("The start position to depth 5", "pgnkit perft -d 5"),
            ex!(
                "One count per root move (a FEN is one quoted argument)",
                "pgnkit perft -d 3 --divide \"8/8/8/8/8/8/6k1/4K2R w K - 0 1\"",
            ),
            ex!(
                "Check a suite of known counts (exit status 1: one is wrong)",
                "pgnkit perft --suite fixtures/perft/wrong_count.epd",
            ),
        ],
        "convert" => &[
            ex!(
                "The moves of each game in UCI, one game a line",
                "pgnkit convert --to uci fixtures/convert/annotated.pgn",
            ),
            ex!(
                "Every position of a game as EPD",
                "pgnkit convert --to epd --positions all fixtures/convert/annotated.pgn",
            ),
            ex!(
                "One CSV row per game with chosen tags",
                "pgnkit convert --to csv --tags Termination fixtures/annotate/time_forfeit_walled_in.pgn",
            ),
        ],
        "merge" => &[
            ex!(
                "Validate a file in two shards (they could run on two machines)",
                "pgnkit validate -q -f csv --byte-range ..6000 --stats a.csv.stats.json \\\n    -o a.csv fixtures/pgn/twic1599_excerpt.pgn",
            ),
            ex!(
                "",
                "pgnkit validate -q -f csv --byte-range 6000.. --stats b.csv.stats.json \\\n    -o b.csv fixtures/pgn/twic1599_excerpt.pgn",
            ),
            ex!(
                "Merge them into what one run gives",
                "pgnkit merge a.csv b.csv"
            ),
        ],
        "schema" => &[
            ex!(
                "The columns annotate-outcome writes",
                "pgnkit schema annotate-outcome",
            ),
            ex!(
                "Every record kind as JSON, for a program",
                "pgnkit schema --json",
            ),
        ],
        "completions" => &[
            ex!(
                "Bash, for the current user",
                "pgnkit completions bash > ~/.local/share/bash-completion/completions/pgnkit",
            ),
            ex!(
                "Zsh (with ~/.zfunc in $fpath)",
                "pgnkit completions zsh > ~/.zfunc/_pgnkit",
            ),
            ex!(
                "Fish",
                "pgnkit completions fish > ~/.config/fish/completions/pgnkit.fish",
            ),
        ],
        _ => &[],
    }
}

/// The sections after the options of `command` (`pgnkit` for the top
/// level), in order: `--help` prints them and the man page has one section
/// each.
/// The columns of `schema` per format, for a help section: `csv:` and
/// `jsonl:` lines, wrapped.
fn columns_help(schema: &crate::schema::Schema) -> String {
    use crate::schema::Format;
    let mut text = String::new();
    for (label, format) in [("csv", Format::Csv), ("jsonl", Format::Jsonl)] {
        let mut line = format!("  {label}: ");
        for (i, name) in schema.names_in(format).into_iter().enumerate() {
            if i > 0 {
                line.push(',');
            }
            if line.len() + name.len() > 78 {
                text.push_str(&line);
                text.push('\n');
                line = "    ".to_owned();
            }
            line.push_str(name);
        }
        text.push_str(&line);
        text.push('\n');
    }
    text.pop();
    text
}

pub fn help_sections(command: &str) -> Vec<HelpSection> {
    let section = |title, body: &str| HelpSection {
        title,
        body: body.to_owned(),
    };
    let mut sections = Vec::new();
    match command {
        "validate" => {
            sections.push(section(
                "Report columns",
                &format!(
                    "csv and jsonl (docs/records.md, `pgnkit schema validate`):\n{}\n\
                     text: FILE:LINE: game G (White - Black; Event, round R), ply P (12...Nf3):\n\
                     code: message; did you mean 12...Nd2?\n\
                     html: the arbiter's page, a board at each finding (README).\n\
                     offset is the byte offset of the game in its file, line and ply are\n\
                     1-based; ply and san are empty when no move is to blame.",
                    columns_help(&crate::schema::finding::FINDING)
                ),
            ));
            sections.push(section("Finding codes", FINDING_CODES));
        }
        "annotate-outcome" => sections.push(section(
            "Report columns",
            &format!(
                "csv and jsonl (docs/records.md, `pgnkit schema annotate-outcome`):\n{}\n\
                 laws is the date whose Laws judged the game (YYYY.MM.DD, `?` for what\n\
                 the date leaves unknown), or `current` for today's Laws.\n\
                 text: FILE:LINE: game G (White - Black; Event, round R): RESULT: what to\n\
                 look at, for each game whose outcome needs a person (--problems).",
                columns_help(&crate::schema::outcome::OUTCOME)
            ),
        )),
        "convert" => sections.push(section(
            "Report columns",
            &format!(
                "{}\n\
                 In csv, `…` is one column per tag: the Seven Tag Roster\n\
                 (Event,Site,Date,Round,White,Black,Result), then the --tags (default: every\n\
                 other tag the first 1,000 games use). A row for every game; error is filled\n\
                 when it could not be converted (docs/records.md, `pgnkit schema convert`).",
                columns_help(&crate::schema::game::GAME)
            ),
        )),
        _ => {}
    }
    match command {
        "merge" => sections.push(section("Exit status", MERGE_EXIT_STATUS)),
        "completions" | "schema" => {}
        _ => sections.push(section("Exit status", EXIT_STATUS)),
    }
    let examples = examples(command);
    if !examples.is_empty() {
        let mut body = String::new();
        for ex in examples {
            if !ex.what.is_empty() {
                if !body.is_empty() {
                    body.push('\n');
                }
                body.push_str(&format!("{}:\n", ex.what));
            }
            for line in ex.command.lines() {
                body.push_str(&format!("  {line}\n"));
            }
        }
        body.pop();
        sections.push(section("Examples", &body));
    }
    sections
}

/// `sections` as help text: each title, then its body indented.
fn render_sections(sections: &[HelpSection]) -> String {
    let mut text = String::new();
    for s in sections {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(s.title);
        text.push_str(":\n");
        for line in s.body.lines() {
            if !line.is_empty() {
                text.push_str("  ");
            }
            text.push_str(line);
            text.push('\n');
        }
    }
    text.pop();
    text
}

/// What `--help` prints after the options.
fn long_help(command: &str) -> String {
    render_sections(&help_sections(command))
}

/// What `-h` prints after the options: the exit status and the examples.
fn short_help(command: &str) -> String {
    let mut sections = help_sections(command);
    sections.retain(|s| matches!(s.title, "Exit status" | "Examples"));
    render_sections(&sections)
}

#[derive(Debug, Clone, Args)]
pub struct SchemaArgs {
    /// A subcommand (`validate`, `annotate-outcome`, `convert`) or a record
    /// kind (`finding`, `outcome`, `game`, `position`, `move`, `error`).
    #[arg(value_name = "RECORD")]
    pub record: Option<String>,
    /// One JSON object per record kind, on one line each.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Clone, Args)]
pub struct MergeArgs {
    /// Shard outputs (CSV, JSON Lines, Parquet or Arrow), in any order;
    /// with --plan, the statistics files (--stats) of the shards' runs.
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

    /// Print how the shards merge, as JSON, instead of merging: for a
    /// program that runs shards and their reruns itself (contrib/spark).
    ///
    /// Each SHARD is then the statistics file (--stats) of one shard's run,
    /// in any format; no output is read or written and nothing is run. The
    /// plan is one line, an object: `complete` (true when no file needs a
    /// rerun), `records` (the merged output's, once complete), and `files`
    /// in output order, each with `file` and `path` (its name, and its
    /// absolute path or null for standard input), `shards` (in walk order),
    /// `accepted` (the runs kept, in order, each with `shard`, `rerun` (null,
    /// or the --rerun kept instead of the shard's own run), `games_before`
    /// and `lines_before` (to add to its `game` and `line`),
    /// `records_before` (before its records in the merged output; null while
    /// a file before awaits a rerun), `records` and `rename` (null, or the
    /// `file` its records must name)), `skipped` (shards whose region the one
    /// before read), `failed` (null, or the shard whose run could not read
    /// the file to the end: the file's output ends with it) and `rerun`
    /// (null, or the rerun the file needs next: `shard`, `from_byte`,
    /// `end`). Shards and reruns are named by their place among the SHARDs
    /// and the --rerun files, from 0.
    ///
    /// To answer a `rerun`, run that shard again with the same flags and
    /// `--byte-range FROM_BYTE..END` (`FROM_BYTE..` when `end` is null),
    /// then ask again with the same SHARDs and every rerun's statistics as
    /// --rerun. Shards that do not merge (a gap, no end, other flags) are
    /// refused, exit 2.
    #[arg(long, conflicts_with_all = ["output", "no_header", "format"])]
    pub plan: bool,

    /// With --plan: the statistics of a rerun the plan asked for (repeat
    /// for each; a rerun no walk asks for is refused).
    #[arg(long, value_name = "STATS", requires = "plan")]
    pub rerun: Vec<PathBuf>,
}

/// Formats `merge` reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MergeFormat {
    Csv,
    Jsonl,
    Parquet,
    Arrow,
}

/// Where games come from and where the product goes: shared by every
/// streaming subcommand.
#[derive(Debug, Clone, Args)]
pub struct InputArgs {
    /// PGN files to read; `-` or none reads standard input. zstd, gzip and
    /// bzip2 input is detected by content and decompressed on the fly. A
    /// directory is walked recursively, sorted by path, for files named
    /// `*.pgn`, `*.pgn.zst`, `*.pgn.gz` or `*.pgn.bz2` (any case).
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
    /// exactly once, except where a boundary falls inside a comment or a
    /// variation that holds a blank line and a tag line (the next shard then
    /// begins inside a game, which `pgnkit merge` repairs). Boundaries move
    /// forward to the next line that opens a tag after a blank line or
    /// movetext. `offset` columns stay file-wide;
    /// `game` and `line` count from the range's start (see `--stats` and
    /// `pgnkit merge`).
    #[arg(long, value_name = "START..END")]
    pub byte_range: Option<crate::input::range::ByteRange>,

    /// Write a JSON summary of the run to FILE, what `pgnkit merge` reads:
    /// the command, format and output flags, what each input gave (its
    /// absolute path, size and modification time, games, bytes and lines
    /// consumed, first and last game offsets), findings per code, the
    /// product's size, record count and digest, and a checksum. A FILE
    /// that is an input or another output of the run is refused, exit 2,
    /// before anything is read.
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

    /// Neither report nor count findings of these codes (comma-separated,
    /// or the flag repeated), e.g. `--ignore layout,check-suffix`.
    #[arg(long, value_name = "CODE", value_delimiter = ',')]
    pub ignore: Vec<String>,

    /// Report and count only findings of these codes (comma-separated, or
    /// the flag repeated); `--ignore` then drops some of these.
    #[arg(long, value_name = "CODE", value_delimiter = ',')]
    pub only: Vec<String>,

    /// What makes the exit status 1: `error` (a reported finding of
    /// severity error), `warning` (any reported finding), `never`, or a
    /// comma-separated list of codes (and of `error` / `warning`). A run
    /// that could not read an input exits 2 whatever this says.
    #[arg(
        long,
        value_name = "WHEN",
        value_delimiter = ',',
        default_value = "error"
    )]
    pub fail_on: Vec<String>,

    /// Add these tags' values to each finding, as a chief arbiter files
    /// them (`--tags Board,WhiteFideId`): in CSV one column each, after the
    /// others; in JSON Lines a `tags` object, `null` when a game lacks the
    /// tag. Every finding already names its game's players, event and round.
    #[arg(long, value_name = "T1,T2", value_delimiter = ',')]
    pub tags: Option<Vec<String>>,

    /// Write every game with an error finding (after `--ignore` and
    /// `--only`; warnings alone leave a game good) to FILE, byte for byte
    /// as it stands in the input, so that only these are fixed and merged
    /// back. A game's bytes run from its first byte to the next game's, so
    /// the blank lines after a game go with it; what stands before a file's
    /// first game (a byte order mark, a preamble) goes nowhere, and a
    /// newline is put between two games only where the first lacks one (a
    /// file's last game without a final newline).
    /// The games come from the one read of the inputs (standard input, pipes
    /// and FIFOs too); not with `--byte-range`. A FILE that is an input,
    /// standard output or another output is refused, exit 2.
    #[arg(long, value_name = "FILE")]
    pub bad_games: Option<PathBuf>,

    /// Write every other game (no error finding) to FILE, as `--bad-games`
    /// writes those with one: the two together hold every game of the
    /// inputs once.
    #[arg(long, value_name = "FILE")]
    pub good_games: Option<PathBuf>,

    /// Which Laws judge each game: `date` (default) those in force when it
    /// was played, by its `Date` tag, else its `EventDate` (a year alone
    /// decides what changed on 1 January, and what changed on 1 July in
    /// any other year); `current` today's Laws for every game; a day
    /// `YYYY-MM-DD` the Laws in force that day for every game. Dated:
    /// the automatic draws of 9.6 (fivefold repetition, 75 moves) from
    /// 1 July 2014, 5.1.2's exception for a resignation against a player
    /// who cannot mate from 1 January 2023 (README "Which Laws"). An
    /// undated game, or one whose date cannot decide, follows today's
    /// Laws.
    #[arg(long, value_name = "WHEN", default_value = "date")]
    pub laws: crate::rules::laws::LawsChoice,

    #[command(flatten)]
    pub html: HtmlArgs,
}

/// Formats of the `validate` report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// `FILE:LINE: game G (White - Black; Event, round R), ply P (12...Nf3): code: message`,
    /// then `; did you mean …?` with the repairs
    Text,
    /// A header row, then one row per finding (see the report columns).
    Csv,
    /// One JSON object per finding, with the CSV fields.
    Jsonl,
    /// The CSV columns, typed, as a Parquet file (give -o FILE, or
    /// redirect standard output: never a terminal).
    Parquet,
    /// The CSV columns, typed, as an Arrow IPC stream (for pipes: `pyarrow.ipc.open_stream`).
    Arrow,
    /// The arbiter's page: one self-contained HTML file (give -o FILE)
    /// with the counts per code, and for each game with findings, the
    /// position before each move found wrong on a board, with the
    /// suggested repairs (README "The arbiter's page").
    Html,
}

#[derive(Debug, Clone, Args)]
pub struct AnnotateOutcomeArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// Output format: one CSV row or JSON object per game, or the games
    /// written back as PGN with the outcome as tags and comments. Damaged
    /// movetext (an unclosed comment or variation, a stray `)` or `}`, no
    /// termination marker, or one that disagrees with the Result tag) is
    /// reported on standard error as `validate` reports it, exit status 1;
    /// the game keeps its row (the Result tag is the recorded result) and
    /// is written back without what could not be read.
    #[arg(short = 'f', long, value_enum, default_value_t = AnnotateFormat::Csv)]
    pub format: AnnotateFormat,

    /// Which reading of the rules to apply.
    #[arg(long, value_enum, default_value_t = RulesProfile::Fide)]
    pub rules: RulesProfile,

    /// Which Laws judge each game: `date` (default) those in force when it
    /// was played, by its `Date` tag, else its `EventDate` (a year alone
    /// decides what changed on 1 January, and what changed on 1 July in
    /// any other year); `current` today's Laws for every game; a day
    /// `YYYY-MM-DD` the Laws in force that day for every game. Dated:
    /// the automatic draws of 9.6 (fivefold repetition, 75 moves) from
    /// 1 July 2014, 5.1.2's exception for a resignation against a player
    /// who cannot mate from 1 January 2023 (README "Which Laws"). An
    /// undated game, or one whose date cannot decide, follows today's
    /// Laws. Only `--rules fide` dates
    /// the Laws: `app` and `online` are software, which applies the same
    /// rules to games of every date.
    #[arg(long, value_name = "WHEN", default_value = "date")]
    pub laws: crate::rules::laws::LawsChoice,

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

    /// Write only the games whose outcome an arbiter must look at (in any
    /// format): a result the rules contradict or two results that
    /// disagree, a game not replayed, a dead position, a draw that could
    /// have been claimed in a game not drawn, a loss that stood although the
    /// winner could not mate, an undecided question. `-f text` and `-f html`
    /// write only those anyway.
    #[arg(long)]
    pub problems: bool,

    #[command(flatten)]
    pub html: HtmlArgs,
}

/// The page's options (`-f html`).
#[derive(Debug, Clone, Args)]
pub struct HtmlArgs {
    /// With `-f html`: draw a board for at most N findings (the first, in
    /// input order); the rest are listed in a table with their FEN.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub html_boards: u64,
}

/// Output formats of `annotate-outcome`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AnnotateFormat {
    /// One row per game.
    Csv,
    /// Every game written back, with outcome tags and comments (damaged
    /// movetext without what could not be read).
    Pgn,
    /// One JSON object per game: the CSV columns, `error` as a struct and
    /// `helpmate` as a list (docs/records.md).
    Jsonl,
    /// The JSON Lines columns, typed, as a Parquet file (give -o FILE, or
    /// redirect standard output: never a terminal); `tags` is a map.
    Parquet,
    /// The JSON Lines columns, typed, as an Arrow IPC stream.
    Arrow,
    /// One line per game whose outcome an arbiter must look at:
    /// `FILE:LINE: game G (White - Black; Event, round R): RESULT: what`.
    Text,
    /// The arbiter's page: one self-contained HTML file (give -o FILE)
    /// with the counts, and for each game to look at, the position it is
    /// about on a board (README "The arbiter's page").
    Html,
}

/// Rule profiles: the FIDE Laws, or the readings of apps and online sites
/// (the README says what each changes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RulesProfile {
    /// The FIDE Laws of Chess: those in force when each game was played,
    /// unless `--laws` says otherwise.
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

    /// Depth to count to (0 counts the position itself; at most 1000).
    /// Required unless `--suite` is given; with it, the largest depth
    /// checked.
    #[arg(short = 'd', long, value_name = "N",
          value_parser = clap::value_parser!(u32).range(..=i64::from(crate::rules::perft::MAX_DEPTH)))]
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

    /// Verify a whole perft suite (EPD `;D1 20` lines or `epd`/`perft`
    /// blocks); `-` reads standard input.
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

    /// With `--to jsonl`: leave out each move's `fen_after` (null), about
    /// half of a record's bytes.
    #[arg(long)]
    pub no_fen: bool,

    /// With `--to fen|epd`: the final position only, or every position.
    #[arg(long, value_enum, default_value_t = Positions::Final)]
    pub positions: Positions,

    /// With `--to csv`: exactly these tags after the Seven Tag Roster
    /// (comma-separated). Default: every tag the first 1,000 games use.
    /// `--tags all`: every tag any game uses, in order of first appearance
    /// (the inputs are read twice, so they must be regular files, not a
    /// pipe or standard input). Whatever the tags, the `start_fen` column keeps the start position
    /// (empty for the standard one), and every game gets a row, with the
    /// `error` column saying why one could not be converted.
    #[arg(long, value_name = "T1,T2", value_delimiter = ',')]
    pub tags: Option<Vec<String>>,

    /// With `--to parquet` or `--to arrow`: fill the `san` column, the main
    /// line in normalised SAN.
    #[arg(long)]
    pub san: bool,
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
    /// A row per game, typed: the Seven Tag Roster and well-known tags as
    /// columns (`date`, `white_elo`, …), every tag in the `tags` map, `uci`
    /// (and `san` with `--san`) as lists, as a Parquet file (give -o FILE,
    /// or redirect standard output: never a terminal).
    Parquet,
    /// The Parquet columns as an Arrow IPC stream (for pipes).
    Arrow,
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
