//! Perft: count the leaf nodes of the legal move tree to a fixed depth.
//!
//! This module owns the sequential counting ([`perft`], [`divide`]), the
//! shared transposition table of subtree counts ([`Table`]), reading a
//! position from a FEN ([`parse_position`]: the one FEN reader of
//! [`super::setup`] with perft's leniency) and from UCI moves played on it
//! ([`play_uci`], with [`super::notation`]'s player); the syntax of perft
//! suites is [`suite`]'s. It does no I/O and starts no threads:
//! `cmd::perft` splits the tree over threads and calls [`perft`] on the
//! subtrees, which may share one [`Table`].
//!
//! The tree is walked on `Node`s (module `node`), perft's own copy-make
//! bitboard positions with a legal move generator from check and pin masks,
//! en passant and castling (Chess960 included) among its moves; shakmaty
//! sets up the root (and so decides which positions exist) and generates
//! the root moves (for `--divide` and for the split over threads), and the
//! unit tests hold the nodes equal to shakmaty's positions move by move.
//! The speed comes from that generator, from bulk counting (at depth 1 the
//! legal moves are counted, not played) and from the table, which
//! remembers the count of every subtree of depth 2 or more.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Position};

use super::notation::{UciMoveErrorKind, fen, play_uci_moves};
use super::setup::FenError;
use super::setup::{FenLeniency, read_fen};

mod node;
pub mod suite;

use node::{Castling, Node};

/// The deepest count pgnkit runs. No tree that deep can be counted (it
/// would have to end in mates and stalemates everywhere first), and the
/// recursion needs stack for every ply: a cap keeps a typo such as
/// `-d 10000` an error rather than a crash.
pub const MAX_DEPTH: u32 = 1000;

/// Counts the legal move paths of exactly `depth` plies from `pos`.
///
/// Depth 0 counts the position itself (1). Paths cut short by mate or
/// stalemate are not counted. With a `table`, counts of subtrees of depth 2
/// or more are looked up and stored there; the result is the same with or
/// without it.
///
/// # Examples
///
/// ```
/// use pgnkit::rules::perft::{Table, perft};
/// use shakmaty::Chess;
///
/// let pos = Chess::default();
/// assert_eq!(perft(&pos, 0, None), 1);
/// assert_eq!(perft(&pos, 3, None), 8_902);
///
/// let table = Table::with_mib(1).unwrap().expect("1 MiB is not 0 MiB");
/// assert_eq!(perft(&pos, 4, Some(&table)), 197_281);
/// ```
pub fn perft(pos: &Chess, depth: u32, table: Option<&Table>) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if has_bmi() {
        // SAFETY: the CPU has the popcnt, BMI1 and BMI2 instructions
        // (`has_bmi`); they are the only requirement of the `bmi` module's
        // functions.
        return unsafe { bmi::perft(pos, depth, table) };
    }
    #[cfg(target_arch = "x86_64")]
    if has_popcnt() {
        // SAFETY: the CPU has the popcnt instruction (`has_popcnt`); that
        // is the only requirement of the `popcnt` module's functions.
        return unsafe { popcnt::perft(pos, depth, table) };
    }
    portable::perft(pos, depth, table)
}

/// Whether the CPU runs the `popcnt` copy of the recursion.
#[cfg(target_arch = "x86_64")]
fn has_popcnt() -> bool {
    std::arch::is_x86_feature_detected!("popcnt")
}

/// Whether the CPU runs the `bmi` copy of the recursion.
#[cfg(target_arch = "x86_64")]
fn has_bmi() -> bool {
    has_popcnt()
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
}

/// The counting recursion, compiled three times: portable, with the popcnt
/// instruction for x86-64 CPUs that have it, and with popcnt, BMI1 and BMI2
/// for those that have all three. Release builds target baseline x86-64,
/// where `count_ones` is a dozen instructions, and bulk counting is mostly
/// population counts: the popcnt copy is about twice as fast. BMI1 and BMI2
/// give the compiler `tzcnt`/`blsr` for walking a bitboard's squares and
/// shifts without the `cl` register: 4 % fewer instructions (perft 5,
/// `-j1 --hash 0`, 111.7 -> 107.4 M).
///
/// The walk is on [`Node`]s, not on shakmaty positions: a node is copied
/// and changed in place for each move, and at the last ply the legal moves
/// are counted, not played. Through the table, each node carries its key
/// ([`Node::key`]), updated move by move; the children of depth-2 nodes,
/// which are counted and never looked up, skip the update.
macro_rules! counting {
    ($(#[$feature:meta])*) => {
        $(#[$feature])*
        pub(super) fn perft(pos: &Chess, depth: u32, table: Option<&Table>) -> u64 {
            let castling = Castling::of(pos);
            let node = Node::of(pos);
            match (depth, table) {
                (0, _) => 1,
                (1, _) => node.count(&castling),
                (_, None) => plain(&node, &castling, depth),
                (_, Some(table)) => hashed(&node, &castling, depth, table),
            }
        }

        /// Plain recursion with bulk counting at depth 1. `depth >= 2`.
        $(#[$feature])*
        fn plain(node: &Node, castling: &Castling, depth: u32) -> u64 {
            let mut total = 0;
            if depth == 2 {
                node.for_each_child::<false>(castling, |child| total += child.count(castling));
            } else {
                node.for_each_child::<false>(castling, |child| {
                    total += plain(child, castling, depth - 1);
                });
            }
            total
        }

        /// Recursion through the table. `depth >= 2`, and `node`'s key is
        /// up to date.
        $(#[$feature])*
        fn hashed(node: &Node, castling: &Castling, depth: u32, table: &Table) -> u64 {
            if let Some(count) = table.probe(node.key(), depth) {
                return count;
            }
            let mut total = 0;
            if depth == 2 {
                node.for_each_child::<false>(castling, |child| total += child.count(castling));
            } else {
                // Each child's bucket is fetched from memory while the
                // child before it is counted: without this, the probe's
                // cache miss was a quarter of perft 7's samples. (Eight
                // children ahead instead of one measured the same.)
                let mut pending: Option<Node> = None;
                node.for_each_child::<true>(castling, |child| {
                    table.prefetch(child.key(), depth - 1);
                    if let Some(before) = pending.replace(*child) {
                        total += hashed(&before, castling, depth - 1, table);
                    }
                });
                if let Some(last) = pending {
                    total += hashed(&last, castling, depth - 1, table);
                }
            }
            table.store(node.key(), depth, total);
            total
        }
    };
}

mod portable {
    use super::*;
    counting!();
}

#[cfg(target_arch = "x86_64")]
mod popcnt {
    use super::*;
    counting!(#[target_feature(enable = "popcnt")]);
}

#[cfg(target_arch = "x86_64")]
mod bmi {
    use super::*;
    counting!(#[target_feature(enable = "popcnt,bmi1,bmi2")]);
}

/// A lock-free transposition table of subtree counts, shareable between
/// threads.
///
/// An entry is the count of one subtree: the full 128-bit key of its root
/// node (the `Node`'s Zobrist key, which covers the pieces, the side to
/// move, each castling rook square and the en passant file), the depth and
/// the count. The table is indexed by the key's high half (mixed with the
/// depth), and a probe returns a count only when all 128 bits of the key
/// and the depth match the entry: two positions that share a bucket, or
/// agree on any number of index bits, only miss. A wrong count would take
/// two different positions with the same 128-bit key.
///
/// An entry is written as three independent atomic words, `key_lo ^ data`,
/// `key_hi ^ data` and `data` (count and depth), so a probe that reads
/// words of two different writes fails the check instead of returning a
/// wrong count (the "lockless hashing" XOR trick of Hyatt and Mann).
/// Entries come in buckets of two, one cache line: the first keeps the
/// deepest entry, the second the latest.
///
/// # Examples
///
/// ```
/// use pgnkit::rules::perft::{Table, perft};
/// use shakmaty::Chess;
///
/// let table = Table::with_mib(1).unwrap().expect("1 MiB is not 0 MiB");
/// let pos = Chess::default();
/// // The second count is answered from the table, with the same result.
/// assert_eq!(perft(&pos, 4, Some(&table)), 197_281);
/// assert_eq!(perft(&pos, 4, Some(&table)), 197_281);
/// ```
pub struct Table {
    buckets: Box<[Bucket]>,
    /// `buckets.len() - 1`.
    mask: usize,
}

/// Two entries in one cache line.
#[derive(Default)]
#[repr(align(64))]
struct Bucket([Entry; 2]);

#[derive(Default)]
struct Entry {
    lo: AtomicU64,
    hi: AtomicU64,
    data: AtomicU64,
}

const BUCKET_BYTES: usize = std::mem::size_of::<Bucket>();
const DEPTH_BITS: u32 = 8;
const DEPTH_MASK: u64 = (1 << DEPTH_BITS) - 1;

impl Table {
    /// Allocates a table of at most `mib` MiB (rounded down to a power of two
    /// buckets of 64 bytes). Returns `None` for 0 MiB, meaning "no table".
    ///
    /// # Errors
    ///
    /// [`TableError`] when the memory cannot be reserved.
    pub fn with_mib(mib: usize) -> Result<Option<Table>, TableError> {
        if mib == 0 {
            return Ok(None);
        }
        let bytes = mib.checked_mul(1 << 20).ok_or(TableError { mib })?;
        let wanted = bytes / BUCKET_BYTES;
        // Largest power of two that fits (1 MiB is 16,384 buckets).
        let len = 1usize << (usize::BITS - 1 - wanted.leading_zeros());
        let mut buckets = Vec::new();
        buckets
            .try_reserve_exact(len)
            .map_err(|_| TableError { mib })?;
        buckets.resize_with(len, Bucket::default);
        Ok(Some(Table::from_buckets(buckets)))
    }

    fn from_buckets(buckets: Vec<Bucket>) -> Table {
        debug_assert!(buckets.len().is_power_of_two());
        Table {
            mask: buckets.len() - 1,
            buckets: buckets.into_boxed_slice(),
        }
    }

    /// Size of the table in bytes.
    pub fn bytes(&self) -> usize {
        self.buckets.len() * BUCKET_BYTES
    }

    fn bucket(&self, key: u128, depth: u32) -> &Bucket {
        // The high half indexes, mixed with the depth so one position at
        // two depths does not compete for the same bucket.
        let h = (key >> 64) as u64 ^ u64::from(depth).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        &self.buckets[(h as usize) & self.mask]
    }

    /// Asks the CPU to bring `key`'s bucket at `depth` into the cache, so
    /// that a probe soon after does not wait for memory. A hint only: it
    /// changes no count.
    #[inline(always)]
    fn prefetch(&self, key: u128, depth: u32) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let bucket: *const Bucket = self.bucket(key, depth);
            // SAFETY: a prefetch reads nothing and cannot fault; the
            // pointer is to a bucket of the table anyway, and SSE, which
            // the instruction belongs to, is part of baseline x86-64.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(bucket.cast::<i8>()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (key, depth);
    }

    /// The count stored for `key` at `depth`: only from an entry whose 128
    /// key bits and depth all match.
    fn probe(&self, key: u128, depth: u32) -> Option<u64> {
        let (lo, hi) = (key as u64, (key >> 64) as u64);
        self.bucket(key, depth).0.iter().find_map(|entry| {
            let data = entry.data.load(Ordering::Relaxed);
            let ok = data & DEPTH_MASK == u64::from(depth)
                && entry.lo.load(Ordering::Relaxed) ^ data == lo
                && entry.hi.load(Ordering::Relaxed) ^ data == hi;
            ok.then_some(data >> DEPTH_BITS)
        })
    }

    fn store(&self, key: u128, depth: u32, count: u64) {
        // Entries that do not fit the packing are simply not stored.
        if u64::from(depth) > DEPTH_MASK || count >> (64 - DEPTH_BITS) != 0 {
            return;
        }
        let data = count << DEPTH_BITS | u64::from(depth);
        let [deepest, latest] = &self.bucket(key, depth).0;
        let entry = if deepest.data.load(Ordering::Relaxed) & DEPTH_MASK <= u64::from(depth) {
            deepest
        } else {
            latest
        };
        entry.lo.store(key as u64 ^ data, Ordering::Relaxed);
        entry.hi.store((key >> 64) as u64 ^ data, Ordering::Relaxed);
        entry.data.store(data, Ordering::Relaxed);
    }
}

impl fmt::Debug for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Table")
            .field("buckets", &self.buckets.len())
            .finish_non_exhaustive()
    }
}

/// The transposition table could not be allocated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableError {
    /// Requested size in MiB.
    pub mib: usize,
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot allocate a {} MiB hash table", self.mib)
    }
}

impl std::error::Error for TableError {}

/// A legal move at the root with the position after it.
#[derive(Debug, Clone)]
pub struct RootMove {
    /// The move in UCI: king to rook square for castling in Chess960, king
    /// to its target square (`e1g1`) in standard chess.
    pub uci: String,
    /// The move itself.
    pub m: Move,
    /// The position after the move.
    pub pos: Chess,
}

/// The legal moves of `pos`, sorted by their UCI text.
///
/// # Examples
///
/// ```
/// use pgnkit::rules::perft::root_moves;
/// use shakmaty::Chess;
///
/// let moves = root_moves(&Chess::default());
/// assert_eq!(moves.len(), 20);
/// assert_eq!(moves[0].uci, "a2a3");
/// ```
pub fn root_moves(pos: &Chess) -> Vec<RootMove> {
    let mode = pos.castles().mode();
    let mut moves: Vec<RootMove> = pos
        .legal_moves()
        .iter()
        .map(|&m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            RootMove {
                uci: UciMove::from_move(m, mode).to_string(),
                m,
                pos: child,
            }
        })
        .collect();
    moves.sort_by(|a, b| a.uci.cmp(&b.uci));
    moves
}

/// Counts per legal root move, sorted by UCI text; the counts add up to
/// `perft(pos, depth, table)` for `depth >= 1`.
///
/// # Examples
///
/// ```
/// use pgnkit::rules::perft::divide;
/// use shakmaty::Chess;
///
/// let counts = divide(&Chess::default(), 2, None);
/// assert_eq!(counts[0], ("a2a3".to_owned(), 20));
/// assert_eq!(counts.iter().map(|(_, n)| n).sum::<u64>(), 400);
/// ```
pub fn divide(pos: &Chess, depth: u32, table: Option<&Table>) -> Vec<(String, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    root_moves(pos)
        .into_iter()
        .map(|r| {
            let count = perft(&r.pos, depth - 1, table);
            (r.uci, count)
        })
        .collect()
}

/// Reads a position to count from a full or partial FEN: [`read_fen`]
/// with [`FenLeniency::PERFT`], which says exactly what is accepted.
///
/// The parser is relaxed: fields may be separated by any run of
/// whitespace; missing fields after the board default to `w - - 0 1`
/// (white to move, no castling, no en passant); castling may be standard
/// (`KQkq`), X-FEN (`KQkq` naming the outermost rook, or a file letter for
/// an inner one) or Shredder-FEN (`HAha`). Chess960 castling is used when
/// `chess960` is set or when the castling rights cannot be standard ones;
/// it only changes how castling moves are written in UCI. Positions with an
/// impossible check or impossibly much material are accepted, since moves
/// can still be generated for them.
///
/// # Errors
///
/// [`FenError`] when the FEN is malformed or the position illegal.
///
/// # Examples
///
/// ```
/// use pgnkit::rules::perft::{parse_position, perft};
/// use shakmaty::{CastlingMode, Position};
///
/// let pos = parse_position("4k3/8/8/8/8/8/8/4K2R w K", false).unwrap();
/// assert_eq!(perft(&pos, 1, None), 15);
///
/// let pos = parse_position("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", false).unwrap();
/// assert_eq!(pos.castles().mode(), CastlingMode::Chess960);
///
/// assert!(parse_position("rnbqkbnr/pppppppp/8/8 w", false).is_err());
/// ```
pub fn parse_position(fen: &str, chess960: bool) -> Result<Chess, FenError> {
    read_fen(fen, chess960, FenLeniency::PERFT).map(|(pos, _)| pos)
}

/// A move of a UCI move list that could not be played.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveError {
    /// 1-based position of the move in the list.
    pub index: usize,
    /// The move as given.
    pub uci: String,
    /// FEN of the position the move was tried in.
    pub fen: String,
    /// Whether the text is not UCI at all (rather than an illegal move).
    pub is_syntax: bool,
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = if self.is_syntax {
            "is not a uci move"
        } else {
            "is illegal"
        };
        write!(
            f,
            "move {} {:?} {what} in {}",
            self.index, self.uci, self.fen
        )
    }
}

impl std::error::Error for MoveError {}

/// Plays UCI moves, separated by whitespace or commas, from `pos`, with
/// the one UCI move-list player ([`play_uci_moves`]).
///
/// In Chess960 castling is written king to rook (`e1h1`); in standard chess
/// king to target (`e1g1`), and shakmaty also accepts king to rook.
///
/// # Errors
///
/// [`MoveError`] for the first move that is not UCI or not legal.
///
/// # Examples
///
/// ```
/// use pgnkit::rules::perft::{perft, play_uci};
/// use shakmaty::Chess;
///
/// let pos = play_uci(Chess::default(), "e2e4, e7e5 g1f3").unwrap();
/// assert_eq!(perft(&pos, 1, None), 29);
/// assert!(play_uci(Chess::default(), "e2e5").is_err());
/// ```
pub fn play_uci(mut pos: Chess, moves: &str) -> Result<Chess, MoveError> {
    let words = moves
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty());
    match play_uci_moves(&mut pos, words, |pos, m| pos.play_unchecked(m)) {
        Ok(()) => Ok(pos),
        Err(err) => Err(MoveError {
            index: err.ply as usize,
            uci: err.text.to_owned(),
            // As before: X-FEN castling even in Chess960 (stderr only).
            fen: fen(&pos, CastlingMode::Standard),
            is_syntax: err.kind == UciMoveErrorKind::Syntax,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -";

    fn table() -> Table {
        Table::with_mib(1).unwrap().unwrap()
    }

    #[test]
    fn start_position_counts() {
        // chessprogramming.org "Perft Results", initial position.
        let pos = Chess::default();
        let expected = [1, 20, 400, 8_902, 197_281];
        for (depth, &n) in expected.iter().enumerate() {
            assert_eq!(perft(&pos, depth as u32, None), n, "depth {depth}");
        }
    }

    #[test]
    fn table_gives_the_same_counts() {
        let pos = parse_position(KIWIPETE, false).unwrap();
        let t = table();
        // Kiwipete (chessprogramming.org "Perft Results", position 2):
        // 48, 2,039, 97,862; Stockfish 15.1 `go perft 3`: 97862.
        assert_eq!(perft(&pos, 3, None), 97_862);
        assert_eq!(perft(&pos, 3, Some(&t)), 97_862);
        // Second run hits the table at the root.
        assert_eq!(perft(&pos, 3, Some(&t)), 97_862);
        assert_eq!(perft(&pos, 2, Some(&t)), 2_039);
    }

    #[test]
    fn every_compiled_copy_counts_the_same() {
        // `perft` runs one copy of the recursion, the one the CPU allows:
        // the others are run here directly, on every copy this CPU can
        // run, with and without a table (chessprogramming.org "Perft
        // Results": Kiwipete 4,085,603 at depth 4; position 3 674,624 at 5).
        let cases = [
            (KIWIPETE, 4, 4_085_603),
            ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -", 5, 674_624),
        ];
        type Copy = fn(&Chess, u32, Option<&Table>) -> u64;
        let mut copies: Vec<(&str, Copy)> = vec![("portable", portable::perft)];
        #[cfg(target_arch = "x86_64")]
        {
            if has_popcnt() {
                // SAFETY: the CPU has popcnt, checked just above.
                copies.push(("popcnt", |p, d, t| unsafe { popcnt::perft(p, d, t) }));
            }
            if has_bmi() {
                // SAFETY: the CPU has popcnt, BMI1 and BMI2, checked just above.
                copies.push(("bmi", |p, d, t| unsafe { bmi::perft(p, d, t) }));
            }
        }
        for (fen, depth, expected) in cases {
            let pos = parse_position(fen, false).unwrap();
            for (name, copy) in &copies {
                assert_eq!(copy(&pos, depth, None), expected, "{name} {fen}");
                assert_eq!(
                    copy(&pos, depth, Some(&table())),
                    expected,
                    "{name} {fen} (table)"
                );
            }
        }
    }

    #[test]
    fn tiny_table_under_pressure_stays_exact() {
        // One bucket only: constant replacement, never a wrong count.
        let t = Table::from_buckets(vec![Bucket::default()]);
        let pos = parse_position(KIWIPETE, false).unwrap();
        assert_eq!(perft(&pos, 3, Some(&t)), 97_862);
        assert_eq!(perft(&pos, 4, Some(&t)), 4_085_603);
    }

    #[test]
    fn probe_checks_key_and_depth() {
        let t = table();
        t.store(42, 3, 1000);
        assert_eq!(t.probe(42, 3), Some(1000));
        assert_eq!(t.probe(42, 4), None);
        assert_eq!(t.probe(43, 3), None);
        assert_eq!(t.probe(42 | 1 << 100, 3), None);
        // A count too large for the packing is not stored.
        t.store(7, 5, u64::MAX);
        assert_eq!(t.probe(7, 5), None);
    }

    /// Issue 24: a hash collision can only miss. Every node's key, with any
    /// one of its 128 bits flipped, is planted in a one-bucket table with a
    /// wrong count, in both entries: the counts stay exact.
    #[test]
    fn colliding_entries_cannot_change_a_count() {
        let pos = parse_position(KIWIPETE, false).unwrap();
        let key = Node::of(&pos).key();
        let t = Table::from_buckets(vec![Bucket::default()]);
        for bit in 0..128 {
            let forged = key ^ 1 << bit;
            for (depth, exact) in [(2, 2_039), (3, 97_862)] {
                // The deepest entry first, then the latest.
                t.store(forged, 8, 1);
                t.store(forged, depth, 12_345);
                assert_eq!(t.probe(key, depth), None, "bit {bit}");
                assert_eq!(perft(&pos, depth, Some(&t)), exact, "bit {bit}");
            }
        }
    }

    /// An entry read half from one write and half from another (two
    /// threads storing into the same entry at once) is no entry.
    #[test]
    fn torn_entries_are_rejected() {
        let t = Table::from_buckets(vec![Bucket::default()]);
        let (a, b) = (0x1234_u128 << 64 | 0x5678, 0x9abc_u128 << 64 | 0xdef0);
        t.store(a, 8, 100);
        let torn = &t.buckets[0].0[0];
        let data_b = 200 << DEPTH_BITS | 8;
        // `lo` of a's write, `hi` and `data` of b's, and the other mixes.
        torn.hi.store((b >> 64) as u64 ^ data_b, Ordering::Relaxed);
        torn.data.store(data_b, Ordering::Relaxed);
        assert_eq!(t.probe(a, 8), None);
        assert_eq!(t.probe(b, 8), None);
        torn.lo.store(b as u64 ^ data_b, Ordering::Relaxed);
        assert_eq!(t.probe(b, 8), Some(200));
    }

    #[test]
    fn zero_mib_means_no_table() {
        assert!(Table::with_mib(0).unwrap().is_none());
        assert_eq!(Table::with_mib(1).unwrap().unwrap().bytes(), 1 << 20);
    }

    #[test]
    fn castling_rooks_are_part_of_the_key() {
        // Same pieces, same (colour, side) rights, different castling rook:
        // queen-side castling with the a1 rook vs. the b1 rook.
        let outer = parse_position("4k3/8/8/8/8/8/8/RR2K3 w A -", false).unwrap();
        let inner = parse_position("4k3/8/8/8/8/8/8/RR2K3 w B -", false).unwrap();
        let t = table();
        let a = perft(&outer, 3, Some(&t));
        let b = perft(&inner, 3, Some(&t));
        assert_eq!(a, perft(&outer, 3, None));
        assert_eq!(b, perft(&inner, 3, None));
    }

    #[test]
    fn divide_sums_to_perft_and_is_sorted() {
        let pos = parse_position(KIWIPETE, false).unwrap();
        let counts = divide(&pos, 2, None);
        assert_eq!(counts.len(), 48);
        assert_eq!(counts.iter().map(|(_, n)| n).sum::<u64>(), 2_039);
        assert!(counts.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(counts.iter().any(|(uci, _)| uci == "e1g1"));
        assert!(divide(&pos, 0, None).is_empty());
    }

    #[test]
    fn chess960_castling_is_king_to_rook() {
        let fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
        let pos = parse_position(fen, false).unwrap();
        assert_eq!(pos.castles().mode(), CastlingMode::Chess960);
        // Stockfish 15.1 with UCI_Chess960, `go perft 3`: 12189.
        assert_eq!(perft(&pos, 3, None), 12_189);

        // Queen-side castling with the b1 rook is e1b1. Stockfish 15.1 with
        // `setoption name UCI_Chess960 value true`, `go perft 4`: 272627.
        let pos = parse_position("1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1", false).unwrap();
        let moves: Vec<String> = root_moves(&pos).into_iter().map(|r| r.uci).collect();
        assert!(moves.contains(&"e1b1".to_owned()), "{moves:?}");
        assert_eq!(perft(&pos, 4, None), 272_627);

        let forced = parse_position(KIWIPETE, true).unwrap();
        let moves: Vec<String> = root_moves(&forced).into_iter().map(|r| r.uci).collect();
        assert!(moves.contains(&"e1h1".to_owned()), "{moves:?}");
    }

    #[test]
    fn partial_and_xfen() {
        let board_only =
            parse_position("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", false).unwrap();
        assert_eq!(perft(&board_only, 2, None), 400);
        // X-FEN: `Q` means the outermost rook. Stockfish 15.1 with
        // `setoption name UCI_Chess960 value true`, `go perft 2`: 522.
        let xfen =
            parse_position("r1k1r2q/p1ppp1pp/8/8/8/8/P1PPP1PP/R1K1R2Q w KQkq -", false).unwrap();
        assert_eq!(perft(&xfen, 2, None), 522);
        // Stockfish 15.1 `go perft 1` on `4k3/8/8/8/8/8/8/4K2R w K -`: 15.
        let tabs = parse_position("4k3/8/8/8/8/8/8/4K2R\tw \t K", false).unwrap();
        assert_eq!(perft(&tabs, 1, None), 15);
    }

    #[test]
    fn bad_fens_say_why() {
        assert_eq!(
            parse_position("  ", false).unwrap_err().to_string(),
            "empty fen"
        );
        let syntax = parse_position("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x", false);
        assert!(matches!(syntax, Err(FenError::Syntax(_))));
        let board = parse_position("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX", false);
        assert_eq!(
            board.unwrap_err().to_string(),
            "the board holds 'X', which is not a piece, a digit 1 to 8 or `/`"
        );
        let no_king = parse_position("8/8/8/8/8/8/8/8 w - -", false).unwrap_err();
        assert!(no_king.to_string().contains("empty board"), "{no_king}");
        let rights = parse_position("4k3/8/8/8/8/8/8/4K3 w K -", false).unwrap_err();
        assert!(
            rights.to_string().contains("invalid castling rights"),
            "{rights}"
        );
    }

    #[test]
    fn impossible_material_is_accepted() {
        let pos =
            parse_position("kBQQQQQQ/BR5Q/Q6Q/Q6Q/Q6Q/Q6Q/Q6Q/KQQQQQQQ w - -", false).unwrap();
        // python-chess 1.11.2: 270 legal moves, and Black has none after
        // any of them. (More than 256 moves: engines' fixed move lists are
        // not a safe source here.)
        assert_eq!(perft(&pos, 1, None), 270);
        assert_eq!(perft(&pos, 2, None), 0);
    }

    #[test]
    fn en_passant_hashing_is_exact() {
        // ep square legal only through a pinned pawn: counts must match
        // with and without the table.
        let pos = parse_position("1b1k4/8/8/1rPpK3/8/8/8/8 w - d6", false).unwrap();
        let t = table();
        // Stockfish 15.1 `go perft 3`: 555.
        assert_eq!(perft(&pos, 3, None), 555);
        assert_eq!(perft(&pos, 3, Some(&t)), 555);
        // Stockfish 15.1 `go perft 5`: 19228.
        let pos = parse_position("8/8/8/5k2/3p4/8/4P3/4K3 w - -", false).unwrap();
        assert_eq!(perft(&pos, 5, Some(&t)), 19_228);
    }

    #[test]
    fn uci_moves() {
        let pos = play_uci(Chess::default(), "e2e4 e7e5").unwrap();
        assert_eq!(perft(&pos, 1, None), 29);
        let err = play_uci(Chess::default(), "e2e4,e2e4").unwrap_err();
        assert_eq!(err.index, 2);
        assert!(!err.is_syntax);
        assert!(
            err.to_string()
                .starts_with("move 2 \"e2e4\" is illegal in "),
            "{err}"
        );
        let err = play_uci(Chess::default(), "hello").unwrap_err();
        assert!(err.is_syntax);
    }
}
