//! `pgnkit validate`: replay every game and report every finding.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use super::options::ValidateOptions as ValidateArgs;
use super::streaming::{Product, Streaming};
use super::tournament::Added;
use super::{Diagnostics, Format as ReportFormat, Input, RecordSink, Subcommand, Summary};
use crate::error::Error;
use crate::input::error::chain;
use crate::output::annotate::TagColumns;
use crate::output::columnar::{Columnar, ColumnarSink};
use crate::output::diag;
use crate::output::html::{Arrow, Board, Head, Item, Moves, Page, status_words};
use crate::output::problem_games::ProblemGames;
use crate::output::report::{self, Format, GameLabel};
use crate::output::tally::Tally;
use crate::rules::diagram::{diagrams, legal_squares, written_squares};
use crate::rules::finding::Finding;
use crate::rules::finding::{Code, Severity};
use crate::rules::game::decode_text;
use crate::rules::game::{RawGame, recorded_result};
use crate::rules::identity::{GameKey, KeyMap, PackedKey};
use crate::rules::laws::LawsChoice;
use crate::rules::notation::{move_name, named_ply};
use crate::rules::openings::OpeningTable;
use crate::rules::setup::start_position;
use crate::rules::tournament::OwnedTags;
use crate::schema::finding::{FINDING, FindingPlace, FindingRecord};
use crate::stream::Event;
use crate::tasks::validate::{GameCheck, check_game_keyed};

/// The most players (over all events) whose crosstables the page draws:
/// an arbiter's file, not a collection (`pgnkit crosstable` has them all).
const MAX_PAGE_PLAYERS: usize = 5_000;

/// What the report is called in errors.
const PRODUCT_NAME: &str = "report";

/// Refuses a format that is not `validate`'s.
fn check_format(args: &ValidateArgs) -> Result<(), Error> {
    if !args.format.is_of(Subcommand::Validate) {
        return Err(Error::usage(format!(
            "validate does not write {}",
            args.format
        )));
    }
    Ok(())
}

/// How many finding codes there are.
const CODES: usize = Code::TALLIED.len();

/// Which findings a run reports (and counts), and which of those fail it,
/// by code: `--ignore`, `--only`, `--fail-on`.
#[derive(Debug, Clone, Copy)]
struct Policy {
    keep: [bool; CODES],
    fail: [bool; CODES],
    /// The table `eco-mismatch` compares the tags with, when it is kept.
    openings: Option<&'static OpeningTable>,
}

impl Policy {
    fn new(args: &ValidateArgs) -> Result<Policy, Error> {
        let mut keep = [args.only.is_empty(); CODES];
        for code in Code::TALLIED.into_iter().filter(|c| c.off_by_default()) {
            keep[code.index()] = false;
        }
        for code in codes("only", &args.only, &[])? {
            keep[code.index()] = true;
        }
        for code in codes("enable", &args.enable, &[])? {
            if !code.off_by_default() {
                return Err(Error::usage(format!(
                    "--enable {code}: `{code}` is reported unless --ignore or --only leave it out (--enable names the codes off by default: {})",
                    Code::ALL
                        .into_iter()
                        .filter(|c| c.off_by_default())
                        .map(Code::as_str)
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
            keep[code.index()] = true;
        }
        for code in codes("ignore", &args.ignore, &[])? {
            keep[code.index()] = false;
        }
        // A shard sees only its own games: repeats are found by a run over
        // the whole input (or `dedupe`), never by a shard.
        if args.run.byte_range.is_some() {
            let named = |list: &[String]| list.iter().any(|c| c == Code::DuplicateGame.as_str());
            if named(&args.only) || named(&args.fail_on) {
                return Err(Error::usage(
                    "duplicate-game compares each game with every earlier one of the run: \
                     a --byte-range shard cannot (find repeats across shards with \
                     `pgnkit dedupe` or `convert`'s key column)",
                ));
            }
            keep[Code::DuplicateGame.index()] = false;
            // Nor can it see a tournament whole.
            let tournament = |list: &[String]| {
                list.iter()
                    .find(|c| {
                        crate::rules::tournament::CODES
                            .iter()
                            .any(|t| t.as_str() == *c)
                    })
                    .cloned()
            };
            if let Some(code) = tournament(&args.only).or_else(|| tournament(&args.fail_on)) {
                return Err(Error::usage(format!(
                    "{code} checks an event's games together: a --byte-range shard sees only \
                     some of them (run validate over the whole file, or `pgnkit crosstable`)"
                )));
            }
            for code in crate::rules::tournament::CODES {
                keep[code.index()] = false;
            }
        }
        let mut fail = [false; CODES];
        let never = args.fail_on.iter().any(|w| w == "never");
        if never && args.fail_on.len() > 1 {
            return Err(Error::usage("--fail-on never stands alone"));
        }
        for when in &args.fail_on {
            match when.as_str() {
                "never" => {}
                "warning" => fail = [true; CODES],
                "error" => {
                    for code in Code::ALL {
                        fail[code.index()] |= code.severity() == Severity::Error;
                    }
                }
                _ => {
                    for code in codes("fail-on", std::slice::from_ref(when), KEYWORDS)? {
                        fail[code.index()] = true;
                    }
                }
            }
        }
        for when in &args.fail_on {
            if let Some(code) = Code::from_name(when)
                && !keep[code.index()]
            {
                return Err(Error::usage(format!(
                    "--fail-on {when} can never fail the run: {} leaves `{when}` out of the report",
                    if args.ignore.iter().any(|c| c == when) {
                        "--ignore"
                    } else {
                        "--only"
                    }
                )));
            }
        }
        if args.openings.is_some() && !keep[Code::EcoMismatch.index()] {
            return Err(Error::usage(
                "--openings applies to eco-mismatch, which is off: give --enable eco-mismatch",
            ));
        }
        let openings = if keep[Code::EcoMismatch.index()] {
            Some(super::openings::table(args.openings.as_deref())?)
        } else {
            None
        };
        Ok(Policy {
            keep,
            fail,
            openings,
        })
    }

    /// The kept codes in the canonical spelling a rerun is given: nothing
    /// when every code is kept, else `--only` (or `--ignore` every code).
    fn options(&self) -> Vec<String> {
        if Code::TALLIED
            .into_iter()
            .all(|c| self.keeps(c) != c.off_by_default())
        {
            return Vec::new();
        }
        let kept: Vec<&str> = Code::ALL
            .into_iter()
            .filter(|c| self.keeps(*c))
            .map(Code::as_str)
            .collect();
        if kept.is_empty() {
            let all: Vec<&str> = Code::ALL.map(Code::as_str).to_vec();
            return vec!["--ignore".to_owned(), all.join(",")];
        }
        vec!["--only".to_owned(), kept.join(",")]
    }

    fn keeps(&self, code: Code) -> bool {
        self.keep[code.index()]
    }

    fn fails(&self, code: Code) -> bool {
        self.fail[code.index()]
    }

    /// Whether a tournament check is kept: the tags of every game are
    /// then noted.
    fn tournament(&self) -> bool {
        crate::rules::tournament::CODES
            .iter()
            .any(|c| self.keeps(*c))
    }

    /// Whether exactly the errors fail the run (the default `--fail-on`):
    /// the page then says "errors" where it would say "findings".
    fn fails_on_errors_only(&self) -> bool {
        Code::ALL
            .into_iter()
            .all(|c| self.fails(c) == (c.severity() == Severity::Error))
    }
}

/// What `--fail-on` takes besides codes.
const KEYWORDS: &[&str] = &["error", "warning", "never"];

/// The codes `names` name, for the flag `--{flag}`.
///
/// # Errors
///
/// For a name that is no code, listing the valid ones (and `keywords`).
fn codes(flag: &str, names: &[String], keywords: &[&str]) -> Result<Vec<Code>, Error> {
    names
        .iter()
        .map(|name| {
            Code::from_name(name).ok_or_else(|| {
                let valid: Vec<&str> = keywords
                    .iter()
                    .copied()
                    .chain(Code::ALL.map(Code::as_str))
                    .collect();
                Error::usage(format!(
                    "--{flag}: unknown finding code `{}`; valid: {}",
                    diag::clipped(name, diag::SHOWN),
                    valid.join(", ")
                ))
            })
        })
        .collect()
}

/// The `--bad-games` and `--good-games` files, checked and created;
/// `None` without the flags.
///
/// # Errors
///
/// When a file is an input, standard output or another output, or one
/// cannot be created.
fn problem_games(
    args: &ValidateArgs,
    streaming: &Streaming<'_>,
) -> Result<Option<ProblemGames>, Error> {
    streaming.game_files(
        args.bad_games.as_deref(),
        args.good_games.as_deref(),
        "--bad-games and --good-games",
    )
}

/// Where the findings go: one sink per report format, chosen once
/// ([`Report::of`]).
enum Report<'a> {
    /// `-f text|csv|jsonl`: a line (a row) per finding.
    Lines(Format),
    /// `-f parquet|arrow`: typed rows, in batches.
    Columnar(ColumnarSink<'a>),
    /// `-f html`: the arbiter's page.
    Page(Page),
}

/// What the page shows of a game besides its findings.
struct PageGame<'n> {
    result: &'n str,
    /// The game's first line in its file.
    line: u64,
    first_move: (u32, shakmaty::Color),
    shown: &'n [Shown],
}

/// What the page shows beside a finding: the board of its position, and
/// the moves written around its move.
#[derive(Debug, Clone, Default)]
struct Shown {
    board: Option<Board>,
    moves: Option<Moves>,
}

impl<'a> Report<'a> {
    /// The sink of `args.format`: the one dispatch from format to writer.
    fn of(
        args: &ValidateArgs,
        streaming: &Streaming<'_>,
        batches: Option<Box<dyn super::BatchSink + 'a>>,
    ) -> Result<Report<'a>, Error> {
        Ok(match args.format {
            ReportFormat::Csv => Report::Lines(Format::Csv),
            ReportFormat::Jsonl => Report::Lines(Format::Jsonl),
            ReportFormat::Html => Report::Page(Page::new(
                Subcommand::Validate.name(),
                args.html.html_boards,
            )),
            format => match Columnar::of(format) {
                Some(c) => Report::Columnar(streaming.columnar(c, &FINDING, batches)?),
                None => Report::Lines(Format::Text),
            },
        })
    }

    /// The header, when the format has one (`header`: not `--no-header`).
    fn header(
        &mut self,
        out: &mut dyn Write,
        header: bool,
        tags: &[String],
    ) -> std::io::Result<()> {
        match self {
            Report::Lines(format) => report::write_header(out, *format, header, tags),
            Report::Columnar(_) | Report::Page(_) => Ok(()),
        }
    }

    /// Writes `findings` of one game (or one finding outside games) at
    /// `place`, their lines shifted by `line_offset`; the number of records.
    fn write(
        &mut self,
        out: &mut dyn Write,
        place: &FindingPlace<'_>,
        findings: Vec<Finding>,
        line_offset: u64,
        game: &PageGame<'_>,
    ) -> std::io::Result<u64> {
        let n = findings.len() as u64;
        let shifted = findings.into_iter().map(|mut f| {
            f.line += line_offset;
            f
        });
        match self {
            Report::Lines(format) => {
                for finding in shifted {
                    report::write_finding(out, *format, place, &finding)?;
                }
            }
            Report::Columnar(sink) => {
                for finding in shifted {
                    FindingRecord {
                        place,
                        finding: &finding,
                    }
                    .columnar(sink.rows());
                    sink.flush_full(out)?;
                }
            }
            Report::Page(page) => {
                if n > 0 {
                    let mut shown = game.shown.iter().cloned();
                    let items =
                        shifted.map(|f| item(f, game.first_move, shown.next().unwrap_or_default()));
                    page.game(place, game.result, game.line, items);
                }
            }
        }
        Ok(n)
    }

    /// Writes what the format keeps for the end (the last batch and the
    /// footer, the page with its `head`).
    fn finish(self, out: &mut dyn Write, head: impl FnOnce() -> Head) -> std::io::Result<()> {
        match self {
            Report::Lines(_) => Ok(()),
            Report::Columnar(sink) => sink.finish(out),
            Report::Page(page) => page.finish(out, &head()),
        }
    }
}

/// What a run counts of the findings it reports.
#[derive(Default)]
struct Counts {
    with_errors: u64,
    with_warnings: u64,
    /// Games (and findings outside games) that fail the run.
    failing: u64,
    tally: Tally,
    records: u64,
    /// Games written to `--fix` with a repair applied.
    repaired: u64,
}

impl Counts {
    /// Counts the (kept) findings of one game; whether it is bad (for
    /// `--bad-games`): an error, or a finding that fails the run, so that
    /// the games that made the run fail are the ones the file holds.
    fn game(&mut self, findings: &[Finding], policy: &Policy) -> bool {
        let error = findings.iter().any(|f| f.severity() == Severity::Error);
        self.with_errors += u64::from(error);
        if findings.iter().any(|f| f.severity() == Severity::Warning) {
            self.with_warnings += 1;
        }
        let failing = findings.iter().any(|f| policy.fails(f.code));
        self.failing += u64::from(failing);
        self.tally.add_game(findings);
        error || failing
    }

    /// Counts a finding outside games.
    fn loose(&mut self, finding: &Finding, policy: &Policy) {
        self.failing += u64::from(policy.fails(finding.code));
        self.tally.add(finding.code);
    }

    /// The page's head, for a run that read `totals` under `policy`.
    fn head(&self, totals: &crate::stream::Totals, summary: &str, policy: &Policy) -> Head {
        Head {
            inputs: totals.inputs.iter().map(|i| i.file.clone()).collect(),
            games: totals.games,
            counted: crate::schema::finding::CODE.name,
            counts: self
                .tally
                .rows()
                .map(|c| {
                    (
                        c.code.as_str().to_owned(),
                        Some(c.code.severity().as_str()),
                        c.findings,
                        c.games,
                    )
                })
                .collect(),
            summary: format!("{}, {summary}.", crate::output::diag::games(totals.games)),
            status: status_meaning(self, policy.fails_on_errors_only(), totals.failed),
        }
    }
}

/// What a game with findings lends them: its label and the `--tags`
/// values; for the page, its result and the boards and moves of its
/// findings.
#[derive(Debug, Default)]
struct Names {
    label: GameLabel,
    tags: Vec<Option<String>>,
    result: &'static str,
    shown: Vec<Shown>,
}

/// What the page shows beside each of `findings` of `game`, whose moves
/// start at `first_move`: its board ([`boards`]) and, for a finding about
/// a move, the main line's moves as written around it.
fn shown(
    game: &RawGame<'_>,
    findings: &[Finding],
    first_move: (u32, shakmaty::Color),
) -> Vec<Shown> {
    let boards = boards(game, findings, first_move);
    let about_moves = findings.iter().any(|f| f.ply.is_some());
    // Once per game, shared by its findings.
    let main_line = if about_moves {
        Moves::line(game.main_line().map(|t| decode_text(t.text)))
    } else {
        Arc::from([])
    };
    findings
        .iter()
        .zip(boards)
        .map(|(f, board)| Shown {
            board,
            moves: f
                .ply
                .and_then(|ply| Moves::new(main_line.clone(), first_move, ply)),
        })
        .collect()
}

/// The board of each of `findings` of `game`: the position before the move
/// a finding is about (the move as written drawn where it can be, and the
/// first repair's move where it is played there), the final position for
/// one about the result, none for the others.
fn boards(
    game: &RawGame<'_>,
    findings: &[Finding],
    first_move: (u32, shakmaty::Color),
) -> Vec<Option<Board>> {
    let wanted = |f: &Finding| match (f.ply, f.code) {
        (Some(ply), _) => Some(ply - 1),
        (None, Code::ResultMismatch | Code::WrongResult) => Some(u32::MAX),
        _ => None,
    };
    let plies: Vec<u32> = findings.iter().filter_map(wanted).collect();
    let Ok(start) = start_position(game) else {
        return vec![None; findings.len()];
    };
    if plies.is_empty() {
        return vec![None; findings.len()];
    }
    let mut diagrams = diagrams(game, &start.pos, &plies).into_iter();
    findings
        .iter()
        .map(|f| {
            wanted(f)?;
            let diagram = diagrams.next()?;
            // Only where the position is the one before the move.
            let before = f.ply.filter(|&ply| diagram.plies + 1 == ply);
            let written = match (&f.san, before) {
                (Some(san), Some(_)) => {
                    written_squares(&diagram.pos, san.as_bytes()).map(|(from, to)| Arrow {
                        from,
                        to,
                        san: san.clone(),
                    })
                }
                _ => None,
            };
            let (suggested, suggestion_elsewhere) = match (before, f.suggestion.as_deref()) {
                (Some(ply), Some(text)) => suggested_arrow(&diagram.pos, ply, text, first_move),
                _ => (None, None),
            };
            Some(Board {
                diagram,
                written,
                suggested,
                suggestion_elsewhere,
            })
        })
        .collect()
}

/// The move a finding's suggestion plays first, drawn in `pos`, the
/// position before ply `ply` (the finding's move): the first repair's
/// first move, when its written number says it is played at `ply` and it
/// is legal there. A repair of another move (`8.Qd2 for the 8.Bd2
/// written`) is another position: then what to say instead of an arrow.
fn suggested_arrow(
    pos: &shakmaty::Chess,
    ply: u32,
    suggestion: &str,
    first_move: (u32, shakmaty::Color),
) -> (Option<Arrow>, Option<String>) {
    // The first repair's first move leads the text: `31.Qd1 (the
    // remaining ply replays); or 31.Qf1 …`.
    let Some(word) = suggestion.split_whitespace().next() else {
        return (None, None);
    };
    let Some((at, san)) = named_ply(word, first_move) else {
        return (None, None);
    };
    let elsewhere = |when: &str| (None, Some(format!("{word}, {when} move")));
    match at.cmp(&ply) {
        std::cmp::Ordering::Less => elsewhere("an earlier"),
        std::cmp::Ordering::Greater => elsewhere("a later"),
        std::cmp::Ordering::Equal => match legal_squares(pos, san.as_bytes()) {
            Some((from, to)) => (
                Some(Arrow {
                    from,
                    to,
                    san: san.to_owned(),
                }),
                None,
            ),
            None => (None, None),
        },
    }
}

/// The page's item for `finding`, in a game whose moves start at `first_move`.
fn item(finding: Finding, first_move: (u32, shakmaty::Color), shown: Shown) -> Item {
    Item {
        severity: Some(finding.severity().as_str()),
        code: finding.code.as_str().to_owned(),
        line: finding.line,
        at: finding.ply.map(|ply| {
            format!(
                "ply {ply} ({})",
                move_name(ply, first_move, finding.san.as_deref().unwrap_or(""))
            )
        }),
        message: finding.message,
        suggestion: finding.suggestion,
        line_of_moves: None,
        moves: shown.moves,
        board: shown.board,
    }
}

/// What the exit status of a run that counted `counts` says, in an
/// arbiter's words, for the page: `errors_fail` when the errors (and only
/// they) fail the run, as they do unless `--fail-on` says otherwise;
/// `unread` inputs could not be read to the end.
fn status_meaning(counts: &Counts, errors_fail: bool, unread: u64) -> String {
    let games = |n: u64| match n {
        1 => "1 game has".to_owned(),
        n => format!("{n} games have"),
    };
    let problems = (counts.failing > 0).then(|| {
        if errors_fail {
            format!("{} errors that need a look", games(counts.failing))
        } else {
            format!(
                "{} findings that fail the check as --fail-on sets it, and need a look",
                games(counts.failing)
            )
        }
    });
    let fine = if counts.with_errors > 0 {
        let warnings = match counts.with_warnings {
            0 => String::new(),
            n => format!(" and {n} {} warnings", if n == 1 { "has" } else { "have" }),
        };
        format!(
            "No problems that fail the check as --fail-on sets it, though {} errors{warnings}",
            games(counts.with_errors)
        )
    } else if counts.with_warnings > 0 {
        format!(
            "No problems that fail the check: warnings only ({} warnings), worth a look, but a warning does not fail the check",
            games(counts.with_warnings)
        )
    } else {
        "No problems found: nothing in the games checked fails the check".to_owned()
    };
    status_words(problems, &fine, unread)
}

/// Checks one game (a worker's part): its findings that `policy` keeps,
/// and, when it has any, what names it (and, for the `page`, the boards);
/// its identity when `duplicate-game` is reported, and its first line.
fn checked(
    game: &RawGame<'_>,
    laws: LawsChoice,
    policy: &Policy,
    tags: &TagColumns,
    page: bool,
) -> (GameCheck, Option<Names>, u64, Option<Box<OwnedTags>>) {
    let tournament = policy.tournament();
    // A repeat is left out of the tournament: its identity is needed.
    let mut check = check_game_keyed(
        game,
        laws,
        policy.keeps(Code::DuplicateGame) || tournament,
        policy.openings,
    );
    check.findings.retain(|f| policy.keeps(f.code));
    // Names are only decoded for games that have something to say.
    let names = (!check.findings.is_empty()).then(|| {
        names_of(
            game,
            &check.findings,
            tags,
            page.then_some(check.first_move),
        )
    });
    // Only a game with a round number takes part in the checks.
    let rounded = || {
        game.tag("Round")
            .is_some_and(|t| crate::rules::tournament::Round::parse(&t.text()).is_some())
    };
    let noted = (tournament && rounded()).then(|| Box::new(OwnedTags::of_game(game)));
    (check, names, game.line, noted)
}

/// What names `game`, which has `findings`; for the page (`page`: the
/// game's first move), what is shown beside them.
fn names_of(
    game: &RawGame<'_>,
    findings: &[Finding],
    tags: &TagColumns,
    page: Option<(u32, shakmaty::Color)>,
) -> Names {
    Names {
        label: GameLabel::of(|t| game.tag_text(t), game.line),
        tags: tags.values(game),
        result: recorded_result(game).map_or("*", |r| r.as_str()),
        shown: match page {
            Some(first_move) => shown(game, findings, first_move),
            None => Vec::new(),
        },
    }
}

/// [`names_of`] a game whose bytes are `raw` and whose first line (in
/// its chunk) is `line`.
fn names_again(
    raw: &[u8],
    line: u64,
    findings: &[Finding],
    tags: &TagColumns,
    page: bool,
) -> Names {
    // The tags are read, not the moves: the one finding is about the game
    // as a whole and has no board; but for a game without a Result tag,
    // whose recorded result is its termination marker.
    let header = crate::input::scan::scan(&raw[..crate::input::scan::header_end(raw)], true);
    let whole;
    let game = match header.games.first() {
        Some(game) if game.tag("Result").is_some() => game,
        _ => {
            whole = crate::input::scan::scan(raw, true);
            let Some(game) = whole.games.first() else {
                return Names::default();
            };
            game
        }
    };
    // The one finding has no ply: the first move numbers nothing.
    let first_move = (1, shakmaty::Color::White);
    let mut names = names_of(game, findings, tags, page.then_some(first_move));
    names.label.line = line;
    names
}

/// The games met so far, by identity: where the first of each is, to name
/// it in a later copy's `duplicate-game`. A distinct game costs 24 bytes
/// of table (its key and a number) and 12 of lists (its place), and the
/// table's slack: 36 to 64 bytes.
#[derive(Default)]
struct Repeats {
    /// Each key met, and the number of its first game among the distinct
    /// ones.
    first: KeyMap<u32>,
    /// By that number, the first game's ordinal (its number in the run),
    /// and its first line.
    ordinals: Vec<u32>,
    lines: Vec<u64>,
    /// The inputs met: each one's name and the ordinal of its first game.
    files: Vec<(String, u32)>,
    /// Games met so far.
    games: u32,
}

impl Repeats {
    /// The `duplicate-game` finding's message for the game `game` of
    /// `file`, whose first line is `line` (in its file), when an earlier
    /// game has `key`.
    /// Every game is met (`key`: `None` when it has none), so that games
    /// are numbered as their inputs number them.
    fn check(&mut self, key: Option<GameKey>, file: &str, game: u64, line: u64) -> Option<String> {
        // A new input (or the same one named again: its games count anew).
        let numbered = |&(ref f, start): &(String, u32)| {
            f == file && u64::from(self.games - start) + 1 == game
        };
        if !self.files.last().is_some_and(numbered) {
            let first = self
                .games
                .saturating_sub(u32::try_from(game - 1).unwrap_or(u32::MAX));
            self.files.push((file.to_owned(), first));
        }
        let ordinal = self.games;
        // Past 2^32 games a run names no more repeats (it counts them).
        self.games = self.games.checked_add(1)?;
        let key = key?;
        let next = u32::try_from(self.ordinals.len()).ok()?;
        let index = *self.first.entry(PackedKey::from(key)).or_insert(next);
        if index == next {
            self.ordinals.push(ordinal);
            self.lines.push(line);
            return None;
        }
        let earlier = self.ordinals[index as usize];
        let first_line = self.lines[index as usize];
        let at = self.files.partition_point(|(_, start)| *start <= earlier) - 1;
        let (name, start) = &self.files[at];
        let number = u64::from(earlier - start) + 1;
        let of = if at + 1 == self.files.len() {
            String::new()
        } else {
            format!(" of {}", diag::escaped(name))
        };
        Some(format!(
            "a repeat of game {number}{of} (line {first_line}): the same moves from the same start \
             (`pgnkit dedupe` says how the copies differ)"
        ))
    }
}

/// The flags besides the format that change the report, canonically
/// spelt (what a rerun of a shard is given).
fn options(args: &ValidateArgs, policy: &Policy, tags: &TagColumns) -> Vec<String> {
    [
        vec!["--laws".to_owned(), args.laws.as_arg()],
        policy.options(),
        if tags.is_empty() {
            Vec::new()
        } else {
            vec!["--tags".to_owned(), tags.names().join(",")]
        },
        match &args.openings {
            Some(file) => vec!["--openings".to_owned(), file.display().to_string()],
            None => Vec::new(),
        },
    ]
    .concat()
}

/// Runs `validate` ([`super::validate`]).
///
/// # Errors
///
/// When the report cannot be written.
pub(super) fn run(
    args: &ValidateArgs,
    inputs: Vec<Input>,
    records: RecordSink<'_>,
    diag: &dyn Diagnostics,
) -> Result<Summary, Error> {
    let streaming = Streaming::new(&args.run, inputs, &records, diag);
    check_format(args)?;
    let policy = Policy::new(args)?;
    let page = args.format == ReportFormat::Html;
    if page {
        streaming.check_page()?;
    }
    // Before the product file is created: a refused --stats leaves it be.
    let copies: Vec<&Path> = [&args.bad_games, &args.good_games, &args.fix]
        .into_iter()
        .filter_map(|p| p.as_deref())
        .collect();
    streaming.check_stats(&copies)?;
    let tags =
        TagColumns::of(&FINDING, args.tags.as_deref().unwrap_or_default()).map_err(Error::usage)?;
    let (mut out, batches) = streaming.writer(records)?;
    Streaming::check_batches(batches.is_some(), args.format)?;
    let mut report = Report::of(args, &streaming, batches)?;
    let failed = streaming.write_error(PRODUCT_NAME);
    streaming.check_range()?;
    let mut split = problem_games(args, &streaming)?;
    if let Some(fix) = &args.fix
        && [&args.bad_games, &args.good_games]
            .into_iter()
            .any(|p| p.as_deref() == Some(fix.as_path()))
    {
        return Err(Error::usage(format!(
            "refusing to write games to {}: the run writes another output there",
            fix.display()
        )));
    }
    let mut fixed = streaming.game_files(args.fix.as_deref(), None, "--fix")?;
    report
        .header(&mut out, !streaming.no_header, tags.names())
        .map_err(&failed)?;
    let mut counts = Counts::default();
    let mut repeats = Repeats::default();
    let mut tracker = policy
        .tournament()
        .then(super::tournament::Background::spawn);

    // The games are noted in input order, one input after another: with
    // --bad-games or --good-games, inputs are not read at once; nor for a
    // columnar report, whose batches are not cut by input.
    let spool = out.clone();
    let columnar = matches!(report, Report::Columnar(_));
    // Nor when a game is judged against the games before it (a repeat, a
    // second game of a round): inputs read at once reach the writer
    // interleaved, and "before" would depend on the threads.
    let sequential = policy.keeps(Code::DuplicateGame) || policy.tournament();
    let inputs = streaming
        .inputs((split.is_none() && fixed.is_none() && !columnar && !sequential).then_some(&spool));
    let totals = inputs.for_each_game(
        |game| checked(game, args.laws, &policy, &tags, page),
        |event| {
            // A stretch skipped for its length is reported as text that
            // holds no game is: a `syntax` error with its line.
            let event = match event {
                Event::Skipped(file, skip) => {
                    let message = skip.message();
                    Event::Loose(file, Finding::game(Code::Syntax, skip.line, message))
                }
                event => event,
            };
            match event {
                Event::Game(
                    ctx,
                    (
                        GameCheck {
                            mut findings,
                            first_move,
                            key,
                            fixes,
                            ..
                        },
                        mut names,
                        line,
                        noted,
                    ),
                ) => {
                    let repeat = repeats.check(key, ctx.file, ctx.game, line + ctx.line_offset);
                    let repeated = repeat.is_some();
                    // The identity may be there for the tournament alone.
                    let repeat = repeat.filter(|_| policy.keeps(Code::DuplicateGame));
                    if let Some(message) = repeat {
                        let at =
                            findings.partition_point(|f| (f.line, f.ply.unwrap_or(0)) <= (line, 0));
                        findings.insert(at, Finding::game(Code::DuplicateGame, line, message));
                        match names.as_mut() {
                            Some(names) if page => names.shown.insert(at, Shown::default()),
                            Some(_) => {}
                            // The game had nothing else to say: what names
                            // it is read again from its bytes.
                            None => {
                                names = Some(names_again(ctx.raw, line, &findings, &tags, page))
                            }
                        }
                    }
                    let names = names.unwrap_or_default();
                    let place =
                        names
                            .label
                            .place(ctx.place(), first_move, (tags.names(), &names.tags));
                    let bad = counts.game(&findings, &policy);
                    if let (Some(noted), Some(tracker)) = (noted, tracker.as_mut())
                        && !repeated
                    {
                        tracker.add(
                            ctx.file,
                            Added {
                                tags: noted,
                                game: ctx.game,
                                offset: ctx.offset,
                                line: line + ctx.line_offset,
                                warned: findings.iter().any(|f| f.severity() == Severity::Warning),
                                failing: findings.iter().any(|f| policy.fails(f.code)),
                                tag_values: (!tags.is_empty()).then(|| names.tags.clone()),
                            },
                        );
                    }
                    if let Some(split) = split.as_mut() {
                        split.game(ctx.raw, bad)?;
                    }
                    if let Some(fixed) = fixed.as_mut() {
                        if fixes.is_empty() {
                            fixed.game(ctx.raw, true)?;
                        } else {
                            // The game's text starts `shift` bytes into what
                            // was read for it.
                            let shift = ctx
                                .offset
                                .map_or(0, |o| o.saturating_sub(ctx.raw_offset) as usize);
                            let edited = crate::rules::game::apply_edits(ctx.raw, shift, &fixes);
                            fixed.game(&edited, true)?;
                            counts.repaired += 1;
                        }
                    }
                    let game = PageGame {
                        result: names.result,
                        line: names.label.line + ctx.line_offset,
                        first_move,
                        shown: &names.shown,
                    };
                    counts.records += report
                        .write(&mut out, &place, findings, ctx.line_offset, &game)
                        .map_err(&failed)?;
                }
                Event::Loose(_, finding) if !policy.keeps(finding.code) => {}
                Event::Loose(file, finding) => {
                    counts.loose(&finding, &policy);
                    let game = PageGame {
                        result: "",
                        line: finding.line,
                        first_move: (1, shakmaty::Color::White),
                        shown: &[],
                    };
                    let place = FindingPlace::outside_games(file);
                    counts.records += report
                        .write(&mut out, &place, vec![finding], 0, &game)
                        .map_err(&failed)?;
                }
                // Made a loose finding above.
                Event::Skipped(..) => {}
                Event::Failed(file, err) => out.error(format!("{file}: {}", chain(&err))),
            }
            Ok(())
        },
    )?;
    if let Some(split) = split {
        split.finish()?;
    }
    if let Some(fixed) = fixed {
        fixed.finish()?;
    }
    let tracker = tracker.map(super::tournament::Background::finish);
    // The tournament's findings, once every game is read: after the games,
    // each at the game it is about; on the page, in the tournament's
    // section, beside each event's crosstable, linked to the game's entry
    // (a game keeps one entry, whatever was found about it).
    if let Some(tracker) = &tracker {
        let mut listed = String::new();
        let mut rows: std::collections::HashMap<u32, String> = std::collections::HashMap::new();
        let found = super::tournament::on_threads(streaming.threads, || {
            tracker.findings(|c| policy.keeps(c))
        });
        for (n, findings) in found {
            let Some(named) = tracker.named(n) else {
                continue;
            };
            if !named.warned {
                counts.with_warnings += 1;
            }
            if !named.failing && findings.iter().any(|f| policy.fails(f.code)) {
                counts.failing += 1;
            }
            counts.tally.add_game(&findings);
            if let Report::Page(page) = &report {
                let id = format!("pairing-{}", n + 1);
                let entry = page.anchor(named.file, named.game);
                crate::output::crosstable::finding_rows(
                    &mut listed,
                    &id,
                    entry.as_deref(),
                    &format!(
                        "{}:{}: game {} ({} – {}{})",
                        named.file,
                        named.label.line,
                        named.game,
                        named.label.white,
                        named.label.black,
                        named
                            .label
                            .round
                            .as_deref()
                            .map(|r| format!(", round {r}"))
                            .unwrap_or_default()
                    ),
                    &findings,
                );
                rows.insert(n, entry.unwrap_or(id));
                counts.records += findings.len() as u64;
                continue;
            }
            let place = named.label.place(
                (named.file, named.game, named.offset),
                (1, shakmaty::Color::White),
                (tags.names(), named.tags),
            );
            let game = PageGame {
                result: named.result.unwrap_or("*"),
                line: named.label.line,
                first_move: (1, shakmaty::Color::White),
                shown: &vec![Shown::default(); findings.len()],
            };
            counts.records += report
                .write(&mut out, &place, findings, 0, &game)
                .map_err(&failed)?;
        }
        // The page's crosstables, each cell of a game with findings linked
        // to its entry (or its pairing finding): for a file of
        // tournaments, not an archive of thousands of players.
        if let Report::Page(page) = &mut report {
            let events = super::tournament::on_threads(streaming.threads, || tracker.events());
            let players: usize = events.iter().map(|e| e.players.len()).sum();
            let mut html = format!("<style>{}</style>", crate::output::crosstable::STYLE);
            let bare = html.len();
            if !listed.is_empty() {
                html.push_str("<h3>Pairing findings</h3><div class=\"wide\"><table class=\"pairing\"><thead><tr><th>game</th><th>code</th><th>what</th></tr></thead><tbody>");
                html.push_str(&listed);
                html.push_str("</tbody></table></div>");
            }
            if players <= MAX_PAGE_PLAYERS {
                let link = |n: u32| {
                    rows.get(&n).cloned().or_else(|| {
                        let named = tracker.named(n)?;
                        page.anchor(named.file, named.game)
                    })
                };
                let drawn = events
                    .iter()
                    .filter(|e| e.kind != crate::rules::tournament::Kind::NoRounds);
                for (i, e) in drawn.enumerate() {
                    crate::output::crosstable::html(
                        e,
                        &format!("event-{}", i + 1),
                        &link,
                        &mut html,
                    );
                }
            }
            if html.len() > bare && page.fits(html.len()) {
                page.set_tournament(html);
            }
        }
    }
    let mut summary = format!(
        "{} with errors, {} with warnings",
        counts.with_errors, counts.with_warnings
    );
    if let Some(fix) = &args.fix {
        summary.push_str(&format!(
            ", {} repaired in {}",
            counts.repaired,
            fix.display()
        ));
    }
    report
        .finish(&mut out, || counts.head(&totals, &summary, &policy))
        .map_err(&failed)?;
    let product = Product {
        what: PRODUCT_NAME,
        command: Subcommand::Validate,
        format: args.format.name(),
        columns: (args.format == ReportFormat::Csv).then(|| tags.csv_columns()),
        options: options(args, &policy, &tags),
        records: counts.records,
        codes: &counts.tally,
    };
    let done = streaming.finish(&mut out, &totals, &product, counts.failing, &summary)?;
    if !streaming.quiet {
        counts.tally.print(diag);
    }
    Ok(done)
}
