//! `convert`'s record: one game replayed, as a CSV row (`--to csv`) or a
//! JSON object (`--to jsonl`). The two formats hold different columns of
//! the one record, each marked where it is.

use super::finding::{CODE, ERROR_COLUMN, SAN};
use super::{Column, Schema, Type, common};

/// What the opening columns say of their nulls.
const NO_OPENING: &str = "the game reached no position the openings table names within its depth (36 plies for lichess's), does not start from the standard position, or could not be replayed";

/// The ECO code of a game's opening ([`crate::rules::openings`]).
pub const ECO: Column = Column::new(
    "eco",
    Type::Str,
    "the ECO code of the game's opening: of the last position of the openings table (lichess's, or `--openings`) the game reached, positions compared as EPD so that transpositions count",
)
.null_when(NO_OPENING);

/// The name of a game's opening.
pub const OPENING: Column = Column::new(
    "opening",
    Type::Str,
    "the name of that opening (`Ruy Lopez: Morphy Defense`)",
)
.null_when(NO_OPENING);

/// The ply after which a game reached its opening.
pub const OPENING_PLY: Column = Column::new(
    "opening_ply",
    Type::UInt32,
    "the ply after which the game reached that position (1 after White's first move)",
)
.null_when(NO_OPENING);

/// The NAGs of a move (at the top level: before the first move).
/// A position's Polyglot Zobrist key ([`crate::rules::setup::polyglot_key`]).
pub const ZOBRIST: Column = Column::new(
    "zobrist",
    Type::Key64,
    "the position's Polyglot Zobrist key",
);

pub const NAGS: Column = Column::new("nags", Type::List(&Type::UInt8), "NAGs, in input order")
    .null_when("there are none (or `--no-nags`)")
    .jsonl_only()
    .not_in_arrow();

/// Its comments.
pub const COMMENTS: Column = Column::new(
    "comments",
    Type::List(&Type::Str),
    "comments, in input order",
)
.null_when("there are none (or `--no-comments`)")
.jsonl_only()
.not_in_arrow();

/// Its variations.
pub const VARIATIONS: Column = Column::new(
    "variations",
    Type::List(&Type::Str),
    "variations, as PGN text without move numbers",
)
.null_when("there are none (or `--no-variations`)")
.jsonl_only()
.not_in_arrow();

/// A move in UCI.
pub const UCI: Column = Column::new(
    "uci",
    Type::Str,
    "the move in UCI (Chess960 castling king to rook)",
);

/// The clock after a move, from `[%clk …]` (a list of them in game records,
/// one value in position records).
pub const CLOCK: Column = Column::new(
    "clock",
    Type::Float64,
    "the time left on the mover's clock after the move, in seconds, from its `[%clk H:MM:SS]` (`[%clk 0:04:58.5]` is 298.5)",
)
.null_when("the move's comments have no readable `[%clk …]` (an unreadable one is an `invalid-command` finding)");

/// The evaluation after a move in centipawns, from `[%eval …]`.
pub const EVAL_CP: Column = Column::new(
    "eval_cp",
    Type::Int32,
    "the evaluation after the move in centipawns, as written (`[%eval 0.35]` is 35; lichess and chess.com give White's point of view)",
)
.null_when("the move's comments have no readable `[%eval …]` in pawns");

/// The evaluation after a move as a mate distance, from `[%eval #…]`.
pub const EVAL_MATE: Column = Column::new(
    "eval_mate",
    Type::Int32,
    "the evaluation after the move as a signed distance to mate in moves, as written (`[%eval #-3]` is -3)",
)
.null_when("the move's comments have no readable `[%eval #…]`");

/// What a game-level list of per-move readings says of its nulls.
const READINGS_NULL: &str = "no move of the game has one (then in CSV the cell is empty); a move without one is null (in CSV `-`)";

/// One period of a time control ([`crate::rules::time_control`]).
pub const PERIOD: Schema = Schema {
    name: "period",
    doc: "One period of a game's time control (`time_control`), as the `TimeControl` tag gives it (PGN standard 9.6.1): `40/7200` is 40 moves in 7200 s, `300+2` the rest of the game in 300 s with 2 s added after each move, `*180` a sandclock of 180 s; `40/5400+30`, the FIDE events' form, is a move count with an increment.",
    columns: &[
        Column::new("moves", Type::UInt32, "the moves to make in the period")
            .null_when("the period is the rest of the game (sudden death, or a sandclock)"),
        Column::new(
            "seconds",
            Type::Float64,
            "the time of the period, in seconds (of a sandclock: the sand of both chambers)",
        ),
        Column::new(
            "increment",
            Type::Float64,
            "the seconds added after each move of the period (0 when none)",
        ),
        Column::new(
            "sandclock",
            Type::Bool,
            "whether the period is a sandclock: the time one side uses is given to the other",
        ),
    ],
};

/// The time each move took ([`crate::rules::time_control::time_spent`]).
pub const TIME_SPENT: Column = Column::new(
    "time_spent",
    Type::Float64,
    "the seconds the move took: the mover's clock before it (after their previous move, or the period's time at the start), plus the increment and, for the move that completes a period, the next period's time, less the clock after it (lichess gives no increment for each side's first move, which then shows it as time taken)",
)
.null_when("the move's clock or the one it starts from is missing, the arithmetic is negative (a `clock-mismatch` finding says which), or `time_control` gives no periods");

/// One ply of the main line.
pub const MOVE: Schema = Schema {
    name: "move",
    doc: "One ply of a game's main line (`moves`), with what follows it.",
    columns: &[
        SAN.doc("the move in normalised SAN")
            .never_null()
            .jsonl_only(),
        UCI.jsonl_only(),
        Column::new(
            "fen_after",
            Type::Str,
            "the position after the move, as FEN",
        )
        .null_when("`--no-fen` is given")
        .jsonl_only(),
        NAGS.doc("the move's NAGs"),
        COMMENTS.doc("comments after the move"),
        VARIATIONS.doc("variations replacing the move, as PGN text"),
    ],
};

/// One game.
pub const GAME: Schema = Schema {
    name: "game",
    doc: "`pgnkit convert --to csv` (a row for every game; `error` is filled when it could not be converted) and `--to jsonl`: a record for every game; one that cannot be replayed has its tags and `error` and no moves (its legal moves with `--keep-invalid`).",
    columns: &[
        common::FILE,
        common::GAME,
        common::OFFSET.null_when("the record is a line of FEN, EPD or UCI input"),
        super::finding::LINE
            .doc("the game's first line in its input (a line of FEN, EPD or UCI input: its own); with `--byte-range` it counts from the range's start (`pgnkit merge` renumbers it)")
            .arrow_only(),
        common::EVENT.arrow_only(),
        common::SITE.arrow_only(),
        Column::new("date", Type::Date, "the `Date` tag as a date")
            .null_when("the tag is missing or not a complete, valid `YYYY.MM.DD` (the text stays in `tags`)")
            .arrow_only(),
        common::ROUND.arrow_only(),
        common::WHITE.arrow_only(),
        common::BLACK.arrow_only(),
        Column::new("white_elo", Type::UInt32, "the `WhiteElo` tag as an integer")
            .null_when("the tag is missing or not a number (`?`, `-`)")
            .arrow_only(),
        Column::new("black_elo", Type::UInt32, "the `BlackElo` tag as an integer")
            .null_when("the tag is missing or not a number (`?`, `-`)")
            .arrow_only(),
        Column::new("utc_date", Type::Date, "the `UTCDate` tag as a date")
            .null_when("the tag is missing or not a complete, valid date")
            .arrow_only(),
        Column::new("utc_time", Type::Time, "the `UTCTime` tag as a time of day")
            .null_when("the tag is missing or not a valid `HH:MM:SS`")
            .arrow_only(),
        Column::new(
            "start_fen",
            Type::Str,
            "the start position when it is not the standard one, or the game is Chess960 (then with Shredder-FEN castling); with `uci`, all a replay needs",
        )
        .null_when("the game starts from the standard position")
        .csv_only()
        .distinct(),
        common::TAGS.doc("every tag of the game, in input order (a repeated tag keeps its first value); a game made from a line gets the Seven Tag Roster, and `SetUp`/`FEN` (and `Variant`) when it starts from a FEN. In CSV, one column per tag: the Seven Tag Roster, then those `--tags` names (default: every other tag the first 1,000 games use)"),
        NAGS.doc("NAGs before the first move"),
        COMMENTS.doc("comments before the first move"),
        VARIATIONS.doc("variations before the first move, as PGN text"),
        Column::new(
            "moves",
            Type::List(&Type::Struct(&MOVE)),
            "the main line, one struct per ply",
        )
        .jsonl_only()
        .not_in_arrow(),
        common::RESULT
            .doc("the recorded result (`1-0`, `0-1`, `1/2-1/2`, `*`)")
            .jsonl_only()
            .in_arrow(),
        ECO,
        OPENING,
        OPENING_PLY,
        Column::new(
            "time_control",
            Type::List(&Type::Struct(&PERIOD)),
            "the `TimeControl` tag as its periods, in the order the game uses them, the last repeating (`[]` for `-`, no time control); in CSV each period as the tag writes it, space-separated (`40/7200 3600`), `-` for none",
        )
        .null_when("the tag is missing, `?`, or malformed (an `invalid-tag` finding)"),
        common::PLIES
            .doc("plies of the main line")
            .null_when("the game was left out (it could not be replayed)")
            .csv_only(),
        UCI.of_type(Type::List(&Type::Str))
            .doc("the main line in UCI (in CSV space-separated; no `fen … moves` prefix: the start position is `start_fen`)")
            .null_when("the game was left out")
            .csv_only(),
        SAN.of_type(Type::List(&Type::Str))
            .doc("the main line in normalised SAN")
            .null_when("`--san` is not given, or the game was left out")
            .arrow_only(),
        CLOCK
            .of_type(Type::List(&Type::Float64))
            .doc("the clock after each move of the main line, in seconds (`[%clk …]`; in CSV space-separated)")
            .null_when(READINGS_NULL),
        TIME_SPENT
            .of_type(Type::List(&Type::Float64))
            .doc("the seconds each move of the main line took (see `time_spent` of the position records; in CSV space-separated)")
            .null_when("no move has a clock, or `time_control` gives no periods (then in CSV the cell is empty); a move whose time is not known is null (in CSV `-`)"),
        EVAL_CP
            .of_type(Type::List(&Type::Int32))
            .doc("the evaluation after each move in centipawns (`[%eval 0.35]`; in CSV space-separated)")
            .null_when(READINGS_NULL),
        EVAL_MATE
            .of_type(Type::List(&Type::Int32))
            .doc("the evaluation after each move as a signed mate distance (`[%eval #-3]`; in CSV space-separated)")
            .null_when(READINGS_NULL),
        Column::new("final_fen", Type::Str, "the final position, as FEN")
            .null_when("the game's setup failed, or it was left out")
            .csv_only()
            .distinct(),
        Column::new("final_zobrist", ZOBRIST.ty, "the final position's Polyglot Zobrist key (as `zobrist` of the position records)")
            .null_when("the game's setup failed, or it was left out")
            .csv_only(),
        common::KEY.null_when("the game was not replayed to its end (its setup failed, or a move is not legal)"),
        ERROR_COLUMN.null_when("the game was replayed"),
        Column::new(
            "error_code",
            CODE.ty,
            "the code of `error` alone, so that scripts need not parse its text",
        )
        .null_when("the game was replayed")
        .csv_only(),
        Column::new(
            "match_ply",
            Type::UInt32,
            "the ply after which the game stood in the position a selection criterion asked for (`--position`, `--sub-fen`, `--material`; 0: its start), else the ply of the move `--move` asked for",
        )
        .null_when("no such criterion was given (a game selected by its tags, its opening or its end)"),
    ],
};
