//! The command line, as clap derive definitions and nothing else.
//!
//! Doc comments here are the `--help` text and the man page (`man/pgnkit.1`
//! is generated from these definitions; a test fails when it drifts).

use std::path::PathBuf;

use clap::{Args, Parser};

pub use crate::api::options::{
    AnnotateOutcomeOptions, ConvertOptions, CrosstableOptions, DedupeOptions, Format, HtmlOptions,
    Keep, MergeOptions, PerftOptions, Positions, RulesProfile, RunOptions, SchemaOptions,
    SelectOptions, SourceFormat, Subcommand, ValidateOptions,
};

/// Validate, annotate, count and convert chess games (PGN) and positions (FEN),
/// exact to the FIDE Laws of Chess.
#[derive(Debug, Parser)]
#[command(name = "pgnkit", version, about, propagate_version = true,
    after_help = short_help(None), after_long_help = long_help(None))]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Replay every game and report every problem: illegal, ambiguous or
    /// malformed moves, bad FEN or tags, moves after the end, wrong results.
    #[command(after_help = short_help(Some(Subcommand::Validate)), after_long_help = long_help(Some(Subcommand::Validate)))]
    Validate(ValidateArgs),
    /// Say what the FIDE Laws say happened in every game: mate, stalemate,
    /// dead position, repetitions, move-count rules, unfair losses.
    #[command(
        after_help = short_help(Some(Subcommand::AnnotateOutcome)),
        after_long_help = long_help(Some(Subcommand::AnnotateOutcome))
    )]
    AnnotateOutcome(AnnotateOutcomeArgs),
    /// Count the leaf nodes of the legal move tree from a position.
    #[command(after_help = short_help(Some(Subcommand::Perft)), after_long_help = long_help(Some(Subcommand::Perft)))]
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
    #[command(after_help = short_help(Some(Subcommand::Convert)), after_long_help = long_help(Some(Subcommand::Convert)))]
    Convert(ConvertArgs),
    /// Find the games that are one game (the same start position and moves,
    /// however written) and write each once.
    ///
    /// Two games are one game when they start from the same position (the
    /// FEN and Variant tags, Chess960 included) and play the same main line
    /// as moves: `O-O` or `0-0`, `Nf3` or `Ngf3`, check marks, comments,
    /// variations, line breaks, tags and the result do not count (the
    /// `key` column of `convert`). Each repeat is told apart from the copy
    /// kept: `exact` (the same tags), `tags-differ` (which tags) or
    /// `result-differs`. A game that cannot be replayed is never grouped.
    /// The inputs are read twice (once to find the repeats, once to write),
    /// so they must be files, not standard input.
    #[command(after_help = short_help(Some(Subcommand::Dedupe)), after_long_help = long_help(Some(Subcommand::Dedupe)))]
    Dedupe(DedupeArgs),
    /// Each event's standings and crosstable, from the results.
    ///
    /// Groups the games by event (one `Event` tag, one `Site` and one
    /// `EventDate`, or year of `Date`), reads each game's round (`Round "5"`, or `"5.3"`:
    /// round 5, board 3), players (one `FideId`, or one name up to case,
    /// accents, punctuation and word order) and result, and counts the
    /// points: byes (a side named `BYE`), forfeits (`Termination
    /// "forfeit"`) and games without moves score as their result says and
    /// are marked unplayed. A round-robin (no more players than rounds plus
    /// one) gets a grid and Sonneborn-Berger, a Swiss its rounds and
    /// Buchholz. A repeat of a game (the same moves, `duplicate-game`)
    /// counts once. What contradicts itself (a player twice in a round, a
    /// round missing, a name written two ways) is `validate`'s to report.
    #[command(after_help = short_help(Some(Subcommand::Crosstable)), after_long_help = long_help(Some(Subcommand::Crosstable)))]
    Crosstable(CrosstableArgs),
    /// Select games by tag, player, date, rating, opening, length, move,
    /// position, pieces on squares or material.
    ///
    /// Writes the games selected byte for byte as they were read (`-f
    /// pgn`, the default), a line each naming the game and the ply that
    /// matched (`-f text`), or their game records (`-f csv|jsonl|parquet|
    /// arrow`, as `convert` writes them, with `match_ply`). Every criterion
    /// given must hold; a flag repeated means "any of". The criteria on
    /// tags are decided before any move is read; the rest in one replay of
    /// the main line that stops as soon as the answer is known. A game
    /// whose main line stops (a move that is not legal) before a criterion
    /// on its moves is decided is not judged: it is reported, left out, and
    /// makes the exit status 1. The same criteria select the games of
    /// `convert` and `annotate-outcome`.
    #[command(after_help = short_help(Some(Subcommand::Select)), after_long_help = long_help(Some(Subcommand::Select)))]
    Select(SelectArgs),
    /// Merge the CSV, JSON Lines, Parquet or Arrow outputs of `--byte-range`
    /// shards into the output one run over the whole file gives.
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
    #[command(after_help = short_help(Some(Subcommand::Merge)), after_long_help = long_help(Some(Subcommand::Merge)))]
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
    #[command(after_help = short_help(Some(Subcommand::Schema)), after_long_help = long_help(Some(Subcommand::Schema)))]
    Schema(SchemaArgs),
    /// Print a completion script for a shell on standard output.
    #[command(
        after_help = short_help(Some(Subcommand::Completions)),
        after_long_help = long_help(Some(Subcommand::Completions))
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

/// The finding codes of `validate` and their severity (docs/codes.md).
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
notation             warning  a move in a form the export format does not use, read as the
                              move it means: castling with zeros (0-0), a pawn's P (Pe4)
layout               warning  damage the reader recovers from (blank lines inside a game,
                              text between or after games, NUL bytes, a glued tag,
                              control characters in a tag value or a comment)
invalid-command      warning  a [%clk …] or [%eval …] in a comment that cannot be read
                              (read as none, never as zero), a second one for a move
                              (the first readable one counts), a mate distance of 0, a
                              clock past the millisecond
played-on            warning  a move after the game had ended automatically, the recorded
                              result being the one that end gives (move-after-end otherwise)
duplicate-game       warning  the same moves from the same start as an earlier game of the
                              run (not with --byte-range: a shard sees only its own games)
clock-mismatch       warning  the clocks do not give a move's time: no clock after it (or
                              after the mover's previous move), or a clock that went up by
                              more than the TimeControl tag adds
eco-mismatch         note     ECO or Opening tags that disagree with the openings table;
                              off unless --enable eco-mismatch (or --only) names it
paired-twice         warning  a player in two games of one round of an event, against
                              different opponents (the tournament checks: not with
                              --byte-range)
board-twice          warning  two games of different pairings on one board of one round
round-missing        warning  a round with no game between two rounds that have games
round-order          warning  a game of a round after games of a later round of its event
name-variant         warning  one player (one FideId, or one name up to case, accents,
                              punctuation and word order) written two ways in one event
pairing-repeated     warning  two players meeting more often than the event allows (once
                              in a Swiss or a round-robin, once a cycle in a double one)";

/// The subcommand `name` names (`None` for `pgnkit`, the top level), or
/// `Err` for a name that is neither.
fn command_named(name: &str) -> Result<Option<Subcommand>, ()> {
    match name {
        "pgnkit" => Ok(None),
        _ => Subcommand::from_name(name).map(Some).ok_or(()),
    }
}

/// The examples of `command`'s `--help` (`pgnkit` for the top level).
pub fn examples(command: &str) -> &'static [Example] {
    command_named(command).map_or(&[], examples_of)
}

/// The examples of `command`'s `--help` (`None` for the top level).
pub fn examples_of(command: Option<Subcommand>) -> &'static [Example] {
    macro_rules! ex {
        ($what:expr, $command:expr $(,)?) => {
            Example {
                what: $what,
                command: $command,
            }
        };
    }
    match command {
        None => &[
            ex!(
                "Validate real games (exit status 1: one has an error, one a warning)",
                "pgnkit validate fixtures/pgn/twic1599_excerpt.pgn fixtures/pgn/illegal_move_ply_61.pgn",
            ),
            ex!(
                "Count the moves of the start position to depth 5",
                "pgnkit perft -d 5"
            ),
        ],
        Some(Subcommand::Validate) => &[
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
        Some(Subcommand::AnnotateOutcome) => &[
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
        Some(Subcommand::Perft) => &[
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
        Some(Subcommand::Convert) => &[
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
        Some(Subcommand::Crosstable) => &[
            ex!(
                "The standings and crosstable of each event of a file",
                "pgnkit crosstable fixtures/tournament/twic1599_events.pgn",
            ),
            ex!(
                "One CSV row per player, to sort and join",
                "pgnkit crosstable -f csv fixtures/tournament/twic1599_events.pgn",
            ),
            ex!(
                "One event of a larger archive",
                "pgnkit select --tag 'Event~^Shamakhi' ARCHIVE.pgn | pgnkit crosstable -",
            ),
        ],
        Some(Subcommand::Dedupe) => &[
            ex!(
                "Each game once, as it was read (the repeats left out)",
                "pgnkit dedupe fixtures/dedupe/planted.pgn > unique.pgn",
            ),
            ex!(
                "The groups of repeats, and what differs in each copy",
                "pgnkit dedupe -f text fixtures/dedupe/planted.pgn",
            ),
            ex!(
                "Keep the copy with the most tags; the others to a file of their own",
                "pgnkit dedupe --keep most-tags --duplicates dups.pgn fixtures/dedupe/planted.pgn > unique.pgn",
            ),
        ],
        Some(Subcommand::Select) => &[
            ex!(
                "The games of one player, byte for byte as they were read",
                "pgnkit select --player praggnanandhaa fixtures/pgn/twic1599_excerpt.pgn > pragg.pgn",
            ),
            ex!(
                "Games in which Black castled queenside, and the move that did it",
                "pgnkit select -f text --move black:O-O-O fixtures/openings/lichess-2025-05-01.pgn",
            ),
            ex!(
                "Rook endings (a rook and pawns each), as CSV records",
                "pgnkit select -f csv --material 'KRP*krp*' fixtures/openings/lichess-2025-05-01.pgn",
            ),
        ],
        Some(Subcommand::Merge) => &[
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
        Some(Subcommand::Schema) => &[
            ex!(
                "The columns annotate-outcome writes",
                "pgnkit schema annotate-outcome",
            ),
            ex!(
                "Every record kind as JSON, for a program",
                "pgnkit schema --json",
            ),
        ],
        Some(Subcommand::Completions) => &[
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
    command_named(command).map_or_else(|()| Vec::new(), sections_of)
}

/// The sections after the options of `command` (`None` for the top
/// level), as [`help_sections`].
pub fn sections_of(command: Option<Subcommand>) -> Vec<HelpSection> {
    let section = |title, body: &str| HelpSection {
        title,
        body: body.to_owned(),
    };
    let mut sections = Vec::new();
    match command {
        Some(Subcommand::Validate) => {
            sections.push(section(
                "Report columns",
                &format!(
                    "csv and jsonl (docs/records.md, `pgnkit schema validate`):\n{}\n\
                     text: FILE:LINE: game G (White - Black; Event, round R), ply P (12...Nf3):\n\
                     code: message; did you mean 12...Nd2?\n\
                     html: the arbiter's page, a board at each finding (docs/validate.md).\n\
                     offset is the byte offset of the game in its file, line and ply are\n\
                     1-based; ply and san are empty when no move is to blame.",
                    columns_help(&crate::schema::finding::FINDING)
                ),
            ));
            sections.push(section("Finding codes", FINDING_CODES));
        }
        Some(Subcommand::AnnotateOutcome) => sections.push(section(
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
        Some(Subcommand::Crosstable) => sections.push(section(
            "Report columns",
            &format!(
                "{}\n\
                 One record per player of each event (docs/records.md, `pgnkit\n\
                 schema crosstable`).",
                columns_help(&crate::schema::standing::STANDING)
            ),
        )),
        Some(Subcommand::Dedupe) => sections.push(section(
            "Report columns",
            &format!(
                "{}\n\
                 One record per game of a group of repeats (docs/records.md,\n\
                 `pgnkit schema dedupe`); -f pgn writes the games kept instead.",
                columns_help(&crate::schema::duplicate::DUPLICATE)
            ),
        )),
        Some(Subcommand::Select) => sections.push(section(
            "Report columns",
            "-f text: FILE:LINE: game G (White - Black; Event, round R), then\n\
             `: ply P (after 12...Nf3)` where a position or move matched. -f csv, jsonl,\n\
             parquet and arrow: the game records of `convert` (docs/records.md, `pgnkit\n\
             schema convert`), match_ply the ply a position or move criterion matched.",
        )),
        Some(Subcommand::Convert) => sections.push(section(
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
        Some(Subcommand::Merge) => sections.push(section("Exit status", MERGE_EXIT_STATUS)),
        Some(Subcommand::Completions | Subcommand::Schema) => {}
        _ => sections.push(section("Exit status", EXIT_STATUS)),
    }
    let examples = examples_of(command);
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
fn long_help(command: Option<Subcommand>) -> String {
    render_sections(&sections_of(command))
}

/// What `-h` prints after the options: the exit status and the examples.
fn short_help(command: Option<Subcommand>) -> String {
    let mut sections = sections_of(command);
    sections.retain(|s| matches!(s.title, "Exit status" | "Examples"));
    render_sections(&sections)
}

/// `schema`'s arguments: its options are all there is.
#[derive(Debug, Clone, Args)]
pub struct SchemaArgs {
    #[command(flatten)]
    pub options: SchemaOptions,
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

    #[command(flatten)]
    pub options: MergeOptions,
}

/// The inputs of a streaming subcommand.
#[derive(Debug, Clone, Args)]
pub struct InputArgs {
    /// PGN files to read; `-` or none reads standard input. zstd, gzip and
    /// bzip2 input is detected by content and decompressed on the fly. A
    /// directory is walked recursively, sorted by path, for files named
    /// `*.pgn`, `*.pgn.zst`, `*.pgn.gz` or `*.pgn.bz2` (any case).
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

impl InputArgs {
    /// The inputs as the library takes them.
    pub fn inputs(&self) -> Vec<crate::stream::Input> {
        self.files
            .iter()
            .cloned()
            .map(crate::stream::Input::Path)
            .collect()
    }
}

/// `validate`'s arguments: the inputs, then the options.
#[derive(Debug, Clone, Args)]
pub struct ValidateArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub options: ValidateOptions,
}

/// `annotate-outcome`'s arguments: the inputs, then the options.
#[derive(Debug, Clone, Args)]
pub struct AnnotateOutcomeArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub options: AnnotateOutcomeOptions,
}

/// `convert`'s arguments: the inputs, then the options.
#[derive(Debug, Clone, Args)]
pub struct ConvertArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub options: ConvertOptions,
}

/// `select`'s arguments: the inputs, then the options.
#[derive(Debug, Clone, Args)]
pub struct SelectArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub options: SelectOptions,
}

/// `crosstable`'s arguments: the inputs, then the options.
#[derive(Debug, Clone, Args)]
pub struct CrosstableArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub options: CrosstableOptions,
}

/// `dedupe`'s arguments: the inputs, then the options.
#[derive(Debug, Clone, Args)]
pub struct DedupeArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub options: DedupeOptions,
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

    #[command(flatten)]
    pub options: PerftOptions,
}

/// Each subcommand's arguments read as its options (`args.divide`).
macro_rules! options_of {
    ($($args:ty => $options:ty),* $(,)?) => {$(
        impl std::ops::Deref for $args {
            type Target = $options;
            fn deref(&self) -> &$options {
                &self.options
            }
        }
    )*};
}

options_of! {
    ValidateArgs => ValidateOptions,
    AnnotateOutcomeArgs => AnnotateOutcomeOptions,
    ConvertArgs => ConvertOptions,
    DedupeArgs => DedupeOptions,
    CrosstableArgs => CrosstableOptions,
    SelectArgs => SelectOptions,
    PerftArgs => PerftOptions,
    MergeArgs => MergeOptions,
    SchemaArgs => SchemaOptions,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn verify_cli() {
        Cli::command().debug_assert();
    }

    /// The options' defaults are the command line's (the library's callers
    /// get what a bare subcommand does).
    #[test]
    fn defaults_are_the_command_lines() {
        let parse = |argv: &[&str]| {
            let argv = std::iter::once("pgnkit").chain(argv.iter().copied());
            Cli::try_parse_from(argv).expect("parses").command
        };
        match parse(&["validate"]) {
            Command::Validate(a) => assert_eq!(a.options, ValidateOptions::default()),
            other => panic!("{other:?}"),
        }
        match parse(&["annotate-outcome"]) {
            Command::AnnotateOutcome(a) => {
                assert_eq!(a.options, AnnotateOutcomeOptions::default());
            }
            other => panic!("{other:?}"),
        }
        // `-f` is required on the command line; the default is PGN.
        match parse(&["convert", "-f", "pgn"]) {
            Command::Convert(a) => assert_eq!(a.options, ConvertOptions::default()),
            other => panic!("{other:?}"),
        }
        match parse(&["convert", "--to", "pgn"]) {
            Command::Convert(a) => assert_eq!(a.options, ConvertOptions::default()),
            other => panic!("{other:?}"),
        }
        match parse(&["perft"]) {
            Command::Perft(a) => assert_eq!(a.options, PerftOptions::default()),
            other => panic!("{other:?}"),
        }
        match parse(&["merge", "x.csv"]) {
            Command::Merge(a) => assert_eq!(a.options, MergeOptions::default()),
            other => panic!("{other:?}"),
        }
        match parse(&["schema"]) {
            Command::Schema(a) => assert_eq!(a.options, SchemaOptions::default()),
            other => panic!("{other:?}"),
        }
    }

    /// Each subcommand takes only its own formats.
    #[test]
    fn formats_are_per_subcommand() {
        let parses = |argv: &[&str]| {
            Cli::try_parse_from(std::iter::once("pgnkit").chain(argv.iter().copied())).is_ok()
        };
        assert!(parses(&["validate", "-f", "html"]));
        assert!(!parses(&["validate", "-f", "pgn"]));
        assert!(parses(&["annotate-outcome", "-f", "pgn"]));
        assert!(!parses(&["convert", "-f", "html"]));
        assert!(parses(&["convert", "-t", "uci"]));
        assert!(!parses(&["merge", "x", "-f", "text"]));
    }
}
