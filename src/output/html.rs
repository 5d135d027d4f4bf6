//! The arbiter's page (`validate -f html`, `annotate-outcome -f html`): one
//! self-contained HTML file, readable offline and without JavaScript, with
//! the run's counts at the top and one entry per game to look at, each
//! finding beside a board of the position it is about.
//!
//! Boards are inline SVG: the squares, the coordinates and each piece are
//! drawn once per page (`<symbol>`) and placed with `<use>`, so a board
//! costs about a kilobyte. The pieces are Colin M.L. Burnett's (`cburnett`,
//! GPL-2.0-or-later: `html/LICENSE`). The page is put together in memory
//! and written whole at the end, because its counts come first.

use std::fmt::Write as _;
use std::io::{self, Write};

use shakmaty::{Color, Position, Role, Square};

use crate::rules::diagram::Diagram;
use crate::schema::finding::FindingPlace;

/// The pieces, one `<symbol>` each (`pc-wK` … `pc-bP`).
const PIECES: &str = include_str!("html/pieces.svg");

/// The size of a square in the boards' coordinates (the pieces' own).
const SQ: u32 = 45;

/// The page's style: light and dark, screen and A4 print.
const STYLE: &str = r#"
:root{color-scheme:light dark;--fg:#1b1b1b;--bg:#fff;--muted:#5b5b5b;--line:#d5d5d5;--card:#f6f6f4;--err:#b3261e;--warn:#8a5a00;--light:#f0d9b5;--dark:#b58863;--mark:rgba(255,214,0,.55);--check:#e0301e;--arrow:rgba(0,110,220,.8)}
@media (prefers-color-scheme:dark){:root{--fg:#e8e8e8;--bg:#161616;--muted:#a8a8a8;--line:#3a3a3a;--card:#222;--err:#ff8a80;--warn:#ffcc66}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:1200px;padding:16px 24px;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.1em;margin:0 0 .3em}
code,.fen{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em;overflow-wrap:anywhere}
table{border-collapse:collapse;margin:.4em 0}th,td{border-bottom:1px solid var(--line);padding:3px 10px 3px 0;text-align:left;vertical-align:top}
td.n,th.n{text-align:right}
.muted{color:var(--muted)}
.sev-error{color:var(--err);font-weight:600}.sev-warning{color:var(--warn);font-weight:600}.sev-note{color:var(--muted);font-weight:600}
.game{border:1px solid var(--line);border-radius:6px;background:var(--card);padding:10px 14px;margin:14px 0;break-inside:avoid}
.game>p{margin:.1em 0}
.finding{display:flex;flex-wrap:wrap;gap:14px;align-items:flex-start;border-top:1px solid var(--line);padding-top:10px;margin-top:10px}
.finding figure{margin:0;width:240px;flex:none}
.finding figcaption{margin-top:4px}
.finding .text{flex:1 1 360px;min-width:0}
.finding .text p{margin:.15em 0}
svg.board{width:240px;height:240px;display:block}
.light{fill:var(--light)}.dark{fill:var(--dark)}.last{fill:var(--mark)}.chk{fill:var(--check);opacity:.7}
.coord{font:bold 10px sans-serif}.coord-l{fill:var(--dark)}.coord-d{fill:var(--light)}
.arrow{stroke:var(--arrow);stroke-width:6;stroke-linecap:round}.arrow-head{fill:var(--arrow)}
.wide{overflow-x:auto;max-width:100%}
#filter{font:inherit;padding:4px 8px;width:min(420px,100%)}
@media print{@page{size:A4;margin:14mm}body{max-width:none;padding:0;font-size:10.5pt;color:#000;background:#fff}
.game{background:none;border-color:#999}#filter,.noprint{display:none}svg.board{width:150px;height:150px}.finding figure{width:150px}}
"#;

/// The filter: hides the games whose text does not hold what is typed.
/// The page reads the same without it.
const SCRIPT: &str = r#"(function(){var f=document.getElementById('filter');if(!f)return;f.hidden=false;
f.addEventListener('input',function(){var q=f.value.toLowerCase();
document.querySelectorAll('.game').forEach(function(g){g.hidden=q!==''&&g.textContent.toLowerCase().indexOf(q)<0;});});})();"#;

/// Text for HTML: `&`, `<`, `>`, `"` and `'` escaped, control characters
/// shown as `\u{…}`.
///
/// # Examples
///
/// ```
/// use pgnkit::output::html::escape;
/// assert_eq!(escape("R&D <b>\"x\""), "R&amp;D &lt;b&gt;&quot;x&quot;");
/// ```
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() && c != '\n' && c != '\t' => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// A board to draw: the position, and the move as written where its
/// squares can be told.
#[derive(Debug, Clone)]
pub struct Board {
    pub diagram: Diagram,
    pub arrow: Option<(Square, Square)>,
}

/// One thing to look at in a game: a finding, or a question about the
/// outcome.
#[derive(Debug, Clone, Default)]
pub struct Item {
    /// `error` or `warning` (findings), or none.
    pub severity: Option<&'static str>,
    /// The finding's code, or the kind of question.
    pub code: String,
    /// The line of the input it is on.
    pub line: u64,
    /// `ply 61 (31.Qxe1)`, for a finding about a move.
    pub at: Option<String>,
    pub message: String,
    /// The moves that were probably meant.
    pub suggestion: Option<String>,
    /// A line of moves to show (the winner's mating line).
    pub line_of_moves: Option<String>,
    pub board: Option<Board>,
}

/// The top of the page.
#[derive(Debug, Clone, Default)]
pub struct Head {
    /// The inputs, as reports name them.
    pub inputs: Vec<String>,
    pub games: u64,
    /// What the counts table counts (`code`, `outcome`), and its rows:
    /// name, severity (or none), count, games.
    pub counted: &'static str,
    pub counts: Vec<(String, Option<&'static str>, u64, u64)>,
    /// The run's summary line.
    pub summary: String,
    /// What the exit status means.
    pub status: String,
}

/// The page, put together as the games come.
#[derive(Debug)]
pub struct Page {
    command: &'static str,
    body: Vec<u8>,
    /// Rows of the table of findings beyond the board limit.
    rest: Vec<u8>,
    rest_rows: u64,
    boards: u64,
    limit: u64,
    games: u64,
    items: u64,
    /// The most bytes of entries and table the page holds ([`PAGE_BYTES`]).
    budget: usize,
    /// Games with findings left off the page once it was full.
    left_off: u64,
    /// Entries of a listed game left off once the page was full.
    entries_left_off: u64,
}

/// The most bytes of entries the page holds in memory: far more than a
/// browser shows with ease (the whole pgnmentor corpus takes 6 MB), and
/// small enough that the page and the findings of a game that fills it
/// stay under 300 MB (issue 43). A run with more findings lists the first,
/// counts all, and says where the rest are; memory stays bounded whatever
/// the input. Checked before each entry, not only at a game's start.
pub const PAGE_BYTES: usize = 32 << 20;

impl Page {
    /// A page for `command` that draws at most `limit` boards.
    pub fn new(command: &'static str, limit: u64) -> Page {
        Page {
            command,
            body: Vec::new(),
            rest: Vec::new(),
            rest_rows: 0,
            boards: 0,
            limit,
            games: 0,
            items: 0,
            budget: PAGE_BYTES,
            left_off: 0,
            entries_left_off: 0,
        }
    }

    /// The page with another bound on its entries' bytes (tests).
    pub fn with_budget(self, budget: usize) -> Page {
        Page { budget, ..self }
    }

    /// The entry of one game, at `place` (first line `line`), recorded
    /// result `result`, with what there is to look at.
    pub fn game(
        &mut self,
        place: &FindingPlace<'_>,
        result: &str,
        line: u64,
        items: impl ExactSizeIterator<Item = Item>,
    ) {
        if self.body.len() + self.rest.len() >= self.budget {
            self.left_off += 1;
            return;
        }
        self.games += 1;
        let game = place.game.unwrap_or(0);
        let mut s = String::with_capacity(2048);
        let _ = write!(
            s,
            "<article class=\"game\" data-file=\"{}\" data-game=\"{game}\">",
            escape(place.file)
        );
        let known = |v: Option<&str>| v.filter(|v| !matches!(v.trim(), "" | "?")).map(escape);
        let parts: Vec<String> = [
            known(place.event),
            known(place.round).map(|r| format!("round {r}")),
            known(place.board).map(|b| format!("board {b}")),
        ]
        .into_iter()
        .flatten()
        .collect();
        let title = if parts.is_empty() {
            format!("game {game}")
        } else {
            parts.join(", ")
        };
        let _ = write!(
            s,
            "<h2>{title}: {} – {} <span class=\"muted\">{}</span></h2>",
            escape(place.white),
            escape(place.black),
            escape(result)
        );
        let _ = write!(
            s,
            "<p class=\"muted\">{} line {line}, game {game}</p>",
            escape(place.file)
        );
        // The page's bytes so far are checked before each entry after the
        // first (the game's start was), not only at a game's start: one
        // game may hold 400,000 findings.
        let full =
            |page: &Page, s: &str| page.body.len() + page.rest.len() + s.len() >= page.budget;
        // Each item is made as it is drawn and dropped after: a game with
        // 400,000 findings holds their entries one at a time.
        let total = items.len();
        for (i, item) in items.enumerate() {
            let item = &item;
            if i > 0 && full(self, &s) {
                let more = (total - i) as u64;
                self.entries_left_off += more;
                let _ = write!(
                    s,
                    "<p class=\"sev-warning\">The page is full: {more} more entries of this game are counted above but not listed.</p>"
                );
                break;
            }
            if s.len() >= 1 << 20 {
                // Out of the game's text as it grows, not after it: its
                // copy would double what a long game holds.
                self.body.extend_from_slice(s.as_bytes());
                s.clear();
            }
            self.items += 1;
            let drawn = match &item.board {
                Some(board) if self.boards < self.limit => {
                    self.boards += 1;
                    Some(board)
                }
                Some(board) => {
                    self.rest_row(place, item, &board.diagram.fen());
                    None
                }
                None => None,
            };
            s.push_str("<div class=\"finding\"");
            let _ = write!(s, " data-code=\"{}\"", escape(&item.code));
            if let Some(board) = &item.board {
                let _ = write!(s, " data-plies=\"{}\"", board.diagram.plies);
            }
            s.push('>');
            if let Some(board) = drawn {
                let fen = board.diagram.fen();
                s.push_str("<figure>");
                board_svg(&mut s, board, &fen);
                let _ = write!(
                    s,
                    "<figcaption><code class=\"fen\">{}</code></figcaption></figure>",
                    escape(&fen)
                );
            }
            s.push_str("<div class=\"text\"><p>");
            if let Some(sev) = item.severity {
                let _ = write!(s, "<span class=\"sev-{sev}\">{sev}</span> ");
            }
            let _ = write!(s, "<b>{}</b>", escape(&item.code));
            let _ = write!(s, " <span class=\"muted\">line {}</span>", item.line);
            if let Some(at) = &item.at {
                let _ = write!(s, " · {}", escape(at));
            }
            let _ = write!(s, "</p><p>{}</p>", escape(&item.message));
            if let Some(sugg) = &item.suggestion {
                let _ = write!(s, "<p>Probably meant: {}</p>", escape(sugg));
            }
            if let Some(moves) = &item.line_of_moves {
                let _ = write!(s, "<p>Mating line: <code>{}</code></p>", escape(moves));
            }
            if let (Some(board), None) = (&item.board, drawn) {
                let _ = write!(
                    s,
                    "<p class=\"muted\">Position (no board: over the limit): <code class=\"fen\">{}</code></p>",
                    escape(&board.diagram.fen())
                );
            }
            s.push_str("</div></div>");
        }
        s.push_str("</article>\n");
        self.body.extend_from_slice(s.as_bytes());
    }

    /// A row of the table of positions beyond the board limit.
    fn rest_row(&mut self, place: &FindingPlace<'_>, item: &Item, fen: &str) {
        self.rest_rows += 1;
        let _ = writeln!(
            self.rest,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td><td>{}</td><td><code class=\"fen\">{}</code></td></tr>",
            escape(place.file),
            place.game.unwrap_or(0),
            item.line,
            escape(item.at.as_deref().unwrap_or("")),
            escape(&item.code),
            escape(fen)
        );
    }

    /// Writes the whole page.
    ///
    /// # Errors
    ///
    /// When writing fails.
    pub fn finish(self, out: &mut dyn Write, head: &Head) -> io::Result<()> {
        let mut s = String::with_capacity(16 * 1024);
        let _ = write!(
            s,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
             <meta name=\"generator\" content=\"pgnkit {}\">\
             <title>pgnkit {}: {}</title><style>{STYLE}</style></head>\n",
            env!("CARGO_PKG_VERSION"),
            self.command,
            escape(&head.inputs.join(", "))
        );
        let _ = writeln!(
            s,
            "<body data-games=\"{}\" data-entries=\"{}\" data-items=\"{}\" data-boards=\"{}\">",
            head.games, self.games, self.items, self.boards
        );
        s.push_str(&defs());
        let _ = write!(
            s,
            "<header><h1>pgnkit {}</h1><p>{}</p><p>{}</p>",
            self.command,
            head.inputs
                .iter()
                .map(|i| format!("<code>{}</code>", escape(i)))
                .collect::<Vec<_>>()
                .join(", "),
            escape(&head.summary)
        );
        if head.counts.is_empty() {
            s.push_str("<p>Nothing to report.</p>");
        } else {
            let severities = head.counts.iter().any(|c| c.1.is_some());
            let _ = write!(
                s,
                "<table class=\"counts\"><thead><tr><th>{}</th>{}<th class=\"n\">count</th><th class=\"n\">games</th></tr></thead><tbody>",
                head.counted,
                if severities { "<th>severity</th>" } else { "" }
            );
            for (name, sev, n, games) in &head.counts {
                let sev = match sev {
                    Some(s) => format!("<td><span class=\"sev-{s}\">{s}</span></td>"),
                    None if severities => "<td></td>".to_owned(),
                    None => String::new(),
                };
                let _ = write!(
                    s,
                    "<tr><td><code>{}</code></td>{sev}<td class=\"n\">{n}</td><td class=\"n\">{games}</td></tr>",
                    escape(name)
                );
            }
            s.push_str("</tbody></table>");
        }
        let _ = write!(s, "<p>{}</p>", escape(&head.status));
        let _ = write!(
            s,
            "<p class=\"muted\">{} to look at below, in input order; {} of {} {} {} a board{}.</p>",
            crate::output::diag::games(self.games),
            self.boards,
            if self.games == 1 { "its" } else { "their" },
            plural(self.items, "entry", "entries"),
            if self.boards == 1 { "has" } else { "have" },
            if self.rest_rows > 0 {
                format!(
                    " (at most {}: the {} others are in the table at the end)",
                    self.limit, self.rest_rows
                )
            } else {
                String::new()
            }
        );
        if self.left_off > 0 || self.entries_left_off > 0 {
            let _ = write!(
                s,
                "<p class=\"sev-warning\">The page is full ({} MB): {} more games with findings{} are counted above but not listed; -f text or -f csv lists every finding.</p>",
                self.budget >> 20,
                self.left_off,
                if self.entries_left_off > 0 {
                    format!(
                        " and {} more entries of the games listed",
                        self.entries_left_off
                    )
                } else {
                    String::new()
                }
            );
        }
        s.push_str("<p class=\"noprint\"><input id=\"filter\" type=\"search\" placeholder=\"Show only games that mention…\" aria-label=\"Filter the games\" hidden></p></header>\n<main>\n");
        out.write_all(s.as_bytes())?;
        out.write_all(&self.body)?;
        if self.rest_rows > 0 {
            out.write_all(
                b"<section><h2>Positions without a board</h2><div class=\"wide\"><table><thead><tr><th>file</th><th class=\"n\">game</th><th class=\"n\">line</th><th>move</th><th>code</th><th>FEN</th></tr></thead><tbody>\n",
            )?;
            out.write_all(&self.rest)?;
            out.write_all(b"</tbody></table></div></section>\n")?;
        }
        write!(out, "</main>\n<script>{SCRIPT}</script>\n</body></html>\n")
    }
}

/// The page's shared drawings: the 64 squares, the coordinates, the arrow
/// head and the pieces.
fn defs() -> String {
    let mut s = String::with_capacity(PIECES.len() + 4096);
    s.push_str(
        "<svg width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\"><defs>",
    );
    let size = 8 * SQ;
    let _ = write!(
        s,
        "<symbol id=\"squares\" viewBox=\"0 0 {size} {size}\"><rect class=\"light\" width=\"{size}\" height=\"{size}\"/>"
    );
    for rank in 0..8 {
        for file in 0..8 {
            if (rank + file) % 2 == 1 {
                let _ = write!(
                    s,
                    "<rect class=\"dark\" x=\"{}\" y=\"{}\" width=\"{SQ}\" height=\"{SQ}\"/>",
                    file * SQ,
                    rank * SQ
                );
            }
        }
    }
    s.push_str("</symbol>");
    let _ = write!(s, "<symbol id=\"coords\" viewBox=\"0 0 {size} {size}\">");
    for (i, f) in "abcdefgh".chars().enumerate() {
        let i = i as u32;
        // The bottom rank: a1 is dark.
        let class = if i.is_multiple_of(2) {
            "coord-d"
        } else {
            "coord-l"
        };
        let _ = write!(
            s,
            "<text class=\"coord {class}\" x=\"{}\" y=\"{}\">{f}</text>",
            i * SQ + SQ - 8,
            size - 3
        );
    }
    for r in 0..8u32 {
        // The a-file from the top: a8 is light.
        let class = if r.is_multiple_of(2) {
            "coord-l"
        } else {
            "coord-d"
        };
        let _ = write!(
            s,
            "<text class=\"coord {class}\" x=\"2\" y=\"{}\">{}</text>",
            r * SQ + 11,
            8 - r
        );
    }
    s.push_str("</symbol>");
    s.push_str("<marker id=\"head\" viewBox=\"0 0 10 10\" refX=\"5\" refY=\"5\" markerWidth=\"3\" markerHeight=\"3\" orient=\"auto-start-reverse\"><path class=\"arrow-head\" d=\"M0 0L10 5L0 10z\"/></marker>");
    s.push_str(PIECES);
    s.push_str("</defs></svg>\n");
    s
}

/// The top-left corner of `sq` on a board seen from White's side.
fn corner(sq: Square) -> (u32, u32) {
    (u32::from(sq.file()) * SQ, (7 - u32::from(sq.rank())) * SQ)
}

/// One board: squares, the last move's squares, the king in check, the
/// pieces, the written move's arrow; its FEN is its text alternative.
fn board_svg(s: &mut String, board: &Board, fen: &str) {
    let size = 8 * SQ;
    let d = &board.diagram;
    let _ = write!(
        s,
        "<svg class=\"board\" viewBox=\"0 0 {size} {size}\" role=\"img\" aria-label=\"Board: {fen}\" data-fen=\"{fen}\"><title>{fen}</title><use href=\"#squares\"/>",
        fen = escape(fen)
    );
    if let Some((from, to)) = d.last {
        for sq in [from, to] {
            let (x, y) = corner(sq);
            let _ = write!(
                s,
                "<rect class=\"last\" x=\"{x}\" y=\"{y}\" width=\"{SQ}\" height=\"{SQ}\"/>"
            );
        }
    }
    if let Some(king) = d.check() {
        let (x, y) = corner(king);
        let _ = write!(
            s,
            "<circle class=\"chk\" cx=\"{}\" cy=\"{}\" r=\"{}\"/>",
            x + SQ / 2,
            y + SQ / 2,
            SQ / 2
        );
    }
    s.push_str("<use href=\"#coords\"/>");
    let board_ = d.pos.board();
    for (sq, piece) in board_ {
        let (x, y) = corner(sq);
        let color = match piece.color {
            Color::White => 'w',
            Color::Black => 'b',
        };
        let role = match piece.role {
            Role::King => 'K',
            Role::Queen => 'Q',
            Role::Rook => 'R',
            Role::Bishop => 'B',
            Role::Knight => 'N',
            Role::Pawn => 'P',
        };
        let _ = write!(
            s,
            "<use href=\"#pc-{color}{role}\" x=\"{x}\" y=\"{y}\" width=\"{SQ}\" height=\"{SQ}\"/>"
        );
    }
    if let Some((from, to)) = board.arrow {
        let centre = |sq| {
            let (x, y) = corner(sq);
            (x + SQ / 2, y + SQ / 2)
        };
        let ((x1, y1), (x2, y2)) = (centre(from), centre(to));
        // Stop short of the centre, so the head points at the square.
        let (dx, dy) = (f64::from(x2) - f64::from(x1), f64::from(y2) - f64::from(y1));
        let len = (dx * dx + dy * dy).sqrt().max(1.0);
        let short = 12.0 / len;
        let _ = write!(
            s,
            "<line class=\"arrow\" x1=\"{x1}\" y1=\"{y1}\" x2=\"{:.0}\" y2=\"{:.0}\" marker-end=\"url(#head)\"/>",
            f64::from(x2) - dx * short,
            f64::from(y2) - dy * short
        );
    }
    s.push_str("</svg>");
}

/// `n` and the noun for it, singular or plural.
fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Chess;

    fn place() -> FindingPlace<'static> {
        FindingPlace::in_game(("a<b>.pgn", 3, Some(0)), ("W & Co", "B"), (1, Color::White))
    }

    #[test]
    fn boards_stop_at_the_limit_and_the_rest_are_listed() {
        let mut page = Page::new("validate", 1);
        let board = Board {
            diagram: Diagram {
                plies: 0,
                pos: Chess::default(),
                last: None,
            },
            arrow: Some((Square::G1, Square::F3)),
        };
        let item = Item {
            code: "illegal-move".into(),
            message: "`Nf4` <is> not legal".into(),
            board: Some(board),
            ..Item::default()
        };
        page.game(&place(), "1-0", 1, [item.clone(), item].into_iter());
        let mut out = Vec::new();
        page.finish(&mut out, &Head::default()).unwrap();
        let html = String::from_utf8(out).unwrap();
        assert_eq!(html.matches("<svg class=\"board\"").count(), 1);
        assert_eq!(html.matches("<use href=\"#pc-").count(), 32);
        assert!(html.contains("data-boards=\"1\""));
        assert!(html.contains("Positions without a board"));
        assert!(html.contains("`Nf4` &lt;is&gt; not legal"));
        assert!(html.contains("a&lt;b&gt;.pgn"));
        assert!(html.contains("W &amp; Co"));
        assert!(!html.contains("<is>"));
        // Each piece is drawn once on the page.
        assert_eq!(html.matches("<symbol id=\"pc-").count(), 12);
        // No address outside the page.
        assert!(!html.contains("http"), "the page loads nothing");
    }

    #[test]
    fn a_full_page_lists_no_more_and_says_so() {
        let mut page = Page::new("validate", 10).with_budget(1);
        let item = Item {
            code: "layout".into(),
            message: "m".into(),
            ..Item::default()
        };
        for _ in 0..3 {
            page.game(&place(), "*", 1, std::iter::once(item.clone()));
        }
        let mut out = Vec::new();
        page.finish(&mut out, &Head::default()).unwrap();
        let html = String::from_utf8(out).unwrap();
        assert_eq!(html.matches("<article class=\"game\"").count(), 1);
        assert!(html.contains("2 more games with findings are counted above but not listed"));
    }

    /// Issue 43, defect 1: one game whose entries outgrow the page is cut
    /// at the entry that fills it, not written whole.
    #[test]
    fn html_page_is_bounded_within_one_game() {
        let mut page = Page::new("validate", 10).with_budget(4096);
        let item = Item {
            code: "check-suffix".into(),
            message: "m".repeat(100),
            ..Item::default()
        };
        page.game(&place(), "*", 1, std::iter::repeat_n(item, 10_000));
        assert!(page.body.len() < 8192, "{} bytes", page.body.len());
        assert!(page.items < 100 && page.entries_left_off == 10_000 - page.items);
        let mut out = Vec::new();
        page.finish(&mut out, &Head::default()).unwrap();
        let html = String::from_utf8(out).unwrap();
        assert!(html.contains(&format!("{} more entries of this game", page_left(&html))));
        assert!(html.contains("more entries of the games listed"));
    }

    /// The count in "N more entries of this game".
    fn page_left(html: &str) -> String {
        let end = html.find(" more entries of this game").unwrap();
        html[..end].rsplit(' ').next().unwrap().to_owned()
    }
}
