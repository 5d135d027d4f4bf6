//! The answer to "can this side still checkmate?": [`Mateability`], and
//! why a question about mate or a dead position was left undecided
//! ([`UndeterminedReason`]). [`super::dead`] asks the question and
//! [`super::solver`] answers part of it; both speak these types, which live
//! here so that neither imports the other's.

use shakmaty::uci::UciMove;

/// Whether a side can checkmate by some series of legal moves.
///
/// # Examples
///
/// ```
/// use pgnkit::rules::dead::can_mate;
/// use pgnkit::rules::mateability::Mateability;
/// use shakmaty::{CastlingMode, Chess, Color, fen::Fen};
///
/// // King and knight against king: White can never mate.
/// let pos: Chess = "8/8/8/4k3/8/8/8/4K1N1 w - - 0 1"
///     .parse::<Fen>()?
///     .into_position(CastlingMode::Standard)?;
/// assert_eq!(can_mate(&pos, Color::White), Mateability::No);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mateability {
    /// The side can mate. `helpmate` is one series of legal moves from the
    /// position (alternating, starting with the side to move) that ends with
    /// that side delivering checkmate; it has been replayed and checked.
    /// It is empty when the position already is checkmate.
    Yes {
        /// The mating line in UCI notation (standard castling: `e1g1`).
        helpmate: Vec<UciMove>,
    },
    /// Proven: no series of legal moves ends with this side mating.
    No,
    /// Not decided; the reason says why.
    Undetermined(UndeterminedReason),
}

impl Mateability {
    /// The three answers' words, as [`Mateability::word`] writes them.
    pub const WORDS: [&'static str; 3] = ["yes", "no", "undetermined"];

    /// `yes`, `no` or `undetermined`: the answer without its line or
    /// reason, stable for CSV and JSON output.
    pub fn word(&self) -> &'static str {
        match self {
            Mateability::Yes { .. } => Mateability::WORDS[0],
            Mateability::No => Mateability::WORDS[1],
            Mateability::Undetermined(_) => Mateability::WORDS[2],
        }
    }
}

/// Why a question about mate or a dead position was left undecided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UndeterminedReason {
    /// The position holds Chess960 castling rights, which the solver's board
    /// representation cannot hold.
    Chess960Castling,
    /// The position could not be converted for the solver.
    Conversion,
    /// The solver reached one of its node limits, or the bound pgnkit sets
    /// on its work per question, without an answer.
    SearchLimit,
    /// The solver panicked, or returned a mating line that does not replay
    /// as checkmate: a bug in the solver, reported rather than believed.
    SolverFailure,
}

impl UndeterminedReason {
    /// Every reason.
    pub const ALL: [UndeterminedReason; 4] = [
        UndeterminedReason::Chess960Castling,
        UndeterminedReason::Conversion,
        UndeterminedReason::SearchLimit,
        UndeterminedReason::SolverFailure,
    ];

    /// A short snake_case name, stable for CSV and JSON output.
    ///
    /// # Examples
    ///
    /// ```
    /// use pgnkit::rules::mateability::UndeterminedReason;
    ///
    /// assert_eq!(UndeterminedReason::SearchLimit.as_str(), "search_limit");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            UndeterminedReason::Chess960Castling => "chess960_castling",
            UndeterminedReason::Conversion => "conversion",
            UndeterminedReason::SearchLimit => "search_limit",
            UndeterminedReason::SolverFailure => "solver_failure",
        }
    }
}
