//! Bytes in: opening files and standard input, decompression, splitting the
//! stream into chunks at game boundaries, and scanning PGN into games.
pub mod chunk;
pub mod lines;
pub mod open;
pub mod scan;
