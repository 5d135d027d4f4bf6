//! The arbiter's page through the CLI, on real games (issue 47): the index
//! of the games, the moves written around each finding, the move probably
//! meant drawn beside the one written, and the exit status in words.

use crate::util::{code, fixture, run, stdout};

/// `validate -f html` of `files` with `flags`: the page and the exit code.
fn page(flags: &[&str], files: &[&str]) -> (String, i32) {
    let files: Vec<String> = files
        .iter()
        .map(|f| fixture(f).to_str().unwrap().to_owned())
        .collect();
    let mut args = vec!["validate", "-q", "-f", "html"];
    args.extend(flags);
    args.extend(files.iter().map(String::as_str));
    let out = run(&args, None);
    (stdout(&out), code(&out))
}

/// In `text`, the values of `attr="…"` in order.
fn values<'h>(text: &'h str, attr: &str) -> Vec<&'h str> {
    let key = format!(" {attr}=\"");
    text.match_indices(&key)
        .map(|(i, _)| {
            let rest = &text[i + key.len()..];
            &rest[..rest.find('"').unwrap()]
        })
        .collect()
}

const REPAIRS: [&str; 2] = ["repairs/planted.pgn", "pgn/illegal_move_ply_61.pgn"];

#[test]
fn the_index_links_each_game_on_the_page_once() {
    let (html, status) = page(&[], &REPAIRS);
    assert_eq!(status, 1);
    let index_at = html.find("<nav id=\"index\"").unwrap();
    let main_at = html.find("<main>").unwrap();
    assert!(index_at < main_at, "the index is at the top");
    // The index alone (the tournament's crosstables follow it).
    let index_end = index_at + html[index_at..].find("</nav>").unwrap();
    let index = &html[index_at..index_end];
    let mut links: Vec<&str> = values(index, "href")
        .into_iter()
        .map(|h| h.strip_prefix('#').unwrap())
        .collect();
    let mut ids = values(&html[main_at..], "id");
    assert_eq!(ids.len(), 13);
    links.sort_unstable();
    ids.sort_unstable();
    assert_eq!(links, ids);
    // The second input's game carries its number; TWIC's `6.1` is round
    // 6, board 1; games without a round are filed apart.
    assert!(index.contains("<a href=\"#f2-g1\">board 16: Gelfand,B – Gareev,T</a>"));
    assert!(index.contains("<h4>Round 6</h4><ul><li><a href=\"#g1\">board 1: "));
    assert!(index.contains("<h4>Games without a round</h4><ul><li><a href=\"#g11\">game 11: "));
}

#[test]
fn each_move_found_wrong_is_marked_among_the_moves_written_around_it() {
    let (html, _) = page(&[], &REPAIRS);
    // One marked move per finding about a move: all thirteen are.
    assert_eq!(html.matches("<mark data-ply=").count(), 13);
    assert!(html.contains(
        "Moves as written:</span> … 28.Rd2 Bc3 29.Nxc3 Qxc3 30.Bg5 Nf6 <mark data-ply=\"61\">31.Qxe1</mark> Qd4</p>"
    ));
    // The swapped pair of planted game 5 shows in the moves: 5...Nge2
    // written for White's 6.Nge2, before Black's 5...O-O.
    assert!(html.contains("5.Nc3 <mark data-ply=\"10\">Nge2</mark> 6.O-O a6"));
}

#[test]
fn the_move_probably_meant_is_drawn_beside_the_written_one() {
    let (html, _) = page(&[], &REPAIRS);
    // 31.Qxe1 written, 31.Qd1 meant: both from the queen on e2.
    assert!(html.contains("<line class=\"arrow\" x1=\"202\" y1=\"292\" x2=\"202\" y2=\"325\" marker-end=\"url(#head)\" data-from=\"e2\" data-to=\"e1\" data-san=\"Qxe1\"/>"));
    assert!(html.contains("<line class=\"arrow-suggested\" x1=\"202\" y1=\"292\" x2=\"165\" y2=\"329\" marker-end=\"url(#head-s)\" data-from=\"e2\" data-to=\"d1\" data-san=\"Qd1\"/>"));
    assert!(html.contains("written: <b>Qxe1</b> (blue, solid)"));
    assert!(html.contains("probably meant: <b>Qd1</b> (green, dashed)"));
    // Castling is drawn as the king goes.
    assert!(html.contains("data-from=\"e8\" data-to=\"g8\" data-san=\"O-O\""));
    // Six repairs are played in the position drawn; the others change an
    // earlier move, which the legend names instead.
    assert_eq!(html.matches("<line class=\"arrow-suggested\"").count(), 6);
    assert!(html.contains("probably meant: 8.Qd2, an earlier move: not drawn on this board"));
}

#[test]
fn the_exit_status_is_said_in_an_arbiters_words() {
    let (html, _) = page(&[], &REPAIRS);
    assert!(html.contains(
        "<p class=\"status\">Problems found: 11 games have errors that need a look (exit status 1).</p>"
    ));
    let (html, status) = page(&["--only", "played-on"], &REPAIRS);
    assert_eq!(status, 0);
    assert!(html.contains("<p class=\"status\">No problems that fail the check: warnings only (2 games have warnings), worth a look, but a warning does not fail the check (exit status 0).</p>"), "{html}");
    let (html, status) = page(&["--fail-on", "never"], &REPAIRS);
    assert_eq!(status, 0);
    assert!(html.contains("No problems that fail the check as --fail-on sets it, though 11 games have errors and 2 have warnings (exit status 0)."));
    let (html, status) = page(&["--fail-on", "warning"], &REPAIRS);
    assert_eq!(status, 1);
    assert!(html.contains("Problems found: 13 games have findings that fail the check as --fail-on sets it, and need a look (exit status 1)."));
}
