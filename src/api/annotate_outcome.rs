//! `pgnkit annotate-outcome`: what the Laws say happened in every game, as a
//! table (CSV, JSON Lines) or as the games written back with the outcome in
//! tags and comments ([`crate::output::annotate`]). Damaged movetext is
//! reported on standard error as `validate` reports it.

use std::io::Write;

use super::options::{AnnotateOutcomeOptions as AnnotateOutcomeArgs, RulesProfile};
use super::selection::{Admit, Picked, Stage};
use super::streaming::{Product, Streaming, report_finding, value_name};
use super::{Diagnostics, Format as AnnotateFormat, Input, RecordSink, Subcommand, Summary};
use crate::error::Error;
use crate::input::error::chain;
use crate::output::annotate::{self, Format, OutcomeRecord, PgnSettings, TagColumns};
use crate::output::columnar::{Columnar, ColumnarSink};
use crate::output::diag;
use crate::output::html::{Board, Head, Item, Page};
use crate::output::report::write_game_label;
use crate::output::report::{GameLabel, players};
use crate::output::tally::Tally;
use crate::rules::diagram::diagrams;
use crate::rules::finding::{Code, Finding};
use crate::rules::game::RawGame;
use crate::rules::laws::LawsChoice;
use crate::rules::movetext::damage;
use crate::rules::openings::OpeningTable;
use crate::rules::select::Verdict;
use crate::rules::setup::start_position;
use crate::schema::finding::FindingPlace;
use crate::schema::outcome::OUTCOME;
use crate::stream::{Event, GameCtx, Spooled};
use crate::tasks::annotate_outcome::{Concern, Outcome, Profile, annotate_with};

/// What the output is called in errors.
const PRODUCT_NAME: &str = "output";

/// What is written for each game.
#[derive(Debug, Clone, Copy)]
enum OutputFormat {
    Table(Format),
    /// `-f parquet`, `-f arrow`.
    Columnar(Columnar),
    Pgn(PgnSettings),
    /// `-f text`: a line per game to look at.
    Text,
    /// `-f html`: the page, with at most this many boards.
    Page(u64),
}

/// The settings of one run, from the arguments.
struct Settings<'d> {
    streaming: Streaming<'d>,
    profile: Profile,
    laws: LawsChoice,
    written: OutputFormat,
    /// The tag columns of a table (`--tags`).
    tags: TagColumns,
    /// Only the games an arbiter must look at (`--problems`, and always
    /// with `-f text` and `-f html`).
    problems: bool,
}

/// Checks the flags against each other and builds the settings.
///
/// # Errors
///
/// For flags that do not apply to the output format.
fn settings<'d>(
    args: &AnnotateOutcomeArgs,
    streaming: Streaming<'d>,
) -> Result<Settings<'d>, Error> {
    if !args.format.is_of(Subcommand::AnnotateOutcome) {
        return Err(Error::usage(format!(
            "annotate-outcome does not write {}",
            args.format
        )));
    }
    let profile = match args.rules {
        RulesProfile::Fide => Profile::Fide,
        RulesProfile::App => Profile::App,
        RulesProfile::Online => Profile::Online,
    };
    let pgn = args.format == AnnotateFormat::Pgn;
    if args.fix_results && !pgn {
        return Err(Error::usage(
            "--fix-results applies to -f pgn only (it rewrites the games' results)",
        ));
    }
    if args.tags.is_some()
        && matches!(
            args.format,
            AnnotateFormat::Pgn | AnnotateFormat::Text | AnnotateFormat::Html
        )
    {
        return Err(Error::usage(format!(
            "--tags applies to -f csv, jsonl, parquet and arrow only (-f {} {})",
            args.format,
            if pgn {
                "keeps every tag"
            } else {
                "names the event, the round and the players"
            }
        )));
    }
    let tags = TagColumns::new(args.tags.as_deref().unwrap_or_default()).map_err(Error::usage)?;
    Ok(Settings {
        streaming,
        profile,
        laws: args.laws,
        tags,
        problems: args.problems
            || matches!(args.format, AnnotateFormat::Text | AnnotateFormat::Html),
        written: match args.format {
            AnnotateFormat::Text => OutputFormat::Text,
            AnnotateFormat::Html => OutputFormat::Page(args.html.html_boards),
            AnnotateFormat::Csv => OutputFormat::Table(Format::Csv),
            AnnotateFormat::Jsonl => OutputFormat::Table(Format::Jsonl),
            AnnotateFormat::Parquet => OutputFormat::Columnar(Columnar::Parquet),
            AnnotateFormat::Arrow => OutputFormat::Columnar(Columnar::Arrow),
            AnnotateFormat::Pgn => OutputFormat::Pgn(PgnSettings {
                rules: profile,
                fix_results: args.fix_results,
                minimal: args.fix_results && !args.pgnkit_tags,
            }),
            _ => unreachable!("checked above"),
        },
    })
}

/// What a worker hands back for one game.
struct Annotated {
    row: OutcomeRecord,
    /// The game written back, for `--format pgn`.
    pgn: Option<Vec<u8>>,
    /// For `--fix-results` alone: the edits of the game's own bytes.
    edits: Vec<crate::rules::game::Edit>,
    replayed: bool,
    /// What the scanner repaired in the game ([`damage`]): reported.
    damage: Vec<Finding>,
    first_move: (u32, shakmaty::Color),
    /// What an arbiter must look at, in words, when the run asks (empty:
    /// nothing, or not asked).
    concerns: Vec<String>,
    /// For the page and the text: the game's event, round, first line, and
    /// the board of each concern.
    look: Option<Look>,
}

/// What the page and the text say about a game to look at, besides its row.
struct Look {
    label: GameLabel,
    /// The board of each concern and where in the game it stands.
    boards: Vec<Option<(Board, String)>>,
    /// The winner's mating line, in SAN with move numbers.
    helpmate: Option<String>,
    /// The kind of each concern ([`Concern::KINDS`]).
    kinds: Vec<usize>,
}

/// The boards of `concerns` (one per position: a concern about the same
/// position as the one before it gets none).
fn concern_boards(
    game: &RawGame<'_>,
    outcome: &Outcome,
    concerns: &[Concern],
) -> Vec<Option<(Board, String)>> {
    let plies: Vec<u32> = concerns.iter().map(|c| c.plies(outcome)).collect();
    let Ok(start) = start_position(game) else {
        return vec![None; concerns.len()];
    };
    let mut seen = Vec::new();
    diagrams(game, &start.pos, &plies)
        .into_iter()
        .map(|diagram| {
            if seen.contains(&diagram.plies) {
                return None;
            }
            seen.push(diagram.plies);
            let label = game.after_ply(diagram.plies, outcome.first_move);
            Some((
                Board {
                    diagram,
                    written: None,
                    suggested: None,
                    suggestion_elsewhere: None,
                },
                label,
            ))
        })
        .collect()
}

/// `row`'s mating line written as the scoresheet would, from the final
/// position `game` reaches.
fn helpmate_line(game: &RawGame<'_>, row: &OutcomeRecord) -> Option<String> {
    let line = row.helpmate()?;
    let start = start_position(game).ok()?;
    let pos = diagrams(game, &start.pos, &[u32::MAX]).pop()?.pos;
    crate::rules::notation::numbered_line(&pos, line)
}

/// What a worker needs to annotate a game.
struct Work<'t> {
    profile: Profile,
    laws: LawsChoice,
    written: OutputFormat,
    tags: &'t TagColumns,
    /// Only the games an arbiter must look at.
    only_problems: bool,
    /// The table the records' openings are classified by.
    openings: Option<&'static OpeningTable>,
}

/// Annotates one game: a worker's part.
fn annotated(game: &RawGame<'_>, work: &Work<'_>) -> Annotated {
    let Work {
        profile,
        laws,
        written,
        tags,
        only_problems,
        openings,
    } = *work;
    let outcome = annotate_with(game, profile, laws, openings);
    let (white, black) = players(|tag| game.tag_text(tag));
    let mut row = OutcomeRecord::new(&outcome, white, black);
    let (pgn, edits) = match written {
        OutputFormat::Pgn(settings) if settings.minimal => {
            (None, annotate::result_edits(game, &outcome))
        }
        OutputFormat::Pgn(settings) => (
            Some(annotate::pgn_record(game, &outcome, &row, settings)),
            Vec::new(),
        ),
        _ => (None, Vec::new()),
    };
    if !tags.is_empty() {
        row.tags = tags.values(game);
    }
    let found = if only_problems {
        outcome.concerns()
    } else {
        Vec::new()
    };
    let page = matches!(written, OutputFormat::Page(_));
    let look =
        (!found.is_empty() && (page || matches!(written, OutputFormat::Text))).then(|| Look {
            label: GameLabel::of(|t| game.tag_text(t), game.line),
            boards: if page {
                concern_boards(game, &outcome, &found)
            } else {
                Vec::new()
            },
            // Only where whether the winner could mate is the question: a
            // game whose only concern is a claimable draw shows none.
            helpmate: if page
                && found
                    .iter()
                    .any(|c| !matches!(c, Concern::Claimable { .. }))
            {
                helpmate_line(game, &row)
            } else {
                None
            },
            kinds: found.iter().map(Concern::kind).collect(),
        });
    let concerns = annotate::concern_texts(game, &outcome, &found);
    Annotated {
        row,
        pgn,
        edits,
        replayed: outcome.is_replayed(),
        damage: damage(game),
        first_move: outcome.first_move,
        concerns,
        look,
    }
}

/// Where the outcomes go: one sink per output format, chosen once
/// ([`Outcomes::of`]).
enum Outcomes<'a> {
    /// `-f csv|jsonl`: a row per game.
    Table(Format),
    /// `-f parquet|arrow`: typed rows, in batches.
    Columnar(ColumnarSink<'a>),
    /// `-f pgn`: each game as the worker wrote it back.
    Pgn,
    /// `-f pgn --fix-results`: each game as it was read, its result edited
    /// (the file the last game came from, and whether it ended a line: a
    /// newline parts two files' games only where the first did not).
    PgnAsRead(Option<(String, bool)>),
    /// `-f text`: a line per game to look at.
    Text,
    /// `-f html`: the arbiter's page.
    Page(Page),
}

impl<'a> Outcomes<'a> {
    /// The sink of `written`: the one dispatch from format to writer.
    fn of(
        written: OutputFormat,
        streaming: &Streaming<'_>,
        batches: Option<Box<dyn super::BatchSink + 'a>>,
    ) -> Result<Outcomes<'a>, Error> {
        Ok(match written {
            OutputFormat::Table(format) => Outcomes::Table(format),
            OutputFormat::Columnar(c) => {
                Outcomes::Columnar(streaming.columnar(c, &OUTCOME, batches)?)
            }
            OutputFormat::Pgn(settings) if settings.minimal => Outcomes::PgnAsRead(None),
            OutputFormat::Pgn(_) => Outcomes::Pgn,
            OutputFormat::Text => Outcomes::Text,
            OutputFormat::Page(n) => {
                Outcomes::Page(Page::new(Subcommand::AnnotateOutcome.name(), n))
            }
        })
    }

    /// The header, when the format has one (`header`: not `--no-header`).
    fn header(
        &mut self,
        out: &mut dyn Write,
        header: bool,
        tags: &TagColumns,
    ) -> std::io::Result<()> {
        match self {
            Outcomes::Table(format) => annotate::write_header(out, *format, header, tags),
            _ => Ok(()),
        }
    }

    /// Writes the outcome of the game at `ctx`.
    fn write(
        &mut self,
        out: &mut dyn Write,
        ctx: &GameCtx<'_>,
        done: &Annotated,
        tags: &TagColumns,
    ) -> std::io::Result<()> {
        match self {
            Outcomes::Table(format) => annotate::write_row(
                out,
                *format,
                ctx.file,
                (ctx.game, ctx.offset),
                &done.row,
                tags,
            ),
            Outcomes::Columnar(sink) => {
                done.row
                    .columnar(sink.rows(), (ctx.file, ctx.game, ctx.offset), tags.names());
                sink.flush_full(out)
            }
            Outcomes::Pgn => out.write_all(done.pgn.as_deref().unwrap_or_default()),
            Outcomes::PgnAsRead(last) => {
                // The game's text starts `shift` bytes into what was read
                // for it (text before a chunk's first game goes with it).
                let shift = ctx
                    .offset
                    .map_or(0, |o| o.saturating_sub(ctx.raw_offset) as usize);
                let edited;
                let bytes = if done.edits.is_empty() {
                    ctx.raw
                } else {
                    edited = crate::rules::game::apply_edits(ctx.raw, shift, &done.edits);
                    &edited[..]
                };
                if bytes.is_empty() {
                    return Ok(());
                }
                if let Some((file, ended_line)) = last.as_ref()
                    && file != ctx.file
                    && !ended_line
                {
                    out.write_all(b"\n")?;
                }
                out.write_all(bytes)?;
                *last = Some((ctx.file.to_owned(), bytes.ends_with(b"\n")));
                Ok(())
            }
            Outcomes::Text => match &done.look {
                Some(look) => out.write_all(&text_line(ctx, done, look)),
                None => Ok(()),
            },
            Outcomes::Page(page) => {
                if let Some(look) = &done.look {
                    let place = look.label.place(ctx.place(), done.first_move, (&[], &[]));
                    let line = look.label.line + ctx.line_offset;
                    page.game(
                        &place,
                        result_of(done),
                        line,
                        page_items(done, look, line).into_iter(),
                    );
                }
                Ok(())
            }
        }
    }

    /// Writes what the format keeps for the end (the last batch and the
    /// footer, the page with its `head`).
    fn finish(self, out: &mut dyn Write, head: impl FnOnce() -> Head) -> std::io::Result<()> {
        match self {
            Outcomes::Columnar(sink) => sink.finish(out),
            Outcomes::Page(page) => page.finish(out, &head()),
            Outcomes::Table(_) | Outcomes::Pgn | Outcomes::PgnAsRead(_) | Outcomes::Text => Ok(()),
        }
    }
}

/// The recorded result as the text and the page say it.
fn result_of(done: &Annotated) -> &'static str {
    done.row.result.map_or("no result", |r| r.as_str())
}

/// `-f text`'s line for a game to look at.
fn text_line(ctx: &GameCtx<'_>, done: &Annotated, look: &Look) -> Vec<u8> {
    let place = look.label.place(ctx.place(), done.first_move, (&[], &[]));
    let line = look.label.line + ctx.line_offset;
    let mut text = Vec::with_capacity(256);
    let _ = write!(text, "{}:{line}: ", diag::escaped(ctx.file));
    let _ = write_game_label(&mut text, &place);
    let _ = write!(text, ": {}: ", result_of(done));
    let words: Vec<String> = done
        .concerns
        .iter()
        .map(|c| diag::clipped(c, 4 * diag::SHOWN).into_owned())
        .collect();
    let _ = writeln!(text, "{}", words.join("; "));
    text
}

/// The page's items for a game to look at: its concerns, each with its
/// board, then the winner's mating line.
fn page_items(done: &Annotated, look: &Look, line: u64) -> Vec<Item> {
    let mut boards = look.boards.iter().cloned();
    done.concerns
        .iter()
        .zip(&look.kinds)
        .map(|(text, &kind)| {
            let (board, at) = boards.next().flatten().unzip();
            Item {
                severity: None,
                code: Concern::KINDS[kind].to_owned(),
                line,
                at,
                message: text.clone(),
                suggestion: None,
                line_of_moves: None,
                moves: None,
                board,
            }
        })
        .chain(look.helpmate.iter().map(|moves| Item {
            code: "mating-line".to_owned(),
            line,
            message: "a series of legal moves by which the winner mates from the final position, the other side's moves helping: it shows mate was possible, not forced".to_owned(),
            line_of_moves: Some(moves.clone()),
            ..Item::default()
        }))
        .collect()
}

/// What a run counts.
#[derive(Default)]
struct Counts {
    wrong: u64,
    not_replayed: u64,
    damaged: u64,
    tally: Tally,
    rows: u64,
    /// Concerns of each kind, and games to look at.
    looked: [u64; Concern::KINDS.len()],
    looked_games: u64,
}

impl Counts {
    /// Counts a game's verdict: a result the rules do not give, or no
    /// replay.
    fn verdict(&mut self, done: &Annotated) {
        if !done.replayed {
            self.not_replayed += 1;
            self.tally.add(Code::NotReplayed);
        } else if done.row.fide_result.is_none() || done.row.fide_result != done.row.result {
            // (A marker that disagrees with a right tag also makes
            // `result_ok` false: counted as damaged.)
            self.wrong += 1;
            self.tally.add(Code::WrongResult);
        }
    }

    /// Counts a game written.
    fn written(&mut self, done: &Annotated) {
        self.rows += 1;
        if let Some(look) = &done.look {
            self.looked_games += 1;
            for kind in &look.kinds {
                self.looked[*kind] += 1;
            }
        }
    }

    fn problems(&self) -> u64 {
        self.wrong + self.not_replayed + self.damaged
    }

    /// What the exit status says, in an arbiter's words, for a run that
    /// could not read `unread` inputs to the end.
    fn status(&self, unread: u64) -> String {
        let mut found = Vec::new();
        let games = |n: u64| diag::games(n);
        if self.wrong > 0 {
            found.push(format!(
                "{} with a result the rules do not give",
                games(self.wrong)
            ));
        }
        if self.not_replayed > 0 {
            found.push(format!(
                "{} that could not be replayed to the end",
                games(self.not_replayed)
            ));
        }
        if self.damaged > 0 {
            found.push(format!(
                "{} with damaged movetext or a termination marker that disagrees with the Result tag",
                games(self.damaged)
            ));
        }
        let problems = (self.problems() > 0).then(|| format!("{}, to look at", found.join("; ")));
        crate::output::html::status_words(
            problems,
            "No problems found: every result is one the rules give",
            unread,
        )
    }

    /// The summary after `N games, `.
    fn summary(&self) -> String {
        let mut summary = format!(
            "{} with a result the rules do not give, {} not replayed",
            self.wrong, self.not_replayed
        );
        if self.damaged > 0 {
            summary.push_str(&format!(
                ", {} with damaged movetext (what could not be read left out) \
                 or a termination marker that disagrees with the Result tag",
                self.damaged
            ));
        }
        summary
    }

    /// The page's head, for a run that read `totals`.
    fn head(&self, totals: &crate::stream::Totals) -> Head {
        Head {
            inputs: totals.inputs.iter().map(|i| i.file.clone()).collect(),
            games: totals.games,
            counted: "what to look at",
            counts: Concern::KINDS
                .iter()
                .zip(self.looked)
                .filter(|(_, n)| *n > 0)
                .map(|(name, n)| ((*name).to_owned(), None, n, n))
                .collect(),
            summary: format!(
                "{}, {}; {} to look at.",
                diag::games(totals.games),
                self.summary(),
                self.looked_games
            ),
            status: self.status(totals.failed),
        }
    }
}

/// Reports the damaged movetext of the game at `ctx` on standard error, in
/// `validate`'s words, and counts it.
fn report_damage(out: &Spooled<'_>, ctx: &GameCtx<'_>, done: &mut Annotated, counts: &mut Counts) {
    if done.damage.is_empty() {
        return;
    }
    counts.damaged += 1;
    let white = diag::clipped(&done.row.white, diag::SHOWN);
    let black = diag::clipped(&done.row.black, diag::SHOWN);
    let place = FindingPlace::in_game(ctx.place(), (&white, &black), done.first_move);
    for finding in std::mem::take(&mut done.damage) {
        counts.tally.add(finding.code);
        report_finding(out, &place, ctx.line_offset, finding);
    }
}

/// The flags besides the format that change the output, canonically
/// spelt (what a rerun of a shard is given).
fn options(args: &AnnotateOutcomeArgs, tags: &TagColumns) -> Vec<String> {
    let mut options = vec![
        "--rules".to_owned(),
        value_name(&args.rules),
        "--laws".to_owned(),
        args.laws.as_arg(),
    ];
    if !tags.is_empty() {
        options.extend(["--tags".to_owned(), tags.names().join(",")]);
    }
    if args.fix_results {
        options.push("--fix-results".to_owned());
    }
    if args.pgnkit_tags {
        options.push("--pgnkit-tags".to_owned());
    }
    if args.problems {
        options.push("--problems".to_owned());
    }
    if let Some(file) = &args.openings {
        options.extend(["--openings".to_owned(), file.display().to_string()]);
    }
    options
}

/// Runs `annotate-outcome` ([`super::annotate_outcome`]).
///
/// # Errors
///
/// When the output cannot be written.
pub(super) fn run(
    args: &AnnotateOutcomeArgs,
    inputs: Vec<Input>,
    records: RecordSink<'_>,
    diag: &dyn Diagnostics,
) -> Result<Summary, Error> {
    let streaming = Streaming::new(&args.run, inputs, &records, diag);
    let Settings {
        streaming,
        profile,
        laws,
        written,
        tags,
        problems: only_problems,
    } = settings(args, streaming)?;
    if matches!(written, OutputFormat::Page(_)) {
        streaming.check_page()?;
    }
    let (mut out, batches) = streaming.writer(records)?;
    Streaming::check_batches(batches.is_some(), args.format)?;
    let mut outcomes = Outcomes::of(written, &streaming, batches)?;
    let failed = streaming.write_error(PRODUCT_NAME);
    streaming.check_range()?;
    outcomes
        .header(&mut out, !streaming.no_header, &tags)
        .map_err(&failed)?;
    // The records hold the opening; the report and the page do not.
    let records = matches!(
        args.format,
        AnnotateFormat::Csv
            | AnnotateFormat::Jsonl
            | AnnotateFormat::Parquet
            | AnnotateFormat::Arrow
    );
    if args.openings.is_some() && !records && !args.selection.criteria().needs_openings() {
        return Err(Error::usage(
            "--openings applies to the records (-f csv, jsonl, parquet, arrow): they have the `eco` and `opening` columns",
        ));
    }
    let openings = if records {
        Some(super::openings::table(args.openings.as_deref())?)
    } else {
        None
    };
    let work = Work {
        profile,
        laws,
        written,
        tags: &tags,
        only_problems,
        openings,
    };
    let stage = Stage::new(&args.selection, args.openings.as_deref(), &args.run)?;
    let mut picked = Picked::default();
    let mut counts = Counts::default();
    // A columnar output's batches are not cut by input: the inputs are
    // read one after another.
    let spool = out.clone();
    let columnar = matches!(outcomes, Outcomes::Columnar(_));
    let totals = streaming
        .inputs((!columnar && !Stage::ordered(stage.as_ref())).then_some(&spool))
        .for_each_game(
            |game| {
                let judged = stage.as_ref().and_then(|s| s.judge(game));
                let selected = match judged.map(|j| j.verdict) {
                    None => stage.is_none(),
                    Some(v) => matches!(v, Verdict::Selected { .. }),
                };
                (judged, selected.then(|| annotated(game, &work)))
            },
            |event| {
                match event {
                    Event::Game(ctx, (judged, done)) => {
                        let Admit::Write(_) = picked.admit(stage.as_ref(), judged) else {
                            return Ok(());
                        };
                        let Some(mut done) = done else {
                            return Ok(());
                        };
                        counts.verdict(&done);
                        report_damage(&out, &ctx, &mut done, &mut counts);
                        if only_problems && done.concerns.is_empty() {
                            return Ok(());
                        }
                        counts.written(&done);
                        outcomes
                            .write(&mut out, &ctx, &done, &tags)
                            .map_err(&failed)?;
                    }
                    // Text holding no game is `validate`'s business.
                    Event::Loose(..) => {}
                    Event::Skipped(file, skip) => {
                        out.error(format!("{file}: {}", skip.message()));
                    }
                    Event::Failed(file, err) => out.error(format!("{file}: {}", chain(&err))),
                }
                Ok(())
            },
        )?;
    outcomes
        .finish(&mut out, || counts.head(&totals))
        .map_err(&failed)?;
    let product = Product {
        what: PRODUCT_NAME,
        command: Subcommand::AnnotateOutcome,
        format: args.format.name(),
        columns: matches!(written, OutputFormat::Table(Format::Csv)).then(|| tags.csv_columns()),
        options: {
            let mut o = options(args, &tags);
            o.extend(stage.as_ref().map(Stage::flags).unwrap_or_default());
            o
        },
        records: counts.rows,
        codes: &counts.tally,
    };
    let mut summary = counts.summary();
    if let Some(picked) = picked.summary(stage.as_ref()) {
        summary = format!("{picked}; {summary}");
    }
    streaming.finish(
        &mut out,
        &totals,
        &product,
        counts.problems() + picked.unjudged,
        &summary,
    )
}
