//! `pgnkit annotate-outcome`: what the Laws say happened in every game, as a
//! table (CSV, JSON Lines) or as the games written back with the outcome in
//! tags and comments ([`crate::output::annotate`]). Damaged movetext is
//! reported on standard error as `validate` reports it.

use std::io::Write;

use super::{Product, Streaming, report_finding, value_name};
use crate::cli::{AnnotateFormat, AnnotateOutcomeArgs, RulesProfile};
use crate::error::Error;
use crate::exit::ExitStatus;
use crate::input::error::chain;
use crate::output::annotate::{self, Format, OutcomeRecord, PgnSettings, TagColumns};
use crate::output::columnar::Columnar;
use crate::output::diag;
use crate::output::report::players;
use crate::output::tally::Tally;
use crate::rules::finding::{Code, Finding};
use crate::rules::laws::LawsChoice;
use crate::rules::movetext::damage;
use crate::schema::finding::FindingPlace;
use crate::schema::outcome::OUTCOME;
use crate::stream::Event;
use crate::tasks::annotate_outcome::{Profile, annotate};

/// What the output is called in errors.
const PRODUCT_NAME: &str = "output";

/// What is written for each game.
#[derive(Debug, Clone, Copy)]
enum OutputFormat {
    Table(Format),
    /// `-f parquet`, `-f arrow`.
    Columnar(Columnar),
    Pgn(PgnSettings),
}

/// The settings of one run, from the arguments.
struct Settings {
    streaming: Streaming,
    profile: Profile,
    laws: LawsChoice,
    written: OutputFormat,
    /// The tag columns of a table (`--tags`).
    tags: TagColumns,
}

/// Checks the flags against each other and builds the settings.
///
/// # Errors
///
/// For flags that do not apply to the output format.
fn settings(args: &AnnotateOutcomeArgs) -> Result<Settings, Error> {
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
    if args.tags.is_some() && pgn {
        return Err(Error::usage(
            "--tags applies to -f csv, jsonl, parquet and arrow only (-f pgn keeps every tag)",
        ));
    }
    let tags = TagColumns::new(args.tags.as_deref().unwrap_or_default()).map_err(Error::usage)?;
    Ok(Settings {
        streaming: Streaming::new(&args.input),
        profile,
        laws: args.laws,
        tags,
        written: match args.format {
            AnnotateFormat::Csv => OutputFormat::Table(Format::Csv),
            AnnotateFormat::Jsonl => OutputFormat::Table(Format::Jsonl),
            AnnotateFormat::Parquet => OutputFormat::Columnar(Columnar::Parquet),
            AnnotateFormat::Arrow => OutputFormat::Columnar(Columnar::Arrow),
            AnnotateFormat::Pgn => OutputFormat::Pgn(PgnSettings {
                rules: profile,
                fix_results: args.fix_results,
            }),
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
}

/// Runs `annotate-outcome`.
///
/// # Errors
///
/// When the output cannot be written.
pub fn run(args: &AnnotateOutcomeArgs, stdout: &mut dyn Write) -> Result<ExitStatus, Error> {
    let Settings {
        streaming,
        profile,
        laws,
        written,
        tags,
    } = settings(args)?;
    let mut sink = match written {
        OutputFormat::Columnar(c) => Some(streaming.columnar(c, &OUTCOME)?),
        _ => None,
    };
    let mut out = streaming.writer(stdout)?;
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
                    OutputFormat::Table(_) | OutputFormat::Columnar(_) => None,
                };
                if !tags.is_empty() {
                    row.tags = tags.values(game);
                }
                Annotated {
                    row,
                    pgn,
                    replayed: outcome.is_replayed(),
                    damage: damage(game),
                    first_move: outcome.first_move,
                }
            },
            |event| {
                match event {
                    Event::Game(ctx, done) => {
                        if !done.replayed {
                            not_replayed += 1;
                            tally.add(Code::NotReplayed);
                        } else if !done.row.result_ok {
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
                            (None, OutputFormat::Pgn(_)) => Ok(()),
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
    let product = Product {
        what: PRODUCT_NAME,
        command: "annotate-outcome",
        format: value_name(&args.format),
        columns: matches!(written, OutputFormat::Table(Format::Csv)).then(|| tags.csv_columns()),
        options,
        records: totals.games,
        codes: &tally,
    };
    streaming.finish(&mut out, &totals, &product, problems, &summary)
}
