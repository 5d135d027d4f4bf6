//! `crosstable`'s record: one player of one event, in the order of the
//! event's standings, with the player's row of the crosstable.

use super::arrow::ArrowRows;
use super::{Cells, Column, CsvRow, Format, JsonObject, Number, Schema, Type, common};
use crate::rules::tournament::{Event, Kind};

/// One player's standing.
pub const STANDING: Schema = Schema {
    name: "standing",
    doc: "`pgnkit crosstable -f csv|jsonl|parquet|arrow`: one record per player of each event, the events in the order of their first game, each event's players in the order of its standings.",
    columns: &[
        common::EVENT
            .doc("the event's `Event` tag (games without one, or with `?`, are in no event)")
            .never_null(),
        common::SITE
            .doc("the event's `Site` tag: games of one `Event` at two sites are two events")
            .null_when("the games have none (or `?`)"),
        Column::new(
            "event_date",
            Type::Str,
            "the `EventDate` tag, or the year of `Date`, that tells the event from another of its name",
        )
        .null_when("the games give neither"),
        Column::new(
            "system",
            Type::Vocab(|| {
                [
                    Kind::RoundRobin { cycles: 1 },
                    Kind::Swiss,
                    Kind::Knockout,
                    Kind::NoRounds,
                ]
                .iter()
                .map(|k| k.as_str())
                .collect()
            }),
            "the tournament system the games show: `round-robin` (no more players than rounds plus one), `swiss`, `knockout` (a pairing plays two games of a round), `no-rounds` (no game has a round number)",
        ),
        Column::new(
            "rank",
            Type::UInt32,
            "the place in the standings: by points, then the tie-break, then wins; players level on points and tie-break share one",
        ),
        Column::new(
            "competitor",
            Type::Str,
            "the name most of the player's games write (a player is one `FideId`, or one name up to case, accents, punctuation and word order)",
        ),
        Column::new("fide_id", Type::UInt64, "the player's `WhiteFideId`/`BlackFideId`")
            .null_when("no game gives one"),
        Column::new("rating", Type::UInt32, "the highest `WhiteElo`/`BlackElo` of the player's games")
            .null_when("no game gives one"),
        Column::new(
            "points",
            Type::Float64,
            "points from every result, forfeits and byes included (a game scored `*` gives none)",
        ),
        Column::new(
            "played",
            Type::UInt32,
            "games played over the board with a result (not forfeits, byes or games without moves)",
        ),
        Column::new("wins", Type::UInt32, "wins among the games played"),
        Column::new("draws", Type::UInt32, "draws among the games played"),
        Column::new("losses", Type::UInt32, "losses among the games played"),
        Column::new(
            "unplayed",
            Type::UInt32,
            "forfeits, byes and games without moves (won, lost or drawn)",
        ),
        Column::new(
            "tiebreak",
            Type::Vocab(|| vec!["sonneborn-berger", "buchholz"]),
            "the tie-break after points: `sonneborn-berger` in a round-robin (each game's score times the opponent's points), `buchholz` in a Swiss (the opponents' points); games played only",
        )
        .null_when("a knockout, or an event without rounds"),
        Column::new("tiebreak_score", Type::Float64, "the tie-break's value")
            .null_when("there is no tie-break"),
        Column::new(
            "results",
            Type::List(&Type::Str),
            "the player's row of the crosstable, a game an item in round order: `ROUND:OPPONENT` `COLOUR` `SCORE`, the opponent by rank row (the record's position in its event, from 1) or `bye`, `w` or `b`, and `1`, `0.5`, `0`, or for a game not played `+` (won), `-` (lost), `=` (a half point), `*` for no result; `6:3w1 7:12b0.5 8:bye+` (in CSV space-separated; a round `?` for a game without one)",
        ),
    ],
};

/// A crosstable item of `player`'s `game`: `6:3w1` (see [`STANDING`]).
pub fn item(rows: &[usize], player: usize, game: &crate::rules::tournament::Game) -> String {
    let round = game
        .round
        .map_or_else(|| "?".to_owned(), |r| r.number.to_string());
    let Some((opponent, white)) = game.side_of(player) else {
        return String::new();
    };
    let against = match opponent {
        Some(o) => format!("{}{}", rows[o] + 1, if white { 'w' } else { 'b' }),
        None => "bye".to_owned(),
    };
    let score = match (game.halves_of(player), game.unplayed) {
        (None, _) => "*",
        (Some(2), false) => "1",
        (Some(1), false) => "0.5",
        (Some(_), false) => "0",
        (Some(2), true) => "+",
        (Some(1), true) => "=",
        (Some(_), true) => "-",
    };
    format!("{round}:{against}{score}")
}

/// One row of [`STANDING`].
#[derive(Debug, Clone)]
pub struct StandingRecord<'a> {
    pub event: &'a Event,
    /// The row: the index in the event's standings.
    pub row: usize,
    /// Each player's row (by player index).
    pub rows: &'a [usize],
}

impl StandingRecord<'_> {
    fn cells<C: Cells>(&self, c: &mut C) {
        let e = self.event;
        let s = &e.standings[self.row];
        let p = &e.players[s.player];
        c.str(&e.name);
        c.opt_str(Some(e.site.as_str()).filter(|s| !s.is_empty()));
        c.opt_str(Some(e.date.as_str()).filter(|d| !d.is_empty()));
        c.word(Some(e.kind.as_str()));
        c.uint(Some(u64::from(s.rank)));
        c.str(&p.name);
        c.uint(p.fide_id.map(u64::from));
        c.uint(p.elo.map(u64::from));
        // Half points as thousandths of a point.
        c.number(Some(Number::Millis(u64::from(s.halves) * 500)));
        c.uint(Some(u64::from(s.played)));
        c.uint(Some(u64::from(s.wins)));
        c.uint(Some(u64::from(s.draws)));
        c.uint(Some(u64::from(s.losses)));
        c.uint(Some(u64::from(s.unplayed)));
        c.word(e.kind.tiebreak());
        // Quarter points as thousandths.
        c.number(s.tiebreak.map(|q| Number::Millis(u64::from(q) * 250)));
        let items: Vec<String> = e
            .games_of(s.player)
            .into_iter()
            .map(|g| item(self.rows, s.player, g))
            .collect();
        c.words(Some(items.as_slice()), |i, out| {
            out.extend_from_slice(i.as_bytes())
        });
    }

    /// Appends the record in `format` (CSV or JSON Lines).
    pub fn write(&self, format: Format, out: &mut Vec<u8>) {
        match format {
            Format::Csv => {
                let mut row = CsvRow::new(out, &STANDING);
                self.cells(&mut row);
                row.finish();
            }
            Format::Jsonl => {
                let mut o = JsonObject::new(out, &STANDING, false);
                self.cells(&mut o);
                o.finish();
            }
            Format::Arrow => unreachable!("the columnar form is written by `columnar`"),
        }
    }

    /// Adds the record to `rows` (the columnar form).
    pub fn columnar(&self, rows: &mut ArrowRows) {
        let mut row = rows.row();
        self.cells(&mut row);
        row.finish();
    }
}
