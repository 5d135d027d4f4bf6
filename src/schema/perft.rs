//! The perft record: the leaf nodes below each root move (with `divide`),
//! or the one total. The command line prints perft as text (`MOVE: N`
//! lines); the record is the Python package's `perft()` rows, in the
//! columnar form only.

use super::{Column, Schema, Type};

/// One row of a perft count.
pub const PERFT: Schema = Schema {
    name: "perft",
    doc: "`pgnkit.perft(fen, depth, divide)` in the Python package: with `divide`, one record per legal root move in the order `pgnkit perft --divide` prints them; without, one record of the total.",
    columns: &[
        Column::new("move", Type::Str, "the root move in UCI")
            .null_when("the record is the total (without `divide`)")
            .arrow_only(),
        Column::new(
            "nodes",
            Type::UInt64,
            "leaf nodes at the depth below the move (or the position)",
        )
        .arrow_only(),
    ],
};
