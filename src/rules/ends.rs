//! How a game ends on the board: the automatic ends of the FIDE Laws
//! (checkmate, stalemate, dead position, fivefold repetition, 75 moves) and
//! the claims (threefold repetition, fifty moves), tracked ply by ply.
//!
//! [`EndTracker`] is the one tracker `validate` and `annotate-outcome` drive
//! along their replay: it finds the first automatic end, settles mate and
//! stalemate on the final position, and words a move made after the end.
//! What each subcommand reports about the end (claims, the dead-position
//! search, the result) is left to them.
//!
//! Position identity follows 9.2.3: side to move, placement, castling rights,
//! and the en passant square only when an en passant capture is legal.
//! Repetitions can only happen between positions after the last pawn move or
//! capture, so the tracker keeps just that window and compares positions
//! directly (no hashing: the window is short and a comparison is eight words).

use shakmaty::{Bitboard, Board, Chess, Color, EnPassantMode, Move, Position, Role, Square};

use super::finding::{Code, Finding};
use super::game::GameResult;

/// How a message names the position at a ply: `after 4.Qxf7#` (the move
/// that led to it, as the scoresheet names it), `in the starting position`
/// at ply 0.
pub type At<'a> = &'a dyn Fn(u32) -> String;

/// An end of the game on the board, in order of precedence when two fall on
/// the same ply: a move that mates stands even when it also completes a
/// repetition or a move count (FIDE 9.6.2), and stalemate, which leaves no
/// move to play, comes before the ends that would allow one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum EndKind {
    Checkmate,
    Stalemate,
    DeadPosition,
    FivefoldRepetition,
    SeventyFiveMoves,
    /// Only under pgnkit's `online` profile, which draws at once.
    ThreefoldRepetition,
    /// Only under pgnkit's `online` profile, which draws at once.
    FiftyMoves,
}

impl EndKind {
    /// Every kind, in the order of precedence.
    pub const ALL: [EndKind; 7] = [
        EndKind::Checkmate,
        EndKind::Stalemate,
        EndKind::DeadPosition,
        EndKind::FivefoldRepetition,
        EndKind::SeventyFiveMoves,
        EndKind::ThreefoldRepetition,
        EndKind::FiftyMoves,
    ];

    /// The kebab-case name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            EndKind::Checkmate => "checkmate",
            EndKind::Stalemate => "stalemate",
            EndKind::DeadPosition => "dead-position",
            EndKind::FivefoldRepetition => "fivefold-repetition",
            EndKind::SeventyFiveMoves => "seventy-five-moves",
            EndKind::ThreefoldRepetition => "threefold-repetition",
            EndKind::FiftyMoves => "fifty-moves",
        }
    }

    /// Words for a message: "checkmate", "fivefold repetition", …
    pub fn describe(self) -> &'static str {
        match self {
            EndKind::Checkmate => "checkmate",
            EndKind::Stalemate => "stalemate",
            EndKind::DeadPosition => "a dead position",
            EndKind::FivefoldRepetition => "fivefold repetition",
            EndKind::SeventyFiveMoves => "the 75-move rule",
            EndKind::ThreefoldRepetition => "threefold repetition",
            EndKind::FiftyMoves => "the 50-move rule",
        }
    }
}

/// An end of the game on the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct End {
    pub kind: EndKind,
    /// Plies played when it happened (0 = the starting position).
    pub ply: u32,
}

impl End {
    /// The side that made the ply of this end, `first` being the side to
    /// move in the starting position (for ply 0, the side that moved last).
    #[inline]
    pub fn mover(self, first: Color) -> Color {
        if self.ply % 2 == 1 { first } else { !first }
    }

    /// The result the Laws give this end: a win for the side that mated
    /// (FIDE 5.1.1), a draw for every other end.
    ///
    /// # Examples
    ///
    /// ```
    /// use pgnkit::rules::ends::{End, EndKind};
    /// use pgnkit::rules::game::GameResult;
    /// use shakmaty::Color;
    /// let mate = End { kind: EndKind::Checkmate, ply: 4 };
    /// assert_eq!(mate.result(Color::White), GameResult::BlackWins);
    /// ```
    pub fn result(self, first: Color) -> GameResult {
        match self.kind {
            EndKind::Checkmate => GameResult::win_for(self.mover(first)),
            _ => GameResult::Draw,
        }
    }

    /// What a message about a later end adds when this end, a fivefold
    /// repetition or a 75th move, ended nothing under `laws` (which had no
    /// 9.6): " (under the Laws in force on 1937.03.10, fivefold repetition
    /// after 8...Ng8 did not end the game)"; `at` names the position at a
    /// ply ([`At`]).
    pub fn suspended_note(self, laws: super::laws::Laws, at: At<'_>) -> String {
        format!(
            " ({}, {} {} did not end the game)",
            laws.under()
                .unwrap_or_else(|| "under the Laws applied".to_owned()),
            self.kind.describe(),
            at(self.ply)
        )
    }

    /// Why a move made after this end is reported: "the game had ended by
    /// checkmate after 4.Qxf7#", the one wording of `move-after-end`.
    pub fn move_after_message(self, at: At<'_>) -> String {
        format!(
            "the game had ended by {} {}",
            self.kind.describe(),
            at(self.ply)
        )
    }
}

/// A position as the repetition rules see it (9.2.3).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Key {
    board: Board,
    turn: Color,
    castles: Bitboard,
    ep: Option<Square>,
}

impl Key {
    /// The position after `mv`, a move inside a window: a quiet move of a
    /// piece other than a pawn, or castling (a pawn move or a capture
    /// starts a new window). Castling rights are given up as shakmaty
    /// gives them up; no en passant square can follow such a move.
    fn play_quiet(&mut self, mv: Move) {
        let color = self.turn;
        let back_rank = Bitboard::from_rank(color.backrank());
        match mv {
            Move::Normal { role, from, to, .. } => {
                debug_assert!(role != Role::Pawn && !mv.is_capture());
                if role == Role::King {
                    self.castles &= !back_rank;
                } else if role == Role::Rook {
                    self.castles = self.castles.without(from);
                }
                self.board.discard_piece_at(from);
                self.board.set_piece_at(to, role.of(color));
            }
            Move::Castle { king, rook } => {
                let side = shakmaty::CastlingSide::from_queen_side(rook < king);
                self.board.discard_piece_at(king);
                self.board.discard_piece_at(rook);
                self.board.set_piece_at(
                    Square::from_coords(side.rook_to_file(), rook.rank()),
                    color.rook(),
                );
                self.board.set_piece_at(
                    Square::from_coords(side.king_to_file(), king.rank()),
                    color.king(),
                );
                self.castles &= !back_rank;
            }
            // Never inside a window.
            Move::EnPassant { .. } | Move::Put { .. } => debug_assert!(false, "{mv:?}"),
        }
        self.turn = !color;
        self.ep = None;
    }

    fn of(pos: &Chess) -> Key {
        Key {
            board: pos.board().clone(),
            turn: pos.turn(),
            castles: pos.castles().castling_rights(),
            // Only a double step leaves an en passant square to check.
            ep: pos
                .maybe_ep_square()
                .and_then(|_| pos.ep_square(EnPassantMode::Legal)),
        }
    }
}

/// Positions since the last pawn move or capture, with how often each had
/// appeared by then.
///
/// Counting is only done where it can reach `threshold` (a position needs
/// four plies to come back): below that a count may read low, which is what
/// keeps the tracker nearly free on ordinary games. Counts that reach the
/// threshold are exact.
///
/// Until the window is long enough for a count to reach the threshold, only
/// its first position is kept, with the moves played since (every one of
/// them a quiet move of a piece, or castling): most windows end before,
/// at the next pawn move or capture, and their positions are never made.
#[derive(Debug, Clone)]
pub struct Repetitions {
    /// Each position of the window made so far and how often it had then
    /// appeared.
    keys: Vec<(Key, u8)>,
    /// The moves played after the last position made, while the window is
    /// shorter than `min_window`.
    moves: Vec<Move>,
    /// Highest occurrence count in the window, by side to move.
    max_by_turn: [u8; 2],
    /// Window length from which counting starts.
    min_window: usize,
}

impl Repetitions {
    /// Starts tracking at `start`; counts of at least `threshold` are exact.
    pub fn new(start: &Chess, threshold: u8) -> Repetitions {
        let mut r = Repetitions {
            keys: Vec::with_capacity(32),
            moves: Vec::with_capacity(32),
            max_by_turn: [0; 2],
            min_window: 0,
        };
        r.reset(start, threshold);
        r
    }

    /// Starts over at `start`, keeping the allocations (one tracker can
    /// serve every game a thread replays).
    pub fn reset(&mut self, start: &Chess, threshold: u8) {
        self.min_window = 4 * usize::from(threshold.max(2) - 1);
        self.start_window(start);
    }

    /// Starts the window at `pos`.
    fn start_window(&mut self, pos: &Chess) {
        self.keys.clear();
        self.moves.clear();
        let key = Key::of(pos);
        self.max_by_turn = [0; 2];
        self.max_by_turn[usize::from(key.turn == Color::Black)] = 1;
        self.keys.push((key, 1));
    }

    /// Records `pos`, the position after the move `mv`; returns how many
    /// times it has now appeared (1 the first time; see the threshold
    /// above).
    #[inline(always)]
    pub fn push(&mut self, pos: &Chess, mv: Move) -> u8 {
        if pos.halfmoves() == 0 {
            self.start_window(pos);
            return 1;
        }
        if self.keys.len() + self.moves.len() < self.min_window {
            self.moves.push(mv);
            let turn = usize::from(pos.turn() == Color::Black);
            self.max_by_turn[turn] = self.max_by_turn[turn].max(1);
            return 1;
        }
        self.push_counted(pos)
    }

    /// [`Repetitions::push`] in a window long enough to count.
    #[inline(never)]
    fn push_counted(&mut self, pos: &Chess) -> u8 {
        if !self.moves.is_empty() {
            self.make_positions();
        }
        let key = Key::of(pos);
        let n = self.keys.len();
        let mut occ = 1u8;
        if n >= self.min_window {
            // Same side to move: even distances of at least four plies.
            let mut i = n.checked_sub(4);
            while let Some(j) = i {
                if self.keys[j].0 == key {
                    occ = occ.saturating_add(1);
                }
                i = j.checked_sub(2);
            }
        }
        let turn = usize::from(key.turn == Color::Black);
        self.max_by_turn[turn] = self.max_by_turn[turn].max(occ);
        self.keys.push((key, occ));
        occ
    }

    /// Makes the positions of the moves kept, each counted once (no count
    /// is read below `min_window`).
    #[cold]
    #[inline(never)]
    fn make_positions(&mut self) {
        let Some((mut key, _)) = self.keys.last().cloned() else {
            return;
        };
        for mv in std::mem::take(&mut self.moves) {
            key.play_quiet(mv);
            self.keys.push((key.clone(), 1));
        }
    }

    /// 9.2.1: whether the player to move in `pos` (the last pushed
    /// position) has a legal move after which a position appears for at
    /// least the third time.
    ///
    /// Such a move is a quiet move of a piece other than a pawn (the window
    /// starts afresh after a pawn move or a capture, and castling gives up
    /// a right every earlier position had), so it is read off the
    /// difference between this board and the board of each position that
    /// has stood twice: one square emptied, one filled. Only that move is
    /// tested and played, never the whole move list.
    pub fn can_claim_with_next_move(&self, pos: &Chess) -> bool {
        let other = usize::from(pos.turn() == Color::White);
        if self.max_by_turn[other] < 2 {
            return false;
        }
        // A count of two was made: the window was long enough, and every
        // position since is made.
        debug_assert!(self.moves.is_empty());
        self.keys
            .iter()
            .rev()
            .any(|(key, occ)| *occ >= 2 && key.turn != pos.turn() && reaches(pos, key))
    }
}

/// Who could claim a draw, how, and on what evidence ([`claim_at`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// The player who could claim: the one to move.
    pub claimant: Color,
    /// The move the claimant writes on the scoresheet and claims with
    /// (9.2.1, 9.3.1), or `None` when the position on the board already
    /// gives the claim (9.2.2, 9.3.2).
    pub by_move: Option<Move>,
    /// For a repetition, the plies after which the repeated position stood
    /// before (0 = the start).
    pub earlier: Vec<u32>,
}

/// The claim of a draw by `kind` (threefold repetition or the fifty-move
/// rule) open to the player to move after ply `ply`, `positions[i]` being
/// the position after ply `i` (0 = the start), as 9.2 and 9.3 word it: on
/// the position that has just appeared for the third time (or after 50
/// moves of each side), or by writing the move that will make it so.
pub fn claim_at(positions: &[Chess], ply: u32, kind: EndKind) -> Option<Claim> {
    let pos = positions.get(ply as usize)?;
    let claimant = pos.turn();
    match kind {
        EndKind::ThreefoldRepetition => {
            let stood = |key: &Key, upto: usize| -> Vec<u32> {
                (0..upto)
                    .filter(|&j| Key::of(&positions[j]) == *key)
                    .map(|j| j as u32)
                    .collect()
            };
            let here = stood(&Key::of(pos), ply as usize);
            if here.len() >= 2 {
                return Some(Claim {
                    claimant,
                    by_move: None,
                    earlier: here,
                });
            }
            // The move the game went on with first, when it is one.
            let played = positions.get(ply as usize + 1).map(Key::of);
            let mut moves: Vec<Move> = pos.legal_moves().into_iter().collect();
            moves.sort_by_key(|m| {
                let mut next = pos.clone();
                next.play_unchecked(*m);
                Some(Key::of(&next)) != played
            });
            moves.into_iter().find_map(|m| {
                let mut next = pos.clone();
                next.play_unchecked(m);
                let before = stood(&Key::of(&next), ply as usize + 1);
                (before.len() >= 2).then_some(Claim {
                    claimant,
                    by_move: Some(m),
                    earlier: before,
                })
            })
        }
        EndKind::FiftyMoves => {
            if pos.halfmoves() >= 100 {
                return Some(Claim {
                    claimant,
                    by_move: None,
                    earlier: Vec::new(),
                });
            }
            // A move that is neither a capture nor a pawn move: the 50th.
            let quiet = pos
                .legal_moves()
                .into_iter()
                .filter(|m| !m.is_capture() && m.role() != Role::Pawn)
                .min_by_key(|m| (m.role() as u8, m.to()))?;
            (pos.halfmoves() == 99).then_some(Claim {
                claimant,
                by_move: Some(quiet),
                earlier: Vec::new(),
            })
        }
        _ => None,
    }
}

/// Whether one legal quiet move of a piece other than a pawn turns `pos`
/// into the position `key`.
fn reaches(pos: &Chess, key: &Key) -> bool {
    let board = pos.board();
    let (now, then) = (board.occupied(), key.board.occupied());
    let (Some(from), Some(to)) = ((now & !then).single_square(), (then & !now).single_square())
    else {
        return false;
    };
    let Some(piece) = board.piece_at(from) else {
        return false;
    };
    if piece.role == Role::Pawn || piece.color != pos.turn() {
        return false;
    }
    let m = Move::Normal {
        role: piece.role,
        from,
        capture: None,
        to,
        promotion: None,
    };
    if !pos.is_legal(m) {
        return false;
    }
    let mut next = pos.clone();
    next.play_unchecked(m);
    Key::of(&next) == *key
}

/// Which automatic ends a tracker applies: those of the FIDE Laws in force
/// (9.6 or not), or those of pgnkit's `online` profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EndRules {
    /// pgnkit's `online` profile: threefold repetition and fifty moves draw
    /// at once.
    pub online: bool,
    /// FIDE 9.6 is in force ([`super::laws::Article::AutomaticDraws`]):
    /// fivefold repetition and 75 moves draw at once. Without it, a fifth
    /// repetition or a 75th move ends nothing; the tracker notes the first
    /// ([`EndTracker::suspended`]) and the game goes on.
    pub automatic_draws: bool,
}

impl EndRules {
    /// Today's FIDE Laws.
    pub const FIDE: EndRules = EndRules {
        online: false,
        automatic_draws: true,
    };
    /// pgnkit's `online` profile.
    pub const ONLINE: EndRules = EndRules {
        online: true,
        automatic_draws: true,
    };

    /// The FIDE Laws `laws`.
    pub fn fide(laws: super::laws::Laws) -> EndRules {
        EndRules {
            online: false,
            automatic_draws: laws.in_force(super::laws::Article::AutomaticDraws),
        }
    }
}

/// The counts at which the game ends by itself: five occurrences and 150
/// plies under the FIDE Laws (9.6.1, 9.6.2); three and 100 under pgnkit's
/// `online` profile, which draws at once on a threefold repetition or
/// fifty moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Limits {
    occurrences: u8,
    halfmoves: u32,
}

impl Limits {
    fn new(online: bool) -> Limits {
        if online {
            Limits {
                occurrences: 3,
                halfmoves: 100,
            }
        } else {
            Limits {
                occurrences: 5,
                halfmoves: 150,
            }
        }
    }

    /// The automatic end (FIDE 9.6, 5.2.2 by material, and the `online`
    /// draws) that the position reached by a move brings, if any.
    /// `occurrences` is how often the position has now stood (from
    /// [`Repetitions::push`]); `material_changed` whether the move captured
    /// or promoted (only then can the material become dead). Checkmate and
    /// stalemate are judged once, on the final position
    /// ([`EndTracker::close`]).
    #[inline]
    fn automatic_end(
        self,
        pos: &Chess,
        occurrences: u8,
        material_changed: bool,
    ) -> Option<EndKind> {
        if material_changed && crate::rules::dead::is_dead_by_material(pos.board()) {
            return Some(EndKind::DeadPosition);
        }
        let halfmoves = pos.halfmoves();
        // One test per count on an ordinary ply, whatever the profile.
        if occurrences < self.occurrences && halfmoves < self.halfmoves {
            return None;
        }
        // Past a limit: the end of highest precedence that is due.
        Some(if occurrences >= 5 {
            EndKind::FivefoldRepetition
        } else if halfmoves >= 150 {
            EndKind::SeventyFiveMoves
        } else if occurrences >= 3 {
            EndKind::ThreefoldRepetition
        } else {
            EndKind::FiftyMoves
        })
    }
}

/// Whether `kind` is one of the automatic draws of FIDE 9.6, which the Laws
/// before 1 July 2014 did not have.
#[inline]
fn is_automatic_draw(kind: EndKind) -> bool {
    matches!(
        kind,
        EndKind::FivefoldRepetition | EndKind::SeventyFiveMoves
    )
}

/// An end that holds before any move: dead material in the start position,
/// or a FEN whose halfmove clock already says 75 moves (50 under pgnkit's
/// `online` profile).
fn initial_end(start: &Chess, online: bool) -> Option<EndKind> {
    if crate::rules::dead::is_dead_by_material(start.board()) {
        Some(EndKind::DeadPosition)
    } else if start.halfmoves() >= 150 {
        Some(EndKind::SeventyFiveMoves)
    } else if online && start.halfmoves() >= 100 {
        Some(EndKind::FiftyMoves)
    } else {
        None
    }
}

/// What one ply did to the end of the game ([`EndTracker::push`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The game goes on; the position has now stood `occurrences` times
    /// (exact from the tracker's threshold on).
    Open { occurrences: u8 },
    /// This ply ended the game.
    Ends(End),
    /// The game had already ended: the ply is a move after the end.
    After(End),
}

/// The one end tracker: repetitions and the first automatic end along a
/// replay, then mate or stalemate on the final position.
///
/// Both `validate` (all automatic ends, counts exact from five) and
/// `annotate-outcome` (exact from two or three, for the claims) drive it;
/// one tracker can serve every game a thread replays ([`EndTracker::reset`]).
#[derive(Debug, Clone)]
pub struct EndTracker {
    reps: Repetitions,
    limits: Limits,
    rules: EndRules,
    end: Option<End>,
    /// The first 9.6 end the Laws in force did not have.
    suspended: Option<End>,
    /// Whether positions are still counted (see [`EndTracker::stop_counting`]).
    counting: bool,
    /// Counts wanted below five (for the claims): they go on after a
    /// suspended end until [`EndTracker::stop_counting`].
    claims: bool,
}

impl EndTracker {
    /// Starts tracking at `start` under `rules`. Repetition counts of at
    /// least `threshold` are exact.
    pub fn new(start: &Chess, threshold: u8, rules: EndRules) -> EndTracker {
        let mut t = EndTracker {
            reps: Repetitions::new(start, threshold),
            limits: Limits::new(rules.online),
            rules,
            end: None,
            suspended: None,
            counting: true,
            claims: threshold < 5,
        };
        t.start(start);
        t
    }

    /// Starts over at `start`, keeping the allocations.
    pub fn reset(&mut self, start: &Chess, threshold: u8, rules: EndRules) {
        self.reps.reset(start, threshold);
        self.limits = Limits::new(rules.online);
        self.rules = rules;
        self.claims = threshold < 5;
        self.start(start);
    }

    fn start(&mut self, start: &Chess) {
        self.end = None;
        self.suspended = None;
        self.counting = true;
        if let Some(kind) = initial_end(start, self.rules.online) {
            self.ends_or_suspends(End { kind, ply: 0 });
        }
    }

    /// Records `end`: the end of the game, or, for a 9.6 end the Laws in
    /// force do not have, the first suspended end. Returns whether the game
    /// ended.
    #[inline]
    fn ends_or_suspends(&mut self, end: End) -> bool {
        if self.rules.automatic_draws || !is_automatic_draw(end.kind) {
            self.end = Some(end);
            return true;
        }
        if self.suspended.is_none() {
            self.suspended = Some(end);
            // Counts past five serve nothing more unless the claims want them.
            self.counting = self.claims;
        }
        false
    }

    /// The first automatic end so far (mate and stalemate are only settled
    /// by [`EndTracker::close`]).
    #[inline]
    pub fn end(&self) -> Option<End> {
        self.end
    }

    /// The first fivefold repetition or 75-move position that ended
    /// nothing, because the Laws in force had no 9.6; `None` under Laws
    /// with 9.6.
    #[inline]
    pub fn suspended(&self) -> Option<End> {
        self.suspended
    }

    /// The caller wants no more claims: counting stops once a suspended
    /// end was found (at once if one was), since no count is read after
    /// it. Later pushes then return occurrence counts of 0 (the game still
    /// ends on dead material).
    #[inline]
    pub fn stop_counting(&mut self) {
        self.claims = false;
        if self.suspended.is_some() {
            self.counting = false;
        }
    }

    /// The repetitions of the positions pushed so far.
    #[inline]
    pub fn repetitions(&self) -> &Repetitions {
        &self.reps
    }

    /// Records `pos`, the position after `ply` plies, the last of them
    /// `mv`.
    #[inline(always)]
    pub fn push(&mut self, ply: u32, pos: &Chess, mv: Move) -> Step {
        // Only a capture or a promotion can make the material dead.
        let material_changed = mv.is_capture() || mv.is_promotion();
        // After the end nothing is counted: no caller reads a count there,
        // and the window (no pawn move or capture needed once the game is
        // over) would grow without bound, each push scanning all of it.
        if let Some(end) = self.end {
            return Step::After(end);
        }
        // Without 9.6 the window of positions can grow past 150 plies:
        // once nothing more is to be learnt from it, it is not kept.
        let occurrences = if self.counting {
            self.reps.push(pos, mv)
        } else {
            0
        };
        match self
            .limits
            .automatic_end(pos, occurrences, material_changed)
        {
            Some(kind) => {
                let end = End { kind, ply };
                if self.ends_or_suspends(end) {
                    Step::Ends(end)
                } else {
                    Step::Open { occurrences }
                }
            }
            None => Step::Open { occurrences },
        }
    }

    /// The end of the game once it was replayed to `final_pos`, after
    /// `plies` plies: mate or stalemate there takes precedence over an end
    /// on the same ply (a mate on the 150th ply stands), never over an
    /// earlier one.
    pub fn close(&self, final_pos: &Chess, plies: u32) -> FinalEnd {
        let on_board = no_legal_move(final_pos).then(|| End {
            kind: if final_pos.is_check() {
                EndKind::Checkmate
            } else {
                EndKind::Stalemate
            },
            ply: plies,
        });
        let end = match (self.end, on_board) {
            (Some(end), Some(board)) if end.ply < board.ply => Some(end),
            (end, None) => end,
            (_, board) => board,
        };
        FinalEnd { end, on_board }
    }
}

/// Whether the side to move has no legal move (checkmate or stalemate):
/// shakmaty's list of legal moves, unless a step of the king, not in check,
/// to a square neither its own pieces hold nor the other side attacks
/// shows one at once (as it does in nearly every final position). Out of
/// check no line runs through the king to the square it steps to, so the
/// attacks of the board as it stands are those after the step.
fn no_legal_move(pos: &Chess) -> bool {
    let board = pos.board();
    let us = pos.turn();
    if let Some(king) = board.king_of(us)
        && !pos.is_check()
    {
        let steps = shakmaty::attacks::king_attacks(king) & !board.by_color(us);
        if steps
            .into_iter()
            .any(|to| board.attacks_to(to, !us, board.occupied()).is_empty())
        {
            return false;
        }
    }
    pos.legal_moves().is_empty()
}

/// The end of a replayed game ([`EndTracker::close`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FinalEnd {
    /// The first end: earliest ply, then precedence.
    pub end: Option<End>,
    /// Checkmate or stalemate on the final position.
    pub on_board: Option<End>,
}

impl FinalEnd {
    /// Whether the final position is checkmate.
    #[inline]
    pub fn is_mate(&self) -> bool {
        self.on_board.is_some_and(|e| e.kind == EndKind::Checkmate)
    }

    /// A move after checkmate or stalemate cannot be played at all: makes
    /// `error`, the illegal move that stopped the replay there, a
    /// `move-after-end`. Returns whether it did.
    pub fn mark_move_after_end(&self, error: &mut Finding, at: At<'_>) -> bool {
        match self.on_board {
            Some(end) if error.code == Code::IllegalMove => {
                error.code = Code::MoveAfterEnd;
                error.message = end.move_after_message(at);
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::san::San;

    #[test]
    fn no_legal_move_is_an_empty_move_list() {
        // Random games from the start and from positions where the king is
        // hemmed in, checked at every ply against shakmaty's move list.
        let starts = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
            "k7/2Q5/1K6/8/8/8/8/8 b - - 0 1",
            "6rk/6pp/8/8/8/8/8/R5K1 w - - 0 1",
            "8/8/8/8/8/5k2/5p2/5K2 w - - 0 1",
            "4k3/4P3/4K3/8/8/8/8/8 b - - 0 1",
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            "8/8/8/2k5/3Pp3/8/7q/4K3 b - d3 0 1",
        ];
        let mut next = below(0x2545_f491_4f6c_dd1d);
        let (mut empty, mut checked) = (0, 0);
        for fen in starts {
            let start = from_fen(fen);
            for _ in 0..300 {
                let mut pos = start.clone();
                for _ in 0..120 {
                    let moves = pos.legal_moves();
                    assert_eq!(no_legal_move(&pos), moves.is_empty(), "{}", fen_of(&pos));
                    checked += 1;
                    if moves.is_empty() {
                        empty += 1;
                        break;
                    }
                    pos.play_unchecked(moves[next(moves.len())]);
                }
            }
        }
        // The walks reached many mates and stalemates, and many positions.
        assert!(empty > 100 && checked > 100_000, "{empty} {checked}");
    }

    fn fen_of(pos: &Chess) -> String {
        shakmaty::fen::Fen::from_position(pos, EnPassantMode::Legal).to_string()
    }

    fn play(pos: &mut Chess, san: &str) -> Move {
        let m = San::from_ascii(san.as_bytes())
            .unwrap()
            .to_move(pos)
            .unwrap();
        pos.play_unchecked(m);
        m
    }

    /// The 9.2.1 question asked the slow way: every legal quiet move of a
    /// piece played, and its position looked up among those that stood
    /// twice.
    fn can_claim_by_every_move(reps: &Repetitions, pos: &Chess) -> bool {
        pos.legal_moves().iter().any(|m| {
            if m.is_capture() || m.role() == Role::Pawn || matches!(m, Move::Castle { .. }) {
                return false;
            }
            let mut next = pos.clone();
            next.play_unchecked(*m);
            let key = Key::of(&next);
            reps.keys.iter().any(|(k, occ)| *occ >= 2 && *k == key)
        })
    }

    #[test]
    fn the_claim_read_off_the_boards_agrees_with_playing_every_move() {
        // Random walks that mostly shuffle pieces, so positions recur, from
        // positions with castling rights, en passant chances and pins.
        let starts = [
            "r3k2r/pppq1ppp/2n2n2/3pp3/3PP3/2N2N2/PPPQ1PPP/R3K2R w KQkq - 0 1",
            "4k3/8/8/3pP3/8/8/8/R3K2R w KQ d6 0 1",
            "6k1/5ppp/8/8/8/8/1B3PPP/3R2K1 w - - 0 1",
            "r5k1/8/8/8/2b5/8/4N3/4K2R w K - 0 1",
        ];
        let mut next = below(0x2545_F491_4F6C_DD1D);
        let (mut asked, mut claims) = (0, 0);
        for fen in starts {
            for _ in 0..60 {
                let mut pos = from_fen(fen);
                let mut reps = Repetitions::new(&pos, 2);
                // Each side's last move, which is often taken back.
                let mut last: [Option<Move>; 2] = [None, None];
                for _ in 0..80 {
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    let quiet = quiet_moves(&moves);
                    let side = usize::from(pos.turn() == Color::White);
                    let back = last[side].and_then(|prev| {
                        quiet
                            .iter()
                            .find(|m| m.from() == Some(prev.to()) && m.to() == prev.from().unwrap())
                    });
                    let m = match back {
                        Some(back) if next(3) > 0 => **back,
                        _ if !quiet.is_empty() && next(10) > 0 => *quiet[next(quiet.len())],
                        _ => moves[next(moves.len())],
                    };
                    last[side] = Some(m);
                    pos.play_unchecked(m);
                    reps.push(&pos, m);
                    let fast = reps.can_claim_with_next_move(&pos);
                    assert_eq!(fast, can_claim_by_every_move(&reps, &pos), "{fen}");
                    asked += 1;
                    claims += usize::from(fast);
                }
            }
        }
        // The walks must have offered claims, or the test proves nothing.
        assert!(claims > 1000 && asked > claims * 2, "{claims} of {asked}");
    }

    /// The first `plies` plies of knights out and back, again and again.
    fn knights(plies: usize) -> impl Iterator<Item = &'static str> {
        ["Nf3", "Nf6", "Ng1", "Ng8"].into_iter().cycle().take(plies)
    }

    #[test]
    fn a_claim_names_the_claimant_the_move_and_the_earlier_positions() {
        let mut positions = vec![Chess::default()];
        for san in knights(8) {
            let mut pos = positions.last().unwrap().clone();
            play(&mut pos, san);
            positions.push(pos);
        }
        // After 4.Ng1, Black claims by writing 4...Ng8: the start position
        // for the third time.
        let claim = claim_at(&positions, 7, EndKind::ThreefoldRepetition).unwrap();
        assert_eq!(claim.claimant, Color::Black);
        assert_eq!(claim.by_move.map(|m| m.to()), Some(Square::G8));
        assert_eq!(claim.earlier, [0, 4]);
        // After 4...Ng8 it stands on the board: White claims.
        let claim = claim_at(&positions, 8, EndKind::ThreefoldRepetition).unwrap();
        assert_eq!(
            (claim.claimant, claim.by_move, claim.earlier),
            (Color::White, None, vec![0, 4])
        );
        // After 2.Ng1 nothing has stood twice: no claim.
        assert_eq!(claim_at(&positions, 3, EndKind::ThreefoldRepetition), None);
        // The fifty-move rule: by writing the 50th move, or on the board.
        let fifty = |clock: u32| from_fen(&format!("8/8/8/4k3/8/8/4K3/4R3 w - - {clock} 80"));
        let claim = claim_at(&[fifty(99)], 0, EndKind::FiftyMoves).unwrap();
        assert!(claim.by_move.is_some_and(|m| !m.is_capture()));
        let claim = claim_at(&[fifty(100)], 0, EndKind::FiftyMoves).unwrap();
        assert_eq!((claim.claimant, claim.by_move), (Color::White, None));
        assert_eq!(claim_at(&[fifty(90)], 0, EndKind::FiftyMoves), None);
    }

    #[test]
    fn positions_made_late_are_the_positions_played() {
        // Walks of mostly quiet moves (castling, kings and rooks giving up
        // rights, Chess960 castling): once a window is long enough to
        // count, the positions made from its moves are the positions the
        // board went through, and each count is the plain count.
        let starts = [
            (
                "r3k2r/pppq1ppp/2nbbn2/3pp3/3PP3/2NBBN2/PPPQ1PPP/R3K2R w KQkq - 0 1",
                false,
            ),
            (
                "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1",
                true,
            ),
            ("rk2r3/pppppppp/8/8/8/8/PPPPPPPP/RK2R3 w EAea - 0 1", true),
        ];
        let mut next = below(0x2545_F491_4F6C_DD1D);
        let mut checked = 0;
        for (fen, chess960) in starts {
            let mode = if chess960 {
                shakmaty::CastlingMode::Chess960
            } else {
                shakmaty::CastlingMode::Standard
            };
            for threshold in [2, 3, 5] {
                for _ in 0..40 {
                    let mut pos: Chess = shakmaty::fen::Fen::from_ascii(fen.as_bytes())
                        .unwrap()
                        .into_position(mode)
                        .unwrap();
                    let mut reps = Repetitions::new(&pos, threshold);
                    let mut window = vec![Key::of(&pos)];
                    for _ in 0..120 {
                        let moves = pos.legal_moves();
                        if moves.is_empty() {
                            break;
                        }
                        let quiet = quiet_moves(&moves);
                        let m = if !quiet.is_empty() && next(30) > 0 {
                            *quiet[next(quiet.len())]
                        } else {
                            moves[next(moves.len())]
                        };
                        pos.play_unchecked(m);
                        if pos.halfmoves() == 0 {
                            window.clear();
                        }
                        let key = Key::of(&pos);
                        let plain = window
                            .iter()
                            .rev()
                            .skip(1)
                            .step_by(2)
                            .filter(|k| **k == key)
                            .count();
                        window.push(key);
                        let occ = reps.push(&pos, m);
                        if window.len() > reps.min_window {
                            let made: Vec<&Key> = reps.keys.iter().map(|(k, _)| k).collect();
                            assert_eq!(made, window.iter().collect::<Vec<_>>(), "{fen}");
                            assert_eq!(usize::from(occ), plain + 1, "{fen}");
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    #[test]
    fn knights_out_and_back_repeat_the_start_position() {
        let mut pos = Chess::default();
        let mut reps = Repetitions::new(&pos, 2);
        let mut seen = Vec::new();
        for (i, san) in knights(16).enumerate() {
            let m = play(&mut pos, san);
            seen.push((i + 1, reps.push(&pos, m)));
        }
        assert_eq!(seen[7], (8, 3));
        assert_eq!(seen[15], (16, 5));
        assert_eq!(seen[14], (15, 4));
    }

    #[test]
    fn nothing_is_counted_after_the_end() {
        // 10,000 plies of knights: fivefold repetition at ply 16, then every
        // ply is after the end and the window stays where it was (it used
        // to grow by one per ply, each push scanning all of it).
        let mut pos = Chess::default();
        let mut ends = EndTracker::new(&pos, 5, EndRules::FIDE);
        let mut after = 0;
        for (i, san) in knights(10_000).enumerate() {
            let m = play(&mut pos, san);
            let ply = u32::try_from(i + 1).unwrap();
            if let Step::After(end) = ends.push(ply, &pos, m) {
                assert_eq!((end.kind, end.ply), (EndKind::FivefoldRepetition, 16));
                after += 1;
            }
        }
        assert_eq!(after, 10_000 - 16);
        assert_eq!(ends.repetitions().keys.len(), 17);
    }

    #[test]
    fn intended_move_claim_is_seen_one_ply_early() {
        let mut pos = Chess::default();
        let mut reps = Repetitions::new(&pos, 2);
        let mut first = None;
        for (i, san) in knights(8).enumerate() {
            let m = play(&mut pos, san);
            reps.push(&pos, m);
            if first.is_none() && reps.can_claim_with_next_move(&pos) {
                first = Some(i + 1);
            }
        }
        assert_eq!(first, Some(7));
    }

    /// The moves of `moves` that keep a repetition window open: neither a
    /// capture nor a pawn move.
    fn quiet_moves(moves: &[Move]) -> Vec<&Move> {
        moves
            .iter()
            .filter(|m| !m.is_capture() && m.role() != Role::Pawn)
            .collect()
    }

    /// A deterministic generator (xorshift) from `seed`: each call gives a
    /// number below its argument.
    fn below(mut seed: u64) -> impl FnMut(usize) -> usize {
        move |n| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        }
    }

    fn from_fen(fen: &str) -> Chess {
        shakmaty::fen::Fen::from_ascii(fen.as_bytes())
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap()
    }

    /// Plays `sans` from `start` through a tracker, returning each step and
    /// the closed end.
    fn track(start: Chess, sans: &[&str], online: bool) -> (Vec<Step>, FinalEnd) {
        let rules = if online {
            EndRules::ONLINE
        } else {
            EndRules::FIDE
        };
        track_under(start, sans, rules).0
    }

    /// [`track`] under `rules`, with the tracker's suspended end.
    fn track_under(
        start: Chess,
        sans: &[&str],
        rules: EndRules,
    ) -> ((Vec<Step>, FinalEnd), Option<End>) {
        // Counts need only be exact from the first that ends the game.
        let threshold = if rules.online { 3 } else { 5 };
        let mut tracker = EndTracker::new(&start, threshold, rules);
        let mut pos = start;
        let mut steps = Vec::new();
        for (i, san) in sans.iter().enumerate() {
            let m = San::from_ascii(san.as_bytes())
                .unwrap()
                .to_move(&pos)
                .unwrap();
            pos.play_unchecked(m);
            steps.push(tracker.push(i as u32 + 1, &pos, m));
        }
        let plies = sans.len() as u32;
        ((steps, tracker.close(&pos, plies)), tracker.suspended())
    }

    /// The Laws before 1 July 2014 (no 9.6).
    const BEFORE_2014: EndRules = EndRules {
        online: false,
        automatic_draws: false,
    };

    #[test]
    fn without_9_6_a_fifth_repetition_ends_nothing() {
        // Knights out and back 20 times, then a pawn move: under today's
        // Laws the game ended at ply 16, under earlier Laws it goes on.
        let mut sans: Vec<&str> = knights(80).collect();
        sans.push("e4");
        let fivefold = End {
            kind: EndKind::FivefoldRepetition,
            ply: 16,
        };
        let ((steps, closed), suspended) = track_under(Chess::default(), &sans, EndRules::FIDE);
        assert_eq!(steps[15], Step::Ends(fivefold));
        assert_eq!(steps[80], Step::After(fivefold));
        assert_eq!((closed.end, suspended), (Some(fivefold), None));
        let ((steps, closed), suspended) = track_under(Chess::default(), &sans, BEFORE_2014);
        assert!(steps.iter().all(|s| matches!(s, Step::Open { .. })));
        assert_eq!((closed.end, suspended), (None, Some(fivefold)));
    }

    #[test]
    fn without_9_6_the_75th_move_ends_nothing_but_dead_material_does() {
        let start = from_fen("k7/8/1K6/8/8/8/8/7R w - - 149 100");
        let seventy_five = End {
            kind: EndKind::SeventyFiveMoves,
            ply: 1,
        };
        let ((steps, closed), suspended) = track_under(start.clone(), &["Rh2", "Kb8"], BEFORE_2014);
        assert!(matches!(steps[..], [Step::Open { .. }, Step::Open { .. }]));
        assert_eq!((closed.end, suspended), (None, Some(seventy_five)));
        // A FEN already past 75 moves: suspended at ply 0.
        let start = from_fen("k7/8/1K6/8/8/8/8/7R w - - 150 100");
        let (_, suspended) = track_under(start, &["Rh2"], BEFORE_2014);
        assert_eq!(suspended.map(|e| e.ply), Some(0));
        // Dead material ends the game under any Laws.
        let start = from_fen("4k3/8/8/8/8/8/3p4/3K2N1 w - - 0 1");
        let ((_, closed), _) = track_under(start, &["Kxd2", "Kd7"], BEFORE_2014);
        assert_eq!(closed.end.map(|e| e.kind), Some(EndKind::DeadPosition));
    }

    #[test]
    fn mate_on_the_150th_ply_stands_over_the_75_moves() {
        let start = from_fen("k7/8/1K6/8/8/8/8/7R w - - 149 100");
        let (steps, closed) = track(start.clone(), &["Rh2"], false);
        let seventy_five = End {
            kind: EndKind::SeventyFiveMoves,
            ply: 1,
        };
        assert_eq!(steps, [Step::Ends(seventy_five)]);
        assert_eq!(closed.end, Some(seventy_five));
        assert!(!closed.is_mate());
        let (steps, closed) = track(start, &["Rh8#"], false);
        let mate = End {
            kind: EndKind::Checkmate,
            ply: 1,
        };
        assert_eq!(steps, [Step::Ends(seventy_five)]);
        assert_eq!(closed.end, Some(mate));
        assert_eq!(closed.on_board, Some(mate));
        assert!(closed.is_mate());
        assert_eq!(mate.result(Color::White), GameResult::WhiteWins);
    }

    #[test]
    fn moves_after_an_end_are_steps_after_it() {
        // K+N v K after 1.Kxd2: dead at ply 1, the rest comes after.
        let start = from_fen("4k3/8/8/8/8/8/3p4/3K2N1 w - - 0 1");
        let (steps, closed) = track(start, &["Kxd2", "Kd7", "Nf3"], false);
        let dead = End {
            kind: EndKind::DeadPosition,
            ply: 1,
        };
        assert_eq!(
            steps,
            [Step::Ends(dead), Step::After(dead), Step::After(dead)]
        );
        assert_eq!(closed.end, Some(dead));
        assert_eq!(closed.on_board, None);
        assert_eq!(
            dead.move_after_message(&|ply| format!("after ply {ply}")),
            "the game had ended by a dead position after ply 1"
        );
    }

    #[test]
    fn an_illegal_move_after_stalemate_is_a_move_after_the_end() {
        let start = from_fen("7k/8/6K1/8/8/8/8/5Q2 w - - 0 1");
        let (_, closed) = track(start, &["Qf7"], false);
        let mut error = Finding::at_ply(Code::IllegalMove, 3, 2, "Kh7", "illegal");
        let at = |ply| format!("after ply {ply}");
        assert!(closed.mark_move_after_end(&mut error, &at));
        assert_eq!(error.code, Code::MoveAfterEnd);
        assert_eq!(error.message, "the game had ended by stalemate after ply 1");
        // Any other problem stays what it is.
        let mut error = Finding::at_ply(Code::Syntax, 3, 2, "Kh9", "not a move");
        assert!(!closed.mark_move_after_end(&mut error, &at));
        assert_eq!(error.code, Code::Syntax);
    }

    #[test]
    fn online_draws_at_the_third_occurrence() {
        let knights: Vec<&str> = knights(8).collect();
        let threefold = End {
            kind: EndKind::ThreefoldRepetition,
            ply: 8,
        };
        let (steps, closed) = track(Chess::default(), &knights, true);
        assert_eq!(steps[7], Step::Ends(threefold));
        assert_eq!(closed.end, Some(threefold));
        let (_, closed) = track(Chess::default(), &knights, false);
        assert_eq!(closed.end, None);
    }

    #[test]
    fn limits_give_the_end_of_highest_precedence() {
        let fide = Limits::new(false);
        let online = Limits::new(true);
        let clock =
            |halfmoves: u32| from_fen(&format!("k7/8/1K6/8/8/8/8/7R b - - {halfmoves} 100"));
        let quiet = clock(120);
        assert_eq!(fide.automatic_end(&quiet, 4, false), None);
        assert_eq!(
            online.automatic_end(&quiet, 4, false),
            Some(EndKind::ThreefoldRepetition)
        );
        assert_eq!(
            online.automatic_end(&quiet, 2, false),
            Some(EndKind::FiftyMoves)
        );
        assert_eq!(
            fide.automatic_end(&quiet, 5, false),
            Some(EndKind::FivefoldRepetition)
        );
        let late = clock(150);
        for limits in [fide, online] {
            assert_eq!(
                limits.automatic_end(&late, 4, false),
                Some(EndKind::SeventyFiveMoves)
            );
            assert_eq!(limits.automatic_end(&clock(10), 2, false), None);
        }
    }

    #[test]
    fn en_passant_right_makes_positions_differ() {
        // After 1.e4 (no black pawn can take en passant) the ep square does
        // not count; after ...d5 with a white pawn on e5 it does.
        let pos = |fen: &str| {
            shakmaty::fen::Fen::from_ascii(fen.as_bytes())
                .unwrap()
                .into_position::<Chess>(shakmaty::CastlingMode::Standard)
                .unwrap()
        };
        let with_ep = Key::of(&pos("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2"));
        let without = Key::of(&pos("4k3/8/8/3pP3/8/8/8/4K3 w - - 0 2"));
        assert_ne!(with_ep, without);
        let phantom = Key::of(&pos("4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1"));
        let plain = Key::of(&pos("4k3/8/8/8/4P3/8/8/4K3 b - - 0 1"));
        assert_eq!(phantom, plain);
    }
}
