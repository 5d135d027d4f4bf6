//! The rules core: pure functions over shakmaty positions. No files, no
//! printing, no threads, no command-line types.
pub mod dead;
pub mod perft;
