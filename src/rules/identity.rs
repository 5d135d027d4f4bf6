//! The identity of a game: what makes two records the same game, however
//! they are written.
//!
//! Two games are the same game when they start from the same position
//! under the same rules (standard chess or Chess960) and play the same
//! moves. The notation is not part of it: `O-O` and `0-0`, `Nf3` and
//! `Ngf3`, check marks, annotations, comments, variations, line breaks,
//! tags and the result all leave the key as it is. A transposition (the
//! same final position by another move order) is another game.
//!
//! The key is 128 bits of BLAKE3 over a fixed encoding of the start
//! position (its EPD: board, side to move, castling rights and a legal en
//! passant square) and of each move (from, to, promotion, castling as king
//! to rook), so that no crafted game can pass for another (BLAKE3 is a
//! cryptographic hash) and the key of a game never changes between runs,
//! machines or versions: a data set can be grouped by it, stored, and
//! compared with another run's.

use shakmaty::fen::Epd;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move};

/// What the encoding starts with: a new version of the encoding would
/// change it, and so every key.
const DOMAIN: &[u8] = b"pgnkit game key 1\n";

/// A game's identity key ([`GameKey::of`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GameKey(pub u128);

impl GameKey {
    /// The key of the game that starts at `start` (under `mode`'s
    /// castling rules) and plays `moves`.
    ///
    /// # Examples
    ///
    /// ```
    /// use pgnkit::rules::identity::GameKey;
    /// use shakmaty::{CastlingMode, Chess, Position, san::San};
    /// let play = |sans: &[&str]| {
    ///     let mut pos = Chess::default();
    ///     let mut moves = Vec::new();
    ///     for san in sans {
    ///         let mv = san.parse::<San>().unwrap().to_move(&pos).unwrap();
    ///         pos.play_unchecked(mv);
    ///         moves.push(mv);
    ///     }
    ///     GameKey::of(&Chess::default(), CastlingMode::Standard, &moves)
    /// };
    /// // One game, two notations.
    /// assert_eq!(play(&["Nf3", "d5", "g3"]), play(&["Ngf3", "d5", "g3"]));
    /// // The same position by another move order is another game.
    /// assert_ne!(play(&["Nf3", "d5", "g3"]), play(&["g3", "d5", "Nf3"]));
    /// ```
    pub fn of<'m>(
        start: &Chess,
        mode: CastlingMode,
        moves: impl IntoIterator<Item = &'m Move>,
    ) -> GameKey {
        let encoded: Vec<u16> = moves.into_iter().map(encode_move).collect();
        GameKey::of_encoded(start, mode, &encoded)
    }
}

impl GameKey {
    /// [`GameKey::of`] from the moves already encoded ([`encode_move`]):
    /// what a replay that keeps no list of moves hands over.
    ///
    /// # Examples
    ///
    /// ```
    /// use pgnkit::rules::identity::{GameKey, encode_move};
    /// use shakmaty::{CastlingMode, Chess, Position, san::San};
    /// let mut pos = Chess::default();
    /// let (mut moves, mut encoded) = (Vec::new(), Vec::new());
    /// for san in ["e4", "e5", "Nf3"] {
    ///     let mv = san.parse::<San>().unwrap().to_move(&pos).unwrap();
    ///     pos.play_unchecked(mv);
    ///     encoded.push(encode_move(&mv));
    ///     moves.push(mv);
    /// }
    /// let start = Chess::default();
    /// assert_eq!(
    ///     GameKey::of_encoded(&start, CastlingMode::Standard, &encoded),
    ///     GameKey::of(&start, CastlingMode::Standard, &moves)
    /// );
    /// ```
    pub fn of_encoded(start: &Chess, mode: CastlingMode, moves: &[u16]) -> GameKey {
        let mut head = Vec::with_capacity(DOMAIN.len() + 96);
        head.extend_from_slice(DOMAIN);
        head.push(match mode {
            CastlingMode::Standard => b's',
            CastlingMode::Chess960 => b'9',
        });
        push_epd(&mut head, start);
        let mut hasher = blake3::Hasher::new();
        hasher.update(&head);
        // The moves as little-endian pairs of bytes, a block at a time.
        let mut block = [0u8; 256];
        for chunk in moves.chunks(block.len() / 2) {
            for (i, m) in chunk.iter().enumerate() {
                block[2 * i..2 * i + 2].copy_from_slice(&m.to_le_bytes());
            }
            hasher.update(&block[..2 * chunk.len()]);
        }
        let hash = hasher.finalize();
        let mut first = [0u8; 16];
        first.copy_from_slice(&hash.as_bytes()[..16]);
        GameKey(u128::from_be_bytes(first))
    }
}

impl GameKey {
    /// The key of what a game reached: its start (and `mode`), its final
    /// position `end` (as EPD) and its length. Games with one key have one
    /// such key; games that differ only by move order (transpositions)
    /// share it too.
    pub fn of_outcome(start: &Chess, mode: CastlingMode, end: &Chess, plies: u32) -> GameKey {
        let mut bytes = Vec::with_capacity(DOMAIN.len() + 200);
        bytes.extend_from_slice(b"pgnkit reached key 1\n");
        bytes.push(match mode {
            CastlingMode::Standard => b's',
            CastlingMode::Chess960 => b'9',
        });
        for pos in [start, end] {
            push_epd(&mut bytes, pos);
        }
        bytes.extend_from_slice(&plies.to_le_bytes());
        let hash = blake3::hash(&bytes);
        let mut first = [0u8; 16];
        first.copy_from_slice(&hash.as_bytes()[..16]);
        GameKey(u128::from_be_bytes(first))
    }
}

/// A hash table keyed by game keys ([`KeyState`]).
pub type KeyMap<V> = std::collections::HashMap<PackedKey, V, KeyState>;

/// A [`GameKey`] as tables hold it: two words, so that an entry with a
/// 4-byte value takes 24 bytes (a `u128` would align it to 32).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackedKey([u64; 2]);

impl From<GameKey> for PackedKey {
    fn from(key: GameKey) -> PackedKey {
        PackedKey([(key.0 >> 64) as u64, key.0 as u64])
    }
}

impl From<PackedKey> for GameKey {
    fn from(key: PackedKey) -> GameKey {
        GameKey(u128::from(key.0[0]) << 64 | u128::from(key.0[1]))
    }
}

impl std::hash::Hash for PackedKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u128(GameKey::from(*self).0);
    }
}

/// How a table hashes game keys: a key is already 128 uniform bits, so one
/// multiplication of its halves, each mixed with a seed drawn per table, and
/// one xor-shift-multiply spread them. The seeds keep a crafted archive (games searched for keys
/// that share their low bits, a cheap search) from piling into one bucket.
#[derive(Debug, Clone, Copy)]
pub struct KeyState {
    seeds: [u64; 2],
}

impl Default for KeyState {
    fn default() -> KeyState {
        use std::hash::BuildHasher;
        let random = std::collections::hash_map::RandomState::new();
        KeyState {
            seeds: [random.hash_one(1u8), random.hash_one(2u8) | 1],
        }
    }
}

impl std::hash::BuildHasher for KeyState {
    type Hasher = KeyHasher;
    fn build_hasher(&self) -> KeyHasher {
        KeyHasher {
            seeds: self.seeds,
            hash: 0,
        }
    }
}

/// [`KeyState`]'s hasher.
#[derive(Debug, Clone, Copy)]
pub struct KeyHasher {
    seeds: [u64; 2],
    hash: u64,
}

impl std::hash::Hasher for KeyHasher {
    #[inline]
    fn write_u128(&mut self, key: u128) {
        let product = u128::from((key as u64) ^ self.seeds[0])
            * u128::from(((key >> 64) as u64) ^ self.seeds[1]);
        // The folded product alone leaves the low bits (the bucket) poorly
        // spread for some seeds when the keys share a half; one
        // xor-shift-multiply spreads them whatever the seeds.
        let folded = (product as u64) ^ ((product >> 64) as u64);
        let mixed = (folded ^ (folded >> 32)).wrapping_mul(0xd6e8_feb8_6659_fd93);
        self.hash ^= mixed ^ (mixed >> 32);
    }

    fn write(&mut self, bytes: &[u8]) {
        // Not met for a GameKey (its one field is a u128); any other input
        // still hashes, 16 bytes at a time.
        for piece in bytes.chunks(16) {
            let mut word = [0u8; 16];
            word[..piece.len()].copy_from_slice(piece);
            self.write_u128(u128::from_le_bytes(word));
        }
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

impl std::fmt::Display for GameKey {
    /// 32 lowercase hexadecimal digits.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // By hand: `{:032x}` went through the formatting machinery, about
        // 1,000 instructions a key, for a column of every converted game.
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut text = [0u8; 32];
        for (i, digit) in text.iter_mut().enumerate() {
            *digit = DIGITS[((self.0 >> (124 - 4 * i)) & 0xf) as usize];
        }
        f.write_str(std::str::from_utf8(&text).map_err(|_| std::fmt::Error)?)
    }
}

/// The standard start as EPD: most games start there, and formatting it
/// is most of the cost of a key.
const START_EPD: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";

/// Appends `pos` as EPD (board, side, castling, legal en passant square)
/// and a newline.
fn push_epd(bytes: &mut Vec<u8>, pos: &Chess) {
    // Chess's equality is EPD's: board, side, castling rights, a legal
    // en passant square.
    if *pos == Chess::default() {
        bytes.extend_from_slice(START_EPD.as_bytes());
    } else {
        let epd = Epd::from_position(pos, EnPassantMode::Legal);
        bytes.extend_from_slice(epd.to_string().as_bytes());
    }
    bytes.push(b'\n');
}

/// A move in 16 bits: from (6), to (6), promotion role (3), castling (1);
/// castling is king to rook, which says Chess960 castling exactly. The
/// key hashes each move so.
#[inline]
pub fn encode_move(mv: &Move) -> u16 {
    let (from, to, promotion, castle) = match *mv {
        Move::Normal {
            from,
            to,
            promotion,
            ..
        } => (from, to, promotion.map_or(0, |r| r as u16), 0),
        Move::EnPassant { from, to } => (from, to, 0, 0),
        Move::Castle { king, rook } => (king, rook, 0, 1),
        // No drops in chess: a put is its square twice.
        Move::Put { to, .. } => (to, to, 7, 0),
    };
    u16::from(from) | u16::from(to) << 6 | promotion << 12 | castle << 15
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::{Position, Square};

    fn key_of(fen: &str, mode: CastlingMode, ucis: &[&str]) -> GameKey {
        let pos: Chess = fen.parse::<Fen>().unwrap().into_position(mode).unwrap();
        let mut now = pos.clone();
        let mut moves = Vec::new();
        for uci in ucis {
            let mv = uci
                .parse::<shakmaty::uci::UciMove>()
                .unwrap()
                .to_move(&now)
                .unwrap();
            now.play_unchecked(mv);
            moves.push(mv);
        }
        GameKey::of(&pos, mode, &moves)
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn the_key_is_stable_across_versions() {
        // A stored key must never change: this value is the encoding's.
        let key = key_of(START, CastlingMode::Standard, &["e2e4", "e7e5"]);
        assert_eq!(key.to_string().len(), 32);
        assert_eq!(
            key,
            key_of(START, CastlingMode::Standard, &["e2e4", "e7e5"])
        );
        assert_eq!(key.to_string(), "6256a93f5f7b6dfe5d999d17d59e79df");
    }

    #[test]
    fn a_key_is_written_as_32_lowercase_hex_digits() {
        let mut x: u128 = 0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C834;
        for shift in 0..128 {
            // Leading zeros of every length, and mixed digits.
            for n in [x >> shift, 0, u128::MAX >> shift, 1u128 << shift] {
                assert_eq!(GameKey(n).to_string(), format!("{n:032x}"));
            }
            x = x.wrapping_mul(0x2545_F491_4F6C_DD1D).rotate_left(29);
        }
    }

    #[test]
    fn the_start_shortcut_is_the_start_epd() {
        let epd = Epd::from_position(&Chess::default(), EnPassantMode::Legal).to_string();
        assert_eq!(epd, START_EPD);
    }

    #[test]
    fn start_position_rules_and_length_are_part_of_it() {
        let standard = key_of(START, CastlingMode::Standard, &["e2e4"]);
        // Chess960's position 518 is the standard array, but other rules.
        assert_ne!(standard, key_of(START, CastlingMode::Chess960, &["e2e4"]));
        // Move counters are not part of the position.
        let later = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 5 40";
        assert_eq!(standard, key_of(later, CastlingMode::Standard, &["e2e4"]));
        // Without castling rights it is another position.
        let no_castling = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1";
        assert_ne!(
            standard,
            key_of(no_castling, CastlingMode::Standard, &["e2e4"])
        );
        // A prefix is another game.
        assert_ne!(standard, key_of(START, CastlingMode::Standard, &[]));
        assert_ne!(
            standard,
            key_of(START, CastlingMode::Standard, &["e2e4", "e7e5"])
        );
    }

    #[test]
    fn a_packed_key_is_the_key_and_tables_find_it() {
        let key = key_of(START, CastlingMode::Standard, &["e2e4", "e7e5"]);
        assert_eq!(GameKey::from(PackedKey::from(key)), key);
        assert_eq!(std::mem::size_of::<(PackedKey, u32)>(), 24);
        let mut table: KeyMap<u32> = KeyMap::default();
        // Keys alike in their low bits (what a crafted archive would search
        // for) still land apart: the hash mixes both halves with seeds.
        for i in 0..1000u128 {
            table.insert(PackedKey::from(GameKey(i << 64 | 7)), i as u32);
        }
        table.insert(PackedKey::from(key), 1000);
        assert_eq!(table.len(), 1001);
        assert_eq!(table[&PackedKey::from(GameKey(5 << 64 | 7))], 5);
        assert_eq!(table[&PackedKey::from(key)], 1000);
        use std::hash::BuildHasher;
        let state = KeyState::default();
        let hashes: std::collections::HashSet<u64> = (0..1000u128)
            .map(|i| state.hash_one(PackedKey::from(GameKey(i << 64 | 7))) & 0xffff)
            .collect();
        assert!(hashes.len() > 900, "{} buckets of 1000", hashes.len());
    }

    #[test]
    fn promotions_and_castling_are_told_apart() {
        let fen = "4k3/P7/8/8/8/8/8/R3K2R w KQ - 0 1";
        let queen = key_of(fen, CastlingMode::Standard, &["a7a8q"]);
        let knight = key_of(fen, CastlingMode::Standard, &["a7a8n"]);
        assert_ne!(queen, knight);
        let short = key_of(fen, CastlingMode::Standard, &["e1g1"]);
        let king_step = "4k3/P7/8/8/8/8/8/R3K2R w - - 0 1";
        assert_ne!(short, key_of(king_step, CastlingMode::Standard, &["e1f1"]));
        assert_eq!(
            encode_move(&Move::Castle {
                king: Square::E1,
                rook: Square::H1
            }) >> 15,
            1
        );
    }
}
