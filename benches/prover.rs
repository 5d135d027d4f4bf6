//! The helpmate prover on the final positions of real games: a speed and
//! sameness harness for work on `src/rules/helpmate.rs`.
//!
//!   cargo bench --bench prover -- GAMES.pgn [same]
//!
//! Asks the question `annotate-outcome` asks of every game without mate on
//! the board (the winner's side for a decisive result, the side that moved
//! last otherwise), once, at the default budget, and prints the time. With
//! `same` it asks it for both sides at five budgets and prints a hash of
//! every line found: a change to the prover that is meant to make it faster
//! and nothing else must leave the hash as it was (node accounting
//! included, which the small budgets expose). Run it under
//! `valgrind --tool=callgrind` for instruction counts.

use std::io::Write;
use std::time::Instant;

use pgnkit::input::scan::scan;
use pgnkit::rules::dead::{HELPMATE_BUDGET, WINNER_PLAN_BUDGET};
use pgnkit::rules::game::recorded_result;
use pgnkit::rules::helpmate::{find_helpmate, find_helpmate_spread};
use pgnkit::rules::replay::replay;
use pgnkit::rules::setup::start_position;
use shakmaty::{Move, Position};

/// FNV-1a over 64-bit words.
fn mix(hash: &mut u64, word: u64) {
    *hash = (*hash ^ word).wrapping_mul(0x100_0000_01b3);
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let path = args.next().ok_or("usage: prover GAMES.pgn [same]")?;
    let same = args.next().is_some_and(|a| a == "same");
    let bytes = std::fs::read(&path)?;
    let games = scan(&bytes, true).games;
    let mut questions = Vec::new();
    for game in &games {
        let Ok(start) = start_position(game) else {
            continue;
        };
        let done = replay(game, start.pos, |_| {});
        if done.error.is_some() || done.pos.is_checkmate() {
            continue;
        }
        let side = recorded_result(game)
            .and_then(|r| r.winner())
            .unwrap_or(!done.pos.turn());
        questions.push((done.pos, side));
    }
    let budgets: &[u32] = if same {
        &[7, 25, 60, HELPMATE_BUDGET, 1000]
    } else {
        &[HELPMATE_BUDGET]
    };
    let started = Instant::now();
    let (mut hash, mut found) = (0xcbf2_9ce4_8422_2325_u64, 0u64);
    for &budget in budgets {
        for (pos, side) in &questions {
            let sides = if same {
                vec![*side, !*side]
            } else {
                vec![*side]
            };
            for side in sides {
                mix(&mut hash, 0xff);
                // The timing asks what annotate-outcome asks (the winner's
                // plans within WINNER_PLAN_BUDGET each); the sameness hash
                // keeps the plain prover at five budgets.
                let line = if same {
                    find_helpmate(pos, side, budget)
                } else {
                    find_helpmate_spread(pos, side, budget, WINNER_PLAN_BUDGET)
                };
                let Some(line) = line else {
                    continue;
                };
                found += 1;
                for m in line {
                    let word = match m {
                        Move::Normal {
                            role,
                            from,
                            capture,
                            to,
                            promotion,
                        } => {
                            role as u64
                                | (from as u64) << 4
                                | (to as u64) << 10
                                | capture.map_or(0, |c| c as u64) << 16
                                | promotion.map_or(0, |p| p as u64) << 20
                        }
                        _ => 1 << 40,
                    };
                    mix(&mut hash, word);
                }
            }
        }
    }
    let took = started.elapsed();
    writeln!(
        std::io::stdout().lock(),
        "{} questions, budgets {budgets:?}: {found} lines found in {took:.2?}, hash {hash:016x}",
        questions.len()
    )?;
    Ok(())
}
