//! Bytes in: opening files and standard input with decompression
//! ([`open`]), splitting PGN into chunks at game boundaries ([`chunk`]),
//! scanning PGN into games ([`scan`]), finding where a `--byte-range`
//! shard starts and ends ([`range`]), and telling line-based inputs by
//! their first bytes and splitting them into lines ([`lines`]); what
//! goes wrong there is [`error`]'s.
//!
//! This layer knows bytes only: it imports nothing from `stream`, `output`
//! or `cmd`. Driving inputs through the workers is [`crate::stream`]'s job.
pub mod chunk;
pub mod error;
pub mod lines;
pub mod open;
pub mod range;
pub mod scan;
