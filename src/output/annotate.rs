//! What `annotate-outcome` writes for a game: a table record (CSV or JSON
//! Lines), or the game written back as PGN ([`super::pgn`]) with the outcome
//! as `Pgnkit*` tags and comments. The outcome itself is
//! [`crate::tasks::annotate_outcome`]'s.

use std::io::{self, Write};

use shakmaty::uci::UciMove;

use super::json;
use super::pgn::{self, Edits, Keep};
use crate::rules::ends::EndKind;
use crate::rules::game::RawGame;
use crate::rules::laws::Laws;
use crate::rules::mateability::Mateability;
use crate::tasks::annotate_outcome::{LossRule, Outcome, Profile};

/// The names of the tags `--format pgn` adds (README, man page).
pub mod tags {
    pub const RULES: &str = "PgnkitRules";
    pub const RESULT: &str = "PgnkitResult";
    pub const TERMINATION: &str = "PgnkitTermination";
    pub const TERMINATION_PLY: &str = "PgnkitTerminationPly";
    pub const THREEFOLD_CLAIM_PLY: &str = "PgnkitThreefoldClaimPly";
    pub const FIFTY_CLAIM_PLY: &str = "PgnkitFiftyClaimPly";
    pub const WINNER_CAN_MATE: &str = "PgnkitWinnerCanMate";
    pub const LOSS_RULE: &str = "PgnkitLossRule";
    pub const DEAD_REASON: &str = "PgnkitDeadReason";
    pub const ERROR: &str = "PgnkitError";
    pub const RECORDED_RESULT: &str = "PgnkitRecordedResult";
}

/// The columns, in order. The first fourteen are fixed by the issue that
/// specified the command; the others may grow, at the end (`laws` came
/// last, with issue 25).
pub const CSV_HEADER: &str = "file,game,offset,white,black,result,plies,termination,termination_ply,\
threefold_claim_ply,fifty_claim_ply,winner_can_mate,fide_result,result_ok,\
dead_reason,loss_rule,undetermined_reason,helpmate,error,laws";

/// One game's record, owned (built by a worker, written in order).
#[derive(Debug, Clone, Default)]
pub struct Row {
    pub white: String,
    pub black: String,
    /// The recorded result (`Result` tag, else the termination marker).
    pub result: &'static str,
    pub plies: u32,
    pub termination: &'static str,
    pub termination_ply: Option<u32>,
    pub threefold_claim_ply: Option<u32>,
    pub fifty_claim_ply: Option<u32>,
    /// `yes`, `no`, `undetermined` or empty.
    pub winner_can_mate: &'static str,
    /// The result the chosen rules give; empty when the game could not be
    /// replayed far enough to say.
    pub fide_result: &'static str,
    pub result_ok: bool,
    /// `material` or `unwinnable` when the termination is a dead position.
    pub dead_reason: &'static str,
    /// Which loss rule applied when the winner cannot mate.
    pub loss_rule: &'static str,
    /// Why `winner_can_mate` is undetermined.
    pub undetermined_reason: &'static str,
    /// The winner's mating line in UCI, when one was found.
    pub helpmate: Option<Vec<UciMove>>,
    /// What stopped the replay (`code at ply N: message`).
    pub error: Option<String>,
    /// The values of the tags named with `--tags`, in their order (`None`
    /// when the game has no such tag).
    pub tags: Vec<Option<String>>,
    /// The Laws that judged the game: the date they were taken at, or
    /// `current`.
    pub laws: Laws,
}

impl Row {
    /// The record of `outcome` for a game between `white` and `black`.
    pub fn new(outcome: &Outcome, white: String, black: String) -> Row {
        let (winner_can_mate, undetermined_reason, helpmate) = match &outcome.winner_can_mate {
            None => ("", "", None),
            Some(Mateability::Yes { helpmate }) => ("yes", "", Some(helpmate.clone())),
            Some(Mateability::No) => ("no", "", None),
            Some(Mateability::Undetermined(r)) => ("undetermined", r.as_str(), None),
        };
        Row {
            white,
            black,
            result: outcome.recorded.map_or("", |r| r.as_str()),
            plies: outcome.plies,
            termination: outcome.end.map_or("", |e| e.kind.as_str()),
            termination_ply: outcome.end.map(|e| e.ply),
            threefold_claim_ply: outcome.threefold_claim_ply,
            fifty_claim_ply: outcome.fifty_claim_ply,
            winner_can_mate,
            fide_result: outcome.rules_result.map_or("", |r| r.as_str()),
            result_ok: outcome.is_result_ok(),
            dead_reason: outcome.dead_reason.map_or("", |r| r.as_str()),
            loss_rule: outcome.loss_rule.map_or("", loss_rule_name),
            undetermined_reason,
            helpmate,
            error: outcome.error.as_ref().map(|e| match e.ply {
                Some(ply) => format!("{} at ply {ply}: {}", e.code, e.message),
                None => format!("{}: {}", e.code, e.message),
            }),
            tags: Vec::new(),
            laws: outcome.laws,
        }
    }
}

/// The tag columns of a table (`--tags`): names of PGN tags, unique, none
/// of them the name of a fixed column.
#[derive(Debug, Clone, Default)]
pub struct TagColumns {
    names: Vec<String>,
}

impl TagColumns {
    /// The columns for `names`, repeats dropped.
    ///
    /// # Errors
    ///
    /// An empty name, or one that is the name of a fixed column (a CSV
    /// header, and the keys of a JSON record, name each column once).
    pub fn new(names: &[String]) -> Result<TagColumns, String> {
        let mut unique: Vec<String> = Vec::new();
        for name in names {
            if name.is_empty() {
                return Err("--tags holds an empty tag name".to_owned());
            }
            if CSV_HEADER.split(',').any(|fixed| fixed == name) || name == "tags" {
                return Err(format!(
                    "--tags: `{name}` is the name of a fixed column (tags are named as in the PGN, e.g. `White`)"
                ));
            }
            if !unique.contains(name) {
                unique.push(name.clone());
            }
        }
        Ok(TagColumns { names: unique })
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The tag names, in column order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Every CSV column: the fixed ones, then these.
    pub fn csv_columns(&self) -> Vec<String> {
        CSV_HEADER
            .split(',')
            .map(str::to_owned)
            .chain(self.names.iter().cloned())
            .collect()
    }

    /// The values of the columns in `game`.
    pub fn values(&self, game: &RawGame<'_>) -> Vec<Option<String>> {
        self.names
            .iter()
            .map(|n| game.tag_text(n).map(std::borrow::Cow::into_owned))
            .collect()
    }
}

/// The stable name of a loss rule in reports.
pub fn loss_rule_name(rule: LossRule) -> &'static str {
    match rule {
        LossRule::Time => "6.9",
        LossRule::Resignation => "5.1.2",
        LossRule::ResignationBefore2023 => "5.1.2-before-2023",
        LossRule::BareKing => "bare-king",
        LossRule::EarlyAgreement => "5.2.3",
    }
}

/// Output formats of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Csv,
    Jsonl,
}

/// Writes the header, if the format has one.
///
/// # Errors
///
/// When writing fails.
pub fn write_header(
    out: &mut dyn Write,
    format: Format,
    header: bool,
    tags: &TagColumns,
) -> io::Result<()> {
    if format == Format::Csv && header {
        if tags.is_empty() {
            writeln!(out, "{CSV_HEADER}")?;
        } else {
            let names = tags.names.iter().map(String::as_str);
            super::write_csv_record(out, CSV_HEADER.split(',').chain(names))?;
        }
    }
    Ok(())
}

fn opt(n: Option<u32>) -> String {
    n.map(|n| n.to_string()).unwrap_or_default()
}

fn uci_line(line: &[UciMove]) -> String {
    // Appended in place: formatting each move through `Display` and joining
    // cost a tenth of the winner's question.
    let mut text = String::with_capacity(line.len() * 5);
    for (i, m) in line.iter().enumerate() {
        if i > 0 {
            text.push(' ');
        }
        m.append_to_string(&mut text);
    }
    text
}

/// Writes one record.
///
/// # Errors
///
/// When writing fails.
pub fn write_row(
    out: &mut dyn Write,
    format: Format,
    file: &str,
    (game, offset): (u64, Option<u64>),
    row: &Row,
    tags: &TagColumns,
) -> io::Result<()> {
    let values = row.tags.iter().map(|v| v.as_deref().unwrap_or(""));
    let mut laws = [0; 10];
    let laws = row.laws.column(&mut laws);
    match format {
        Format::Csv => super::write_csv_record(
            out,
            [
                file,
                &game.to_string(),
                &offset.map(|o| o.to_string()).unwrap_or_default(),
                &row.white,
                &row.black,
                row.result,
                &row.plies.to_string(),
                row.termination,
                &opt(row.termination_ply),
                &opt(row.threefold_claim_ply),
                &opt(row.fifty_claim_ply),
                row.winner_can_mate,
                row.fide_result,
                if row.result_ok { "true" } else { "false" },
                row.dead_reason,
                row.loss_rule,
                row.undetermined_reason,
                &row.helpmate.as_deref().map(uci_line).unwrap_or_default(),
                row.error.as_deref().unwrap_or(""),
                laws,
            ]
            .into_iter()
            .chain(values),
        ),
        Format::Jsonl => {
            let s = |out: &mut dyn Write, key: &str, value: &str| -> io::Result<()> {
                write!(out, ",\"{key}\":")?;
                json::write_opt_str(out, (!value.is_empty()).then_some(value))
            };
            let n = |out: &mut dyn Write, key: &str, value: Option<u32>| match value {
                Some(v) => write!(out, ",\"{key}\":{v}"),
                None => write!(out, ",\"{key}\":null"),
            };
            out.write_all(b"{\"file\":")?;
            json::write_str(out, file)?;
            write!(out, ",\"game\":{game}")?;
            match offset {
                Some(o) => write!(out, ",\"offset\":{o}")?,
                None => out.write_all(b",\"offset\":null")?,
            }
            out.write_all(b",\"white\":")?;
            json::write_str(out, &row.white)?;
            out.write_all(b",\"black\":")?;
            json::write_str(out, &row.black)?;
            s(out, "result", row.result)?;
            write!(out, ",\"plies\":{}", row.plies)?;
            s(out, "termination", row.termination)?;
            n(out, "termination_ply", row.termination_ply)?;
            n(out, "threefold_claim_ply", row.threefold_claim_ply)?;
            n(out, "fifty_claim_ply", row.fifty_claim_ply)?;
            s(out, "winner_can_mate", row.winner_can_mate)?;
            s(out, "fide_result", row.fide_result)?;
            write!(out, ",\"result_ok\":{}", row.result_ok)?;
            s(out, "dead_reason", row.dead_reason)?;
            s(out, "loss_rule", row.loss_rule)?;
            s(out, "undetermined_reason", row.undetermined_reason)?;
            out.write_all(b",\"helpmate\":")?;
            match &row.helpmate {
                None => out.write_all(b"null")?,
                Some(line) => {
                    let mut text = Vec::with_capacity(2 + line.len() * 8);
                    text.push(b'[');
                    for (i, m) in line.iter().enumerate() {
                        if i > 0 {
                            text.push(b',');
                        }
                        text.push(b'"');
                        m.append_ascii_to(&mut text);
                        text.push(b'"');
                    }
                    text.push(b']');
                    out.write_all(&text)?;
                }
            }
            out.write_all(b",\"error\":")?;
            json::write_opt_str(out, row.error.as_deref())?;
            out.write_all(b",\"laws\":")?;
            json::write_str(out, laws)?;
            if !tags.is_empty() {
                out.write_all(b",\"tags\":{")?;
                for (i, (name, value)) in tags.names.iter().zip(&row.tags).enumerate() {
                    if i > 0 {
                        out.write_all(b",")?;
                    }
                    json::write_str(out, name)?;
                    out.write_all(b":")?;
                    json::write_opt_str(out, value.as_deref())?;
                }
                out.write_all(b"}")?;
            }
            out.write_all(b"}\n")
        }
    }
}

/// The name of a rules profile, as `--rules` spells it.
pub fn profile_name(profile: Profile) -> &'static str {
    match profile {
        Profile::Fide => "fide",
        Profile::App => "app",
        Profile::Online => "online",
    }
}

/// How games are written back as PGN.
#[derive(Debug, Clone, Copy)]
pub struct PgnSettings {
    /// The profile the outcome was judged under (the `PgnkitRules` tag).
    pub rules: Profile,
    /// Overwrite the result with the one the rules give (`--fix-results`).
    pub fix_results: bool,
}

/// The comment at the ply where the game ended.
fn end_comment(kind: EndKind) -> Option<&'static str> {
    Some(match kind {
        EndKind::Checkmate => return None,
        EndKind::Stalemate => "stalemate: game drawn",
        EndKind::DeadPosition => "dead position: game drawn",
        EndKind::FivefoldRepetition => "fivefold repetition: game drawn",
        EndKind::SeventyFiveMoves => "seventy-five-move rule: game drawn",
        EndKind::ThreefoldRepetition => "threefold repetition: game drawn",
        EndKind::FiftyMoves => "fifty-move rule: game drawn",
    })
}

/// `game` written back with the outcome (whose record is `row`) as
/// `Pgnkit*` tags and comments.
pub fn pgn_record(
    game: &RawGame<'_>,
    outcome: &Outcome,
    row: &Row,
    settings: PgnSettings,
) -> Vec<u8> {
    let mut buf = Vec::with_capacity(1024);
    pgn::write_game(
        &mut buf,
        game,
        outcome.first_move,
        Keep::default(),
        &edits(outcome, row, settings),
    )
    .expect("writing to a Vec<u8> cannot fail");
    buf
}

/// The tags and comments that carry `outcome` (whose record is `row`).
fn edits(outcome: &Outcome, row: &Row, settings: PgnSettings) -> Edits {
    let mut edits = Edits::default();
    let mut tag = |name: &str, value: String| {
        if !value.is_empty() {
            edits.tags.push((name.to_owned(), value));
        }
    };
    tag(tags::RULES, profile_name(settings.rules).to_owned());
    tag(tags::RESULT, row.fide_result.to_owned());
    tag(tags::TERMINATION, row.termination.to_owned());
    tag(tags::TERMINATION_PLY, opt(row.termination_ply));
    tag(tags::DEAD_REASON, row.dead_reason.to_owned());
    tag(tags::THREEFOLD_CLAIM_PLY, opt(row.threefold_claim_ply));
    tag(tags::FIFTY_CLAIM_PLY, opt(row.fifty_claim_ply));
    tag(tags::WINNER_CAN_MATE, row.winner_can_mate.to_owned());
    tag(tags::LOSS_RULE, row.loss_rule.to_owned());
    tag(tags::ERROR, row.error.clone().unwrap_or_default());
    if settings.fix_results
        && let Some(result) = outcome.rules_result
        && outcome.recorded != Some(result)
    {
        tag(
            tags::RECORDED_RESULT,
            outcome.recorded.map_or("", |r| r.as_str()).to_owned(),
        );
        edits.result = Some(result);
    }
    edits.comments = comments(outcome);
    edits
}

/// The comments that say where claims became possible and how the game
/// ended, sorted by ply.
fn comments(outcome: &Outcome) -> Vec<(u32, String)> {
    let mut comments = Vec::new();
    if let Some(ply) = outcome.threefold_claim_ply {
        comments.push((ply, "threefold repetition: draw claimable".into()));
    }
    if let Some(ply) = outcome.fifty_claim_ply {
        comments.push((ply, "fifty-move rule: draw claimable".into()));
    }
    if let Some(end) = outcome.end
        && let Some(text) = end_comment(end.kind)
    {
        comments.push((end.ply, text.into()));
    }
    if let Some(rule) = outcome.loss_rule {
        let text = match rule {
            LossRule::Time | LossRule::Resignation => {
                format!(
                    "the winner cannot mate: 5.1.2/6.9 ({}), game drawn",
                    loss_rule_name(rule)
                )
            }
            LossRule::ResignationBefore2023 => {
                "the winner cannot mate: 5.1.2/6.9, but a resignation before 2023 stands".into()
            }
            LossRule::BareKing => "the winner has a bare king: game drawn".into(),
            LossRule::EarlyAgreement => {
                "a draw agreed before both players had moved (5.2.3): the game had not ended".into()
            }
        };
        comments.push((outcome.plies, text));
    } else if matches!(outcome.winner_can_mate, Some(Mateability::No)) && outcome.end.is_none() {
        comments.push((outcome.plies, "the winner cannot mate".into()));
    }
    comments.sort_by_key(|(ply, _)| *ply);
    comments
}
