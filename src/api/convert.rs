//! `pgnkit convert`: replay every game (or read every position or UCI
//! line) and write it in another format.
//!
//! Each game is converted and rendered on a worker (`render`); the sink
//! here reports on standard error, in `validate`'s words, games that cannot
//! be replayed, variations left out and damaged movetext (each makes the
//! exit status 1), fixes the CSV header, numbers EPD records, and copies
//! bytes to the output. Which
//! input holds what is told by [`crate::stream`] (`--from`, or sniffed).

use std::io::Write;
use std::path::Path;

use super::options::{ConvertOptions as ConvertArgs, EcoTags, Positions, SourceFormat};
use super::selection::{Admit, Picked, Stage};
use super::streaming::{Product, Streaming, report_finding, value_name};
use super::{Diagnostics, Format as ConvertFormat, Input, RecordSink, Subcommand, Summary};
use crate::error::Error;
use crate::input::error::chain;
use crate::input::lines::{Line, LineFormat};
use crate::input::range::ByteRange;
use crate::output::columnar::{Columnar, ColumnarSink};
use crate::output::convert::{
    CsvColumns, CsvRecord, DroppedTags, PositionRow, epd_records, is_fixed_column, jsonl_head,
    position_rows, write_columnar, write_epd, write_fens, write_jsonl, write_lan, write_pgn,
    write_position, write_san, write_uci,
};
use crate::output::pgn::Keep;
use crate::output::report::GameLabel;
use crate::output::tally::Tally;
use crate::rules::finding::{Code, Finding};
use crate::rules::game::RawGame;
use crate::rules::movetext::damage;
use crate::rules::select::{Judged, Verdict};
use crate::schema::game::GAME;
use crate::schema::position::POSITION;
use crate::stream::{Event, GameCtx, InputFormat, Spooled};
use crate::tasks::convert::lines::{
    game_from_fen_line, game_from_position_line, game_from_uci_line,
};
use crate::tasks::convert::{ConvertOptions as ReplayOptions, ConvertedGame, convert_game};
use crate::tasks::validate::eco_mismatch;

/// What the output is called in errors.
const PRODUCT_NAME: &str = "output";

/// Games read before the CSV header is fixed, when `--tags` is not given:
/// the header holds every tag these games use.
pub const CSV_HEADER_GAMES: usize = 1000;

/// The settings of one run, from the arguments, checked once.
struct Settings<'d> {
    streaming: Streaming<'d>,
    /// What the inputs hold.
    from: InputFormat,
    render: Render,
    /// The CSV columns after the Seven Tag Roster (`--tags`).
    tags: Option<Vec<String>>,
}

/// What a worker needs to render a game.
#[derive(Debug, Clone, Copy)]
struct Render {
    format: ConvertFormat,
    positions_all: bool,
    keep_invalid: bool,
    /// `--no-fen`: JSON records without `fen_after`.
    no_fen: bool,
    /// `--san`: the columnar `san` list.
    san_list: bool,
    /// `--eco-tags`: how PGN output writes the opening tags.
    eco_tags: Option<EcoTags>,
    options: ReplayOptions,
}

/// Checks the flags against each other and builds the settings.
///
/// # Errors
///
/// For flags that do not apply to the output format.
fn settings<'d>(args: &ConvertArgs, streaming: Streaming<'d>) -> Result<Settings<'d>, Error> {
    if !args.format.is_of(Subcommand::Convert) {
        return Err(Error::usage(format!(
            "convert does not write {}",
            args.format
        )));
    }
    if args.tags.is_some() && args.format != ConvertFormat::Csv {
        return Err(Error::usage(
            "--tags applies to --to csv only (parquet and arrow keep every tag in the `tags` map)",
        ));
    }
    if args.no_fen && args.format != ConvertFormat::Jsonl {
        return Err(Error::usage("--no-fen applies to --to jsonl only"));
    }
    let columnar = columnar_format(args.format);
    if args.san && columnar.is_none() {
        return Err(Error::usage(
            "--san applies to --to parquet and --to arrow only (the other formats say which notation they write)",
        ));
    }
    if let Some(tags) = &args.tags
        && let Some(bad) = tags.iter().find(|t| t.contains(['*', '?']))
    {
        return Err(Error::usage(format!(
            "--tags: `{bad}` is not a tag name (for every tag, give --tags all)"
        )));
    }
    if args.positions == Positions::All
        && !matches!(
            args.format,
            ConvertFormat::Fen | ConvertFormat::Epd | ConvertFormat::Parquet | ConvertFormat::Arrow
        )
    {
        return Err(Error::usage(
            "--positions all applies to --to fen, epd, parquet and arrow only",
        ));
    }
    if args.positions == Positions::All && args.san {
        return Err(Error::usage(
            "--san applies to game records; position records always have `san`",
        ));
    }
    // The game records hold the opening; PGN its tags with --eco-tags.
    let records = args.positions == Positions::Final
        && matches!(
            args.format,
            ConvertFormat::Csv
                | ConvertFormat::Jsonl
                | ConvertFormat::Parquet
                | ConvertFormat::Arrow
        );
    if args.eco_tags.is_some() && args.format != ConvertFormat::Pgn {
        return Err(Error::usage(
            "--eco-tags applies to --to pgn only (the game records have the `eco` and `opening` columns)",
        ));
    }
    if args.openings.is_some()
        && !records
        && args.eco_tags.is_none()
        && !args.selection.criteria().needs_openings()
    {
        return Err(Error::usage(
            "--openings applies to the game records (--to csv, jsonl, parquet, arrow) and to --to pgn --eco-tags",
        ));
    }
    let openings = if records || args.eco_tags.is_some() {
        Some(super::openings::table(args.openings.as_deref())?)
    } else {
        None
    };
    let notes = matches!(args.format, ConvertFormat::Pgn | ConvertFormat::Jsonl);
    Ok(Settings {
        streaming,
        from: match args.from {
            None => InputFormat::Detect,
            Some(SourceFormat::Pgn) => InputFormat::Pgn,
            Some(SourceFormat::Fen) => InputFormat::Lines(LineFormat::Fen),
            Some(SourceFormat::Epd) => InputFormat::Lines(LineFormat::Positions),
            Some(SourceFormat::Uci) => InputFormat::Lines(LineFormat::Uci),
        },
        render: Render {
            format: args.format,
            positions_all: args.positions == Positions::All,
            keep_invalid: args.keep_invalid,
            no_fen: args.no_fen,
            san_list: args.san,
            eco_tags: args.eco_tags,
            options: ReplayOptions {
                openings,
                san: args.san
                    || (columnar.is_some() && args.positions == Positions::All)
                    || matches!(
                        args.format,
                        ConvertFormat::Pgn
                            | ConvertFormat::San
                            | ConvertFormat::Lan
                            | ConvertFormat::Jsonl
                    ),
                // Only PGN and JSON Lines write annotations.
                comments: notes && !args.no_comments,
                nags: notes && !args.no_nags,
                variations: notes && !args.no_variations,
                keep_invalid: args.keep_invalid,
                // The record formats hold the clocks and evaluations.
                commands: matches!(
                    args.format,
                    ConvertFormat::Csv
                        | ConvertFormat::Jsonl
                        | ConvertFormat::Parquet
                        | ConvertFormat::Arrow
                ),
            },
        },
        tags: args.tags.clone(),
    })
}

/// What a worker hands the writer for one game.
struct GameOut {
    body: RenderedGame,
    /// The line a record line came from (its EPD `id`); `None` for a game.
    line: Option<u64>,
    /// The game's first line (in its chunk; of a record line, in its
    /// input).
    first_line: u64,
    /// What is reported about the game on standard error, if anything.
    report: Option<Report>,
    /// What the selection stage said of it (none without criteria, or
    /// after `--limit`).
    judged: Option<Judged>,
}

/// What is written for one game, as far as a worker renders it.
enum RenderedGame {
    /// Nothing to write (an invalid game left out, or no position).
    None,
    Bytes(Vec<u8>),
    /// EPD records as `(ply, four fields)`; the writer adds the `id`: the
    /// source line of a record line, else the game's number in the run.
    Epd(Vec<(usize, String)>),
    Csv(Box<CsvRecord>),
    /// Position records (`--positions all` in a columnar format).
    Positions(Vec<PositionRow>),
}

/// The findings of one game, with the names to report them.
struct Report {
    /// In input order: the damage the scanner repaired, the variations
    /// that did not replay, then what stopped the replay.
    findings: Vec<Finding>,
    /// Whether the main line could not be replayed (the game is left out,
    /// or written up to its last legal move).
    broken: bool,
    /// The game's label, as diagnostics show it.
    label: GameLabel,
    first_move: (u32, shakmaty::Color),
}

/// The game a record line holds.
fn line_game(
    line: &Line,
    format: LineFormat,
    openings: Option<&'static crate::rules::openings::OpeningTable>,
) -> ConvertedGame {
    match format {
        LineFormat::Positions => game_from_position_line(&line.text, line.number),
        LineFormat::Fen => game_from_fen_line(&line.text, line.number),
        LineFormat::Uci => {
            let mut game = game_from_uci_line(&line.text, line.number);
            // A game of moves from the standard start has an opening too.
            if let Some(table) = openings
                && game.error.is_none()
            {
                game.classify(table);
            }
            game
        }
    }
}

/// Converts and renders one game of PGN input; with `--eco-tags`, its
/// opening tags first.
fn render_game(raw: &RawGame<'_>, settings: &Render, match_ply: Option<u32>) -> GameOut {
    let mut game = convert_game(raw, settings.options);
    game.match_ply = match_ply;
    let mut findings = damage(raw);
    if let Some(how) = settings.eco_tags
        && game.error.is_none()
    {
        let mismatch = eco_mismatch(raw, game.opening);
        let correct = how == EcoTags::Correct;
        if let Some(o) = game.opening {
            for (name, value) in [("ECO", o.eco), ("Opening", o.name)] {
                set_tag(&mut game.tags, name, value, correct);
            }
        }
        findings.extend(mismatch.map(|mut f| {
            f.message.push_str(if correct && game.opening.is_some() {
                ": the tags are corrected"
            } else if game.opening.is_some() {
                ": the tags are kept (--eco-tags correct replaces them)"
            } else {
                ": the tags are kept"
            });
            f
        }));
    }
    render(game, findings, settings)
}

/// A worker's part for a game of PGN input: judged by the selection stage
/// (if any), then converted and rendered when selected, or when it could
/// not be judged (so that what stopped its replay is reported).
fn select_and_render(raw: &RawGame<'_>, settings: &Render, stage: Option<&Stage>) -> GameOut {
    let judged = stage.and_then(|s| s.judge(raw));
    let out = match judged.map(|j| j.verdict) {
        None if stage.is_some() => None,
        None => Some(render_game(raw, settings, None)),
        Some(Verdict::Selected { ply }) => Some(render_game(raw, settings, ply)),
        Some(Verdict::Unjudged) => Some(render_game(raw, settings, None)),
        Some(Verdict::Rejected) => None,
    };
    let out = out.unwrap_or(GameOut {
        body: RenderedGame::None,
        line: None,
        first_line: 0,
        report: None,
        judged: None,
    });
    GameOut {
        first_line: raw.line,
        judged,
        ..out
    }
}

/// Sets the tag `name` of `tags` to `value` where it is missing, empty or
/// `?`, and where it says another value when `correct`.
fn set_tag(tags: &mut Vec<(String, String)>, name: &str, value: &str, correct: bool) {
    match tags.iter_mut().find(|(n, _)| n == name) {
        Some((_, v)) if correct || matches!(v.trim(), "" | "?") => *v = value.to_owned(),
        Some(_) => {}
        None => tags.push((name.to_owned(), value.to_owned())),
    }
}

/// Renders one converted game; `damage` is what its scanner repaired
/// ([`damage`]). It takes the game, so that a record can take its tags
/// without a copy.
fn render(owned: ConvertedGame, damage: Vec<Finding>, settings: &Render) -> GameOut {
    let game = &owned;
    let broken = game.error.is_some();
    let mut findings = damage;
    findings.extend(game.left_out.iter().cloned());
    findings.extend(game.error.iter().cloned());
    let report = (!findings.is_empty()).then(|| Report {
        findings,
        broken,
        label: GameLabel::of(|tag| game.tag(tag), 0).clipped(),
        first_move: game.first_move(),
    });
    if broken && !settings.keep_invalid {
        return GameOut {
            // A record for every game in the record formats, so that rows
            // and lines match the input's games: its tags and error without
            // moves (issue 22). PGN and positions have nothing to write.
            body: match settings.format {
                // No positions for a game that cannot be replayed, as in
                // --to fen.
                ConvertFormat::Parquet | ConvertFormat::Arrow if settings.positions_all => {
                    RenderedGame::None
                }
                ConvertFormat::Csv | ConvertFormat::Parquet | ConvertFormat::Arrow => {
                    RenderedGame::Csv(Box::new(CsvRecord::left_out(owned)))
                }
                ConvertFormat::Jsonl => {
                    let mut out = Vec::with_capacity(256);
                    write_jsonl(&game.without_moves(), !settings.no_fen, &mut out);
                    RenderedGame::Bytes(out)
                }
                ConvertFormat::Uci | ConvertFormat::San | ConvertFormat::Lan => {
                    RenderedGame::Bytes(b"\n".to_vec())
                }
                _ => RenderedGame::None,
            },
            line: None,
            first_line: 0,
            report,
            judged: None,
        };
    }
    let bytes = |f: fn(&ConvertedGame, &mut Vec<u8>)| {
        let mut out = Vec::with_capacity(64 + 8 * game.plies.len());
        f(game, &mut out);
        RenderedGame::Bytes(out)
    };
    let body = match settings.format {
        ConvertFormat::Parquet | ConvertFormat::Arrow if settings.positions_all => {
            RenderedGame::Positions(position_rows(game))
        }
        ConvertFormat::Uci => bytes(write_uci),
        ConvertFormat::San => bytes(write_san),
        ConvertFormat::Lan => bytes(write_lan),
        ConvertFormat::Jsonl => {
            let mut out = Vec::with_capacity(64 + 80 * game.plies.len());
            write_jsonl(game, !settings.no_fen, &mut out);
            RenderedGame::Bytes(out)
        }
        ConvertFormat::Fen => {
            let mut out = Vec::new();
            write_fens(game, settings.positions_all, &mut out);
            RenderedGame::Bytes(out)
        }
        ConvertFormat::Epd => RenderedGame::Epd(epd_records(game, settings.positions_all)),
        ConvertFormat::Csv | ConvertFormat::Parquet | ConvertFormat::Arrow => {
            RenderedGame::Csv(Box::new(CsvRecord::new(owned, settings.san_list)))
        }
        // What the flags drop was never collected: keep all the rest.
        ConvertFormat::Pgn => {
            let mut out = Vec::with_capacity(256 + 8 * game.plies.len());
            write_pgn(game, Keep::default(), &mut out);
            RenderedGame::Bytes(out)
        }
        // Refused before the run (not a format of `convert`).
        ConvertFormat::Text | ConvertFormat::Html => RenderedGame::None,
    };
    GameOut {
        body,
        line: None,
        first_line: 0,
        report,
        judged: None,
    }
}

/// The CSV header: waiting for the first games, or fixed.
enum CsvState {
    Pending(Vec<CsvRecord>),
    Fixed {
        columns: CsvColumns,
        /// Whether the user chose the columns (`--tags`): then no warning.
        chosen: bool,
        /// The tags left out for want of a column, when not chosen.
        dropped: DroppedTags,
    },
}

/// The single writer: everything that happens on the calling thread.
struct Writer<'w> {
    out: Spooled<'w>,
    settings: Render,
    csv: CsvState,
    /// Games handed to the writer in the whole run (the EPD `id`).
    games: u64,
    /// Games whose main line could not be replayed.
    broken: u64,
    /// Other games with a finding: written without what was damaged or
    /// did not replay.
    repaired: u64,
    /// Whether the CSV header is written (`--no-header` not given).
    header: bool,
    codes: Tally,
    /// The file the product goes to (`-` for standard output).
    product: &'w Path,
    /// Records written (rows, lines or EPD records).
    records: u64,
    /// The writer of `--to parquet` and `--to arrow`.
    sink: Option<ColumnarSink<'w>>,
    /// The selection stage, and what it let through.
    stage: Option<&'w Stage>,
    picked: Picked,
}

impl<'w> Writer<'w> {
    /// The writer of a run onto `out` (columnar: into `sink`), with the
    /// CSV columns `chosen` by `--tags`, if any.
    fn new(
        out: Spooled<'w>,
        sink: Option<ColumnarSink<'w>>,
        settings: Render,
        chosen: Option<CsvColumns>,
        streaming: &'w Streaming<'_>,
        stage: Option<&'w Stage>,
    ) -> Writer<'w> {
        Writer {
            stage,
            picked: Picked::default(),
            sink,
            out,
            settings,
            csv: match chosen {
                Some(columns) => CsvState::Fixed {
                    columns,
                    chosen: true,
                    dropped: DroppedTags::default(),
                },
                None => CsvState::Pending(Vec::new()),
            },
            games: 0,
            broken: 0,
            repaired: 0,
            header: !streaming.no_header,
            codes: Tally::new(),
            product: streaming.product_path(),
            records: 0,
        }
    }

    /// The CSV header, when the columns are known before the first game.
    fn header(&mut self) -> std::io::Result<()> {
        match &self.csv {
            CsvState::Fixed { columns, .. }
                if self.settings.format == ConvertFormat::Csv && self.header =>
            {
                columns.write_header(&mut self.out)
            }
            _ => Ok(()),
        }
    }

    /// After the last game: the CSV rows still held, the last batch and
    /// the columnar footer.
    fn finish(&mut self) -> std::io::Result<()> {
        if self.settings.format == ConvertFormat::Csv {
            self.fix_csv_header()?;
        }
        match self.sink.take() {
            Some(sink) => sink.finish(&mut self.out),
            None => Ok(()),
        }
    }

    /// The CSV product's columns, for `--stats`.
    fn csv_columns(&self) -> Option<Vec<String>> {
        match &self.csv {
            CsvState::Fixed { columns, .. } if self.settings.format == ConvertFormat::Csv => {
                Some(columns.names().into_iter().map(str::to_owned).collect())
            }
            _ => None,
        }
    }
}

impl Writer<'_> {
    fn event(&mut self, event: Event<'_, GameOut>) -> anyhow::Result<()> {
        match event {
            Event::Game(ctx, out) => self.game(ctx, out),
            // Text between games that holds no game: nothing to convert.
            Event::Loose(..) => Ok(()),
            Event::Skipped(file, skip) => {
                self.out.error(format!("{file}: {}", skip.message()));
                Ok(())
            }
            Event::Failed(file, err) => {
                self.out.error(format!("{file}: {}", chain(&err)));
                Ok(())
            }
        }
    }

    fn game(&mut self, ctx: GameCtx<'_>, mut out: GameOut) -> anyhow::Result<()> {
        self.games += 1;
        match self.picked.admit(self.stage, out.judged) {
            Admit::Write(_) => {}
            // Reported (what stopped its replay), not written.
            Admit::Unjudged => out.body = RenderedGame::None,
            Admit::Skip => return Ok(()),
        }
        if let Some(report) = out.report {
            if report.broken {
                self.broken += 1;
            } else if report.findings.iter().any(|f| !is_note(f.code)) {
                self.repaired += 1;
            }
            let place = report
                .label
                .place(ctx.place(), report.first_move, (&[], &[]));
            for finding in report.findings {
                self.codes.add(finding.code);
                report_finding(&self.out, &place, ctx.line_offset, finding);
            }
        }
        let product = self.product;
        let failed = |e| Error::output(product, format!("failed to write the {PRODUCT_NAME}"), e);
        self.records += match &out.body {
            RenderedGame::None => 0,
            RenderedGame::Epd(records) => records.len() as u64,
            RenderedGame::Positions(rows) => rows.len() as u64,
            RenderedGame::Bytes(_) | RenderedGame::Csv(_) => 1,
        };
        match out.body {
            RenderedGame::None => {}
            RenderedGame::Bytes(bytes) if self.settings.format == ConvertFormat::Jsonl => {
                // The record's place goes first; the worker wrote the rest.
                let mut head = Vec::with_capacity(64);
                jsonl_head(&mut head, ctx.file, ctx.game, ctx.offset);
                self.out.write_all(&head).map_err(failed)?;
                self.out.write_all(&bytes).map_err(failed)?;
            }
            RenderedGame::Bytes(bytes) => self.out.write_all(&bytes).map_err(failed)?,
            RenderedGame::Epd(records) => {
                // A record line is named by its line, a game by its number
                // in the run.
                let id = out.line.unwrap_or(self.games);
                for (ply, record) in records {
                    write_epd(&mut self.out, &record, id, ply).map_err(failed)?;
                }
            }
            RenderedGame::Csv(mut record) if self.sink.is_some() => {
                record.file = ctx.file.to_owned();
                record.game = ctx.game;
                record.offset = ctx.offset;
                record.line = out.first_line + ctx.line_offset;
                if let Some(sink) = self.sink.as_mut() {
                    write_columnar(&record, sink.rows());
                    sink.flush_full(&mut self.out).map_err(failed)?;
                }
            }
            RenderedGame::Csv(record) => self.csv_record(ctx, *record).map_err(failed)?,
            RenderedGame::Positions(rows) => {
                if let Some(sink) = self.sink.as_mut() {
                    // A batch is cut after exactly its rows, whatever the
                    // games: so merged shards make one run's batches.
                    for p in &rows {
                        write_position(p, (ctx.file, ctx.game, ctx.offset), sink.rows());
                        sink.flush_full(&mut self.out).map_err(failed)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn csv_record(&mut self, ctx: GameCtx<'_>, mut record: CsvRecord) -> std::io::Result<()> {
        record.file = ctx.file.to_owned();
        record.game = ctx.game;
        record.offset = ctx.offset;
        match &mut self.csv {
            CsvState::Pending(rows) => {
                rows.push(record);
                if rows.len() >= CSV_HEADER_GAMES {
                    self.fix_csv_header()?;
                }
                Ok(())
            }
            CsvState::Fixed {
                columns,
                chosen,
                dropped,
            } => {
                if !*chosen {
                    dropped.add(columns, &record, (ctx.file, ctx.game));
                }
                columns.write_record(&mut self.out, &record)
            }
        }
    }

    /// Fixes the header from the games held so far and writes them.
    fn fix_csv_header(&mut self) -> std::io::Result<()> {
        let CsvState::Pending(rows) = &mut self.csv else {
            return Ok(());
        };
        let rows = std::mem::take(rows);
        let columns = CsvColumns::seen_in(rows.iter());
        if self.header {
            columns.write_header(&mut self.out)?;
        }
        let mut dropped = DroppedTags::default();
        for r in &rows {
            dropped.add(&columns, r, (&r.file, r.game));
            columns.write_record(&mut self.out, r)?;
        }
        self.csv = CsvState::Fixed {
            columns,
            chosen: false,
            dropped,
        };
        Ok(())
    }
}

/// The columnar format `--to` names, if it names one.
fn columnar_format(to: ConvertFormat) -> Option<Columnar> {
    Columnar::of(to)
}

/// The `--tags` value that asks for every tag of the inputs.
const ALL_TAGS: &str = "all";

/// Every tag name the inputs' games use, in order of first appearance: a
/// first pass over the inputs, which must therefore be regular files
/// (`--tags all`).
fn every_tag(streaming: &Streaming<'_>) -> Result<Vec<String>, Error> {
    let regular = |i: &Input| {
        i.as_path().is_some_and(|p| {
            p != std::path::Path::new("-") && std::fs::metadata(p).is_ok_and(|m| m.is_file())
        })
    };
    if streaming.files.is_empty() || !streaming.files.iter().all(regular) {
        return Err(Error::usage(
            "--tags all reads the inputs twice (once for the tag names, once for the rows), \
             so they must be regular files, not a pipe or standard input; name the tags \
             with --tags T1,T2 instead",
        ));
    }
    let inputs = crate::stream::Inputs {
        files: &streaming.files,
        range: streaming.range,
        threads: streaming.threads,
        quiet: true,
        spool: None,
        max_game_bytes: streaming.max_game_bytes,
        movetext: crate::input::scan::Movetext::Tokens,
    };
    let (mut names, failed) = inputs.tag_names().map_err(Error::from)?;
    if let Some((file, err)) = failed {
        return Err(Error::input(file, "failed to read the tag names", err));
    }
    // A tag named like a fixed column cannot have one.
    names.retain(|n| !is_fixed_column(n));
    Ok(names)
}

/// Runs `convert` ([`super::convert`]).
///
/// # Errors
///
/// For conflicting flags, or when the output cannot be written.
pub(super) fn run(
    args: &ConvertArgs,
    inputs: Vec<Input>,
    records: RecordSink<'_>,
    diag: &dyn Diagnostics,
) -> Result<Summary, Error> {
    run_as(Subcommand::Convert, args, inputs, records, diag)
}

/// Runs `convert` as `command` (`select` writes its records so): the name
/// its statistics give the run.
///
/// # Errors
///
/// As [`run`].
pub(super) fn run_as(
    command: Subcommand,
    args: &ConvertArgs,
    inputs: Vec<Input>,
    records: RecordSink<'_>,
    diag: &dyn Diagnostics,
) -> Result<Summary, Error> {
    let streaming = Streaming::new(&args.run, inputs, &records, diag);
    let Settings {
        streaming,
        from,
        render: settings,
        tags,
    } = settings(args, streaming)?;
    let stage = Stage::new(&args.selection, args.openings.as_deref(), &args.run)?;
    if stage.is_some() && matches!(from, InputFormat::Lines(_)) {
        return Err(Error::usage(
            "the selection criteria judge games of PGN input, not FEN, EPD or UCI lines",
        ));
    }
    let tags = match tags {
        Some(t) if t == [ALL_TAGS] => Some(every_tag(&streaming)?),
        other => other,
    };
    let chosen = match &tags {
        Some(tags) => Some(CsvColumns::exactly(tags).map_err(Error::usage)?),
        None => None,
    };
    let failed = streaming.write_error(PRODUCT_NAME);
    let (out, batches) = streaming.writer(records)?;
    Streaming::check_batches(batches.is_some(), args.format)?;
    let sink = match columnar_format(settings.format) {
        Some(c) if settings.positions_all => Some(streaming.columnar(c, &POSITION, batches)?),
        Some(c) => Some(streaming.columnar(c, &GAME, batches)?),
        None => None,
    };
    let mut writer = Writer::new(out, sink, settings, chosen, &streaming, stage.as_ref());
    streaming.check_range()?;
    let from = range_format(streaming.range, from)?;
    writer.header().map_err(&failed)?;

    // EPD records are numbered across inputs, the CSV header comes from
    // the first games of the run, and columnar batches are not cut by
    // input: those need the inputs one after another.
    let ordered = Stage::ordered(stage.as_ref())
        || settings.format == ConvertFormat::Epd
        || (settings.format == ConvertFormat::Csv && tags.is_none())
        || writer.sink.is_some();
    let spool = writer.out.clone();
    let totals = streaming
        .inputs((!ordered).then_some(&spool))
        .for_each_record(
            from,
            |raw| select_and_render(raw, &settings, stage.as_ref()),
            |line, format| GameOut {
                line: Some(line.number),
                first_line: line.number,
                ..render(
                    line_game(line, format, settings.options.openings),
                    Vec::new(),
                    &settings,
                )
            },
            |event| writer.event(event),
        )?;
    writer.finish().map_err(&failed)?;
    if let CsvState::Fixed { dropped, .. } = &writer.csv
        && let Some(warning) = dropped.warning(CSV_HEADER_GAMES)
    {
        streaming.warning(warning);
    }
    let product = Product {
        what: PRODUCT_NAME,
        command,
        format: args.format.name(),
        columns: writer.csv_columns(),
        options: options(args, tags.as_deref(), stage.as_ref()),
        records: writer.records,
        codes: &writer.codes,
    };
    let (broken, repaired) = (writer.broken, writer.repaired);
    let mut summary = summary(&settings, broken, repaired);
    if let Some(picked) = writer.picked.summary(stage.as_ref()) {
        summary = format!("{picked}; {summary}");
    }
    streaming.finish(
        &mut writer.out,
        &totals,
        &product,
        broken + repaired + writer.picked.unjudged,
        &summary,
    )
}

/// Whether a finding of `code` only says something of a game written
/// whole: its clocks do not add up, its opening tags disagree with the
/// table. Such a game is not counted as written without something.
fn is_note(code: Code) -> bool {
    matches!(
        code,
        Code::ClockMismatch | Code::EcoMismatch | Code::InvalidTag
    )
}

/// The input format of a run over `range`: a byte range is a range of
/// PGN, and nothing is sniffed from its middle.
///
/// # Errors
///
/// Line inputs with a byte range.
fn range_format(range: Option<ByteRange>, from: InputFormat) -> Result<InputFormat, Error> {
    match (range, from) {
        (None, from) => Ok(from),
        (Some(_), InputFormat::Pgn | InputFormat::Detect) => Ok(InputFormat::Pgn),
        (Some(_), InputFormat::Lines(_)) => Err(Error::usage(
            "--byte-range reads PGN only, not FEN, EPD or UCI lines",
        )),
    }
}

/// The summary after `N games, `: the games that could not be replayed
/// (and what became of them) and those written without something.
fn summary(settings: &Render, broken: u64, repaired: u64) -> String {
    let what = match settings.format {
        _ if settings.keep_invalid => "written up to their last legal move",
        ConvertFormat::Parquet | ConvertFormat::Arrow if settings.positions_all => "left out",
        ConvertFormat::Csv
        | ConvertFormat::Jsonl
        | ConvertFormat::Parquet
        | ConvertFormat::Arrow => "a record each, with the error and no moves",
        ConvertFormat::Uci | ConvertFormat::San | ConvertFormat::Lan => "an empty line each",
        ConvertFormat::Pgn | ConvertFormat::Fen | ConvertFormat::Epd => "left out",
        ConvertFormat::Text | ConvertFormat::Html => "left out",
    };
    let mut summary = format!("{broken} could not be replayed ({what})");
    if repaired > 0 {
        summary.push_str(&format!(", {repaired} written "));
        summary.push_str(if settings.keep_invalid {
            "with what could not be replayed as comments"
        } else {
            "without what could not be read or replayed"
        });
    }
    summary
}

/// The flags besides the format that change the output, canonically
/// spelt (what a rerun of a shard is given); `tags` as the run used them.
fn options(args: &ConvertArgs, tags: Option<&[String]>, stage: Option<&Stage>) -> Vec<String> {
    let mut options = Vec::new();
    if let Some(from) = &args.from {
        options.extend(["--from".to_owned(), value_name(from)]);
    }
    for (set, flag) in [
        (args.keep_invalid, "--keep-invalid"),
        (args.no_comments, "--no-comments"),
        (args.no_nags, "--no-nags"),
        (args.no_variations, "--no-variations"),
        (args.no_fen, "--no-fen"),
        (args.san, "--san"),
    ] {
        if set {
            options.push(flag.to_owned());
        }
    }
    if args.positions != Positions::Final {
        options.extend(["--positions".to_owned(), value_name(&args.positions)]);
    }
    if let Some(file) = &args.openings {
        options.extend(["--openings".to_owned(), file.display().to_string()]);
    }
    if let Some(how) = &args.eco_tags {
        options.extend(["--eco-tags".to_owned(), value_name(how)]);
    }
    if let Some(tags) = tags {
        options.extend(["--tags".to_owned(), tags.join(",")]);
    }
    options.extend(stage.map(Stage::flags).unwrap_or_default());
    options
}
