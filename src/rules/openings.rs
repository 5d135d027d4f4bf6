//! Openings: which named opening a game played, by the rule of the lichess
//! openings table (`lichess-org/chess-openings`): the opening of a game is
//! the **last** named position it reached, positions compared as EPD
//! (pieces, side to move, castling rights and an en-passant square only
//! when a capture there is legal), so that a transposition classifies as
//! the line it reached, within the table's depth (the plies of its longest
//! line). A game that does not start from the standard position has no
//! opening.
//!
//! The table pgnkit embeds is lichess's at commit 51b88624 (2026-07-22),
//! CC0: [`OpeningTable::lichess`], its source and licence beside it in
//! `src/rules/openings/lichess/`. Another table is read from the same TSV
//! columns ([`OpeningTable::from_tsv`]) or built from lines of moves
//! ([`OpeningTable::from_lines`], which `convert --openings` feeds with the
//! games of a PGN file such as pgn-extract's `eco.pgn`).

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;

use shakmaty::{
    Bitboard, Board, ByColor, ByRole, Chess, Color, EnPassantMode, Move, Position, Square,
};

mod tsv;
pub use tsv::TableError;
use tsv::read_tsv;

/// One named position of a table.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    board: Board,
    turn: Color,
    castling: Bitboard,
    ep: Option<Square>,
    /// Borrowed from the packed bytes for the embedded table.
    eco: Cow<'static, str>,
    name: Cow<'static, str>,
}

/// An openings table: named positions, looked up by position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpeningTable {
    /// Sorted by occupied squares, so that the entries of one set of
    /// occupied squares are a run.
    entries: Vec<Entry>,
    /// The run of entries of each set of occupied squares.
    runs: HashMap<u64, (u32, u32), BuildHasherDefault<Fold>>,
    /// The plies of its longest line: no later position is looked up.
    depth: u32,
}

/// The opening a game played.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Opening<'t> {
    /// The ECO code (`C60`).
    pub eco: &'t str,
    /// The name (`Ruy Lopez: Morphy Defense`).
    pub name: &'t str,
    /// The ply after which the game reached it (1 after White's first move).
    pub ply: u32,
}

/// A hasher for the occupied squares, which are already well mixed: one
/// multiplication.
#[derive(Default)]
struct Fold(u64);

impl Hasher for Fold {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (n ^ (n >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// The embedded table, packed by `build.rs` from the TSV files of
/// `src/rules/openings/lichess/` (see [`unpack`]).
static LICHESS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/lichess-openings.bin"));

impl OpeningTable {
    /// The table pgnkit embeds: lichess's (commit 51b88624, 2026-07-22,
    /// CC0), built once on first use.
    ///
    /// # Examples
    ///
    /// ```
    /// use pgnkit::rules::openings::OpeningTable;
    /// let table = OpeningTable::lichess();
    /// assert!(table.len() > 3_800);
    /// assert_eq!(table.depth(), 36);
    /// ```
    pub fn lichess() -> &'static OpeningTable {
        static TABLE: OnceLock<OpeningTable> = OnceLock::new();
        TABLE.get_or_init(|| OpeningTable::from_entries(unpack(LICHESS)))
    }

    /// A table from the text of a TSV file of lichess's columns: a header
    /// `eco`, `name`, `pgn` (the columns in any order; more are ignored),
    /// then one line per named position, its moves in SAN from the
    /// standard start (`1. e4 e5 2. Nf3`). A header line may repeat (files
    /// concatenated); blank lines are skipped.
    ///
    /// # Errors
    ///
    /// The first line that is not of the table: no header, a missing
    /// column, a move that is not legal.
    ///
    /// # Examples
    ///
    /// ```
    /// use pgnkit::rules::openings::OpeningTable;
    /// let t = OpeningTable::from_tsv("eco\tname\tpgn\nC20\tKing's Pawn Game\t1. e4 e5\n").unwrap();
    /// assert_eq!(t.len(), 1);
    /// let bad = OpeningTable::from_tsv("eco\tname\tpgn\nC20\tX\t1. e4 e4\n").unwrap_err();
    /// assert_eq!(bad.line, 2);
    /// assert!(bad.message.contains("e4"), "{}", bad.message);
    /// ```
    pub fn from_tsv(text: &str) -> Result<OpeningTable, TableError> {
        let mut lines = Vec::new();
        read_tsv(text, &mut lines)?;
        Ok(OpeningTable::from_positions(lines))
    }

    /// A table from lines of moves, each from the standard start: `(eco,
    /// name, moves)`. A position named twice keeps its first name.
    pub fn from_lines<'m>(
        lines: impl IntoIterator<Item = (String, String, &'m [Move])>,
    ) -> OpeningTable {
        let positions = lines.into_iter().map(|(eco, name, moves)| {
            let mut pos = Chess::default();
            for m in moves {
                pos.play_unchecked(*m);
            }
            (pos, moves.len() as u32, eco, name)
        });
        OpeningTable::from_positions(positions.collect())
    }

    fn from_positions(lines: Vec<(Chess, u32, String, String)>) -> OpeningTable {
        OpeningTable::from_entries(
            lines
                .into_iter()
                .map(|(pos, plies, eco, name)| {
                    let entry = Entry {
                        board: pos.board().clone(),
                        turn: pos.turn(),
                        castling: pos.castles().castling_rights(),
                        ep: pos.ep_square(EnPassantMode::Legal),
                        eco: Cow::Owned(eco),
                        name: Cow::Owned(name),
                    };
                    (entry, plies)
                })
                .collect(),
        )
    }

    /// The table of `entries`, each with the plies of its line, in the
    /// table's order (the first of a position named twice is kept).
    fn from_entries(lines: Vec<(Entry, u32)>) -> OpeningTable {
        let depth = lines.iter().map(|(_, plies)| *plies).max().unwrap_or(0);
        let mut entries: Vec<Entry> = lines.into_iter().map(|(e, _)| e).collect();
        // Stable: the first of a position named twice stays first.
        entries.sort_by_key(|e| e.board.occupied().0);
        let mut kept: Vec<Entry> = Vec::with_capacity(entries.len());
        for e in entries {
            let named = kept
                .iter()
                .rev()
                .take_while(|k| k.board.occupied() == e.board.occupied())
                .any(|k| k.same_position(&e));
            if !named {
                kept.push(e);
            }
        }
        let mut runs = HashMap::default();
        let mut i = 0;
        while i < kept.len() {
            let occupied = kept[i].board.occupied();
            let len = kept[i..]
                .iter()
                .take_while(|e| e.board.occupied() == occupied)
                .count();
            runs.insert(occupied.0, (i as u32, len as u32));
            i += len;
        }
        OpeningTable {
            entries: kept,
            runs,
            depth,
        }
    }

    /// Named positions.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the table names no position.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The plies of the table's longest line: the last ply a game is
    /// classified by.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The name of `pos`, if the table has one.
    #[inline]
    fn find(&self, pos: &Chess) -> Option<&Entry> {
        let board = pos.board();
        let &(start, len) = self.runs.get(&board.occupied().0)?;
        self.find_in(start, len, pos)
    }

    #[inline(never)]
    fn find_in(&self, start: u32, len: u32, pos: &Chess) -> Option<&Entry> {
        let run = &self.entries[start as usize..(start + len) as usize];
        let mut candidates = run
            .iter()
            .filter(|e| e.turn == pos.turn() && e.board == *pos.board())
            .peekable();
        candidates.peek()?;
        let castling = pos.castles().castling_rights();
        let ep = pos.ep_square(EnPassantMode::Legal);
        candidates.find(|e| e.castling == castling && e.ep == ep)
    }

    /// The opening of the game whose positions after each ply `positions`
    /// gives, from `start`: see [`Classifier`] to classify during a replay.
    ///
    /// # Examples
    ///
    /// ```
    /// use pgnkit::rules::openings::OpeningTable;
    /// use shakmaty::{Chess, Position, san::San};
    /// let mut pos = Chess::default();
    /// let mut after = Vec::new();
    /// for san in ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "h3"] {
    ///     let m = san.parse::<San>().unwrap().to_move(&pos).unwrap();
    ///     pos.play_unchecked(m);
    ///     after.push(pos.clone());
    /// }
    /// let o = OpeningTable::lichess().classify(&Chess::default(), &after).unwrap();
    /// assert_eq!((o.eco, o.name, o.ply), ("C70", "Ruy Lopez: Morphy Defense", 6));
    /// ```
    pub fn classify(&self, start: &Chess, positions: &[Chess]) -> Option<Opening<'_>> {
        let mut c = Classifier::new(self, start);
        for (i, pos) in positions.iter().enumerate() {
            c.push(i as u32 + 1, pos);
        }
        c.opening()
    }
}

/// The entries `build.rs` packed, in the order [`OpeningTable::from_entries`]
/// keeps them (sorted by occupied squares, the first of a position named
/// twice), so that building the table sorts nothing: per line, the six role and two colour
/// bitboards and the castling rights (little-endian `u64`s), the side to
/// move (0 White), the legal en-passant square (64 for none), the plies, the
/// ECO code's length and bytes, the name's length (`u16`) and bytes.
fn unpack(mut bytes: &'static [u8]) -> Vec<(Entry, u32)> {
    fn take(bytes: &mut &'static [u8], n: usize) -> &'static [u8] {
        let (head, tail) = bytes.split_at(n);
        *bytes = tail;
        head
    }
    let u64_at = |bytes: &mut &'static [u8]| {
        Bitboard(u64::from_le_bytes(
            take(bytes, 8).try_into().expect("8 bytes"),
        ))
    };
    let text = |bytes: &mut &'static [u8], n: usize| {
        Cow::Borrowed(std::str::from_utf8(take(bytes, n)).expect("packed as UTF-8"))
    };
    let mut entries = Vec::with_capacity(4_000);
    while !bytes.is_empty() {
        let by_role = ByRole {
            pawn: u64_at(&mut bytes),
            knight: u64_at(&mut bytes),
            bishop: u64_at(&mut bytes),
            rook: u64_at(&mut bytes),
            queen: u64_at(&mut bytes),
            king: u64_at(&mut bytes),
        };
        let by_color = ByColor {
            white: u64_at(&mut bytes),
            black: u64_at(&mut bytes),
        };
        let castling = u64_at(&mut bytes);
        let [turn, ep, plies, eco_len] = take(&mut bytes, 4).try_into().expect("4 bytes");
        let eco = text(&mut bytes, usize::from(eco_len));
        let name_len = u16::from_le_bytes(take(&mut bytes, 2).try_into().expect("2 bytes"));
        let name = text(&mut bytes, usize::from(name_len));
        let entry = Entry {
            board: Board::try_from_bitboards(by_role, by_color).expect("packed from a board"),
            turn: if turn == 0 {
                Color::White
            } else {
                Color::Black
            },
            castling,
            ep: Square::try_from(ep).ok(),
            eco,
            name,
        };
        entries.push((entry, u32::from(plies)));
    }
    entries
}

impl Entry {
    fn same_position(&self, other: &Entry) -> bool {
        self.board == other.board
            && self.turn == other.turn
            && self.castling == other.castling
            && self.ep == other.ep
    }
}

/// Classifies one game as it is replayed: [`Classifier::push`] after each
/// ply, then [`Classifier::opening`].
#[derive(Debug, Clone, Copy)]
pub struct Classifier<'t> {
    table: &'t OpeningTable,
    /// Plies still looked up: 0 once past the table's depth, and for a
    /// game that does not start from the standard position.
    depth: u32,
    found: Option<(&'t Entry, u32)>,
}

impl<'t> Classifier<'t> {
    /// A classifier for a game from `start`.
    pub fn new(table: &'t OpeningTable, start: &Chess) -> Classifier<'t> {
        let standard = start.board() == &Board::new()
            && start.turn() == Color::White
            && start.castles().castling_rights() == Bitboard::CORNERS
            && start.ep_square(EnPassantMode::Legal).is_none();
        Classifier {
            table,
            depth: if standard { table.depth } else { 0 },
            found: None,
        }
    }

    /// The position after ply `ply` (1-based, counted from the start).
    #[inline]
    pub fn push(&mut self, ply: u32, after: &Chess) {
        if ply <= self.depth
            && let Some(e) = self.table.find(after)
        {
            self.found = Some((e, ply));
        }
    }

    /// The last named position reached.
    pub fn opening(&self) -> Option<Opening<'t>> {
        self.found.map(|(e, ply)| Opening {
            eco: &e.eco,
            name: &e.name,
            ply,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::san::San;

    fn play(sans: &str) -> Vec<Chess> {
        let mut pos = Chess::default();
        sans.split_whitespace()
            .map(|s| {
                let m = s.parse::<San>().unwrap().to_move(&pos).unwrap();
                pos.play_unchecked(m);
                pos.clone()
            })
            .collect()
    }

    fn name(sans: &str) -> Option<(String, u32)> {
        OpeningTable::lichess()
            .classify(&Chess::default(), &play(sans))
            .map(|o| (o.name.to_owned(), o.ply))
    }

    #[test]
    fn the_packed_table_is_the_tsv_files() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/rules/openings/lichess");
        let text: String = ["a", "b", "c", "d", "e"]
            .map(|f| std::fs::read_to_string(format!("{dir}/{f}.tsv")).unwrap())
            .concat();
        let read = OpeningTable::from_tsv(&text).unwrap();
        assert_eq!(&read, OpeningTable::lichess());
        assert!(read.len() > 3_800);
    }

    #[test]
    fn the_last_named_position_counts() {
        assert_eq!(name("e4 c5"), Some(("Sicilian Defense".into(), 2)));
        // Past the named line, the last named position stays.
        assert_eq!(
            name("e4 c5 a3 a6 h3 h6"),
            Some(("Sicilian Defense: Mengarini Variation".into(), 3))
        );
        assert_eq!(name(""), None);
    }

    #[test]
    fn transpositions_classify_by_position() {
        // The Queen's Gambit Declined by 1. c4 e6 2. d4 d5.
        let direct = name("d4 d5 c4 e6").unwrap();
        let transposed = name("c4 e6 d4 d5").unwrap();
        assert_eq!(direct, transposed);
        assert_eq!(direct.0, "Queen's Gambit Declined");
    }

    #[test]
    fn en_passant_counts_only_when_legal() {
        // After 1. e4 the FEN has no legal en-passant capture: the position
        // is the table's whatever the FEN's e3.
        assert_eq!(name("e4"), Some(("King's Pawn Game".into(), 1)));
    }

    #[test]
    fn a_game_from_another_start_has_no_opening() {
        let start = play("e4").pop().unwrap();
        let after = {
            let mut p = start.clone();
            let m = "e5".parse::<San>().unwrap().to_move(&p).unwrap();
            p.play_unchecked(m);
            vec![p]
        };
        assert_eq!(OpeningTable::lichess().classify(&start, &after), None);
    }

    #[test]
    fn depth_limits_the_search() {
        let t = OpeningTable::from_tsv("eco\tname\tpgn\nA00\tKnights\t1. Nf3 Nf6\n").unwrap();
        assert_eq!(t.depth(), 2);
        // The same position reached in 6 plies is past the depth.
        let late = play("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6");
        assert_eq!(t.classify(&Chess::default(), &late).map(|o| o.ply), Some(2));
        let detour = play("Nc3 Nc6 Nb1 Nb8 Nf3 Nf6");
        assert_eq!(t.classify(&Chess::default(), &detour), None);
    }

    #[test]
    fn table_errors_name_the_line() {
        let e = OpeningTable::from_tsv("A00\tx\t1. e4\n").unwrap_err();
        assert_eq!(e.line, 1);
        let e = OpeningTable::from_tsv("eco\tname\tpgn\n\nA00\tx\n").unwrap_err();
        assert_eq!((e.line, e.message.as_str()), (3, "no line of moves"));
        let e = OpeningTable::from_tsv("eco\tname\tpgn\nA00\tx\t1. e5\n").unwrap_err();
        assert!(e.message.contains("`e5` (ply 1)"), "{}", e.message);
        // Files concatenated, header and all, and CRLF.
        let t = OpeningTable::from_tsv(
            "eco\tname\tpgn\r\nA00\tx\t1. e4\r\neco\tname\tpgn\nA01\ty\t1. d4\n",
        )
        .unwrap();
        assert_eq!(t.len(), 2);
    }

    #[test]
    fn a_position_named_twice_keeps_its_first_name() {
        let t = OpeningTable::from_tsv(
            "eco\tname\tpgn\nA00\tfirst\t1. e4 e5 2. Nf3\nB00\tsecond\t1. Nf3 e5 2. e4\n",
        )
        .unwrap();
        assert_eq!(t.len(), 1);
        let o = t.classify(&Chess::default(), &play("Nf3 e5 e4")).unwrap();
        assert_eq!((o.eco, o.name), ("A00", "first"));
    }
}
