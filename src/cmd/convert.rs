//! `pgnkit convert`: replay every game (or read every position or UCI
//! line) and write it in another format.
//!
//! Each game is converted and rendered on a worker ([`render`]); the sink
//! here reports games that cannot be replayed on standard error, fixes the
//! CSV header, numbers EPD records, and copies bytes to the output.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;

use super::{output_writer, thread_count};
use crate::cli::{ConvertArgs, ConvertFormat, Positions, SourceFormat};
use crate::exit::ExitStatus;
use crate::input::lines::{self, LineFormat, for_each_line};
use crate::output::convert::{
    CsvColumns, CsvRecord, epd_records, write_epd, write_fens, write_jsonl, write_lan, write_pgn,
    write_san, write_uci,
};
use crate::output::diag;
use crate::output::pgn::Keep;
use crate::output::report::{self, Format as ReportFormat, Place};
use crate::rules::convert::{
    ConvertOptions, ConvertedGame, convert_game, game_from_position_line, game_from_uci_line,
};
use crate::rules::finding::Finding;
use crate::stream::{self, Event, GameCtx, Totals};

/// Games read before the CSV header is fixed, when `--tags` is not given:
/// the header holds every tag these games use.
pub const CSV_HEADER_GAMES: usize = 1000;

/// The settings of one run, checked once.
#[derive(Debug, Clone, Copy)]
struct Settings {
    format: ConvertFormat,
    positions_all: bool,
    keep_invalid: bool,
    options: ConvertOptions,
}

/// What a worker hands the writer for one game.
struct GameOut {
    body: Body,
    /// The finding that stopped the replay, with the names to report it.
    broken: Option<Broken>,
}

enum Body {
    /// Nothing to write (an invalid game left out, or no position).
    None,
    Bytes(Vec<u8>),
    /// EPD records as `(ply, four fields)`; the writer adds the `id`.
    Epd(Vec<(usize, String)>),
    Csv(CsvRecord),
}

struct Broken {
    finding: Finding,
    white: String,
    black: String,
    first_move: (u32, shakmaty::Color),
}

/// Converts and renders one game.
fn render(game: &ConvertedGame, settings: &Settings) -> GameOut {
    let broken = game.error.clone().map(|finding| {
        let name = |tag| game.tag(tag).unwrap_or("?").to_owned();
        Broken {
            finding,
            white: name("White"),
            black: name("Black"),
            first_move: game.first_move(),
        }
    });
    if broken.is_some() && !settings.keep_invalid {
        return GameOut {
            body: Body::None,
            broken,
        };
    }
    let bytes = |f: fn(&ConvertedGame, &mut Vec<u8>)| {
        let mut out = Vec::with_capacity(64 + 8 * game.plies.len());
        f(game, &mut out);
        Body::Bytes(out)
    };
    let body = match settings.format {
        ConvertFormat::Uci => bytes(write_uci),
        ConvertFormat::San => bytes(write_san),
        ConvertFormat::Lan => bytes(write_lan),
        ConvertFormat::Jsonl => bytes(write_jsonl),
        ConvertFormat::Fen => {
            let mut out = Vec::new();
            write_fens(game, settings.positions_all, &mut out);
            Body::Bytes(out)
        }
        ConvertFormat::Epd => Body::Epd(epd_records(game, settings.positions_all)),
        ConvertFormat::Csv => Body::Csv(CsvRecord::new(game)),
        // What the flags drop was never collected: keep all the rest.
        ConvertFormat::Pgn => {
            let mut out = Vec::with_capacity(256 + 8 * game.plies.len());
            write_pgn(game, Keep::default(), &mut out);
            Body::Bytes(out)
        }
    };
    GameOut { body, broken }
}

/// The CSV header: waiting for the first games, or fixed.
enum CsvState {
    Pending(Vec<CsvRecord>),
    Fixed {
        columns: CsvColumns,
        /// Whether the user chose the columns (`--tags`): then no warning.
        chosen: bool,
        warned: bool,
    },
}

/// The single writer: everything that happens on the calling thread.
struct Writer<'w> {
    out: Box<dyn Write + 'w>,
    settings: Settings,
    csv: CsvState,
    /// Games handed to the writer in the whole run (the EPD `id`).
    games: u64,
    broken: u64,
}

impl Writer<'_> {
    fn event(&mut self, event: Event<'_, GameOut>) -> anyhow::Result<()> {
        match event {
            Event::Game(ctx, out) => self.game(ctx, out),
            // Text between games that holds no game: nothing to convert.
            Event::Loose(..) => Ok(()),
            Event::Failed(file, err) => {
                diag::error(format!("{file}: {err}"));
                Ok(())
            }
        }
    }

    fn game(&mut self, ctx: GameCtx<'_>, out: GameOut) -> anyhow::Result<()> {
        self.games += 1;
        if let Some(b) = out.broken {
            self.broken += 1;
            let mut finding = b.finding;
            finding.line += ctx.line_offset;
            let place = Place {
                file: ctx.file,
                game: Some(ctx.game),
                white: &b.white,
                black: &b.black,
                first_move: b.first_move,
            };
            let mut text = Vec::new();
            report::write_finding(&mut text, ReportFormat::Text, &place, &finding)
                .expect("writing to a Vec cannot fail");
            diag::error(String::from_utf8_lossy(text.trim_ascii_end()));
        }
        let failed = || "failed to write the output";
        match out.body {
            Body::None => {}
            Body::Bytes(bytes) => self.out.write_all(&bytes).with_context(failed)?,
            Body::Epd(records) => {
                for (ply, record) in records {
                    write_epd(&mut self.out, &record, self.games, ply).with_context(failed)?;
                }
            }
            Body::Csv(record) => self.csv_record(ctx, record).with_context(failed)?,
        }
        Ok(())
    }

    fn csv_record(&mut self, ctx: GameCtx<'_>, record: CsvRecord) -> std::io::Result<()> {
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
                warned,
            } => {
                if !*chosen
                    && !*warned
                    && let Some((name, _)) = record.tags.iter().find(|(n, _)| !columns.has(n))
                {
                    *warned = true;
                    diag::warning(format!(
                        "{}: game {}: tag `{name}` has no CSV column (the columns are the tags \
                         of the first {CSV_HEADER_GAMES} games; name them with --tags); \
                         such tags are left out",
                        ctx.file, ctx.game
                    ));
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
        let columns = CsvColumns::seen_in(rows.iter(), self.settings.keep_invalid);
        columns.write_header(&mut self.out)?;
        for r in &rows {
            columns.write_record(&mut self.out, r)?;
        }
        self.csv = CsvState::Fixed {
            columns,
            chosen: false,
            warned: false,
        };
        Ok(())
    }
}

/// The input format of each file: `--from`, or detected from its content.
fn formats(files: &[PathBuf], from: Option<SourceFormat>) -> Vec<Option<LineFormat>> {
    files
        .iter()
        .map(|path| match from {
            Some(SourceFormat::Pgn) => None,
            Some(SourceFormat::Fen | SourceFormat::Epd) => Some(LineFormat::Positions),
            Some(SourceFormat::Uci) => Some(LineFormat::Uci),
            // An input that cannot be read is reported when it is read.
            None => lines::sniff(path)
                .ok()
                .and_then(|head| lines::detect(&head)),
        })
        .collect()
}

/// Runs `convert`.
///
/// # Errors
///
/// For conflicting flags, or when the output cannot be written.
pub fn run(args: &ConvertArgs, stdout: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    let started = Instant::now();
    if args.tags.is_some() && args.to != ConvertFormat::Csv {
        anyhow::bail!("--tags applies to --to csv only");
    }
    if args.positions == Positions::All
        && !matches!(args.to, ConvertFormat::Fen | ConvertFormat::Epd)
    {
        anyhow::bail!("--positions all applies to --to fen and --to epd only");
    }
    let notes = matches!(args.to, ConvertFormat::Pgn | ConvertFormat::Jsonl);
    let settings = Settings {
        format: args.to,
        positions_all: args.positions == Positions::All,
        keep_invalid: args.keep_invalid,
        options: ConvertOptions {
            san: matches!(
                args.to,
                ConvertFormat::Pgn | ConvertFormat::San | ConvertFormat::Lan | ConvertFormat::Jsonl
            ),
            // Only PGN and JSON Lines write annotations.
            comments: notes && !args.no_comments,
            nags: notes && !args.no_nags,
            variations: notes && !args.no_variations,
        },
    };
    let input = &args.input;
    let threads = thread_count(input.threads);
    let mut writer = Writer {
        out: output_writer(input.output.as_deref(), stdout)?,
        settings,
        csv: match &args.tags {
            Some(tags) => CsvState::Fixed {
                columns: CsvColumns::exactly(tags, settings.keep_invalid),
                chosen: true,
                warned: false,
            },
            None => CsvState::Pending(Vec::new()),
        },
        games: 0,
        broken: 0,
    };
    if let CsvState::Fixed { columns, .. } = &writer.csv
        && settings.format == ConvertFormat::Csv
    {
        columns
            .write_header(&mut writer.out)
            .context("failed to write the output")?;
    }

    let stdin = [PathBuf::from("-")];
    let files: &[PathBuf] = if input.files.is_empty() {
        &stdin
    } else {
        &input.files
    };
    let kinds = formats(files, args.from);
    let mut totals = Totals::default();
    // Consecutive files of one format go through one streaming pass.
    let mut at = 0;
    while at < files.len() {
        let kind = kinds[at];
        let end = at + kinds[at..].iter().take_while(|k| **k == kind).count();
        let group = &files[at..end];
        let t = match kind {
            None => stream::for_each_game(
                group,
                threads,
                input.quiet,
                |raw| render(&convert_game(raw, settings.options), &settings),
                |event: Event<'_, GameOut>| writer.event(event),
            )?,
            Some(format) => for_each_line(
                group,
                format,
                threads,
                input.quiet,
                |line| {
                    let game = match format {
                        LineFormat::Positions => game_from_position_line(&line.text, line.number),
                        LineFormat::Uci => game_from_uci_line(&line.text, line.number),
                    };
                    render(&game, &settings)
                },
                |event: Event<'_, GameOut>| writer.event(event),
            )?,
        };
        totals.games += t.games;
        totals.failed += t.failed;
        at = end;
    }
    if settings.format == ConvertFormat::Csv {
        writer
            .fix_csv_header()
            .context("failed to write the output")?;
    }
    writer.out.flush().context("failed to write the output")?;
    if !input.quiet {
        let what = if settings.keep_invalid {
            "written up to their last legal move"
        } else {
            "left out"
        };
        diag::summary(
            format!(
                "{}, {} could not be replayed ({what})",
                diag::games(totals.games),
                writer.broken
            ),
            started.elapsed(),
        );
    }
    Ok(if totals.failed > 0 {
        ExitStatus::Error
    } else if writer.broken > 0 {
        ExitStatus::Problems
    } else {
        ExitStatus::Ok
    })
}
