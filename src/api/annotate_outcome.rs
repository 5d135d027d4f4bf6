//! `pgnkit annotate-outcome`: what the Laws say happened in every game, as a
//! table (CSV, JSON Lines) or as the games written back with the outcome in
//! tags and comments ([`crate::output::annotate`]). Damaged movetext is
//! reported on standard error as `validate` reports it.

use std::io::Write;

use super::options::{AnnotateOutcomeOptions as AnnotateOutcomeArgs, RulesProfile};
use super::streaming::{Product, Streaming, report_finding, value_name};
use super::{Diagnostics, Format as AnnotateFormat, Input, RecordSink, Subcommand, Summary};
use crate::error::Error;
use crate::input::error::chain;
use crate::output::annotate::{self, Format, OutcomeRecord, PgnSettings, TagColumns};
use crate::output::columnar::Columnar;
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
use crate::rules::setup::start_position;
use crate::schema::finding::FindingPlace;
use crate::schema::outcome::OUTCOME;
use crate::stream::Event;
use crate::tasks::annotate_outcome::{Concern, Outcome, Profile, annotate};

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
                    arrow: None,
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
    let mut page = match written {
        OutputFormat::Page(n) => Some(Page::new(Subcommand::AnnotateOutcome.name(), n)),
        _ => None,
    };
    let mut rows_written = 0u64;
    let mut looked = [0u64; Concern::KINDS.len()];
    let mut looked_games = 0u64;
    let (mut out, batches) = streaming.writer(records)?;
    Streaming::check_batches(batches.is_some(), args.format)?;
    let mut sink = match written {
        OutputFormat::Columnar(c) => Some(streaming.columnar(c, &OUTCOME, batches)?),
        _ => None,
    };
    let failed = streaming.write_error(PRODUCT_NAME);
    streaming.check_range()?;
    if let OutputFormat::Table(format) = written {
        annotate::write_header(&mut out, format, !streaming.no_header, &tags).map_err(&failed)?;
    }
    let mut tally = Tally::new();

    let mut wrong = 0u64;
    let mut not_replayed = 0u64;
    let mut damaged = 0u64;
    // A columnar output's batches are not cut by input: the inputs are
    // read one after another.
    let spool = out.clone();
    let totals = streaming
        .inputs(sink.is_none().then_some(&spool))
        .for_each_game(
            |game| {
                let outcome = annotate(game, profile, laws);
                let (white, black) = players(|tag| game.tag_text(tag));
                let mut row = OutcomeRecord::new(&outcome, white, black);
                let pgn = match written {
                    OutputFormat::Pgn(settings) => {
                        Some(annotate::pgn_record(game, &outcome, &row, settings))
                    }
                    _ => None,
                };
                if !tags.is_empty() {
                    row.tags = tags.values(game);
                }
                let found = if only_problems {
                    outcome.concerns()
                } else {
                    Vec::new()
                };
                let words = found.iter().map(Concern::kind).collect::<Vec<_>>();
                let look = (!found.is_empty()
                    && matches!(written, OutputFormat::Text | OutputFormat::Page(_)))
                .then(|| Look {
                    label: GameLabel::of(|t| game.tag_text(t), game.line),
                    boards: if matches!(written, OutputFormat::Page(_)) {
                        concern_boards(game, &outcome, &found)
                    } else {
                        Vec::new()
                    },
                    helpmate: if matches!(written, OutputFormat::Page(_)) {
                        helpmate_line(game, &row)
                    } else {
                        None
                    },
                    kinds: words,
                });
                let concerns = annotate::concern_texts(game, &outcome, &found);
                Annotated {
                    row,
                    pgn,
                    replayed: outcome.is_replayed(),
                    damage: damage(game),
                    first_move: outcome.first_move,
                    concerns,
                    look,
                }
            },
            |event| {
                match event {
                    Event::Game(ctx, done) => {
                        if !done.replayed {
                            not_replayed += 1;
                            tally.add(Code::NotReplayed);
                        } else if done.row.fide_result.is_none()
                            || done.row.fide_result != done.row.result
                        {
                            // (A marker that disagrees with a right tag
                            // also makes `result_ok` false: counted as
                            // damaged, below.)
                            wrong += 1;
                            tally.add(Code::WrongResult);
                        }
                        if !done.damage.is_empty() {
                            damaged += 1;
                            let white = diag::clipped(&done.row.white, diag::SHOWN);
                            let black = diag::clipped(&done.row.black, diag::SHOWN);
                            let place = FindingPlace::in_game(
                                ctx.place(),
                                (&white, &black),
                                done.first_move,
                            );
                            for finding in done.damage {
                                tally.add(finding.code);
                                report_finding(&out, &place, ctx.line_offset, finding);
                            }
                        }
                        if only_problems && done.concerns.is_empty() {
                            return Ok(());
                        }
                        rows_written += 1;
                        if let Some(look) = &done.look {
                            looked_games += 1;
                            for kind in &look.kinds {
                                looked[*kind] += 1;
                            }
                        }
                        if let Some(look) = done.look.as_ref().filter(|_| {
                            matches!(written, OutputFormat::Text | OutputFormat::Page(_))
                        }) {
                            let place = look.label.place(ctx.place(), done.first_move, (&[], &[]));
                            let result = done.row.result.map_or("no result", |r| r.as_str());
                            let line = look.label.line + ctx.line_offset;
                            if let Some(page) = page.as_mut() {
                                let mut boards = look.boards.iter().cloned();
                                let items: Vec<Item> = done
                                    .concerns
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
                                            board,
                                        }
                                    })
                                    .chain(look.helpmate.iter().map(|moves| {
                                        Item {
                                            code: "mating-line".to_owned(),
                                            line,
                                            message:
                                                "the winner's mating line from the final position"
                                                    .to_owned(),
                                            line_of_moves: Some(moves.clone()),
                                            ..Item::default()
                                        }
                                    }))
                                    .collect();
                                page.game(&place, result, line, &items);
                            } else {
                                let mut text = Vec::with_capacity(256);
                                let _ = write!(text, "{}:{line}: ", ctx.file);
                                let _ = write_game_label(&mut text, &place);
                                let _ = write!(text, ": {result}: ");
                                let words: Vec<String> = done
                                    .concerns
                                    .iter()
                                    .map(|c| diag::clipped(c, 4 * diag::SHOWN).into_owned())
                                    .collect();
                                let _ = writeln!(text, "{}", words.join("; "));
                                out.write_all(&text).map_err(&failed)?;
                            }
                            return Ok(());
                        }
                        match (&done.pgn, written) {
                            (Some(pgn), _) => out.write_all(pgn),
                            (None, OutputFormat::Table(format)) => annotate::write_row(
                                &mut out,
                                format,
                                ctx.file,
                                (ctx.game, ctx.offset),
                                &done.row,
                                &tags,
                            ),
                            (None, OutputFormat::Columnar(_)) => match sink.as_mut() {
                                Some(sink) => {
                                    done.row.columnar(
                                        sink.rows(),
                                        (ctx.file, ctx.game, ctx.offset),
                                        tags.names(),
                                    );
                                    sink.flush_full(&mut out)
                                }
                                None => Ok(()),
                            },
                            (None, _) => Ok(()),
                        }
                        .map_err(&failed)?;
                    }
                    // Text holding no game is `validate`'s business.
                    Event::Loose(..) => {}
                    Event::Failed(file, err) => out.error(format!("{file}: {}", chain(&err))),
                }
                Ok(())
            },
        )?;
    if let Some(sink) = sink {
        sink.finish(&mut out).map_err(&failed)?;
    }
    let mut summary =
        format!("{wrong} with a result the rules do not give, {not_replayed} not replayed");
    if damaged > 0 {
        summary.push_str(&format!(
            ", {damaged} with damaged movetext (what could not be read left out) \
             or a termination marker that disagrees with the Result tag"
        ));
    }
    let problems = wrong + not_replayed + damaged;
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
    if args.problems {
        options.push("--problems".to_owned());
    }
    if let Some(page) = page {
        let head = Head {
            inputs: totals.inputs.iter().map(|i| i.file.clone()).collect(),
            games: totals.games,
            counted: "what to look at",
            counts: Concern::KINDS
                .iter()
                .zip(looked)
                .filter(|(_, n)| *n > 0)
                .map(|(name, n)| ((*name).to_owned(), None, n, n))
                .collect(),
            summary: format!(
                "{}, {summary}; {looked_games} to look at.",
                diag::games(totals.games)
            ),
            status: if problems > 0 {
                "Exit status 1: games with a result the rules do not give, not replayed, or damaged.".to_owned()
            } else {
                "Exit status 0: every result is one the rules give.".to_owned()
            },
        };
        page.finish(&mut out, &head).map_err(&failed)?;
    }
    let product = Product {
        what: PRODUCT_NAME,
        command: Subcommand::AnnotateOutcome,
        format: args.format.name(),
        columns: matches!(written, OutputFormat::Table(Format::Csv)).then(|| tags.csv_columns()),
        options,
        records: rows_written,
        codes: &tally,
    };
    streaming.finish(&mut out, &totals, &product, problems, &summary)
}
