//! What `annotate-outcome` writes for a game: a table record (CSV or JSON
//! Lines), or the game written back as PGN ([`super::pgn`]) with the outcome
//! as `Pgnkit*` tags and comments. The outcome itself is
//! [`crate::tasks::annotate_outcome`]'s.

use std::io::{self, Write};

use super::pgn::{self, Edits, Keep};
use crate::rules::dead::DeadReason;
use crate::rules::ends::EndKind;
use crate::rules::game::{Edit, GameResult, RawGame};
use crate::rules::mateability::Mateability;
pub use crate::schema::outcome::OutcomeRecord;
use crate::schema::{finding::error_text, outcome::OUTCOME};
use crate::tasks::annotate_outcome::{Concern, LossRule, Outcome, Profile};

/// The names of the tags `--format pgn` adds (docs/outcomes.md "PGN
/// output", the man page).
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
    pub const MARKER_RESULT: &str = "PgnkitMarkerResult";
}

/// The tag columns of a table (`--tags`): names of PGN tags, unique, none
/// of them the name of a fixed column.
#[derive(Debug, Clone, Default)]
pub struct TagColumns {
    names: Vec<String>,
    schema: Option<&'static crate::schema::Schema>,
}

impl TagColumns {
    /// The columns for `names`, repeats dropped.
    ///
    /// # Errors
    ///
    /// An empty name, or one that is the name of a fixed column (a CSV
    /// header, and the keys of a JSON record, name each column once).
    pub fn new(names: &[String]) -> Result<TagColumns, String> {
        TagColumns::of(&OUTCOME, names)
    }

    /// The `--tags` columns of `schema`'s records.
    ///
    /// # Errors
    ///
    /// As [`TagColumns::new`].
    pub fn of(
        schema: &'static crate::schema::Schema,
        names: &[String],
    ) -> Result<TagColumns, String> {
        let mut unique: Vec<String> = Vec::new();
        for name in names {
            if name.is_empty() {
                return Err("--tags holds an empty tag name".to_owned());
            }
            if schema.columns.iter().any(|fixed| fixed.name == name) {
                return Err(format!(
                    "--tags: `{name}` is the name of a fixed column (tags are named as in the PGN, e.g. `White`)"
                ));
            }
            if !unique.contains(name) {
                unique.push(name.clone());
            }
        }
        Ok(TagColumns {
            names: unique,
            schema: Some(schema),
        })
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
        let names: Vec<&str> = self.names.iter().map(String::as_str).collect();
        self.schema
            .unwrap_or(&OUTCOME)
            .csv_names(&names)
            .into_iter()
            .map(str::to_owned)
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

/// Output formats of the table.
pub use crate::schema::Format;

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
        super::write_csv_record(out, tags.csv_columns())?;
    }
    Ok(())
}

fn opt(n: Option<u32>) -> String {
    n.map(|n| n.to_string()).unwrap_or_default()
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
    row: &OutcomeRecord,
    tags: &TagColumns,
) -> io::Result<()> {
    let mut record = Vec::with_capacity(256);
    row.write(format, (file, game, offset), &tags.names, &mut record);
    out.write_all(&record)
}

/// How games are written back as PGN.
#[derive(Debug, Clone, Copy)]
pub struct PgnSettings {
    /// The profile the outcome was judged under (the `PgnkitRules` tag).
    pub rules: Profile,
    /// Overwrite the result with the one the rules give (`--fix-results`).
    pub fix_results: bool,
    /// With `fix_results`: the game's own bytes with only the result
    /// changed ([`result_edits`]), no `Pgnkit*` tags (`--pgnkit-tags` not
    /// given).
    pub minimal: bool,
}

/// The edits that give `game` the result the rules give, when it records
/// another: the `Result` tag's value and the termination marker replaced
/// (a tag or marker added where there is none), and a comment before the
/// marker keeping what was written and why. Everything else stays as it
/// was read. Empty when the result stands (or the rules give none).
pub fn result_edits(game: &RawGame<'_>, outcome: &Outcome) -> Vec<Edit> {
    let Some(due) = outcome.rules_result else {
        return Vec::new();
    };
    let text = game.text;
    let marker = game.marker.map(|m| m.result);
    let present = game.tag("Result").is_some();
    let tag = game
        .tag("Result")
        .and_then(|t| GameResult::from_ascii(t.value.as_ref()));
    // The tag is changed when it says something else (or is not a result),
    // or added when the game records no result at all.
    let edit_tag = (present && tag != Some(due)) || (!present && marker.is_none());
    if !edit_tag && marker.is_none_or(|m| m == due) {
        return Vec::new();
    }
    let newline: &[u8] = if memchr::memmem::find(text, b"\r\n").is_some() {
        b"\r\n"
    } else {
        b"\n"
    };
    let mut edits = Vec::new();
    // The tag section ends where the first movetext token starts.
    let movetext = game
        .tokens
        .first()
        .map_or(text.len(), |t| {
            (t.text.as_ptr() as usize).saturating_sub(text.as_ptr() as usize)
        })
        .min(text.len());
    match result_value(&text[..movetext]) {
        _ if !edit_tag => {}
        Some((start, end)) => edits.push(Edit {
            start,
            end,
            with: due.as_str().as_bytes().to_vec(),
        }),
        None => {
            let mut line = format!("[Result \"{due}\"]").into_bytes();
            line.extend_from_slice(newline);
            edits.push(Edit {
                start: 0,
                end: 0,
                with: line,
            });
        }
    }
    let written = match (tag, marker) {
        (Some(t), Some(m)) if t != m => format!("{t} (tag) and {m} (marker)"),
        (Some(r), _) | (None, Some(r)) => r.as_str().to_owned(),
        (None, None) => "no result".to_owned(),
    };
    let why = concern_texts(game, outcome, &outcome.concerns())
        .into_iter()
        .find(|t| t.starts_with("recorded "))
        .and_then(|t| t.split_once(": ").map(|(_, why)| why.to_owned()))
        .unwrap_or_else(|| format!("the rules give {due}"));
    // (A comment holds no closing brace but its own.)
    let body = format!("pgnkit: the result written was {written}; {why}").replace('}', ")");
    let comment = format!("{{{body}}} ");
    let marker_text = due.as_str();
    match marker {
        Some(m) if text.ends_with(m.as_str().as_bytes()) => {
            let start = text.len() - m.as_str().len();
            edits.push(Edit {
                start,
                end: text.len(),
                with: format!("{comment}{marker_text}").into_bytes(),
            });
        }
        _ => {
            let end = text
                .iter()
                .rposition(|b| !b.is_ascii_whitespace())
                .map_or(0, |i| i + 1);
            edits.push(Edit {
                start: end,
                end,
                with: format!(" {comment}{marker_text}").into_bytes(),
            });
        }
    }
    edits
}

/// Where the value of the `Result` tag lies in a tag section (the bytes
/// between its quotes).
fn result_value(tags: &[u8]) -> Option<(usize, usize)> {
    let mut from = 0;
    while let Some(at) = memchr::memmem::find(&tags[from..], b"[Result") {
        let at = from + at;
        from = at + 1;
        let rest = &tags[at + 7..];
        let space = rest
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
        if rest.get(space) != Some(&b'"') {
            continue;
        }
        let start = at + 7 + space + 1;
        let mut i = start;
        while i < tags.len() {
            match tags[i] {
                b'\\' => i += 2,
                b'"' => return Some((start, i)),
                b'\n' => break,
                _ => i += 1,
            }
        }
    }
    None
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
    row: &OutcomeRecord,
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
fn edits(outcome: &Outcome, row: &OutcomeRecord, settings: PgnSettings) -> Edits {
    let mut edits = Edits::default();
    let mut tag = |name: &str, value: String| {
        if !value.is_empty() {
            edits.tags.push((name.to_owned(), value));
        }
    };
    let word = |w: Option<&str>| w.unwrap_or("").to_owned();
    tag(tags::RULES, settings.rules.as_str().to_owned());
    tag(tags::RESULT, word(row.fide_result.map(GameResult::as_str)));
    tag(
        tags::TERMINATION,
        word(row.termination.map(EndKind::as_str)),
    );
    tag(tags::TERMINATION_PLY, opt(row.termination_ply));
    tag(
        tags::DEAD_REASON,
        word(row.dead_reason.map(DeadReason::as_str)),
    );
    tag(tags::THREEFOLD_CLAIM_PLY, opt(row.threefold_claim_ply));
    tag(tags::FIFTY_CLAIM_PLY, opt(row.fifty_claim_ply));
    tag(
        tags::WINNER_CAN_MATE,
        word(row.winner_can_mate.as_ref().map(Mateability::word)),
    );
    tag(tags::LOSS_RULE, word(row.loss_rule.map(LossRule::as_str)));
    tag(
        tags::ERROR,
        error_text(row.error.as_ref()).unwrap_or_default(),
    );
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
    // A game is written back with one result: the termination marker's,
    // when it said another, is kept where a reader finds it.
    if let Some(marker) = row.marker_result {
        tag(tags::MARKER_RESULT, marker.as_str().to_owned());
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
                    rule.as_str()
                )
            }
            LossRule::ResignationBefore2023 => {
                "the winner cannot mate: 5.1.2/6.9, but a resignation before 2023 stands".into()
            }
            LossRule::BareKing => "the winner has a bare king: game drawn".into(),
            LossRule::EarlyAgreement => {
                "a draw agreed before both players had moved (5.2.3): the game had not ended".into()
            }
            LossRule::TimeLoss => {
                "a draw on time, but the opponent could mate: 6.9, the player who ran out of time lost".into()
            }
        };
        comments.push((outcome.plies, text));
    } else if matches!(outcome.winner_can_mate, Some(Mateability::No)) && outcome.end.is_none() {
        comments.push((outcome.plies, "the winner cannot mate".into()));
    }
    comments.sort_by_key(|(ply, _)| *ply);
    comments
}

/// Who could have claimed the draw of `kind` after ply `ply`, how (on the
/// board, or by writing which move), and the earlier occurrences of a
/// repeated position, in the arbiter's words.
fn claim_text(
    game: &RawGame<'_>,
    outcome: &Outcome,
    kind: EndKind,
    ply: u32,
    positions: &mut Option<Vec<shakmaty::Chess>>,
) -> String {
    let at = |ply| game.after_ply(ply, outcome.first_move);
    let went_on = format!(
        "and the game went on to {}",
        outcome.recorded.map_or("no result", GameResult::as_str)
    );
    let positions = positions.get_or_insert_with(|| {
        let Ok(start) = crate::rules::setup::start_position(game) else {
            return Vec::new();
        };
        let mut all = vec![start.pos.clone()];
        crate::rules::replay::replay(game, start.pos, |ev| all.push(ev.after.clone()));
        all
    });
    let Some(claim) = crate::rules::ends::claim_at(positions, ply, kind) else {
        return format!(
            "a draw by {} could be claimed {}, {went_on}",
            kind.describe(),
            at(ply)
        );
    };
    let side = match claim.claimant {
        shakmaty::Color::White => "White",
        shakmaty::Color::Black => "Black",
    };
    let stood = |plies: &[u32]| -> String {
        let names: Vec<String> = plies.iter().map(|&p| at(p)).collect();
        match names.as_slice() {
            [] => String::new(),
            [one] => one.clone(),
            [init @ .., last] => format!("{} and {last}", init.join(", ")),
        }
    };
    let what = kind.describe();
    match (kind, claim.by_move) {
        (EndKind::FiftyMoves, None) => format!(
            "{side} could claim a draw by {what} {} (50 moves of each side without a capture or a pawn move), {went_on}",
            at(ply)
        ),
        (EndKind::FiftyMoves, Some(_)) => format!(
            "{side} could claim a draw by {what} {}, by writing a move that is neither a capture nor a pawn move, {went_on}",
            at(ply)
        ),
        (_, None) => format!(
            "{side} could claim a draw by {what} {}: the position stood {} too, {went_on}",
            at(ply),
            stood(&claim.earlier)
        ),
        (_, Some(m)) => {
            let san = shakmaty::san::SanPlus::from_move(positions[ply as usize].clone(), m);
            let name =
                crate::rules::notation::move_name(ply + 1, outcome.first_move, &san.to_string());
            format!(
                "{side} could claim a draw by {what} {}, by writing {name} (the position after it stood {}), {went_on}",
                at(ply),
                stood(&claim.earlier)
            )
        }
    }
}

/// The side that won a decisive result, in words.
fn side(result: Option<GameResult>) -> &'static str {
    match result.and_then(GameResult::winner) {
        Some(shakmaty::Color::White) => "White",
        Some(shakmaty::Color::Black) => "Black",
        None => "the winner",
    }
}

/// What each of `concerns` (of `outcome`, about `game`) says, in words, as
/// `-f text` and the page write them.
pub fn concern_texts(game: &RawGame<'_>, outcome: &Outcome, concerns: &[Concern]) -> Vec<String> {
    if concerns.is_empty() {
        return Vec::new();
    }
    // The positions of the game, replayed once when a claim asks.
    let mut positions: Option<Vec<shakmaty::Chess>> = None;
    // A record older than the Laws is told so where their wording judges it.
    let predates = crate::rules::laws::Laws::for_game(game, crate::rules::laws::LawsChoice::GameDate)
        .predates_fide()
        .map(|year| {
            format!(" (the game, of {year}, predates the FIDE Laws, first adopted in 1929: their wording is applied to it)")
        });
    let at = |ply| game.after_ply(ply, outcome.first_move);
    let result = |r: Option<GameResult>| r.map_or("no result", GameResult::as_str);
    let winner = side(outcome.recorded);
    concerns
        .iter()
        .map(|c| match *c {
            Concern::NotReplayed => match &outcome.error {
                Some(e) => match e.ply {
                    Some(ply) => format!(
                        "not replayed: {} at {}",
                        e.message,
                        crate::rules::notation::move_name(
                            ply,
                            outcome.first_move,
                            e.san.as_deref().unwrap_or("")
                        )
                    ),
                    None => format!("not replayed: {}", e.message),
                },
                None => "not replayed".to_owned(),
            },
            Concern::Inconsistent { tag, marker } => format!(
                "the Result tag says {tag} and the termination marker {marker}: one of them is wrong"
            ),
            Concern::WrongResult { recorded, rules } => {
                let why = match (outcome.end, outcome.loss_rule) {
                    (Some(end), _) => format!("the game ended by {} {}", end.kind.describe(), at(end.ply)),
                    (None, Some(LossRule::Time)) => format!(
                        "a loss on time, and {winner} could not mate by any series of legal moves (6.9)"
                    ),
                    (None, Some(LossRule::Resignation)) => format!(
                        "a resignation, and {winner} could not mate by any series of legal moves (5.1.2, since 2023)"
                    ),
                    (None, Some(LossRule::BareKing)) => format!("{winner} had a bare king"),
                    (None, Some(LossRule::TimeLoss)) => format!(
                        "a draw on time, and {} could mate by a series of legal moves (6.9): the player who ran out of time lost",
                        side(Some(rules))
                    ),
                    (None, Some(LossRule::EarlyAgreement)) => {
                        "a draw agreed before both players had moved (5.2.3): the game had not ended".to_owned()
                    }
                    (None, _) => "the game did not end on the board".to_owned(),
                };
                format!("recorded {}, the rules give {rules}: {why}", result(recorded))
            }
            Concern::Dead { ply } => {
                let how = match outcome.dead_reason {
                    Some(DeadReason::Material) => "too little material to mate",
                    _ => "proved: no series of legal moves mates",
                };
                format!("a dead position {} ({how}): the game was drawn there", at(ply))
            }
            Concern::Claimable { kind, ply } => {
                claim_text(game, outcome, kind, ply, &mut positions)
            }
            Concern::LossStood => match outcome.loss_rule {
                Some(LossRule::ResignationBefore2023) => format!(
                    "{winner} could not mate by any series of legal moves; under the Laws before 2023 the resignation stands"
                ),
                _ => format!(
                    "{winner} could not mate by any series of legal moves, and the chosen rules (--rules) let the loss stand"
                ),
            },
            Concern::Undetermined => {
                // A draw on time asks of the opponent of the side to move.
                let who = if outcome.winner_can_mate.is_some() {
                    winner.to_owned()
                } else {
                    "the opponent of the player who ran out of time".to_owned()
                };
                match &outcome.opponent_can_mate {
                    Some(Mateability::Undetermined(r)) => format!(
                        "whether {who} could mate is undetermined ({})",
                        r.as_str().replace('_', " ")
                    ),
                    _ => format!("whether {who} could mate is undetermined"),
                }
            }
        })
        .zip(concerns)
        .map(|(text, c)| match (&predates, c) {
            // What the Laws say of the game, not what the record says.
            (Some(note), c) if !matches!(c, Concern::NotReplayed | Concern::Inconsistent { .. }) => {
                format!("{text}{note}")
            }
            _ => text,
        })
        .collect()
}
