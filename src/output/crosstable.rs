//! The crosstables of events ([`crate::rules::tournament::Event`]) for
//! people: as text (`crosstable -f text`) and as HTML tables (`crosstable
//! -f html`, and the tournament section of `validate`'s page, whose cells
//! link the games with findings).
//!
//! A round-robin is a grid, rows and columns in the order of the
//! standings, each cell the row player's scores against the column's in
//! round order (`1`, `½`, `0`; `+`, `-`, `=` for a game not played; `*`
//! for no result). A Swiss, a knockout or an event without rounds lists
//! each player's games by round: the opponent's row, the colour and the
//! score (`12w1`, `3b½`, `bye+`).

use std::fmt::Write as _;

use super::html::escape;
use crate::rules::tournament::{Event, Game, Kind};

/// A score as a cell shows it.
fn score(game: &Game, player: usize) -> &'static str {
    match (game.halves_of(player), game.unplayed) {
        (None, _) => "*",
        (Some(2), false) => "1",
        (Some(1), false) => "½",
        (Some(_), false) => "0",
        (Some(2), true) => "+",
        (Some(1), true) => "=",
        (Some(_), true) => "-",
    }
}

/// Points from half points: `3`, `2½`.
pub fn points(halves: u32) -> String {
    match (halves / 2, halves % 2) {
        (0, 1) => "½".to_owned(),
        (n, 1) => format!("{n}½"),
        (n, _) => n.to_string(),
    }
}

/// A tie-break in quarter points, to two places.
fn quarters(q: u32) -> String {
    format!("{}.{:02}", q / 4, (q % 4) * 25)
}

/// The event's heading: name, date, kind, players, rounds, games.
pub fn heading(e: &Event) -> String {
    let mut s = e.name.clone();
    let place: Vec<&str> = [e.site.as_str(), e.date.as_str()]
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect();
    if !place.is_empty() {
        let _ = write!(s, " ({})", place.join(", "));
    }
    let kind = match e.kind {
        Kind::RoundRobin { cycles: 1 } => "round-robin".to_owned(),
        Kind::RoundRobin { cycles: 2 } => "double round-robin".to_owned(),
        Kind::RoundRobin { cycles } => format!("round-robin of {cycles} cycles"),
        Kind::Swiss => "Swiss".to_owned(),
        Kind::Knockout => "knockout".to_owned(),
        Kind::NoRounds => "without rounds".to_owned(),
    };
    let rounds = match (e.rounds.first(), e.rounds.last()) {
        (Some(a), Some(b)) if a == b => format!(", round {a}"),
        (Some(a), Some(b)) => format!(", rounds {a}–{b}"),
        _ => String::new(),
    };
    let _ = write!(
        s,
        ": {kind}, {} players{rounds}, {} game{}",
        e.players.len(),
        e.games.len(),
        if e.games.len() == 1 { "" } else { "s" }
    );
    s
}

/// The most players a round-robin is drawn as a grid for, and the most
/// columns of rounds a table has: past them (an event of thousands of
/// players, a file whose rounds are numbered in the thousands) each
/// player's games are one list, so that the table grows with the games,
/// not with their square.
const GRID_MAX: usize = 40;
const ROUNDS_MAX: usize = 60;

/// How an event's table is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// A column per player (a round-robin).
    Grid,
    /// A column per round with games (and one for games without a round,
    /// when there are some).
    Rounds { unrounded: bool },
    /// One column of every game.
    List,
}

/// Whether some game of the event has no round.
fn has_unrounded(e: &Event) -> bool {
    e.games.iter().any(|g| g.round.is_none())
}

fn layout(e: &Event) -> Layout {
    let unrounded = usize::from(has_unrounded(e));
    match e.kind {
        Kind::RoundRobin { .. } if e.standings.len() <= GRID_MAX => Layout::Grid,
        _ if e.rounds.len() + unrounded <= ROUNDS_MAX => Layout::Rounds {
            unrounded: unrounded == 1,
        },
        _ => Layout::List,
    }
}

/// The cells of one row (see [`Layout`]): in a grid the row player's
/// games against each column's player; by rounds, the games of each
/// round; else all of them.
fn cells(e: &Event, player: usize, lay: Layout) -> Vec<Vec<&Game>> {
    let games = e.games_of(player);
    match lay {
        Layout::Grid => {
            let col_of = e.row_of();
            let mut columns: Vec<Vec<&Game>> = vec![Vec::new(); e.standings.len()];
            for g in games {
                if let Some((Some(o), _)) = g.side_of(player) {
                    columns[col_of[o]].push(g);
                }
            }
            columns
        }
        Layout::Rounds { unrounded } => {
            let mut columns: Vec<Vec<&Game>> =
                vec![Vec::new(); e.rounds.len() + usize::from(unrounded)];
            for g in games {
                let at = match g.round {
                    Some(r) => e.rounds.binary_search(&r.number).unwrap_or(0),
                    None => e.rounds.len(),
                };
                if let Some(column) = columns.get_mut(at) {
                    column.push(g);
                }
            }
            columns
        }
        Layout::List => vec![games],
    }
}

/// A game in a by-round cell: the opponent's row, colour and score.
fn round_item(rows: &[usize], player: usize, g: &Game) -> String {
    match g.side_of(player) {
        Some((Some(o), white)) => {
            format!(
                "{}{}{}",
                rows[o] + 1,
                if white { 'w' } else { 'b' },
                score(g, player)
            )
        }
        Some((None, _)) => format!("bye{}", score(g, player)),
        None => String::new(),
    }
}

/// The column headings after the standings' own.
fn column_names(e: &Event, lay: Layout) -> Vec<String> {
    match lay {
        Layout::Grid => (1..=e.standings.len()).map(|n| n.to_string()).collect(),
        Layout::List => vec!["games".to_owned()],
        Layout::Rounds { unrounded } => {
            let mut names: Vec<String> = e.rounds.iter().map(|r| format!("r{r}")).collect();
            if unrounded {
                names.push("r?".to_owned());
            }
            names
        }
    }
}

/// The text of one cell.
fn cell_text(
    rows: &[usize],
    row: usize,
    player: usize,
    col: usize,
    games: &[&Game],
    lay: Layout,
) -> String {
    match lay {
        Layout::Grid if col == row => "×".to_owned(),
        Layout::Grid => games.iter().map(|g| score(g, player)).collect(),
        Layout::Rounds { .. } => games
            .iter()
            .map(|g| round_item(rows, player, g))
            .collect::<Vec<_>>()
            .join(" "),
        // Each game with its round.
        Layout::List => games
            .iter()
            .map(|g| {
                let round = g
                    .round
                    .map_or_else(|| "?".to_owned(), |r| r.number.to_string());
                format!("{round}:{}", round_item(rows, player, g))
            })
            .collect::<Vec<_>>()
            .join(" "),
    }
}

/// Pads `s` to `width` characters (not bytes).
fn pad(s: &str, width: usize, right: bool) -> String {
    let n = s.chars().count();
    let fill = " ".repeat(width.saturating_sub(n));
    if right {
        format!("{fill}{s}")
    } else {
        format!("{s}{fill}")
    }
}

/// The event as text: heading, then a table.
pub fn text(e: &Event, out: &mut String) {
    let rows = e.row_of();
    let lay = layout(e);
    let _ = writeln!(out, "{}", heading(e));
    let tiebreak = match e.kind.tiebreak() {
        Some("sonneborn-berger") => Some("SB"),
        Some(_) => Some("Buch"),
        None => None,
    };
    let mut table: Vec<Vec<String>> = Vec::new();
    let mut head = vec![
        "#".to_owned(),
        "Player".to_owned(),
        "FideId".to_owned(),
        "Elo".to_owned(),
        "Pts".to_owned(),
    ];
    if let Some(t) = tiebreak {
        head.push(t.to_owned());
    }
    head.extend(column_names(e, lay));
    table.push(head);
    for (i, s) in e.standings.iter().enumerate() {
        let p = &e.players[s.player];
        let mut row = vec![
            s.rank.to_string(),
            p.name.clone(),
            p.fide_id.map(|i| i.to_string()).unwrap_or_default(),
            p.elo.map(|e| e.to_string()).unwrap_or_default(),
            points(s.halves),
        ];
        if tiebreak.is_some() {
            row.push(s.tiebreak.map(quarters).unwrap_or_default());
        }
        for (col, games) in cells(e, s.player, lay).iter().enumerate() {
            row.push(cell_text(&rows, i, s.player, col, games, lay));
        }
        table.push(row);
    }
    let columns = table.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            table
                .iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in &table {
        let line: Vec<String> = row
            .iter()
            .enumerate()
            // Names left, numbers and cells right.
            .map(|(c, s)| pad(s, widths[c], c != 1))
            .collect();
        let _ = writeln!(out, "{}", line.join("  ").trim_end());
    }
}

/// The event as an HTML table; `link` gives the page anchor of a game (by
/// the caller's number) that has something to look at, and `id` the
/// table's own anchor.
pub fn html(e: &Event, id: &str, link: &dyn Fn(u32) -> Option<String>, out: &mut String) {
    let rows = e.row_of();
    let lay = layout(e);
    let _ = write!(
        out,
        "<section class=\"crosstable\" id=\"{}\"><h2>{}</h2><div class=\"wide\"><table class=\"xt\"><thead><tr><th class=\"n\">#</th><th>Player</th><th class=\"n\">FideId</th><th class=\"n\">Elo</th><th class=\"n\">Pts</th>",
        escape(id),
        escape(&heading(e))
    );
    if let Some(t) = e.kind.tiebreak() {
        let _ = write!(
            out,
            "<th class=\"n\" title=\"{t}\">{}</th>",
            if t == "buchholz" { "Buch" } else { "SB" }
        );
    }
    for name in column_names(e, lay) {
        let _ = write!(out, "<th class=\"n\">{}</th>", escape(&name));
    }
    out.push_str("</tr></thead><tbody>");
    for (i, s) in e.standings.iter().enumerate() {
        let p = &e.players[s.player];
        let _ = write!(
            out,
            "<tr><td class=\"n\">{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\"><b>{}</b></td>",
            s.rank,
            escape(&p.name),
            p.fide_id.map(|i| i.to_string()).unwrap_or_default(),
            p.elo.map(|e| e.to_string()).unwrap_or_default(),
            points(s.halves)
        );
        if e.kind.tiebreak().is_some() {
            let _ = write!(
                out,
                "<td class=\"n\">{}</td>",
                s.tiebreak.map(quarters).unwrap_or_default()
            );
        }
        for (col, games) in cells(e, s.player, lay).iter().enumerate() {
            let text = cell_text(&rows, i, s.player, col, games, lay);
            let linked: Vec<String> = games.iter().filter_map(|g| link(g.game)).collect();
            match linked.first() {
                Some(anchor) => {
                    let _ = write!(
                        out,
                        "<td class=\"n problem\"><a href=\"#{}\" title=\"a game with findings\">{}</a></td>",
                        escape(anchor),
                        escape(&text)
                    );
                }
                None => {
                    let _ = write!(out, "<td class=\"n\">{}</td>", escape(&text));
                }
            }
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table></div></section>\n");
}

/// The rows of the page's table of pairing findings for one game: `id`
/// its anchor, `entry` the game's own entry on the page (linked), `game`
/// what names it.
pub fn finding_rows(
    out: &mut String,
    id: &str,
    entry: Option<&str>,
    game: &str,
    findings: &[crate::rules::finding::Finding],
) {
    for (i, f) in findings.iter().enumerate() {
        let _ = write!(out, "<tr");
        if i == 0 {
            let _ = write!(out, " id=\"{}\"", escape(id));
        }
        out.push_str("><td>");
        match entry {
            Some(entry) => {
                let _ = write!(out, "<a href=\"#{}\">{}</a>", escape(entry), escape(game));
            }
            None => out.push_str(&escape(game)),
        }
        let sev = f.severity().as_str();
        let _ = write!(
            out,
            "</td><td><span class=\"sev-{sev}\">{sev}</span> <code>{}</code></td><td>{}</td></tr>",
            escape(f.code.as_str()),
            escape(&f.message)
        );
    }
}

/// The style of the tables, for a page of their own or inside another.
pub const STYLE: &str = "table.xt td,table.xt th{padding:2px 8px;white-space:nowrap}table.xt td.problem a{color:var(--err,#b3261e);font-weight:700}table.xt td.problem{background:rgba(179,38,30,.08)}";

/// A page of its own: every event's table.
pub fn page(events: &[Event], inputs: &[String]) -> String {
    let mut s = String::with_capacity(16 * 1024);
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><meta name=\"generator\" content=\"pgnkit {}\"><title>pgnkit crosstable: {}</title><style>:root{{color-scheme:light dark}}body{{margin:0 auto;max-width:1400px;padding:16px 24px;font:15px/1.45 system-ui,sans-serif}}table{{border-collapse:collapse}}th,td{{border-bottom:1px solid #ccc;text-align:left}}.n{{text-align:right}}.wide{{overflow-x:auto;max-width:100%}}{STYLE}</style></head>\n<body><h1>pgnkit crosstable</h1><p>{}</p>\n",
        env!("CARGO_PKG_VERSION"),
        escape(&inputs.join(", ")),
        inputs
            .iter()
            .map(|i| format!("<code>{}</code>", escape(i)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if events.is_empty() {
        s.push_str("<p>No game names an event.</p>");
    }
    for (i, e) in events.iter().enumerate() {
        html(e, &format!("event-{}", i + 1), &|_| None, &mut s);
    }
    s.push_str("</body></html>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::tournament::{GameTags, Games};

    fn event() -> Event {
        let mut g = Games::default();
        for (n, (r, w, b, res)) in [
            ("1.1", "Ann", "Dora", "1-0"),
            ("1.2", "Bea", "Cleo", "1/2-1/2"),
            ("2.1", "Dora", "Cleo", "0-1"),
            ("2.2", "Ann", "Bea", "1/2-1/2"),
            ("3.1", "Bea", "Dora", "1-0"),
            ("3.2", "Cleo", "Ann", "0-1"),
        ]
        .into_iter()
        .enumerate()
        {
            g.add(
                &GameTags {
                    event: Some("Club RR"),
                    round: Some(r),
                    white: Some(w),
                    black: Some(b),
                    result: Some(res),
                    has_moves: true,
                    ..GameTags::default()
                },
                n as u32,
            );
        }
        g.events().remove(0)
    }

    #[test]
    fn a_round_robin_is_a_grid_in_standings_order() {
        let mut s = String::new();
        text(&event(), &mut s);
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(
            lines[0],
            "Club RR: round-robin, 4 players, rounds 1–3, 6 games"
        );
        // Ann beat Dora (4th) and Cleo (3rd), drew with Bea (2nd).
        assert!(lines[2].starts_with("1  Ann"), "{s}");
        assert!(lines[2].ends_with("2½  2.50  ×  ½  1  1"), "{s}");
        assert!(lines[5].starts_with("4  Dora"), "{s}");
        assert!(lines[5].ends_with("0  0.00  0  0  0  ×"), "{s}");
    }

    #[test]
    fn large_events_are_listed_not_squared() {
        // 140 players, each game in a round of its own (31 to 100): too
        // many rounds for a column each.
        let mut g = Games::default();
        for n in 0..70u32 {
            let (w, b) = (format!("P{}", 2 * n), format!("P{}", 2 * n + 1));
            g.add(
                &GameTags {
                    event: Some("Big"),
                    round: Some(&(n + 31).to_string()),
                    white: Some(&w),
                    black: Some(&b),
                    result: Some("1-0"),
                    has_moves: true,
                    ..GameTags::default()
                },
                n,
            );
        }
        let e = g.events().remove(0);
        assert_eq!(layout(&e), Layout::List);
        let mut s = String::new();
        text(&e, &mut s);
        assert!(s.lines().nth(1).unwrap().ends_with("games"), "{s}");
        // One line per player, each as long as its games, not the event.
        assert_eq!(s.lines().count(), 2 + 140);
        assert!(s.lines().all(|l| l.chars().count() < 80), "{s}");
    }

    #[test]
    fn problem_cells_link_their_game() {
        let mut s = String::new();
        html(
            &event(),
            "x",
            &|n| (n == 4).then(|| "g-5".to_owned()),
            &mut s,
        );
        // Game 4 (Bea–Dora) sits in two cells: Bea's row and Dora's.
        assert_eq!(s.matches("href=\"#g-5\"").count(), 2, "{s}");
        assert_eq!(s.matches("class=\"n problem\"").count(), 2);
    }
}
