//! `annotate-outcome`'s record: what the Laws say happened in one game.

use shakmaty::uci::UciMove;

use super::arrow::ArrowRows;
use super::finding::{ERROR_COLUMN, ErrorCell};
use super::{Cells, Column, CsvRow, Format, JsonObject, Schema, Type, common};
use crate::rules::dead::DeadReason;
use crate::rules::ends::EndKind;
use crate::rules::finding::Finding;
use crate::rules::game::GameResult;
use crate::rules::laws::Laws;
use crate::rules::mateability::{Mateability, UndeterminedReason};
use crate::rules::openings::Opening;
use crate::tasks::annotate_outcome::{LossRule, Outcome};

/// One game's outcome.
pub const OUTCOME: Schema = Schema {
    name: "outcome",
    doc: "`pgnkit annotate-outcome -f csv` and `-f jsonl`: one record per game.",
    columns: &[
        common::FILE,
        common::GAME,
        common::OFFSET,
        common::WHITE,
        common::BLACK,
        common::RESULT.null_when("neither is a valid result"),
        common::PLIES,
        Column::new(
            "termination",
            Type::Vocab(|| EndKind::ALL.iter().map(|k| k.as_str()).collect()),
            "how the Laws end the game",
        )
        .null_when("the game did not end on the board"),
        Column::new(
            "termination_ply",
            Type::UInt32,
            "the ply at which it ended",
        )
        .null_when("`termination` is null"),
        Column::new(
            "threefold_claim_ply",
            Type::UInt32,
            "first ply at which a threefold repetition could be claimed (FIDE Laws 9.2)",
        )
        .null_when("never claimable"),
        Column::new(
            "fifty_claim_ply",
            Type::UInt32,
            "first ply at which the fifty-move rule could be claimed (FIDE Laws 9.3)",
        )
        .null_when("never claimable"),
        Column::new(
            "winner_can_mate",
            Type::Vocab(|| Mateability::WORDS.to_vec()),
            "for a decisive result without mate on the board: whether the winner could have mated by any series of legal moves",
        )
        .null_when("the result is not decisive, or mate is on the board"),
        Column::new(
            "fide_result",
            common::RESULT.ty,
            "the result the chosen rules give",
        )
        .null_when("the game could not be replayed far enough to say"),
        Column::new(
            "result_ok",
            Type::Bool,
            "whether the recorded result is one the rules allow, and the only one the record gives (false when the termination marker disagrees with the Result tag)",
        ),
        Column::new(
            "marker_result",
            common::RESULT.ty,
            "the result the movetext's termination marker records, when it disagrees with the Result tag (`result` holds the tag's): the record is inconsistent",
        )
        .null_when("the marker agrees with the tag, or one of them is missing or invalid"),
        Column::new(
            "dead_reason",
            Type::Vocab(|| DeadReason::ALL.iter().map(|r| r.as_str()).collect()),
            "why the position is dead (FIDE Laws 5.2.2)",
        )
        .null_when("`termination` is not a dead position"),
        Column::new(
            "loss_rule",
            Type::Vocab(|| LossRule::ALL.iter().map(|r| r.as_str()).collect()),
            "which loss rule applied when the winner cannot mate (`6.9`, `5.1.2`, `5.1.2-before-2023`, `bare-king`), or `5.2.3` for a draw agreed before both players had moved (no draw: `fide_result` is `*`)",
        )
        .null_when("none applied"),
        Column::new(
            "undetermined_reason",
            Type::Vocab(|| UndeterminedReason::ALL.iter().map(|r| r.as_str()).collect()),
            "why `opponent_can_mate` (and so `winner_can_mate`) is `undetermined`",
        )
        .null_when("it is not"),
        Column::new(
            "helpmate",
            Type::List(&Type::Str),
            "the mating line of `opponent_can_mate` (the winner's, for a decisive result) from the final position, in UCI",
        )
        .null_when("none was found"),
        ERROR_COLUMN.null_when("the game was replayed"),
        Column::new(
            "laws",
            Type::Str,
            "the date whose Laws judged the game, as PGN writes dates (`1937.03.10`; `1937.??.??` when only the year is known): the `Date` tag, else the `EventDate`, or the day of `--laws YYYY-MM-DD`; `current` for today's Laws (`--laws current`, an undated game, and the `app` and `online` profiles). Where the date cannot decide an article (`2014.??.??` for the 9.6 of 1 July 2014), today's wording applied",
        ),
        Column::new(
            "opponent_can_mate",
            Type::Vocab(|| Mateability::WORDS.to_vec()),
            "for a game that ended on time or by resignation, whatever result was recorded: whether the opponent of the player who ran out of time or resigned could have mated by any series of legal moves (FIDE 6.9, 5.1.2). A decisive result without mate on the board is such an end (then it is `winner_can_mate`), and so is a draw the `Termination` tag says was on time (some sites score a flag against a player who cannot mate by their own rule as a draw): the side to move at the end is the one whose flag fell",
        )
        .null_when("the game did not end so, or mate is on the board, or it could not be replayed to its end"),
        super::game::ECO,
        super::game::OPENING,
        super::game::OPENING_PLY,
        common::NAMED_TAGS,
    ],
};

/// One game's record (built by a worker, written in order).
#[derive(Debug, Clone)]
pub struct OutcomeRecord {
    pub white: String,
    pub black: String,
    /// The recorded result (`Result` tag, else the termination marker).
    pub result: Option<GameResult>,
    pub plies: u32,
    pub termination: Option<EndKind>,
    pub termination_ply: Option<u32>,
    pub threefold_claim_ply: Option<u32>,
    pub fifty_claim_ply: Option<u32>,
    /// For a decisive result without mate on the board.
    pub winner_can_mate: Option<Mateability>,
    /// For a game that ended on time or by resignation.
    pub opponent_can_mate: Option<Mateability>,
    /// The result the chosen rules give; `None` when the game could not be
    /// replayed far enough to say.
    pub fide_result: Option<GameResult>,
    pub result_ok: bool,
    /// The termination marker's result when it disagrees with the tag's.
    pub marker_result: Option<GameResult>,
    pub dead_reason: Option<DeadReason>,
    pub loss_rule: Option<LossRule>,
    /// What stopped the replay.
    pub error: Option<Finding>,
    /// The Laws that judged the game.
    pub laws: Laws,
    /// The values of the tags named with `--tags`, in their order (`None`
    /// when the game has no such tag).
    pub tags: Vec<Option<String>>,
    /// The opening the game played, when it was classified.
    pub opening: Option<Opening<'static>>,
}

impl OutcomeRecord {
    /// The record of `outcome` for a game between `white` and `black`.
    pub fn new(outcome: &Outcome, white: String, black: String) -> OutcomeRecord {
        OutcomeRecord {
            white,
            black,
            result: outcome.recorded,
            plies: outcome.plies,
            termination: outcome.end.map(|e| e.kind),
            termination_ply: outcome.end.map(|e| e.ply),
            threefold_claim_ply: outcome.threefold_claim_ply,
            fifty_claim_ply: outcome.fifty_claim_ply,
            winner_can_mate: outcome.winner_can_mate.clone(),
            opponent_can_mate: outcome.opponent_can_mate.clone(),
            fide_result: outcome.rules_result,
            result_ok: outcome.is_result_ok(),
            marker_result: outcome.marker_result,
            dead_reason: outcome.dead_reason,
            loss_rule: outcome.loss_rule,
            error: outcome.error.clone(),
            laws: outcome.laws,
            tags: Vec::new(),
            opening: outcome.opening,
        }
    }

    /// The winner's mating line, when one was found.
    pub fn helpmate(&self) -> Option<&[UciMove]> {
        match &self.opponent_can_mate {
            Some(Mateability::Yes { helpmate }) => Some(helpmate),
            _ => None,
        }
    }

    fn cells<C: Cells + ErrorCell>(
        &self,
        c: &mut C,
        place: (&str, u64, Option<u64>),
        tags: &[String],
        tags_column: bool,
    ) {
        let (file, game, offset) = place;
        c.str(file);
        c.uint(Some(game));
        c.uint(offset);
        c.str(&self.white);
        c.str(&self.black);
        c.word(self.result.map(GameResult::as_str));
        c.uint(Some(u64::from(self.plies)));
        c.word(self.termination.map(EndKind::as_str));
        c.uint(self.termination_ply.map(u64::from));
        c.uint(self.threefold_claim_ply.map(u64::from));
        c.uint(self.fifty_claim_ply.map(u64::from));
        c.word(self.winner_can_mate.as_ref().map(Mateability::word));
        c.word(self.fide_result.map(GameResult::as_str));
        c.bool(self.result_ok);
        c.word(self.marker_result.map(GameResult::as_str));
        c.word(self.dead_reason.map(DeadReason::as_str));
        c.word(self.loss_rule.map(LossRule::as_str));
        c.word(match &self.opponent_can_mate {
            Some(Mateability::Undetermined(r)) => Some(r.as_str()),
            _ => None,
        });
        c.words(self.helpmate(), |m, out| m.append_ascii_to(out));
        c.error(self.error.as_ref());
        let mut laws = [0; 10];
        c.str(self.laws.column(&mut laws));
        c.word(self.opponent_can_mate.as_ref().map(Mateability::word));
        c.opt_str(self.opening.map(|o| o.eco));
        c.opt_str(self.opening.map(|o| o.name));
        c.uint(self.opening.map(|o| u64::from(o.ply)));
        if tags_column {
            let values: Vec<Option<&str>> = self.tags.iter().map(Option::as_deref).collect();
            c.tags(tags, &values);
        }
    }

    /// Appends the record in `format`, for game `game` (at `offset`) of
    /// `file`, with the `--tags` columns `tags`.
    pub fn write(
        &self,
        format: Format,
        place: (&str, u64, Option<u64>),
        tags: &[String],
        out: &mut Vec<u8>,
    ) {
        match format {
            Format::Csv => {
                let mut row = CsvRow::new(out, &OUTCOME);
                self.cells(&mut row, place, tags, !tags.is_empty());
                row.finish();
            }
            Format::Jsonl => {
                let mut o = JsonObject::new(out, &OUTCOME, !tags.is_empty());
                self.cells(&mut o, place, tags, !tags.is_empty());
                o.finish();
            }
            Format::Arrow => unreachable!("the columnar form is written by `columnar`"),
        }
    }

    /// Adds the record to `rows` (the columnar form, whose `tags` map is
    /// always there, empty without `--tags`).
    pub fn columnar(&self, rows: &mut ArrowRows, place: (&str, u64, Option<u64>), tags: &[String]) {
        let mut row = rows.row();
        self.cells(&mut row, place, tags, true);
        row.finish();
    }
}
