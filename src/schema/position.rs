//! The position record: one position of a game's main line, in the
//! columnar form only (`convert --to parquet --positions all`, and the
//! Python package's `positions()`). The text formats have `--to fen` and
//! `--to epd` for positions.

use super::finding::{PLY, SAN};
use super::game::{CLOCK, EVAL_CP, EVAL_MATE, TIME_SPENT, UCI};
use super::{Column, Schema, Type, common};

/// One position.
pub const POSITION: Schema = Schema {
    name: "position",
    doc: "`pgnkit convert --to parquet --positions all` and `--to arrow --positions all`: one record per position of each game's main line, the start position first (ply 0). A game that cannot be replayed has none (its positions up to the error with `--keep-invalid`).",
    columns: &[
        common::FILE.arrow_only(),
        common::GAME.arrow_only(),
        common::OFFSET
            .null_when("the record is a line of FEN, EPD or UCI input")
            .arrow_only(),
        PLY.doc("plies played to reach the position: 0 for the start position")
            .arrow_only(),
        Column::new("fen", Type::Str, "the position, as FEN")
            .arrow_only()
            .distinct(),
        super::game::ZOBRIST
            .doc("the position's Polyglot Zobrist key (python-chess's `chess.polyglot.zobrist_hash`: en passant counted when a pawn stands beside the pawn that moved two squares): the games that reach a position are the rows with its key")
            .arrow_only(),
        UCI.doc("the move that led to the position, in UCI")
            .null_when("`ply` is 0")
            .arrow_only(),
        SAN.doc("that move in normalised SAN")
            .null_when("`ply` is 0")
            .arrow_only(),
        CLOCK.arrow_only(),
        TIME_SPENT.arrow_only(),
        EVAL_CP.arrow_only(),
        EVAL_MATE.arrow_only(),
    ],
};
