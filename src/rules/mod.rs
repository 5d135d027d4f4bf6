//! The rules core: pure functions over shakmaty positions. No files, no
//! printing, no threads, no command-line types.
pub mod attacks;
pub mod commands;
pub mod dead;
pub mod diagram;
pub mod ends;
pub mod finding;
pub mod game;
pub mod helpmate;
pub mod identity;
pub mod laws;
pub mod mateability;
pub mod movetext;
pub mod notation;
pub mod openings;
pub mod perft;
pub mod repair;
pub mod replay;
pub mod san;
pub mod select;
pub mod setup;
pub mod solver;
pub mod time_control;
pub mod tournament;
