//! What each subcommand asks of the rules core: `validate`'s checks of a
//! game ([`validate`]), `annotate-outcome`'s reading of how a game ended
//! ([`annotate_outcome`]) and `convert`'s replay into normalised games
//! ([`convert`]). Each is built from the chess concepts of
//! [`crate::rules`] and, like them, is pure: no files, no printing, no
//! threads, no command-line types. Rendering the answers is
//! [`crate::output`]'s, driving them over inputs [`crate::cmd`]'s.
pub mod annotate_outcome;
pub mod convert;
pub mod validate;
