//! Integration tests: each module runs the real `pgnkit` binary on fixtures.

mod annotate_outcome;
mod between_runs;
mod bounds;
mod cli;
mod clocks;
mod columnar;
mod convert;
mod dedupe;
mod fuzz_replay;
mod hostile;
mod layers;
mod merge;
mod openings;
mod page;
mod perft;
mod problem_games;
mod readme;
mod records;
mod repairs;
mod select;
mod shards;
mod solver_bound;
mod tournament;
mod util;
mod validate;
