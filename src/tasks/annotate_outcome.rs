//! What the Laws say happened in a game: the first automatic end, the first
//! moment a draw could be claimed, whether the winner of a decisive game
//! without mate could mate at all, and the result the rules give.
//!
//! This module owns the per-game outcome under a rule [`Profile`]: the FIDE
//! Laws, or one of pgnkit's own readings of them (`app`, `online`;
//! docs/outcomes.md "Profiles" describes them). It drives [`crate::rules::ends::EndTracker`] for the
//! automatic ends and the repetition count, and uses [`crate::rules::dead`] for
//! dead positions and mate possibility and [`crate::rules::game`] for the recorded
//! result; formatting the answer is left to `output`.
//!
//! Under `fide`, each game is judged by the Laws [`crate::rules::laws`] says
//! judge it (9.6 and 5.1.2's exception are dated); the other profiles
//! reproduce software, which applies the same rules to games of every date.
//!
//! Cost model: the replay, the repetition table and the claim tests are
//! cheap and run on every ply. The solver runs at most twice on the final
//! position (or on the position of an earlier automatic end), and a dead
//! position found there is located with a binary search, so a game never
//! pays one solver call per ply. Dead is monotone along a game: a position
//! from which mate is possible is preceded only by such positions.

use shakmaty::{Chess, Color, Position, Role};

use crate::rules::dead::{
    DeadReason, DeadVerdict, can_mate, first_dead_ply_by, is_dead, is_dead_by_material,
    is_dead_knowing,
};
use crate::rules::ends::{End, EndKind, EndRules, EndTracker, Step};
use crate::rules::finding::{Code, Finding};
use crate::rules::game::{GameResult, RawGame, recorded_result};
use crate::rules::laws::{Article, Laws, LawsChoice};
use crate::rules::mateability::Mateability;
use crate::rules::openings::{Classifier, Opening, OpeningTable};
use crate::rules::replay::replay;
use crate::rules::setup::start_position;

/// Which reading of the rules to apply: the FIDE Laws, or one of two
/// profiles of pgnkit's own that reproduce what common software does
/// (docs/outcomes.md "Profiles" describes them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// The FIDE Laws: by default those in force when the game was played
    /// ([`crate::rules::laws`]).
    Fide,
    /// Apps with a claim button: claims once the fact has happened, material
    /// draws only by the three patterns, losses stand as recorded.
    App,
    /// Sites without an arbiter: threefold and fifty moves draw at once,
    /// material draws only by the three patterns, a loss on time or by
    /// resignation is a draw only when the winner has a bare king.
    Online,
}

/// Why a decisive recorded result became a draw, or why it stood although
/// the winner cannot mate; or why a recorded draw was no draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LossRule {
    /// 6.9: a loss on time (the `Termination` tag says so) against a player
    /// who cannot mate is a draw.
    Time,
    /// 5.1.2 since 1 January 2023: a resignation (or adjudication) against a
    /// player who cannot mate is a draw.
    Resignation,
    /// 5.1.2 before 1 January 2023 (the Laws that judge the game are
    /// older): the resignation stood as a loss.
    ResignationBefore2023,
    /// The `online` profile: the winner had a bare king.
    BareKing,
    /// 5.2.3: a draw by agreement needs both players to have made a move.
    /// A recorded draw with fewer plies (counting those a FEN start's
    /// move number says were played before it), nothing on the board or a
    /// claim to explain it, and no `Termination` tag naming another reason
    /// (time, adjudication, …) was no draw: the game had not ended. Only
    /// the `fide` profile applies it, and only to moves that were
    /// recorded: a game published without moves is one whose moves are
    /// unknown, and its result stands.
    EarlyAgreement,
    /// 6.9: a draw on time (the `Termination` tag says so; the side to
    /// move at the end is the one whose flag fell) against a player who
    /// could mate is a loss for the player who ran out of time. Sites that
    /// score such a flag as a draw by their own material rule are
    /// contradicted: only the `fide` profile applies it.
    TimeLoss,
}

impl LossRule {
    /// Every rule.
    pub const ALL: [LossRule; 6] = [
        LossRule::Time,
        LossRule::Resignation,
        LossRule::ResignationBefore2023,
        LossRule::BareKing,
        LossRule::EarlyAgreement,
        LossRule::TimeLoss,
    ];

    /// The stable name of the rule in reports: the article, or `bare-king`.
    pub fn as_str(self) -> &'static str {
        match self {
            LossRule::Time => "6.9",
            LossRule::Resignation => "5.1.2",
            LossRule::ResignationBefore2023 => "5.1.2-before-2023",
            LossRule::BareKing => "bare-king",
            LossRule::EarlyAgreement => "5.2.3",
            LossRule::TimeLoss => "6.9-loss",
        }
    }
}

impl Profile {
    /// The name of the profile, as `--rules` spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Fide => "fide",
            Profile::App => "app",
            Profile::Online => "online",
        }
    }
}

/// Everything the rules say about one game.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Legal main-line plies replayed, including any after the end.
    pub plies: u32,
    /// Fullmove number and side to move of the starting position.
    pub first_move: (u32, Color),
    /// The first automatic end (and, under `online`, threefold or fifty).
    pub end: Option<End>,
    /// Why the position was dead, when `end` is a dead position.
    pub dead_reason: Option<DeadReason>,
    /// First ply count after which the player to move could claim a draw
    /// by repetition (never under `online`, never at or after `end`).
    pub threefold_claim_ply: Option<u32>,
    /// The same for the fifty-move rule.
    pub fifty_claim_ply: Option<u32>,
    /// The Result tag, or the termination marker when the tag is missing or
    /// invalid.
    pub recorded: Option<GameResult>,
    /// The termination marker's result when it disagrees with a valid
    /// `Result` tag (which `recorded` holds): the record is inconsistent,
    /// one of its two results is wrong, and neither is taken silently.
    pub marker_result: Option<GameResult>,
    /// For a decisive recorded result without checkmate on the board:
    /// whether the winner can mate from the final position.
    pub winner_can_mate: Option<Mateability>,
    /// For a game that ended on time or by resignation, whatever its
    /// recorded result: whether the opponent of the player who ran out of
    /// time or resigned can mate from the final position. A decisive
    /// result without mate is such an end (this is `winner_can_mate`); so
    /// is a draw the `Termination` tag says was on time, the side to move
    /// at the end being the one whose flag fell.
    pub opponent_can_mate: Option<Mateability>,
    /// How 5.1.2/6.9 (or the profile's version of them) was applied, when
    /// the winner cannot mate.
    pub loss_rule: Option<LossRule>,
    /// The result the rules give; `None` when the game could not be
    /// replayed far enough to say.
    pub rules_result: Option<GameResult>,
    /// What stopped the replay: an illegal or unreadable move
    /// (`Code::MoveAfterEnd` when the game had already ended by mate or
    /// stalemate), an invalid FEN, an unsupported variant.
    pub error: Option<Finding>,
    /// The Laws that judged the game (today's under `app` and `online`).
    pub laws: Laws,
    /// The first fivefold repetition or 75-move position that ended
    /// nothing, because those Laws had no 9.6.
    pub suspended: Option<End>,
    /// The opening the game played, when it was asked for
    /// ([`annotate_with`]) and the table names a position it reached.
    pub opening: Option<Opening<'static>>,
}

impl Outcome {
    /// Whether the game could be replayed to its end (a move made after
    /// checkmate or stalemate does not count against it).
    pub fn is_replayed(&self) -> bool {
        self.error
            .as_ref()
            .is_none_or(|e| e.code == Code::MoveAfterEnd)
    }

    /// Whether the recorded result is the one the rules give, and the only
    /// one the record gives (a termination marker that disagrees with the
    /// `Result` tag makes the record inconsistent: not ok).
    pub fn is_result_ok(&self) -> bool {
        self.rules_result.is_some()
            && self.rules_result == self.recorded
            && self.marker_result.is_none()
    }

    /// The outcome of a game that could not be set up (`error` says why).
    fn unreplayed(
        (recorded, marker_result): (Option<GameResult>, Option<GameResult>),
        error: Finding,
        laws: Laws,
    ) -> Outcome {
        Outcome {
            plies: 0,
            first_move: (1, Color::White),
            end: None,
            dead_reason: None,
            threefold_claim_ply: None,
            fifty_claim_ply: None,
            recorded,
            marker_result,
            winner_can_mate: None,
            opponent_can_mate: None,
            loss_rule: None,
            rules_result: None,
            error: Some(error),
            laws,
            suspended: None,
            opening: None,
        }
    }
}

/// The result of `game`'s termination marker when its valid `Result` tag
/// says another.
///
/// # Examples
///
/// ```
/// use pgnkit::input::scan::scan;
/// use pgnkit::rules::game::GameResult;
/// use pgnkit::tasks::annotate_outcome::disagreeing_marker;
/// let games = scan(b"[Result \"1-0\"]\n\n1. e4 0-1\n\n[Result \"1-0\"]\n\n1. e4 1-0\n", true).games;
/// assert_eq!(disagreeing_marker(&games[0]), Some(GameResult::BlackWins));
/// assert_eq!(disagreeing_marker(&games[1]), None);
/// ```
pub fn disagreeing_marker(game: &RawGame<'_>) -> Option<GameResult> {
    let tag = game
        .tag("Result")
        .and_then(|t| GameResult::from_ascii(&t.value))?;
    game.marker.map(|m| m.result).filter(|&m| m != tag)
}

/// What an arbiter must look at in a game's outcome: `annotate-outcome -f
/// text` writes a line for each game with one, `--problems` keeps only
/// those games, and the page draws the position each is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Concern {
    /// The game could not be replayed to its end: the outcome is unknown
    /// (the error says where it stopped).
    NotReplayed,
    /// The termination marker records another result than the `Result` tag.
    Inconsistent { tag: GameResult, marker: GameResult },
    /// The recorded result is not the one the rules give.
    WrongResult {
        recorded: Option<GameResult>,
        rules: GameResult,
    },
    /// The game ended by a dead position after `ply` plies (the result may
    /// be right: the arbiter still sees the proof).
    Dead { ply: u32 },
    /// A draw could be claimed after `ply` plies (by threefold repetition or
    /// the fifty-move rule, `kind`), and the game was not recorded drawn.
    Claimable { kind: EndKind, ply: u32 },
    /// The winner could not mate by any series of legal moves, and the loss
    /// stood (`loss_rule` says why: a resignation before 2023, or a profile
    /// that lets it stand).
    LossStood,
    /// Whether the winner could mate was left undecided.
    Undetermined,
}

impl Concern {
    /// The names of the kinds of concern, as the page and its counts name
    /// them ([`Concern::kind`] indexes them).
    pub const KINDS: [&'static str; 7] = [
        "not-replayed",
        "results-disagree",
        "wrong-result",
        "dead-position",
        "claimable-draw",
        "loss-stood",
        "undetermined",
    ];

    /// The index of the concern's kind in [`Concern::KINDS`].
    pub fn kind(&self) -> usize {
        match self {
            Concern::NotReplayed => 0,
            Concern::Inconsistent { .. } => 1,
            Concern::WrongResult { .. } => 2,
            Concern::Dead { .. } => 3,
            Concern::Claimable { .. } => 4,
            Concern::LossStood => 5,
            Concern::Undetermined => 6,
        }
    }

    /// The plies played to reach the position the concern is about
    /// (`u32::MAX`: the final position reached).
    pub fn plies(&self, outcome: &Outcome) -> u32 {
        match *self {
            Concern::Dead { ply } | Concern::Claimable { ply, .. } => ply,
            Concern::WrongResult { .. } => outcome.end.map_or(u32::MAX, |e| e.ply),
            _ => u32::MAX,
        }
    }
}

impl Outcome {
    /// What an arbiter must look at, in a fixed order; empty for a game
    /// whose outcome is what the record says and raises no question.
    ///
    /// # Examples
    ///
    /// ```
    /// use pgnkit::input::scan::scan;
    /// use pgnkit::rules::ends::EndKind;
    /// use pgnkit::rules::game::GameResult;
    /// use pgnkit::rules::laws::LawsChoice;
    /// use pgnkit::tasks::annotate_outcome::{Concern, Profile, annotate};
    ///
    /// let pgn = b"1.Nf3 Nf6 2.Ng1 Ng8 3.Nf3 Nf6 4.Ng1 Ng8 5.e4 1-0";
    /// let game = &scan(pgn, true).games[0];
    /// let outcome = annotate(game, Profile::Fide, LawsChoice::GameDate);
    /// assert_eq!(
    ///     outcome.concerns(),
    ///     [Concern::Claimable { kind: EndKind::ThreefoldRepetition, ply: 7 }]
    /// );
    /// let mate = &scan(b"1. f3 e5 2. g4 Qh4# 0-1", true).games[0];
    /// assert!(annotate(mate, Profile::Fide, LawsChoice::GameDate).concerns().is_empty());
    /// ```
    pub fn concerns(&self) -> Vec<Concern> {
        let mut found = Vec::new();
        if !self.is_replayed() {
            found.push(Concern::NotReplayed);
        }
        if let (Some(tag), Some(marker)) = (self.recorded, self.marker_result) {
            found.push(Concern::Inconsistent { tag, marker });
        }
        if let Some(rules) = self.rules_result
            && self.recorded != Some(rules)
        {
            found.push(Concern::WrongResult {
                recorded: self.recorded,
                rules,
            });
        }
        if let Some(end) = self.end
            && end.kind == EndKind::DeadPosition
        {
            found.push(Concern::Dead { ply: end.ply });
        }
        if self.recorded != Some(GameResult::Draw) {
            for (kind, ply) in [
                (EndKind::ThreefoldRepetition, self.threefold_claim_ply),
                (EndKind::FiftyMoves, self.fifty_claim_ply),
            ] {
                if let Some(ply) = ply {
                    found.push(Concern::Claimable { kind, ply });
                }
            }
        }
        match &self.winner_can_mate {
            Some(Mateability::No) if self.rules_result == self.recorded => {
                found.push(Concern::LossStood);
            }
            Some(Mateability::Undetermined(_)) => found.push(Concern::Undetermined),
            _ if matches!(self.opponent_can_mate, Some(Mateability::Undetermined(_))) => {
                found.push(Concern::Undetermined);
            }
            _ => {}
        }
        found
    }
}

/// Whether the `Termination` tag says the game was lost on time
/// (`Time forfeit`, `won on time`, …): any value containing the word
/// `time`, case-insensitively.
pub fn is_time_forfeit(game: &RawGame<'_>) -> bool {
    game.tag("Termination")
        .is_some_and(|t| t.value.windows(4).any(|w| w.eq_ignore_ascii_case(b"time")))
}

/// Whether a recorded draw can only have been agreed: the `Termination`
/// tag is absent, says `normal` (the PGN standard's value for a game that
/// ended by the rules of play), or names an agreement (`Game drawn by
/// agreement`). Any other value (a time forfeit against a player who
/// cannot mate, an adjudication, an abandoned game) names a reason 5.2.3
/// does not govern.
fn is_agreement(game: &RawGame<'_>) -> bool {
    game.tag("Termination").is_none_or(|t| {
        let value = t.value.trim_ascii();
        value.eq_ignore_ascii_case(b"normal")
            || value
                .windows(9)
                .any(|w| w.eq_ignore_ascii_case(b"agreement"))
    })
}

/// The plies played in the whole game, those before a FEN start included
/// (its fullmove number and side to move say how many), once `plies` more
/// were replayed: whether both players have moved (5.2.3).
fn plies_played((fullmove, turn): (u32, Color), plies: u32) -> u64 {
    2 * u64::from(fullmove - 1) + u64::from(turn == Color::Black) + u64::from(plies)
}

/// Works out the outcome of `game` under `profile`, judged (under `fide`)
/// by the Laws `laws` chooses for it.
///
/// # Examples
///
/// ```
/// use pgnkit::input::scan::scan;
/// use pgnkit::rules::ends::EndKind;
/// use pgnkit::rules::laws::LawsChoice;
/// use pgnkit::tasks::annotate_outcome::{Profile, annotate};
///
/// let pgn = b"1.Nf3 Nf6 2.Ng1 Ng8 3.Nf3 Nf6 4.Ng1 Ng8 *";
/// let game = &scan(pgn, true).games[0];
/// let by_date = LawsChoice::GameDate;
/// assert_eq!(annotate(game, Profile::Fide, by_date).threefold_claim_ply, Some(7));
/// assert_eq!(annotate(game, Profile::App, by_date).threefold_claim_ply, Some(8));
/// let online = annotate(game, Profile::Online, by_date);
/// assert_eq!(online.end.map(|e| (e.kind, e.ply)), Some((EndKind::ThreefoldRepetition, 8)));
/// ```
pub fn annotate(game: &RawGame<'_>, profile: Profile, laws: LawsChoice) -> Outcome {
    annotate_with(game, profile, laws, None)
}

/// [`annotate`], and the game's opening by the table `openings`
/// ([`Outcome::opening`]).
pub fn annotate_with(
    game: &RawGame<'_>,
    profile: Profile,
    laws: LawsChoice,
    openings: Option<&'static OpeningTable>,
) -> Outcome {
    let recorded = recorded_result(game);
    let marker_result = disagreeing_marker(game);
    let laws = match profile {
        Profile::Fide => Laws::for_game(game, laws),
        Profile::App | Profile::Online => Laws::CURRENT,
    };
    let start = match start_position(game) {
        Ok(start) => start.pos,
        Err(err) => {
            return Outcome::unreplayed((recorded, marker_result), err.finding(game), laws);
        }
    };
    let first_move = (start.fullmoves().get(), start.turn());

    // Pass 1: the replay, with everything that is cheap per ply.
    let mut tracker = Tracker::new(&start, profile, laws);
    let mut openings = openings.map(|t| Classifier::new(t, &start));
    let done = replay(game, start.clone(), |ev| {
        if let Some(c) = openings.as_mut() {
            c.push(ev.ply, ev.after);
        }
        tracker.ply(ev.ply, ev.after, ev.mv);
    });
    let closed = tracker.ends.close(&done.pos, done.plies);
    let suspended = tracker.ends.suspended();
    let mut error = done.error;
    let at = |ply| game.after_ply(ply, first_move);
    if let Some(e) = &mut error
        && closed.mark_move_after_end(e, &at)
        && let Some(suspended) = suspended
    {
        e.message.push_str(&suspended.suspended_note(laws, &at));
    }
    let replayed = error.as_ref().is_none_or(|e| e.code == Code::MoveAfterEnd);

    let winner = recorded.and_then(GameResult::winner);
    let winner_can_mate = winners_question(&done.pos, winner, replayed && !closed.is_mate());
    // A draw on time: the flag of the side to move fell.
    let flagged_draw = recorded == Some(GameResult::Draw) && is_time_forfeit(game);
    let opponent_can_mate = if flagged_draw {
        let opponent = done.pos.turn().other();
        winners_question(&done.pos, Some(opponent), replayed && !closed.is_mate())
    } else {
        winner_can_mate.clone()
    };
    let dead = match profile {
        Profile::Fide if !closed.is_mate() => {
            let known = winner.zip(winner_can_mate.as_ref());
            first_dead_ply(game, &start, &tracker, (&done.pos, done.plies), known)
        }
        _ => None,
    };
    let (end, dead_reason) = first_end(closed.end, dead);

    // Claims exist only before the game ended.
    let before_end = |claim: Option<u32>| claim.filter(|&k| end.is_none_or(|e| k < e.ply));
    let threefold_claim_ply = before_end(tracker.threefold_claim);
    let fifty_claim_ply = before_end(tracker.fifty_claim);

    let mut loss_rule = None;
    let rules_result = match (end, recorded, winner) {
        (Some(end), ..) => Some(end.result(first_move.1)),
        (None, ..) if !replayed => None,
        (None, Some(result), Some(side)) => {
            loss_rule = loss_rule_for(game, profile, laws, &done.pos, side, &winner_can_mate);
            Some(result_after_loss_rule(result, loss_rule))
        }
        (None, Some(GameResult::Draw), None)
            if profile == Profile::Fide
                && done.plies > 0
                && plies_played(first_move, done.plies) < 2
                && threefold_claim_ply.is_none()
                && fifty_claim_ply.is_none()
                && is_agreement(game) =>
        {
            loss_rule = Some(LossRule::EarlyAgreement);
            Some(GameResult::Unfinished)
        }
        (None, Some(GameResult::Draw), None)
            if profile == Profile::Fide
                && flagged_draw
                && matches!(opponent_can_mate, Some(Mateability::Yes { .. })) =>
        {
            loss_rule = Some(LossRule::TimeLoss);
            Some(GameResult::win_for(done.pos.turn().other()))
        }
        (None, Some(result), None) => Some(result),
        (None, None, _) => Some(GameResult::Unfinished),
    };
    Outcome {
        plies: done.plies,
        first_move,
        end,
        dead_reason,
        threefold_claim_ply,
        fifty_claim_ply,
        recorded,
        marker_result,
        winner_can_mate,
        opponent_can_mate,
        loss_rule,
        rules_result,
        error,
        laws,
        suspended,
        opening: openings.and_then(|c| c.opening()),
    }
}

/// The winner's question, for a decisive result without mate: can the
/// `winner` mate from the final position? Asked only when the game was
/// replayed to its end without mate (`ask`). pgnkit's helpmate prover and
/// the exact solver's fast check ([`crate::rules::solver`]) settle nearly every position in a few µs; the
/// full search takes the rest. Only the `fide` profile can turn a loss into
/// a draw on the answer, but every profile reports it.
fn winners_question(final_pos: &Chess, winner: Option<Color>, ask: bool) -> Option<Mateability> {
    winner.filter(|_| ask).map(|side| can_mate(final_pos, side))
}

/// The first dead position under `fide` (FIDE 5.2.2), for a game that did
/// not end in mate: one question on the position of the first end found
/// in the replay (or the final position, after `plies`), then a binary
/// search. `known` is the winner's answer to its question, when it was
/// asked.
/// A position as the dead question sees it: what is on the board, who
/// moves, the castling rights and the en passant square (the move counters
/// change nothing about which series of moves can mate).
#[derive(Debug, Clone, PartialEq, Eq)]
struct DeadKey {
    board: shakmaty::Board,
    turn: Color,
    castles: shakmaty::Bitboard,
    ep: Option<shakmaty::Square>,
}

/// How many verdicts a thread keeps before it starts afresh.
const VERDICTS_KEPT: usize = 4096;

thread_local! {
    /// The dead-position verdicts this thread has reached, by the position's
    /// Zobrist hash, each with its whole position to check against: a hash
    /// collision cannot give one position another's verdict.
    static VERDICTS: std::cell::RefCell<Verdicts> = std::cell::RefCell::new(Verdicts::default());
}

/// The verdicts by Zobrist hash, which is already uniform: no second hash.
type Verdicts = std::collections::HashMap<
    u64,
    (DeadKey, DeadVerdict),
    std::hash::BuildHasherDefault<ZobristKey>,
>;

/// A hasher that passes a Zobrist hash through.
#[derive(Default)]
struct ZobristKey(u64);

impl std::hash::Hasher for ZobristKey {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// [`is_dead_knowing`], asked once per position and thread: the same
/// final position comes again and again (every empty game ends where it
/// starts; short games, forfeits and common exchanges repeat), and the
/// verdict is a function of the position alone (the `known` answer only
/// saves work: it is the same question asked the same way).
fn dead_verdict(pos: &Chess, known: Option<(Color, &Mateability)>) -> DeadVerdict {
    use shakmaty::zobrist::Zobrist64;
    // What costs nothing is not kept.
    if is_dead_by_material(pos.board()) || pos.is_checkmate() {
        return is_dead_knowing(pos, known);
    }
    let key = DeadKey {
        board: pos.board().clone(),
        turn: pos.turn(),
        castles: pos.castles().castling_rights(),
        ep: pos.ep_square(shakmaty::EnPassantMode::Legal),
    };
    let hash = pos
        .zobrist_hash::<Zobrist64>(shakmaty::EnPassantMode::Legal)
        .0;
    let seen = VERDICTS.with_borrow(|v| {
        v.get(&hash)
            .filter(|(k, _)| *k == key)
            .map(|(_, verdict)| *verdict)
    });
    if let Some(verdict) = seen {
        return verdict;
    }
    let verdict = is_dead_knowing(pos, known);
    VERDICTS.with_borrow_mut(|v| {
        if v.len() >= VERDICTS_KEPT {
            v.clear();
        }
        v.insert(hash, (key, verdict));
    });
    verdict
}

fn first_dead_ply(
    game: &RawGame<'_>,
    start: &Chess,
    tracker: &Tracker,
    (final_pos, plies): (&Chess, u32),
    known: Option<(Color, &Mateability)>,
) -> Option<(u32, DeadReason)> {
    let final_alive = matches!(known, Some((_, Mateability::Yes { .. })));
    let (query_ply, verdict) = match (tracker.ends.end(), &tracker.end_pos) {
        (Some(end), _) if end.kind == EndKind::DeadPosition => {
            (end.ply, DeadVerdict::Dead(DeadReason::Material))
        }
        (Some(end), Some(pos)) if !final_alive => (end.ply, dead_verdict(pos, None)),
        (Some(_), _) => return None,
        (None, _) if final_alive => return None,
        (None, _) => (plies, dead_verdict(final_pos, known)),
    };
    let DeadVerdict::Dead(reason) = verdict else {
        return None;
    };
    if query_ply == 0 {
        Some((0, reason))
    } else {
        first_dead(game, start, query_ply, reason)
    }
}

/// The first end of the game: the earliest of `closed` (the automatic end
/// of the replay, or mate or stalemate) and the first dead position, by
/// ply, then precedence; with why the position was dead when it was.
fn first_end(
    closed: Option<End>,
    dead: Option<(u32, DeadReason)>,
) -> (Option<End>, Option<DeadReason>) {
    // The replay finds dead positions by material alone.
    let mut end = closed;
    let mut reason = end
        .filter(|e| e.kind == EndKind::DeadPosition)
        .map(|_| DeadReason::Material);
    if let Some((ply, dead_reason)) = dead {
        let kind = EndKind::DeadPosition;
        if end.is_none_or(|e| (ply, kind) < (e.ply, e.kind)) {
            end = Some(End { kind, ply });
            reason = Some(dead_reason);
        }
    }
    (end, reason)
}

/// The recorded decisive `result` once `rule` (5.1.2/6.9 or the profile's
/// version of them) was applied.
fn result_after_loss_rule(result: GameResult, rule: Option<LossRule>) -> GameResult {
    match rule {
        Some(LossRule::ResignationBefore2023) | None => result,
        Some(_) => GameResult::Draw,
    }
}

/// Which of 5.1.2/6.9 (or the profile's rule) applies to a decisive result
/// without mate on the board, when the winner `side` cannot mate.
fn loss_rule_for(
    game: &RawGame<'_>,
    profile: Profile,
    laws: Laws,
    final_pos: &Chess,
    side: Color,
    winner_can_mate: &Option<Mateability>,
) -> Option<LossRule> {
    match profile {
        Profile::App => None,
        Profile::Online => {
            let board = final_pos.board();
            let bare = (board.by_color(side) & !board.kings()).is_empty();
            bare.then_some(LossRule::BareKing)
        }
        Profile::Fide => {
            // Never flip a result on an undetermined answer.
            if !matches!(winner_can_mate, Some(Mateability::No)) {
                return None;
            }
            Some(if is_time_forfeit(game) {
                LossRule::Time
            } else if !laws.in_force(Article::ResignationException) {
                LossRule::ResignationBefore2023
            } else {
                LossRule::Resignation
            })
        }
    }
}

/// The first ply proven dead among plies `0..=last`, `last` being proven
/// dead for `reason`. Replays the game again to collect the positions: only
/// games that end dead pay for it.
fn first_dead(
    game: &RawGame<'_>,
    start: &Chess,
    last: u32,
    reason: DeadReason,
) -> Option<(u32, DeadReason)> {
    let mut positions = Vec::with_capacity(last as usize + 1);
    positions.push(start.clone());
    replay(game, start.clone(), |ev| {
        if ev.ply <= last {
            positions.push(ev.after.clone());
        }
    });
    let len = positions.len().min(last as usize + 1);
    // Usually the position before is alive (the capture that left a dead
    // material pattern, the move that stalemated): then one question
    // settles it.
    if len >= 2 && is_dead(&positions[len - 2]) == DeadVerdict::Alive {
        return Some((len as u32 - 1, reason));
    }
    first_dead_ply_by(len, |i| {
        if i == len - 1 {
            DeadVerdict::Dead(reason)
        } else {
            is_dead(&positions[i])
        }
    })
    .map(|(i, r)| (i as u32, r))
}

/// The per-ply state of pass 1: the end tracker, the position of its end,
/// the first claims.
struct Tracker {
    profile: Profile,
    ends: EndTracker,
    /// The position at the tracker's end, for the dead-position question.
    end_pos: Option<Chess>,
    threefold_claim: Option<u32>,
    fifty_claim: Option<u32>,
}

impl Tracker {
    fn new(start: &Chess, profile: Profile, laws: Laws) -> Tracker {
        // Counts of 2 must be exact for 9.2.1 (`fide`); the other profiles
        // need exact counts from 3 on.
        let threshold = if profile == Profile::Fide { 2 } else { 3 };
        let rules = match profile {
            Profile::Fide | Profile::App => EndRules::fide(laws),
            Profile::Online => EndRules::ONLINE,
        };
        let mut t = Tracker {
            profile,
            ends: EndTracker::new(start, threshold, rules),
            end_pos: None,
            threefold_claim: None,
            fifty_claim: None,
        };
        match t.ends.end() {
            Some(_) => t.end_pos = Some(start.clone()),
            None => t.claims(0, start, 1),
        }
        t
    }

    #[inline]
    fn ply(&mut self, ply: u32, pos: &Chess, mv: shakmaty::Move) {
        match self.ends.push(ply, pos, mv) {
            Step::Open { occurrences } => self.claims(ply, pos, occurrences),
            Step::Ends(_) => self.end_pos = Some(pos.clone()),
            Step::After(_) => {}
        }
    }

    /// Looks for the first claims in the position after `ply` plies.
    #[inline]
    fn claims(&mut self, ply: u32, pos: &Chess, occurrences: u8) {
        let fide = match self.profile {
            Profile::Online => return,
            Profile::Fide => true,
            Profile::App => false,
        };
        if self.threefold_claim.is_none()
            && (occurrences >= 3 || (fide && self.ends.repetitions().can_claim_with_next_move(pos)))
        {
            self.threefold_claim = Some(ply);
            // The only claim counts serve: past a suspended end (Laws
            // without 9.6), the window of positions need not grow on.
            self.ends.stop_counting();
        }
        if self.fifty_claim.is_none() {
            let halfmoves = pos.halfmoves();
            // 9.3.1: a move that is neither a pawn move nor a capture
            // completes the fifty moves.
            if halfmoves >= 100
                || (fide
                    && halfmoves == 99
                    && pos
                        .legal_moves()
                        .iter()
                        .any(|m| !m.is_capture() && m.role() != Role::Pawn))
            {
                self.fifty_claim = Some(ply);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::scan::scan;

    #[test]
    fn kept_verdicts_are_each_positions_own() {
        let fen = |f: &str| -> Chess {
            f.parse::<shakmaty::fen::Fen>()
                .unwrap()
                .into_position(shakmaty::CastlingMode::Standard)
                .unwrap()
        };
        // A locked pawn wall (dead), the same with White to move (dead),
        // the same wall with a knight (alive), the start position (alive),
        // and the start without castling rights (alive: another key).
        let positions = [
            fen("4k3/8/8/p1p1p1p1/P1P1P1P1/8/8/4K3 b - - 0 1"),
            fen("4k3/8/8/p1p1p1p1/P1P1P1P1/8/8/4K3 w - - 0 1"),
            fen("4k3/8/8/p1p1p1p1/P1P1P1P1/8/8/4K1N1 w - - 0 1"),
            Chess::default(),
            fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"),
        ];
        for _ in 0..3 {
            for pos in &positions {
                assert_eq!(dead_verdict(pos, None), is_dead(pos), "{pos:?}");
            }
        }
        // More positions than are kept: the cache starts afresh, and still
        // answers right.
        let mut many = Vec::new();
        'fill: for king in shakmaty::Square::ALL {
            for rook in shakmaty::Square::ALL {
                for turn in ["w", "b"] {
                    let mut board = shakmaty::Board::empty();
                    board.set_piece_at(shakmaty::Square::H8, Color::Black.king());
                    board.set_piece_at(king, Color::White.king());
                    board.set_piece_at(rook, Color::White.rook());
                    let text = format!("{board} {turn} - - 0 1");
                    if king == rook || king == shakmaty::Square::H8 || rook == shakmaty::Square::H8
                    {
                        continue;
                    }
                    if let Ok(fen) = text.parse::<shakmaty::fen::Fen>()
                        && let Ok(pos) =
                            fen.into_position::<Chess>(shakmaty::CastlingMode::Standard)
                    {
                        many.push(pos);
                        if many.len() > VERDICTS_KEPT + 10 {
                            break 'fill;
                        }
                    }
                }
            }
        }
        assert!(many.len() > VERDICTS_KEPT);
        for (i, pos) in many.iter().enumerate() {
            let verdict = dead_verdict(pos, None);
            if i % 97 == 0 {
                assert_eq!(verdict, is_dead(pos));
            }
        }
        for pos in &positions {
            assert_eq!(dead_verdict(pos, None), is_dead(pos));
        }
        VERDICTS.with_borrow(|v| assert!(v.len() <= VERDICTS_KEPT));
    }

    fn outcome(pgn: &str, profile: Profile) -> Outcome {
        let scan = scan(pgn.as_bytes(), true);
        annotate(&scan.games[0], profile, LawsChoice::GameDate)
    }

    fn end(o: &Outcome) -> Option<(&'static str, u32)> {
        o.end.map(|e| (e.kind.as_str(), e.ply))
    }

    const KNIGHTS: &str =
        "1.Nf3 Nf6 2.Ng1 Ng8 3.Nf3 Nf6 4.Ng1 Ng8 5.Nf3 Nf6 6.Ng1 Ng8 7.Nf3 Nf6 8.Ng1 Ng8";

    #[test]
    fn knights_out_and_back_in_every_profile() {
        let pgn = format!("[Result \"1/2-1/2\"]\n\n{KNIGHTS} 1/2-1/2\n");
        let fide = outcome(&pgn, Profile::Fide);
        assert_eq!(fide.threefold_claim_ply, Some(7));
        assert_eq!(end(&fide), Some(("fivefold-repetition", 16)));
        assert_eq!(fide.rules_result, Some(GameResult::Draw));
        assert!(fide.is_result_ok());
        let app = outcome(&pgn, Profile::App);
        assert_eq!(app.threefold_claim_ply, Some(8));
        assert_eq!(end(&app), Some(("fivefold-repetition", 16)));
        let online = outcome(&pgn, Profile::Online);
        assert_eq!(online.threefold_claim_ply, None);
        assert_eq!(end(&online), Some(("threefold-repetition", 8)));
    }

    #[test]
    fn claims_stop_at_the_end() {
        // Fivefold at 16 ends the game before any fifty-move claim.
        let o = outcome(&format!("{KNIGHTS} 9.Nf3 *"), Profile::Fide);
        assert_eq!(o.plies, 17);
        assert_eq!(end(&o), Some(("fivefold-repetition", 16)));
        assert_eq!(o.rules_result, Some(GameResult::Draw));
        assert!(!o.is_result_ok());
    }

    fn from_fen(fen: &str, moves: &str, result: &str) -> String {
        format!("[SetUp \"1\"]\n[FEN \"{fen}\"]\n[Result \"{result}\"]\n\n{moves} {result}\n")
    }

    #[test]
    fn fifty_moves_count_from_the_fen_clock() {
        // Clock at 98, White to move: after 1.Kb1 (99) Black may claim with
        // an intended quiet move (9.3.1); after 1...Kb8 (100) anyone may
        // (9.3.2).
        let pgn = from_fen("k7/8/8/8/8/8/8/KR6 w - - 98 60", "60. Kb2 Ka7 61. Kb3", "*");
        assert_eq!(outcome(&pgn, Profile::Fide).fifty_claim_ply, Some(1));
        assert_eq!(outcome(&pgn, Profile::App).fifty_claim_ply, Some(2));
        let online = outcome(&pgn, Profile::Online);
        assert_eq!(online.fifty_claim_ply, None);
        assert_eq!(end(&online), Some(("fifty-moves", 2)));
        // At 99 on the start position itself.
        let pgn = from_fen("k7/8/8/8/8/8/8/KR6 w - - 99 60", "60. Kb2", "*");
        assert_eq!(outcome(&pgn, Profile::Fide).fifty_claim_ply, Some(0));
    }

    #[test]
    fn seventy_five_moves_and_mate_on_the_150th_ply() {
        // Clock at 149: the next quiet move completes 75 moves.
        let pgn = from_fen("k7/8/1K6/8/8/8/8/7R w - - 149 100", "100. Rh2", "1/2-1/2");
        let o = outcome(&pgn, Profile::Fide);
        assert_eq!(end(&o), Some(("seventy-five-moves", 1)));
        assert!(o.is_result_ok());
        // The same ply mates: the mate stands.
        let pgn = from_fen("k7/8/1K6/8/8/8/8/7R w - - 149 100", "100. Rh8#", "1-0");
        let o = outcome(&pgn, Profile::Fide);
        assert_eq!(end(&o), Some(("checkmate", 1)));
        assert_eq!(o.rules_result, Some(GameResult::WhiteWins));
        // Under online too, a mate completing fifty moves stands.
        let pgn = from_fen("k7/8/1K6/8/8/8/8/7R w - - 99 100", "100. Rh8#", "1-0");
        assert_eq!(end(&outcome(&pgn, Profile::Online)), Some(("checkmate", 1)));
    }

    #[test]
    fn resignation_and_time_against_a_player_who_cannot_mate() {
        // the exact solver's README position (lichess.org/ijyj0mHa): Black's
        // pieces are walled in and can never mate; White can. Black "won".
        let fen = "5b2/p7/Pp3k2/1Pp1pBp1/2P1P1P1/5K2/8/8 w - - 0 1";
        let game = |tags: &str| {
            format!("[SetUp \"1\"]\n[FEN \"{fen}\"]\n{tags}[Result \"0-1\"]\n\n1. Ke3 0-1\n")
        };
        let o = outcome(&game("[Date \"2024.05.01\"]\n"), Profile::Fide);
        assert_eq!(o.winner_can_mate, Some(Mateability::No));
        assert_eq!(o.loss_rule, Some(LossRule::Resignation));
        assert_eq!(o.rules_result, Some(GameResult::Draw));
        assert_eq!(o.end, None);
        // Before 2023 a resignation stood.
        let o = outcome(&game("[Date \"2019.05.01\"]\n"), Profile::Fide);
        assert_eq!(o.loss_rule, Some(LossRule::ResignationBefore2023));
        assert_eq!(o.rules_result, Some(GameResult::BlackWins));
        // A loss on time is a draw whatever the date.
        let tags = "[Date \"2019.05.01\"]\n[Termination \"Time forfeit\"]\n";
        let o = outcome(&game(tags), Profile::Fide);
        assert_eq!(o.loss_rule, Some(LossRule::Time));
        assert_eq!(o.rules_result, Some(GameResult::Draw));
        // Undated games follow the current Laws.
        let o = outcome(&game("[Date \"????.??.??\"]\n"), Profile::Fide);
        assert_eq!(o.rules_result, Some(GameResult::Draw));
        // app: as recorded; online: only a bare king draws.
        for profile in [Profile::App, Profile::Online] {
            let o = outcome(&game(""), profile);
            assert_eq!(o.winner_can_mate, Some(Mateability::No));
            assert_eq!(o.rules_result, Some(GameResult::BlackWins), "{profile:?}");
        }
        let bare = "[SetUp \"1\"]\n[FEN \"8/8/4k3/8/8/8/4q3/7K w - - 0 1\"]\n[Result \"1-0\"]\n\n1. Kg1 1-0\n";
        for profile in [Profile::Fide, Profile::Online] {
            let o = outcome(bare, profile);
            assert_eq!(o.winner_can_mate, Some(Mateability::No));
            assert_eq!(o.rules_result, Some(GameResult::Draw), "{profile:?}");
        }
        assert_eq!(
            outcome(bare, Profile::Online).loss_rule,
            Some(LossRule::BareKing)
        );
    }

    #[test]
    fn the_opponent_of_a_flag_or_a_resignation_is_asked_whatever_the_result() {
        let time = "[Termination \"Time forfeit\"]\n";
        // A draw on time against a bare king (Black to move flagged; White
        // has only its king): lichess's draw is the Laws' too.
        let bare = from_fen("4k3/q7/8/8/8/8/8/4K3 b - - 0 1", "", "1/2-1/2");
        let bare = format!("{time}{bare}");
        let o = outcome(&bare, Profile::Fide);
        assert_eq!(o.opponent_can_mate, Some(Mateability::No));
        assert_eq!(o.winner_can_mate, None);
        assert_eq!(
            (o.rules_result, o.loss_rule),
            (Some(GameResult::Draw), None)
        );
        // The same flag with a rook left to White: mate exists, so the flag
        // lost (6.9), whatever the site scored. (A knight would not do:
        // against a lone queen, the only piece that could block its king,
        // no series of moves mates.)
        let rook = format!(
            "{time}{}",
            from_fen("4k3/q7/8/8/8/8/8/4K2R b - - 0 1", "", "1/2-1/2")
        );
        let o = outcome(&rook, Profile::Fide);
        assert!(matches!(o.opponent_can_mate, Some(Mateability::Yes { .. })));
        assert_eq!(o.rules_result, Some(GameResult::WhiteWins));
        assert!(!o.is_result_ok());
        // Profiles other than fide report the answer and keep the result.
        let o = outcome(&rook, Profile::App);
        assert!(matches!(o.opponent_can_mate, Some(Mateability::Yes { .. })));
        assert_eq!(o.rules_result, Some(GameResult::Draw));
        // A decisive result: the opponent of the loser is the winner.
        let resigned = from_fen("4k3/q7/8/8/8/8/8/4K3 w - - 0 1", "", "0-1");
        let o = outcome(&resigned, Profile::Fide);
        assert_eq!(o.opponent_can_mate, o.winner_can_mate);
        assert!(matches!(o.opponent_can_mate, Some(Mateability::Yes { .. })));
        // A draw not on time asks nothing.
        let agreed = from_fen("4k3/q7/8/8/8/8/8/4K2R b - - 0 1", "", "1/2-1/2");
        assert_eq!(outcome(&agreed, Profile::Fide).opponent_can_mate, None);
    }

    #[test]
    fn a_draw_agreed_before_both_players_moved_is_no_draw() {
        let draw =
            |tags: &str, moves: &str| format!("{tags}[Result \"1/2-1/2\"]\n\n{moves} 1/2-1/2\n");
        // 5.2.3: White's move only: the game had not ended.
        let o = outcome(&draw("", "1. e4"), Profile::Fide);
        assert_eq!(o.loss_rule, Some(LossRule::EarlyAgreement));
        assert_eq!(o.rules_result, Some(GameResult::Unfinished));
        assert!(!o.is_result_ok());
        // A game published without moves (TWIC has several): its moves are
        // unknown, not a draw agreed before anyone moved. The result stands,
        // as validate says (issue 25).
        let o = outcome(&draw("[Date \"2025.05.03\"]\n", ""), Profile::Fide);
        assert_eq!(
            (o.loss_rule, o.rules_result),
            (None, Some(GameResult::Draw))
        );
        assert!(o.is_result_ok());
        // A FEN start counts the moves its move number says were played:
        // at move 1 with White to move, none; with Black to move, White's.
        for (fen, moves, early) in [
            ("4k3/8/8/8/8/8/3P4/4K3 w - - 0 1", "1. Kd1", true),
            ("4k3/8/8/8/8/8/3P4/4K3 w - - 0 1", "1. Kd1 Kd7", false),
            ("4k3/8/8/8/8/8/3P4/4K3 b - - 0 1", "", false),
            ("4k3/8/8/8/8/8/3P4/4K3 b - - 0 1", "1... Kd7", false),
            ("4k3/8/8/8/8/8/3P4/4K3 w - - 0 2", "", false),
            ("4k3/8/8/8/8/8/3P4/4K3 b - - 0 30", "", false),
        ] {
            let o = outcome(&from_fen(fen, moves, "1/2-1/2"), Profile::Fide);
            let expected = early.then_some(LossRule::EarlyAgreement);
            assert_eq!(o.loss_rule, expected, "{fen} {moves}");
        }
        // One move each: agreed.
        let o = outcome(&draw("", "1. e4 e5"), Profile::Fide);
        assert_eq!(
            (o.loss_rule, o.rules_result),
            (None, Some(GameResult::Draw))
        );
        // A Termination tag naming another reason; "normal" and an
        // agreement are no other reason.
        for agreed in ["Normal", "Game drawn by agreement"] {
            let tags = format!("[Termination \"{agreed}\"]\n");
            let o = outcome(&draw(&tags, "1. e4"), Profile::Fide);
            assert_eq!(o.loss_rule, Some(LossRule::EarlyAgreement), "{agreed}");
        }
        for reason in ["adjudication", "abandoned"] {
            let tags = format!("[Termination \"{reason}\"]\n");
            let o = outcome(&draw(&tags, "1. e4"), Profile::Fide);
            assert_eq!(o.rules_result, Some(GameResult::Draw), "{reason}");
        }
        // A draw on time is no agreement either; but Black's flag fell
        // (Black was to move) and White could mate: 6.9 gives White the game.
        let o = outcome(
            &draw("[Termination \"time forfeit\"]\n", "1. e4"),
            Profile::Fide,
        );
        assert_eq!(
            (o.loss_rule, o.rules_result),
            (Some(LossRule::TimeLoss), Some(GameResult::WhiteWins))
        );
        // The board or a claim explains the draw: a dead position, or the
        // fifty-move claim the FEN's clock allows at once.
        let dead = from_fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1", "", "1/2-1/2");
        assert_eq!(
            outcome(&dead, Profile::Fide).rules_result,
            Some(GameResult::Draw)
        );
        let fifty = from_fen("4k3/8/8/8/8/8/8/R3K3 w - - 100 80", "80. Ra2", "1/2-1/2");
        let o = outcome(&fifty, Profile::Fide);
        assert_eq!(
            (o.fifty_claim_ply, o.rules_result),
            (Some(0), Some(GameResult::Draw))
        );
        // Only the fide profile applies the rule.
        for profile in [Profile::App, Profile::Online] {
            let o = outcome(&draw("", "1. e4"), profile);
            assert_eq!(o.rules_result, Some(GameResult::Draw), "{profile:?}");
        }
    }

    #[test]
    fn a_winner_who_can_mate_keeps_the_win() {
        let o = outcome(
            "[Result \"0-1\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 0-1\n",
            Profile::Fide,
        );
        assert!(matches!(o.winner_can_mate, Some(Mateability::Yes { .. })));
        assert_eq!(o.rules_result, Some(GameResult::BlackWins));
        assert_eq!(o.end, None);
    }

    #[test]
    fn locked_pawn_wall_is_found_at_its_first_ply() {
        // The g-pawns lock the last open files (as in rules::dead's test).
        let pgn = from_fen(
            "4k3/6p1/8/p1p1p3/P1P1P3/8/6P1/4K3 w - - 0 1",
            "1. g4 g5 2. Kf2 Kf7 3. Kg3 Kg6",
            "1/2-1/2",
        );
        let o = outcome(&pgn, Profile::Fide);
        let (kind, ply) = end(&o).unwrap();
        assert_eq!(kind, "dead-position");
        assert!(ply <= 2, "{ply}");
        assert_eq!(o.dead_reason, Some(DeadReason::Unwinnable));
        // app and online know only the material patterns.
        assert_eq!(outcome(&pgn, Profile::App).end, None);
        assert_eq!(outcome(&pgn, Profile::Online).end, None);
    }

    #[test]
    fn material_dead_position_and_moves_after_it() {
        // K+N v K after 1.Kxd2: dead at ply 1, the rest comes after.
        let pgn = from_fen(
            "4k3/8/8/8/8/8/3p4/3K2N1 w - - 0 1",
            "1. Kxd2 Kd7 2. Nf3",
            "1/2-1/2",
        );
        for profile in [Profile::Fide, Profile::App, Profile::Online] {
            let o = outcome(&pgn, profile);
            assert_eq!(end(&o), Some(("dead-position", 1)), "{profile:?}");
            assert_eq!(o.dead_reason, Some(DeadReason::Material));
            assert_eq!(o.plies, 3);
        }
    }

    #[test]
    fn stalemate_takes_precedence_over_dead_on_the_same_ply() {
        let pgn = "[SetUp \"1\"]\n[FEN \"7k/8/6K1/8/8/8/8/5Q2 w - - 0 1\"]\n[Result \"1-0\"]\n\n1. Qf7 1-0\n";
        let o = outcome(pgn, Profile::Fide);
        assert_eq!(end(&o), Some(("stalemate", 1)));
        assert_eq!(o.rules_result, Some(GameResult::Draw));
        assert_eq!(o.winner_can_mate, Some(Mateability::No));
    }

    #[test]
    fn illegal_move_is_annotated_up_to_it() {
        let o = outcome("[Result \"1-0\"]\n\n1. e4 e5 2. Ke3 1-0\n", Profile::Fide);
        assert_eq!(o.plies, 2);
        assert!(!o.is_replayed());
        assert_eq!(o.rules_result, None);
        assert_eq!(o.winner_can_mate, None);
        // A move after mate is not a replay failure.
        let o = outcome(
            "[Result \"1-0\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# Ke7 1-0\n",
            Profile::Fide,
        );
        assert!(o.is_replayed());
        assert_eq!(end(&o), Some(("checkmate", 7)));
        assert!(o.is_result_ok());
        // Worded as validate words it.
        let error = o.error.expect("the move after mate is reported");
        assert_eq!(error.code, Code::MoveAfterEnd);
        assert_eq!(error.ply, Some(8));
        assert_eq!(
            error.message,
            "the game had ended by checkmate after 4.Qxf7#"
        );
    }

    #[test]
    fn en_passant_square_counts_only_when_the_capture_is_legal() {
        // After 1.e4 the e3 square is phantom: the position after 3.Ng1
        // ... repeats it. With a capture possible it would not.
        let o = outcome(
            "1. e4 Nf6 2. Nf3 Ng8 3. Ng1 Nf6 4. Nf3 Ng8 5. Ng1 *",
            Profile::App,
        );
        // Position after 1...Nf6 2.Nf3 Ng8 ... : 1.e4 (ply 1) recurs at
        // plies 5 and 9 (Black to move).
        assert_eq!(o.threefold_claim_ply, Some(9));
    }

    #[test]
    fn resignations_are_judged_by_the_date_or_the_event_date() {
        // The walled-in position of the resignation test: Black "won".
        let fen = "5b2/p7/Pp3k2/1Pp1pBp1/2P1P1P1/5K2/8/8 w - - 0 1";
        let game = |tags: &str| {
            format!("[SetUp \"1\"]\n[FEN \"{fen}\"]\n{tags}[Result \"0-1\"]\n\n1. Ke3 0-1\n")
        };
        let rule = |tags: &str, laws: LawsChoice| {
            let pgn = game(tags);
            annotate(&scan(pgn.as_bytes(), true).games[0], Profile::Fide, laws).loss_rule
        };
        let before = Some(LossRule::ResignationBefore2023);
        let since = Some(LossRule::Resignation);
        let by_date = LawsChoice::GameDate;
        for (tags, expected) in [
            ("[Date \"2022.12.31\"]\n", before),
            ("[Date \"1851.??.??\"]\n", before),
            ("[Date \"2023.01.01\"]\n", since),
            ("[Date \"????.??.??\"]\n", since),
            ("[Date \"20?3.01.01\"]\n", since),
            (
                "[Date \"????.??.??\"]\n[EventDate \"2019.??.??\"]\n",
                before,
            ),
            ("[EventDate \"2019.10.01\"]\n", before),
        ] {
            assert_eq!(rule(tags, by_date), expected, "{tags}");
        }
        let old = "[Date \"2019.05.01\"]\n";
        assert_eq!(rule(old, LawsChoice::Current), since);
        assert_eq!(rule(old, "2023-01-01".parse().unwrap()), since);
        assert_eq!(rule("", "2022-12-31".parse().unwrap()), before);
    }

    /// A real game from before July 2014 that went on after a fifth
    /// repetition: Zukertort-Steinitz, world championship 1886, round 11
    /// (fixtures/annotate/fivefold_before_2014.pgn).
    const ZUKERTORT: &str = include_str!("../../fixtures/annotate/fivefold_before_2014.pgn");

    #[test]
    fn before_july_2014_a_fifth_repetition_ends_nothing() {
        let game = &scan(ZUKERTORT.as_bytes(), true).games[0];
        let old = annotate(game, Profile::Fide, LawsChoice::GameDate);
        let now = annotate(game, Profile::Fide, LawsChoice::Current);
        assert_eq!(now.end.map(|e| e.kind), Some(EndKind::FivefoldRepetition));
        assert_eq!(old.end, None);
        assert_eq!(old.suspended, now.end);
        assert!(now.plies > now.end.unwrap().ply);
        assert_eq!(old.plies, now.plies);
        // The claims stay as they are; the recorded result stands.
        assert_eq!(old.threefold_claim_ply, now.threefold_claim_ply);
        assert!(old.threefold_claim_ply.is_some());
        assert!(old.is_result_ok());
        assert_eq!(old.laws.to_string(), "1886.??.??");
        assert_eq!(now.laws.to_string(), "current");
        // The Laws of a day for every game; app follows today's.
        let on = |day: &str| annotate(game, Profile::Fide, day.parse().unwrap()).end;
        assert_eq!(on("2014-06-30"), None);
        assert_eq!(on("2014-07-01"), now.end);
        let app = annotate(game, Profile::App, LawsChoice::GameDate);
        assert_eq!(app.end.map(|e| e.kind), Some(EndKind::FivefoldRepetition));
    }

    #[test]
    fn claims_after_a_suspended_end_are_still_found() {
        // Knights out and back eight times (fivefold at ply 16, ending
        // nothing in 2010), then a pawn move and the same again: the first
        // claims are those of the first round; the game ends by nothing.
        let pgn = format!("[Date \"2010.01.01\"]\n\n{KNIGHTS} 9. e4 e5 *\n");
        let o = outcome(&pgn, Profile::Fide);
        assert_eq!((o.end, o.threefold_claim_ply), (None, Some(7)));
        assert_eq!(o.suspended.map(|e| e.ply), Some(16));
        assert_eq!(o.rules_result, Some(GameResult::Unfinished));
        assert!(o.is_result_ok());
        // A long quiet stretch under Laws without 9.6: the 75 moves end
        // nothing, the fifty-move claim comes at its ply.
        let pgn = from_fen(
            "k7/8/1K6/8/8/8/8/7R w - - 98 60",
            "60. Rh2 Ka7 61. Rh1",
            "*",
        );
        let pgn = pgn.replace("[SetUp", "[Date \"1990.??.??\"]\n[SetUp");
        let o = outcome(&pgn, Profile::Fide);
        assert_eq!(o.fifty_claim_ply, Some(1));
        assert_eq!(o.end, None);
    }
}
