//! The typed options of every subcommand: what the command line's flags
//! mean, as structs a program fills in ([`crate::api`] takes them). clap
//! builds them from the command line ([`crate::cli`] flattens each into its
//! subcommand), and [`Default`] gives what the command line gives when no
//! flag is set (a test checks it).
//!
//! Doc comments here are the `--help` text and the man page.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

pub use crate::format::{Format, FormatParser, Subcommand};
use crate::rules::laws::LawsChoice;
use crate::rules::select;

/// What fails a `validate` run by default (`--fail-on`): a finding of
/// severity error.
pub const DEFAULT_FAIL_ON: &str = "error";

/// The transposition table's default size in MiB (`perft --hash`).
pub const DEFAULT_HASH_MIB: usize = 64;

/// How a streaming subcommand reads its inputs and where its product goes:
/// shared by `validate`, `annotate-outcome` and `convert`. The default is
/// the command line's: every core, standard output, progress shown.
#[derive(Debug, Clone, Default, PartialEq, Eq, Args)]
pub struct RunOptions {
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

    /// The most bytes one game may take (a number, or with K, M or G for
    /// KiB, MiB, GiB). A longer game, or a longer stretch of text where no
    /// game starts (a decompression bomb), is skipped and reported with its
    /// byte range, never held in memory; the run goes on after it and
    /// exits 1. A line of a FEN, EPD or UCI input longer than this is
    /// skipped the same way.
    #[arg(long, value_name = "SIZE", default_value_t)]
    pub max_game_bytes: ByteSize,
}

/// A size in bytes, as `--max-game-bytes` takes it: `1048576`, `512K`,
/// `32M`, `2G` (binary multiples).
///
/// # Examples
///
/// ```
/// use pgnkit::api::options::ByteSize;
/// assert_eq!("32M".parse::<ByteSize>().unwrap().0, 32 << 20);
/// assert_eq!("1000".parse::<ByteSize>().unwrap().0, 1000);
/// assert!("0".parse::<ByteSize>().is_err());
/// assert!("12X".parse::<ByteSize>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteSize(pub u64);

impl Default for ByteSize {
    fn default() -> ByteSize {
        ByteSize(crate::input::chunk::MAX_GAME_BYTES as u64)
    }
}

impl ByteSize {
    /// The size as a buffer length (a size past memory's is memory's).
    pub fn bytes(self) -> usize {
        usize::try_from(self.0).unwrap_or(usize::MAX)
    }
}

impl std::fmt::Display for ByteSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (shift, unit) in [(30, "G"), (20, "M"), (10, "K")] {
            if self.0 >= 1 << shift && self.0.is_multiple_of(1 << shift) {
                return write!(f, "{}{unit}", self.0 >> shift);
            }
        }
        write!(f, "{}", self.0)
    }
}

impl std::str::FromStr for ByteSize {
    type Err = String;

    fn from_str(text: &str) -> Result<ByteSize, String> {
        let (digits, shift) = match text.char_indices().last() {
            Some((i, 'k' | 'K')) => (&text[..i], 10),
            Some((i, 'm' | 'M')) => (&text[..i], 20),
            Some((i, 'g' | 'G')) => (&text[..i], 30),
            _ => (text, 0),
        };
        let refused = || format!("{text:?}: give a number of bytes, or with K, M or G (32M)");
        let n: u64 = digits.parse().map_err(|_| refused())?;
        let n = n.checked_mul(1 << shift).ok_or_else(refused)?;
        if n == 0 {
            return Err(refused());
        }
        Ok(ByteSize(n))
    }
}

/// The options of `validate` ([`crate::api::validate`]).
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct ValidateOptions {
    #[command(flatten)]
    pub run: RunOptions,

    /// Report format: one line per finding.
    #[arg(short = 'f', long, value_parser = FormatParser(Subcommand::Validate), default_value = "text")]
    pub format: Format,

    /// Neither report nor count findings of these codes (comma-separated,
    /// or the flag repeated), e.g. `--ignore layout,check-suffix`.
    #[arg(long, value_name = "CODE", value_delimiter = ',')]
    pub ignore: Vec<String>,

    /// Report and count only findings of these codes (comma-separated, or
    /// the flag repeated); `--ignore` then drops some of these.
    #[arg(long, value_name = "CODE", value_delimiter = ',')]
    pub only: Vec<String>,

    /// Also report these codes, which are off by default (the notes:
    /// `eco-mismatch`); comma-separated, or the flag repeated.
    #[arg(long, value_name = "CODE", value_delimiter = ',')]
    pub enable: Vec<String>,

    /// With `eco-mismatch`: compare the tags with the openings of the
    /// table in FILE (TSV or PGN, as `convert --openings`) instead of
    /// lichess's.
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,

    /// What makes the exit status 1: `error` (a reported finding of
    /// severity error), `warning` (any reported finding), `never`, or a
    /// comma-separated list of codes (and of `error` / `warning`). A run
    /// that could not read an input exits 2 whatever this says.
    #[arg(
        long,
        value_name = "WHEN",
        value_delimiter = ',',
        default_value = DEFAULT_FAIL_ON
    )]
    pub fail_on: Vec<String>,

    /// Add these tags' values to each finding, as a chief arbiter files
    /// them (`--tags Board,WhiteFideId`): in CSV one column each, after the
    /// others; in JSON Lines a `tags` object, `null` when a game lacks the
    /// tag. Every finding already names its game's players, event and round.
    #[arg(long, value_name = "T1,T2", value_delimiter = ',')]
    pub tags: Option<Vec<String>>,

    /// Write every game with an error finding, or a finding whose code
    /// `--fail-on` names (the games that fail the run; after `--ignore` and
    /// `--only`; other warnings leave a game good) to FILE, byte for byte
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

    /// Write every other game (no finding that makes it bad) to FILE, as `--bad-games`
    /// writes those with one: the two together hold every game of the
    /// inputs once.
    #[arg(long, value_name = "FILE")]
    pub good_games: Option<PathBuf>,

    /// Write every game read to FILE with each full repair applied (one
    /// repair that replays the rest of the game, not a tie; moves written
    /// after a mate or stalemate dropped) as a minimal edit of its bytes:
    /// only the changed move tokens differ, each change followed by a
    /// comment that says what was written and why it changed; tags,
    /// comments, line breaks and encoding stay as they were. The games'
    /// bytes run as for `--bad-games`. Not with `--byte-range`; a FILE that
    /// is an input, standard output or another output is refused, exit 2.
    #[arg(long, value_name = "FILE")]
    pub fix: Option<PathBuf>,

    /// Which Laws judge each game: `date` (default) those in force when it
    /// was played, by its `Date` tag, else its `EventDate` (a year alone
    /// decides what changed on 1 January, and what changed on 1 July in
    /// any other year); `current` today's Laws for every game; a day
    /// `YYYY-MM-DD` the Laws in force that day for every game. Dated:
    /// the automatic draws of 9.6 (fivefold repetition, 75 moves) from
    /// 1 July 2014, 5.1.2's exception for a resignation against a player
    /// who cannot mate from 1 January 2023 (docs/outcomes.md "Which Laws"). An
    /// undated game, or one whose date cannot decide, follows today's
    /// Laws.
    #[arg(long, value_name = "WHEN", default_value = "date")]
    pub laws: crate::rules::laws::LawsChoice,

    #[command(flatten)]
    pub html: HtmlOptions,
}

impl Default for ValidateOptions {
    fn default() -> ValidateOptions {
        ValidateOptions {
            run: RunOptions::default(),
            format: Format::Text,
            ignore: Vec::new(),
            only: Vec::new(),
            enable: Vec::new(),
            openings: None,
            fail_on: vec![DEFAULT_FAIL_ON.to_owned()],
            tags: None,
            bad_games: None,
            good_games: None,
            fix: None,
            laws: LawsChoice::default(),
            html: HtmlOptions::default(),
        }
    }
}

/// The options of `annotate-outcome` ([`crate::api::annotate_outcome`]).
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct AnnotateOutcomeOptions {
    #[command(flatten)]
    pub run: RunOptions,

    /// Output format: one CSV row or JSON object per game, or the games
    /// written back as PGN with the outcome as tags and comments. Damaged
    /// movetext (an unclosed comment or variation, a stray `)` or `}`, no
    /// termination marker, or one that disagrees with the Result tag) is
    /// reported on standard error as `validate` reports it, exit status 1;
    /// the game keeps its row (the Result tag is the recorded result) and
    /// is written back without what could not be read.
    #[arg(short = 'f', long, value_parser = FormatParser(Subcommand::AnnotateOutcome), default_value = "csv")]
    pub format: Format,

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
    /// who cannot mate from 1 January 2023 (docs/outcomes.md "Which Laws"). An
    /// undated game, or one whose date cannot decide, follows today's
    /// Laws. Only `--rules fide` dates
    /// the Laws: `app` and `online` are software, which applies the same
    /// rules to games of every date.
    #[arg(long, value_name = "WHEN", default_value = "date")]
    pub laws: crate::rules::laws::LawsChoice,

    /// With `--format pgn`: the games as they were read, with only the
    /// Result tag and the termination marker changed where the rules give
    /// another result, and a comment before the marker keeping the result
    /// that was written and why it changed (an error with the other
    /// formats).
    #[arg(long)]
    pub fix_results: bool,

    /// With `--fix-results`: write the `Pgnkit*` tags and comments too, as
    /// `-f pgn` alone does (the movetext is then written anew).
    #[arg(long, requires = "fix_results")]
    pub pgnkit_tags: bool,

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

    /// Classify openings by the table in FILE instead of lichess's
    /// (embedded): a TSV of its columns `eco`, `name`, `pgn`, or a PGN file
    /// of opening lines as pgn-extract's `eco.pgn` (named by the `ECO`,
    /// `Opening`, `Variation` and `SubVariation` tags).
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,

    #[command(flatten)]
    pub html: HtmlOptions,

    #[command(flatten)]
    pub selection: Selection,
}

impl Default for AnnotateOutcomeOptions {
    fn default() -> AnnotateOutcomeOptions {
        AnnotateOutcomeOptions {
            run: RunOptions::default(),
            format: Format::Csv,
            rules: RulesProfile::default(),
            laws: LawsChoice::default(),
            fix_results: false,
            pgnkit_tags: false,
            tags: None,
            problems: false,
            openings: None,
            html: HtmlOptions::default(),
            selection: Selection::default(),
        }
    }
}

/// The page's options (`-f html`).
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct HtmlOptions {
    /// With `-f html`: draw a board for at most N findings (the first, in
    /// input order); the rest are listed in a table with their FEN.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub html_boards: u64,
}

impl Default for HtmlOptions {
    fn default() -> HtmlOptions {
        HtmlOptions { html_boards: 1000 }
    }
}

/// Rule profiles: the FIDE Laws, or the readings of apps and online sites
/// (docs/outcomes.md "Profiles" says what each changes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum RulesProfile {
    /// The FIDE Laws of Chess: those in force when each game was played,
    /// unless `--laws` says otherwise.
    #[default]
    Fide,
    /// Apps with a claim button: claims only once the repetition or the 50
    /// moves have happened; material draws only in the three simple cases.
    App,
    /// Sites without an arbiter: threefold and fifty moves draw at once;
    /// a loss on time is a draw only against a bare king.
    Online,
}

/// The options of `perft` ([`crate::api::perft`]); the position is an
/// argument of its own.
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct PerftOptions {
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
    #[arg(long, value_name = "MB", default_value_t = DEFAULT_HASH_MIB)]
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

impl Default for PerftOptions {
    fn default() -> PerftOptions {
        PerftOptions {
            depth: None,
            divide: false,
            chess960: false,
            moves: None,
            threads: None,
            hash: DEFAULT_HASH_MIB,
            suite: None,
            max_nodes: None,
            quiet: false,
        }
    }
}

/// Which copy of a game `dedupe` keeps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Keep {
    /// The first copy read.
    #[default]
    First,
    /// The longest record (the most bytes: comments, clocks, analysis), the
    /// first of those.
    Longest,
    /// The copy with the most tags, the first of those.
    MostTags,
}

/// The options of `crosstable` ([`crate::api::crosstable`]).
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct CrosstableOptions {
    #[command(flatten)]
    pub run: RunOptions,

    /// Output format.
    #[arg(short = 'f', long, value_name = "FORMAT",
          value_parser = FormatParser(Subcommand::Crosstable), default_value = "text")]
    pub format: Format,
}

impl Default for CrosstableOptions {
    fn default() -> CrosstableOptions {
        CrosstableOptions {
            run: RunOptions::default(),
            format: Format::Text,
        }
    }
}

/// The options of `dedupe` ([`crate::api::dedupe`]). It reads its inputs
/// twice (once to find the repeats, once to write), so they must be files.
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct DedupeOptions {
    #[command(flatten)]
    pub run: RunOptions,

    /// Output format: the games kept (`pgn`), or the report of the groups.
    #[arg(short = 'f', long, value_name = "FORMAT",
          value_parser = FormatParser(Subcommand::Dedupe), default_value = "pgn")]
    pub format: Format,

    /// Which copy of a repeated game is kept.
    #[arg(long, value_enum, value_name = "WHICH", default_value_t)]
    pub keep: Keep,

    /// Also group games that reach the same final position in as many
    /// plies by another move order (kind `transposed`: what pgn-extract -D
    /// calls a duplicate).
    #[arg(long)]
    pub transpositions: bool,

    /// Group only games with one key: truncated copies (kind `prefix`) are
    /// not looked for, which saves a read of the longer games of each
    /// pairing (what the Spark job's dedupe finds).
    #[arg(long)]
    pub no_prefix: bool,

    /// Which games of the inputs are already in ARCHIVE (a file or a
    /// directory; repeat the flag for more): those are left out as repeats
    /// of the archive's copy, and the report lists only groups that hold a
    /// game of the inputs. The archive's games are never written.
    #[arg(long, value_name = "ARCHIVE")]
    pub against: Vec<PathBuf>,

    /// Also write the repeats (every copy not kept), byte for byte as they
    /// were read, in input order, to FILE.
    #[arg(long, value_name = "FILE")]
    pub duplicates: Option<PathBuf>,

    /// With a report format: also write the games kept to FILE (what `-f
    /// pgn` writes).
    #[arg(long, value_name = "FILE")]
    pub unique: Option<PathBuf>,
}

impl Default for DedupeOptions {
    fn default() -> DedupeOptions {
        DedupeOptions {
            run: RunOptions::default(),
            format: Format::Pgn,
            keep: Keep::First,
            transpositions: false,
            no_prefix: false,
            against: Vec::new(),
            duplicates: None,
            unique: None,
        }
    }
}

/// Which games a run takes: `select`'s criteria, also on `convert` and
/// `annotate-outcome` (a game not selected is read and counted, and
/// nothing is written for it). Every kind given must hold; a flag
/// repeated means "any of" (two `--tag`s of one tag name: either value;
/// of two names: both).
#[derive(Debug, Clone, Default, PartialEq, Eq, Args)]
#[command(next_help_heading = "Selection")]
pub struct Selection {
    /// A tag's value: `NAME=VALUE` exactly that text, `NAME~REGEX` a match
    /// of the regular expression anywhere in it (`Event~(?i)olympiad`);
    /// any tag name, a tag the game lacks being empty (`Annotator~.`: has
    /// an annotator).
    #[arg(id = "select-tag", long = "tag", value_name = "NAME=VALUE|NAME~REGEX")]
    pub tags: Vec<select::TagTest>,

    /// A player of either side: each word given begins a word of the name,
    /// in any order, case and accents folded (`carlsen` finds "Carlsen,
    /// Magnus" and "Carlsen, M"; a name's initial matches a word too).
    #[arg(long = "player", value_name = "NAME")]
    pub players: Vec<select::Name>,

    /// The player of White, as `--player`.
    #[arg(long, value_name = "NAME")]
    pub white: Vec<select::Name>,

    /// The player of Black, as `--player`.
    #[arg(long, value_name = "NAME")]
    pub black: Vec<select::Name>,

    /// The recorded result (the `Result` tag, else the termination marker):
    /// `1-0`, `0-1`, `1/2-1/2` (or `1/2`), `*`.
    #[arg(long, value_name = "RESULT")]
    pub result: Vec<select::ResultIs>,

    /// The `Date` tag within FROM..TO, inclusive; each end a year, a month
    /// or a day (`2019`, `2019.05`, `2019.05.17`), either left out
    /// (`2020..`). A partial date (`2019.??.??`) is selected when it can
    /// fall in the range, and the summary counts those; a game without a
    /// year is not.
    #[arg(long, value_name = "FROM..TO")]
    pub date: Vec<select::DateRange>,

    /// Both players' ratings (`WhiteElo`, `BlackElo`) within MIN..MAX
    /// (`2500..`, `..1800`, `2000..2200`); a game missing one is not.
    #[arg(long, value_name = "MIN..MAX")]
    pub elo: Vec<select::Span>,

    /// The game's opening, as the `eco` column classifies it (the table's
    /// last position the game reached, `--openings`), within A00..E99: a
    /// code `C42`, a range `B90..B99` or a prefix `B9`. The `ECO` tag is
    /// `--tag ECO=...`.
    #[arg(long, value_name = "CODES")]
    pub eco: Vec<select::EcoRange>,

    /// Words of the opening's name, as the `opening` column classifies it
    /// (`--opening "sicilian najdorf"`; each word begins a word of the
    /// name, case and accents folded).
    #[arg(long, value_name = "TEXT")]
    pub opening: Vec<select::Name>,

    /// The main line's length in plies within MIN..MAX.
    #[arg(long, value_name = "MIN..MAX")]
    pub plies: Vec<select::Span>,

    /// A move of the main line, in SAN, by either side, or by one with
    /// `white:` or `black:` before it (`--move black:O-O-O`): what the SAN
    /// leaves out may be anything (`Nf3` is any knight to f3), what it
    /// says must hold (a capture `x`, a promotion, `+` check, `#` mate).
    #[arg(long, value_name = "SAN")]
    pub r#move: Vec<select::MoveTest>,

    /// A position the game reaches (or starts from), as FEN or
    /// `startpos`: the same pieces, side to move, castling rights and
    /// en-passant file as its Polyglot key counts them (the move counters do
    /// not count).
    #[arg(id = "select-position", long = "position", value_name = "FEN")]
    pub positions: Vec<select::PositionTest>,

    /// Pieces on squares in a position the game reaches: a FEN board whose
    /// empty squares may hold anything (`--sub-fen 8/8/8/8/3PP3/8/8/8`:
    /// white pawns on d4 and e4).
    #[arg(long = "sub-fen", value_name = "BOARD")]
    pub sub_fens: Vec<select::SubFen>,

    /// The material of a position the game reaches: White's pieces in
    /// capitals and Black's in small letters (`KRPkr`), or White's then
    /// Black's as two words (`"rp nb"`). After a letter a count: `R2` (or
    /// `RR`), `P*` any number, `P+` one or more, `P3+` three or more, `P3-`
    /// three or fewer; a kind not named is absent, kings may be left out.
    /// With `--position` and `--sub-fen`, all hold in one position.
    #[arg(long, value_name = "SPEC")]
    pub material: Vec<select::Material>,

    /// The material of the final position, as `--material`.
    #[arg(long, value_name = "SPEC")]
    pub final_material: Vec<select::Material>,

    /// The side to move in the position `--position`, `--sub-fen` or
    /// `--material` finds (alone: in the final position): `white` or `black`.
    #[arg(long, value_name = "SIDE")]
    pub side_to_move: Option<select::Side>,

    /// Select the games the other criteria do not (a game that could not be
    /// judged stays out).
    #[arg(long)]
    pub invert: bool,

    /// Write at most N games (the first N selected, in input order); the
    /// rest are read and counted, not judged. Not with `--byte-range`.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: Option<u64>,
}

impl Selection {
    /// The criteria, as the rules core takes them.
    pub fn criteria(&self) -> select::Criteria {
        select::Criteria {
            tags: self.tags.clone(),
            players: self.players.clone(),
            white: self.white.clone(),
            black: self.black.clone(),
            results: self.result.clone(),
            dates: self.date.clone(),
            elo: self.elo.clone(),
            eco: self.eco.clone(),
            openings: self.opening.clone(),
            plies: self.plies.clone(),
            moves: self.r#move.clone(),
            positions: self.positions.clone(),
            sub_fens: self.sub_fens.clone(),
            material: self.material.clone(),
            final_material: self.final_material.clone(),
            side_to_move: self.side_to_move,
            invert: self.invert,
        }
    }

    /// The selection of `pairs`, each an option's long name without its
    /// dashes (`sub-fen` or `sub_fen`) and a value as the command line
    /// takes it (`None` for a switch: `invert`), read by the command line's
    /// own parser: what the Python package's `where=` is.
    ///
    /// ```
    /// use pgnkit::api::Selection;
    /// let s = Selection::from_pairs([("player", Some("carlsen")), ("invert", None)]).unwrap();
    /// assert!(s.invert && s.players.len() == 1);
    /// assert!(Selection::from_pairs([("elo", Some("9..3"))]).unwrap_err().contains("--elo"));
    /// assert!(Selection::from_pairs([("colour", Some("w"))]).is_err());
    /// assert!(Selection::from_pairs([("limit", Some("-1"))]).unwrap_err().contains("--limit"));
    /// assert!(Selection::from_pairs([("player=carlsen", None)]).is_err());
    /// ```
    ///
    /// # Errors
    ///
    /// An unknown name or a value the option refuses: the command line's
    /// message.
    pub fn from_pairs<'a>(
        pairs: impl IntoIterator<Item = (&'a str, Option<&'a str>)>,
    ) -> Result<Selection, String> {
        use clap::{FromArgMatches, error::ErrorKind};
        let mut argv = vec!["where".to_owned()];
        for (name, value) in pairs {
            if name.is_empty()
                || !name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b == b'_' || b == b'-')
            {
                return Err(format!("`{name}` is not a selection criterion"));
            }
            let flag = format!("--{}", name.replace('_', "-"));
            // `--flag=value`: a value that starts with `-` stays a value.
            argv.push(match value {
                Some(v) => format!("{flag}={v}"),
                None => flag,
            });
        }
        let command = Selection::augment_args(
            clap::Command::new("where")
                .no_binary_name(false)
                .disable_help_flag(true)
                .disable_version_flag(true),
        );
        let refused = |e: clap::Error| {
            let text = e.to_string();
            let first = text.lines().next().unwrap_or_default();
            let first = first.strip_prefix("error: ").unwrap_or(first).to_owned();
            match e.kind() {
                ErrorKind::UnknownArgument => format!("{first} (not a selection criterion)"),
                _ => first,
            }
        };
        let matches = command.try_get_matches_from(argv).map_err(refused)?;
        Selection::from_arg_matches(&matches).map_err(refused)
    }

    /// Whether any criterion (or `--limit`) is given.
    pub fn is_set(&self) -> bool {
        !self.criteria().is_empty() || self.limit.is_some()
    }
}

/// The options of `select` ([`crate::api::select`]).
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct SelectOptions {
    #[command(flatten)]
    pub run: RunOptions,

    /// Output format: the games selected as they were read (`pgn`), a line
    /// each (`text`), or their game records (as `convert` writes them, with
    /// `match_ply`).
    #[arg(short = 'f', long, value_name = "FORMAT",
          value_parser = FormatParser(Subcommand::Select), default_value = "pgn")]
    pub format: Format,

    /// With `--eco` and `--opening`: classify by the table in FILE (TSV or
    /// PGN, as `convert --openings`) instead of lichess's.
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,

    #[command(flatten)]
    pub selection: Selection,
}

impl Default for SelectOptions {
    fn default() -> SelectOptions {
        SelectOptions {
            run: RunOptions::default(),
            format: Format::Pgn,
            openings: None,
            selection: Selection::default(),
        }
    }
}

/// The options of `convert` ([`crate::api::convert`]). Its default writes
/// PGN (the command line has no default: `-f` is required there).
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct ConvertOptions {
    #[command(flatten)]
    pub run: RunOptions,

    /// Output format (`--to` is another name for it).
    #[arg(short = 'f', long, visible_alias = "to", short_alias = 't', value_name = "FORMAT",
          value_parser = FormatParser(Subcommand::Convert), required = true)]
    pub format: Format,

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

    /// Classify openings by the table in FILE instead of lichess's
    /// (embedded): a TSV of its columns `eco`, `name`, `pgn`, or a PGN file
    /// of opening lines as pgn-extract's `eco.pgn` (named by the `ECO`,
    /// `Opening`, `Variation` and `SubVariation` tags).
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,

    /// With `--to pgn`: write the `ECO` and `Opening` tags of the opening
    /// the game played. `add` fills them in where a game has none and keeps
    /// a tag that disagrees (each one reported as `eco-mismatch`);
    /// `correct` also replaces one that disagrees (reported too).
    #[arg(long, value_enum, value_name = "HOW")]
    pub eco_tags: Option<EcoTags>,

    #[command(flatten)]
    pub selection: Selection,
}

/// How `convert --to pgn --eco-tags` writes the opening tags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EcoTags {
    /// Add the tags a game lacks; keep a tag that disagrees.
    Add,
    /// Add the tags a game lacks and replace a tag that disagrees.
    Correct,
}

impl Default for ConvertOptions {
    fn default() -> ConvertOptions {
        ConvertOptions {
            run: RunOptions::default(),
            format: Format::Pgn,
            from: None,
            keep_invalid: false,
            no_comments: false,
            no_nags: false,
            no_variations: false,
            no_fen: false,
            positions: Positions::Final,
            tags: None,
            san: false,
            openings: None,
            eco_tags: None,
            selection: Selection::default(),
        }
    }
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum Positions {
    #[default]
    Final,
    All,
}

/// The options of `merge` ([`crate::api::merge`]); the shards are its
/// inputs.
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct MergeOptions {
    /// Format of the shard outputs.
    #[arg(short = 'f', long, value_parser = FormatParser(Subcommand::Merge), default_value = "csv")]
    pub format: Format,

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

impl Default for MergeOptions {
    fn default() -> MergeOptions {
        MergeOptions {
            format: Format::Csv,
            output: None,
            no_header: false,
            plan: false,
            rerun: Vec::new(),
        }
    }
}

/// The options of `schema` ([`crate::api::schema`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Args)]
pub struct SchemaOptions {
    /// A subcommand (`validate`, `annotate-outcome`, `convert`) or a record
    /// kind (`finding`, `outcome`, `game`, `position`, `move`, `error`).
    #[arg(value_name = "RECORD")]
    pub record: Option<String>,
    /// One JSON object per record kind, on one line each.
    #[arg(long)]
    pub json: bool,
}
