//! The solver's work per position is bounded: a short game whose final
//! position sends chasolver's fast check into an exponential search is
//! answered at once, the same way at every thread count.

use crate::util::{code, run, stderr, stdout};

/// A loss on time in a dead position (FIDE 6.9, 5.2.2): Black's bishops are
/// walled in by their own pawns and nothing can ever mate. chasolver's fast
/// check alone spent 26 million positions (2.5 s) on each side of the final
/// position, `kb6/b1p2p1p/1pP5/1P6/8/8/5P1P/5K2 w - -`, before pgnkit
/// bounded it.
const WALLED_IN: &str = r#"[Event "hostile: two bishops walled in"]
[Site "?"]
[Date "2024.01.01"]
[Round "?"]
[White "Walled"]
[Black "Free"]
[Result "0-1"]
[SetUp "1"]
[FEN "1b6/bkp2p1p/1pP5/1P6/8/8/5P1P/5K2 b - - 0 1"]
[Termination "Time forfeit"]

1... Ka8 {White's flag falls} 0-1

"#;

const HEADER: &str = "file,game,offset,white,black,result,plies,termination,termination_ply,\
threefold_claim_ply,fifty_claim_ply,winner_can_mate,fide_result,result_ok,\
marker_result,dead_reason,loss_rule,undetermined_reason,helpmate,error,laws,\
opponent_can_mate,eco,opening,opening_ply";

/// The row of game `n`: dead after the last ply, proven by the full search
/// once the fast check has stopped at its bound; the loss becomes a draw.
fn row(n: usize) -> String {
    let offset = (n - 1) * WALLED_IN.len();
    format!(
        "<stdin>,{n},{offset},Walled,Free,0-1,1,dead-position,1,,,no,1/2-1/2,false,,unwinnable,,,,,2024.01.01,no,,,"
    )
}

#[test]
fn a_walled_in_loss_on_time_is_answered_within_the_bound() {
    assert!(WALLED_IN.len() < 300);
    let one = run(
        &["annotate-outcome", "-f", "csv", "-j1"],
        Some(WALLED_IN.as_bytes()),
    );
    assert_eq!(code(&one), 1, "{}", stderr(&one));
    assert_eq!(stdout(&one), format!("{HEADER}\n{}\n", row(1)));
    assert!(
        stderr(&one).starts_with("1 game, 1 with a result the rules do not give, 0 not replayed"),
        "{}",
        stderr(&one)
    );
    let two = run(
        &["annotate-outcome", "-f", "csv", "-j2"],
        Some(WALLED_IN.as_bytes()),
    );
    assert_eq!(code(&two), 1);
    assert_eq!(two.stdout, one.stdout);
}

#[test]
fn twenty_walled_in_games_all_get_the_answer() {
    let input = WALLED_IN.repeat(20);
    let out = run(
        &["annotate-outcome", "-f", "csv", "-j2"],
        Some(input.as_bytes()),
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let rows: Vec<String> = (1..=20).map(row).collect();
    assert_eq!(stdout(&out), format!("{HEADER}\n{}\n", rows.join("\n")));
    assert!(
        stderr(&out)
            .starts_with("20 games, 20 with a result the rules do not give, 0 not replayed"),
        "{}",
        stderr(&out)
    );
}
