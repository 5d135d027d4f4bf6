//! What of a game's movetext can be written back as it was read: the
//! tokens that stay balanced when a game ended inside a variation
//! ([`closed_tokens`]), and the findings about the damage the scanner
//! recovered from and about the termination marker ([`damage`],
//! [`marker_finding`]). `validate` reports the marker finding among its
//! own, and every writer of games (`annotate-outcome`, `convert`) reports
//! the damage and writes [`closed_tokens`]: the findings are decided here,
//! once, and rendering them is `output`'s.

use super::finding::{Code, Finding};
use super::game::{GameResult, RawGame, Token, TokenKind};

/// `tokens` without a variation the game ended in before closing it: from
/// the `(` of the outermost variation still open to the end. What is left
/// is balanced, so that the PGN written from it parses.
///
/// # Examples
///
/// ```
/// use pgnkit::input::scan::scan;
/// use pgnkit::rules::movetext::closed_tokens;
/// let scan = scan(b"1. e4 (1. d4) e5 (1... c5 (1... e6) 2. Nf3", true);
/// assert_eq!(closed_tokens(&scan.games[0].tokens).len(), 5);
/// ```
pub fn closed_tokens<'t, 'a>(tokens: &'t [Token<'a>]) -> &'t [Token<'a>] {
    // Balanced exactly when the last token is on the main line or is the
    // `)` of a variation of the main line.
    match tokens.last() {
        Some(t) if t.depth > 1 || (t.depth == 1 && t.kind != TokenKind::VariationEnd) => {
            let open = tokens
                .iter()
                .rposition(|t| t.depth == 1 && t.kind == TokenKind::VariationStart)
                .expect("a token inside a variation follows its `(`");
            &tokens[..open]
        }
        _ => tokens,
    }
}

/// Why the movetext of `game` cannot be written back as it was read, as
/// `validate` says it: every `syntax` finding of the scanner (an unclosed
/// comment or variation, a stray `)` or `}`, a malformed tag or NAG: what
/// it could not read is not written), a movetext without a termination
/// marker, and a marker that disagrees with the Result tag (either way the
/// marker written is the recorded result, else `*`). Empty for a sound
/// game.
///
/// # Examples
///
/// ```
/// use pgnkit::input::scan::scan;
/// use pgnkit::rules::movetext::damage;
/// let scan = scan(b"[Event \"a\"]\n\n1. e4 e5 ({never closed\n", true);
/// let found: Vec<String> = damage(&scan.games[0]).iter().map(|f| f.message.clone()).collect();
/// assert_eq!(found, [
///     "comment not closed before the end of the input",
///     "the movetext has no termination marker (1-0, 0-1, 1/2-1/2 or *)",
/// ]);
/// ```
pub fn damage(game: &RawGame<'_>) -> Vec<Finding> {
    let mut found: Vec<Finding> = game
        .findings
        .iter()
        .filter(|f| f.code == Code::Syntax)
        .cloned()
        .collect();
    // The game is written back with one result: say when the marker was
    // missing or said another (a tag section without movetext is a layout
    // matter, not this one).
    let tag = game
        .tag("Result")
        .and_then(|t| GameResult::from_ascii(&t.value));
    found.extend(marker_finding(game, tag));
    found
}

/// The `result-mismatch` finding about the termination marker of a game
/// with movetext, given its Result tag's result when valid: none in the
/// movetext, or one that disagrees with the tag. `validate` reports it, and
/// so does [`damage`], for the writers of games.
pub fn marker_finding(game: &RawGame<'_>, tag: Option<GameResult>) -> Option<Finding> {
    match (game.marker, tag) {
        (None, _) if !game.tokens.is_empty() => {
            let line = game.tokens.last().map_or(game.line, |t| t.line);
            Some(Finding::game(
                Code::ResultMismatch,
                line,
                "the movetext has no termination marker (1-0, 0-1, 1/2-1/2 or *)",
            ))
        }
        (Some(marker), Some(tag)) if marker.result != tag => Some(Finding::game(
            Code::ResultMismatch,
            marker.line,
            format!(
                "the termination marker {} disagrees with the Result tag {tag}",
                marker.result
            ),
        )),
        _ => None,
    }
}
