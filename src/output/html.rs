//! The arbiter's page (`validate -f html`, `annotate-outcome -f html`): one
//! self-contained HTML file, readable offline and without JavaScript, with
//! the run's counts at the top, an index of the games by event, round and
//! board, and one entry per game to look at (in input order), each finding
//! beside a board of the position it is about and the moves written
//! around it.
//!
//! Boards are inline SVG: the squares and each piece are drawn once per
//! page (`<symbol>`) and placed with `<use>`, so a board costs about a
//! kilobyte; the coordinates are text beside it, read at any size. The pieces are Colin M.L. Burnett's (`cburnett`,
//! GPL-2.0-or-later: `html/LICENSE`). The page is put together in memory
//! and written whole at the end, because its counts come first.

use std::cmp::Ordering;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::sync::Arc;

use shakmaty::{Color, Position, Role, Square};

use crate::rules::diagram::Diagram;
use crate::rules::finding::Severity;
use crate::rules::notation::move_name;
use crate::schema::finding::FindingPlace;

/// The pieces, one `<symbol>` each (`pc-wK` … `pc-bP`).
const PIECES: &str = include_str!("html/pieces.svg");

/// The size of a square in the boards' coordinates (the pieces' own).
const SQ: u32 = 45;

/// The page's style: light and dark, screen and A4 print.
const STYLE: &str = r#"
:root{color-scheme:light dark;--fg:#1b1b1b;--bg:#fff;--muted:#5b5b5b;--line:#d5d5d5;--card:#f6f6f4;--err:#b3261e;--warn:#8a5a00;--light:#f0d9b5;--dark:#b58863;--mark:rgba(255,214,0,.55);--check:#e0301e;--arrow:rgba(0,110,220,.8);--meant:rgba(0,150,60,.9)}
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
.finding figure{margin:0;width:256px;flex:none}
.finding figcaption{margin-top:4px}
.finding .text{flex:1 1 360px;min-width:0}
.finding .text p{margin:.15em 0}
svg.board{width:240px;height:240px;display:block}
.light{fill:var(--light)}.dark{fill:var(--dark)}.last{fill:var(--mark)}.chk{fill:var(--check);opacity:.7}
.bd{display:grid;grid-template-columns:16px 240px;grid-template-rows:240px 18px}
.rk,.fl{display:grid;font:600 13px/1 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);text-align:center;align-items:center;user-select:none}
.rk{grid-template-rows:repeat(8,1fr);padding-right:3px}.fl{grid-column:2;grid-template-columns:repeat(8,1fr)}
.arrow{stroke:var(--arrow);stroke-width:6;stroke-linecap:round}.arrow-head{fill:var(--arrow)}
.arrow-suggested{stroke:var(--meant);stroke-width:6;stroke-linecap:butt;stroke-dasharray:9 6}.arrow-head-s{fill:var(--meant)}
.key{display:inline-block;width:22px;height:0;vertical-align:middle;margin-right:4px;border-top:4px solid var(--arrow)}.key-s{border-top:4px dashed var(--meant)}
.around{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em;overflow-wrap:anywhere}
.around mark{background:#ffe066;color:#111;outline:2px solid var(--err);outline-offset:1px;border-radius:2px;padding:0 2px;font-weight:700}
.status{font-weight:600}
.index h2{margin-top:.8em}.index h3{font-size:1em;margin:.7em 0 .15em}.index h4{font-size:.95em;margin:.45em 0 .1em;color:var(--muted)}
.index ul{list-style:none;margin:0;padding:0;columns:2 340px;column-gap:28px}.index li{break-inside:avoid;margin:1px 0;overflow-wrap:anywhere}
.wide{overflow-x:auto;max-width:100%}
#filter{font:inherit;padding:4px 8px;width:min(420px,100%)}
@media print{@page{size:A4;margin:14mm}body{max-width:none;padding:0;font-size:10.5pt;color:#000;background:#fff}
.game{background:none;border-color:#999}#filter,.noprint{display:none}svg.board{width:190px;height:190px}.finding figure{width:204px}.bd{grid-template-columns:14px 190px;grid-template-rows:190px 14px}.rk,.fl{font-size:8.5pt;color:#000}}
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

/// A board to draw: the position, the move as written where its squares
/// can be told, and the move probably meant where a repair plays one in
/// this position.
#[derive(Debug, Clone)]
pub struct Board {
    pub diagram: Diagram,
    /// The move as written (blue, solid).
    pub written: Option<Arrow>,
    /// The first repair's move, when it is played in this position (green,
    /// dashed): an arbiter compares the two arrows.
    pub suggested: Option<Arrow>,
    /// Why the first repair's move is not drawn, when it is named but not
    /// played here (`8.Qd2, an earlier move`).
    pub suggestion_elsewhere: Option<String>,
}

/// A move drawn on a board: its squares, and its SAN for the legend.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arrow {
    pub from: Square,
    pub to: Square,
    pub san: String,
}

/// The main line's moves as written around the move an entry is about, as
/// a scoresheet reads (`12.Nxf6+ gxf6 13.Ne4`): a swapped or skipped pair
/// shows there, where a board shows one position. Moves after an illegal
/// one are tokens as written, since nothing can replay them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moves {
    /// The game's first move (fullmove number, side to move): how the
    /// moves are numbered.
    pub first_move: (u32, Color),
    /// The game's main line as written, shared by its entries: a game
    /// with 400,000 findings holds it once, not once per finding.
    pub line: Arc<[String]>,
    /// The ply of the entry's move, marked.
    pub marked: u32,
}

impl Moves {
    /// The moves around ply `marked` of `line` (the main line as written,
    /// the first at ply 1, from [`Moves::line`]); `None` when `marked` is
    /// not a ply of the line.
    pub fn new(line: Arc<[String]>, first_move: (u32, Color), marked: u32) -> Option<Moves> {
        let at = (marked as usize).checked_sub(1)?;
        (at < line.len()).then_some(Moves {
            first_move,
            line,
            marked,
        })
    }

    /// The main line's moves as written, for [`Moves::new`], each clipped
    /// to what is shown of it: a token of garbage can be any length.
    pub fn line<T: AsRef<str>>(tokens: impl Iterator<Item = T>) -> Arc<[String]> {
        tokens
            .map(|t| crate::output::diag::clipped(t.as_ref(), MOVE_SHOWN).into_owned())
            .collect()
    }

    /// The plies shown, as indices into the line: [`MOVES_AROUND`] about
    /// the marked one.
    fn shown(&self) -> std::ops::Range<usize> {
        let at = self.marked as usize - 1;
        let (before, after) = MOVES_AROUND;
        at.saturating_sub(before as usize)..(at + 1 + after as usize).min(self.line.len())
    }
}

/// The plies [`Moves`] shows before and after the move it marks: enough
/// for a pair written in the other order, or skipped, a few moves back.
pub const MOVES_AROUND: (u32, u32) = (6, 4);

/// The most characters of one written move shown.
const MOVE_SHOWN: usize = 16;

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
    /// The moves written around the one the entry is about.
    pub moves: Option<Moves>,
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
    /// What the exit status means, in words ([`status_words`]).
    pub status: String,
}

/// The exit status in words an arbiter reads, with its number: `problems`
/// is what fails the run (`3 games have errors that need a look`), none
/// when nothing does; `fine` what is said then; `unread` the inputs that
/// could not be read to the end, which make the status 2 whatever else.
///
/// # Examples
///
/// ```
/// use pgnkit::output::html::status_words;
/// assert_eq!(
///     status_words(None, "No problems found", 0),
///     "No problems found (exit status 0)."
/// );
/// assert_eq!(
///     status_words(Some("2 games have errors that need a look".into()), "", 0),
///     "Problems found: 2 games have errors that need a look (exit status 1)."
/// );
/// ```
pub fn status_words(problems: Option<String>, fine: &str, unread: u64) -> String {
    match (unread, problems) {
        (0, Some(problems)) => format!("Problems found: {problems} (exit status 1)."),
        (0, None) => format!("{fine} (exit status 0)."),
        (n, problems) => {
            let mut s = format!(
                "Some files could not be read to the end: {} stopped early (standard error says where), and the games read before are below (exit status 2).",
                if n == 1 {
                    "1 input".to_owned()
                } else {
                    format!("{n} inputs")
                }
            );
            match problems {
                Some(problems) => {
                    let _ = write!(s, " Problems found in what was read: {problems}.");
                }
                None => {
                    let _ = write!(s, " In what was read: {}.", lower_first(fine));
                }
            }
            s
        }
    }
}

/// `text` with its first letter in lower case (a sentence made a clause).
fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// One game's line in the index, and what it is filed under.
#[derive(Debug)]
struct IndexEntry {
    event: Option<String>,
    round: Option<String>,
    board: Option<String>,
    /// The `<li>`, written.
    li: String,
}

impl IndexEntry {
    /// What the entry holds in memory, counted in the page's budget.
    fn bytes(&self) -> usize {
        let len = |s: &Option<String>| s.as_ref().map_or(0, String::len);
        std::mem::size_of::<IndexEntry>()
            + len(&self.event)
            + len(&self.round)
            + len(&self.board)
            + self.li.len()
    }
}

/// The round and the board a game is filed under: its `Round` and `Board`
/// tags; without a `Board` tag, a round written `5.3` is round 5, board 3
/// (as TWIC and many pairing programs number a game).
fn round_and_board(round: Option<&str>, board: Option<&str>) -> (Option<String>, Option<String>) {
    match (round, board) {
        (Some(round), Some(board)) => (Some(round.to_owned()), Some(board.to_owned())),
        (Some(round), None) => match round.rsplit_once('.') {
            Some((r, b))
                if !r.is_empty() && !b.is_empty() && b.bytes().all(|c| c.is_ascii_digit()) =>
            {
                (Some(r.to_owned()), Some(b.to_owned()))
            }
            _ => (Some(round.to_owned()), None),
        },
        (None, board) => (None, board.map(str::to_owned)),
    }
}

/// A piece of a round or board name, in natural order: a number by its
/// value (`2` before `10`), other text by its characters, numbers first.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Part<'a> {
    /// The digits without leading zeros: the longer is larger, then the
    /// digits decide (any length, no overflow).
    Number(usize, &'a str),
    Text(&'a str),
}

/// The natural order's key of `name`: `3.1` is `[3, ".", 1]`.
fn natural(name: &str) -> Vec<Part<'_>> {
    let mut parts = Vec::new();
    let mut rest = name.trim();
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let len = if digits > 0 {
            digits
        } else {
            rest.bytes().take_while(|b| !b.is_ascii_digit()).count()
        };
        let (part, tail) = rest.split_at(len);
        parts.push(if digits > 0 {
            let value = part.trim_start_matches('0');
            Part::Number(value.len(), value)
        } else {
            Part::Text(part)
        });
        rest = tail;
    }
    parts
}

/// Orders two names naturally; ties of the natural key by their text.
fn natural_cmp(a: &str, b: &str) -> Ordering {
    natural(a).cmp(&natural(b)).then_with(|| a.cmp(b))
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
    /// The index's lines, one per game listed, in input order; their bytes
    /// count in the budget as the entries' do.
    index: Vec<IndexEntry>,
    index_bytes: usize,
    /// The ids given to the games' entries, to keep each one unique, and
    /// the inputs met, whose number an id carries after the first.
    ids: HashSet<String>,
    files: Vec<String>,
    /// The tournament's section (`validate`: each event's crosstable), put
    /// after the index.
    tournament: String,
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
            index: Vec::new(),
            index_bytes: 0,
            ids: HashSet::new(),
            files: Vec::new(),
            tournament: String::new(),
        }
    }

    /// The id of the entry of game `game` of `file` (its first, when the
    /// game has more than one), if the page holds one: what a crosstable's
    /// cell links.
    pub fn anchor(&self, file: &str, game: u64) -> Option<String> {
        let i = self.files.iter().position(|f| f == file)?;
        let id = if i == 0 {
            format!("g{game}")
        } else {
            format!("f{}-g{game}", i + 1)
        };
        self.ids.contains(&id).then_some(id)
    }

    /// Whether `bytes` more fit in the page's budget.
    pub fn fits(&self, bytes: usize) -> bool {
        self.held() + bytes < self.budget
    }

    /// Sets the tournament's section: HTML of tables (see
    /// [`crate::output::crosstable::html`]), counted in the budget.
    pub fn set_tournament(&mut self, html: String) {
        self.index_bytes += html.len();
        self.tournament = html;
    }

    /// The bytes the page holds so far: entries, the table of positions
    /// without a board, and the index.
    fn held(&self) -> usize {
        self.body.len() + self.rest.len() + self.index_bytes
    }

    /// A stable id for the entry of the game at `place` (`g12`, `f2-g12`
    /// for game 12 of the second input with games on the page, `line40`
    /// for text outside games), unique on the page: the same inputs give
    /// the same ids, so a link to `page.html#g12` is one an arbiter can
    /// send.
    fn game_id(&mut self, place: &FindingPlace<'_>, line: u64) -> String {
        let file = match self.files.iter().position(|f| f == place.file) {
            Some(i) => i,
            None => {
                self.files.push(place.file.to_owned());
                self.index_bytes += place.file.len();
                self.files.len() - 1
            }
        };
        let mut id = if file == 0 {
            String::new()
        } else {
            format!("f{}-", file + 1)
        };
        match place.game {
            Some(game) => {
                let _ = write!(id, "g{game}");
            }
            None => {
                let _ = write!(id, "line{line}");
            }
        }
        // The same input named twice: its games again, numbered again.
        let mut unique = id.clone();
        let mut n = 1;
        while self.ids.contains(&unique) {
            n += 1;
            unique = format!("{id}-{n}");
        }
        self.index_bytes += 2 * unique.len();
        self.ids.insert(unique.clone());
        unique
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
        if self.held() >= self.budget {
            self.left_off += 1;
            return;
        }
        self.games += 1;
        let game = place.game.unwrap_or(0);
        let id = self.game_id(place, line);
        let mut s = String::with_capacity(2048);
        let _ = write!(
            s,
            "<article class=\"game\" id=\"{id}\" data-file=\"{}\" data-game=\"{game}\">",
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
            "<p class=\"muted\">{} line {line}, game {game} <a class=\"noprint\" href=\"#index\">↑ index</a></p>",
            escape(place.file)
        );
        // The page's bytes so far are checked before each entry after the
        // first (the game's start was), not only at a game's start: one
        // game may hold 400,000 findings.
        let full = |page: &Page, s: &str| page.held() + s.len() >= page.budget;
        // Each item is made as it is drawn and dropped after: a game with
        // 400,000 findings holds their entries one at a time.
        let total = items.len();
        let mut counted = Severities::default();
        let mut items = items.enumerate();
        for (i, item) in items.by_ref() {
            let item = &item;
            counted.add(item.severity);
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
                // The coordinates beside the board, not on it: text at the
                // page's size in its colour, which no piece covers and
                // which prints as clearly as the moves.
                s.push_str("<figure><div class=\"bd\"><div class=\"rk\" aria-hidden=\"true\"><span>8</span><span>7</span><span>6</span><span>5</span><span>4</span><span>3</span><span>2</span><span>1</span></div>");
                board_svg(&mut s, board, &fen);
                s.push_str("<div class=\"fl\" aria-hidden=\"true\"><span>a</span><span>b</span><span>c</span><span>d</span><span>e</span><span>f</span><span>g</span><span>h</span></div></div>");
                s.push_str("<figcaption>");
                legend(&mut s, board, item.suggestion.is_some());
                let _ = write!(
                    s,
                    "<code class=\"fen\">{}</code></figcaption></figure>",
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
            if let Some(moves) = &item.moves {
                moves_html(&mut s, moves);
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
        // The entries left off still count in the index's line: they are
        // made one at a time and dropped.
        for (_, item) in items {
            counted.add(item.severity);
        }
        s.push_str("</article>\n");
        self.body.extend_from_slice(s.as_bytes());
        let entry = index_entry(place, &id, result, line, counted);
        self.index_bytes += entry.bytes();
        self.index.push(entry);
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
        let _ = write!(s, "<p class=\"status\">{}</p>", escape(&head.status));
        let _ = write!(
            s,
            "<p class=\"muted\">{} to look at below, in input order (the index groups them by round and board); {} of {} {} {} a board{}.</p>",
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
        index_html(&mut s, &self.index, self.left_off);
        if !self.tournament.is_empty() {
            let _ = write!(
                s,
                "<section id=\"tournament\" class=\"tournament\"><h2>The tournament</h2><p class=\"muted\">Each event's standings from the results; a cell in red links the game with findings.</p>{}</section>",
                self.tournament
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

/// Says which arrow is which, in words as well as colour and line (a page
/// printed in black and white keeps the words): the move as written, and
/// the move probably meant, or why that one is not drawn.
fn legend(s: &mut String, board: &Board, suggested: bool) {
    if let Some(arrow) = &board.written {
        let _ = write!(
            s,
            "<span class=\"legend-written\"><span class=\"key\"></span>written: <b>{}</b> (blue, solid)</span><br>",
            escape(&arrow.san)
        );
    }
    match &board.suggested {
        Some(arrow) => {
            let _ = write!(
                s,
                "<span class=\"legend-suggested\"><span class=\"key key-s\"></span>probably meant: <b>{}</b> (green, dashed)</span><br>",
                escape(&arrow.san)
            );
        }
        None => match &board.suggestion_elsewhere {
            Some(note) => {
                let _ = write!(
                    s,
                    "<span class=\"muted\">probably meant: {}: not drawn on this board</span><br>",
                    escape(note)
                );
            }
            None if suggested => s.push_str(
                "<span class=\"muted\">probably meant: not a move in this position (see the text)</span><br>",
            ),
            None => {}
        },
    }
}

/// The moves written around an entry's move, its own marked.
fn moves_html(s: &mut String, moves: &Moves) {
    s.push_str("<p class=\"around\"><span class=\"muted\">Moves as written:</span> ");
    let shown = moves.shown();
    if shown.start > 0 {
        s.push_str("… ");
    }
    for (i, text) in moves.line[shown.clone()].iter().enumerate() {
        let ply = (shown.start + i) as u32 + 1;
        if i > 0 {
            s.push(' ');
        }
        let name = move_name(ply, moves.first_move, text);
        // As a scoresheet: Black's move after White's without its number.
        let shown = match name.split_once("...") {
            Some((_, san)) if i > 0 => san,
            _ => &name,
        };
        if ply == moves.marked {
            let _ = write!(s, "<mark data-ply=\"{ply}\">{}</mark>", escape(shown));
        } else {
            s.push_str(&escape(shown));
        }
    }
    if shown.end < moves.line.len() {
        s.push_str(" …");
    }
    s.push_str("</p>");
}

/// How many entries of each severity a game has: the index shows them.
#[derive(Debug, Default, Clone, Copy)]
struct Severities {
    errors: u64,
    warnings: u64,
    /// Entries without a severity (the outcome's questions).
    others: u64,
}

impl Severities {
    fn add(&mut self, severity: Option<&str>) {
        match severity {
            Some(s) if s == Severity::Error.as_str() => self.errors += 1,
            Some(s) if s == Severity::Warning.as_str() => self.warnings += 1,
            _ => self.others += 1,
        }
    }
}

/// The index's line of the game at `place`, whose entry has id `id`.
fn index_entry(
    place: &FindingPlace<'_>,
    id: &str,
    result: &str,
    line: u64,
    counted: Severities,
) -> IndexEntry {
    let known = |v: Option<&str>| {
        v.map(str::trim)
            .filter(|v| !matches!(*v, "" | "?"))
            .map(|v| crate::output::diag::clipped(v, crate::output::diag::SHOWN).into_owned())
    };
    // `-` is the standard's "not applicable" (lichess writes it for every
    // casual game): no round to file the game under.
    let round = known(place.round).filter(|r| r != "-");
    let (round, board) = round_and_board(round.as_deref(), known(place.board).as_deref());
    let mut li = String::with_capacity(256);
    let _ = write!(li, "<li><a href=\"#{id}\">");
    let boarded = board.is_some() && round.is_some();
    match (&board, place.game) {
        (Some(board), _) if boarded => {
            let _ = write!(li, "board {}: ", escape(board));
        }
        (_, Some(game)) => {
            let _ = write!(li, "game {game}: ");
        }
        (_, None) => {}
    }
    if place.game.is_some() {
        let _ = write!(
            li,
            "{} – {}",
            escape(&crate::output::diag::clipped(
                place.white,
                crate::output::diag::SHOWN
            )),
            escape(&crate::output::diag::clipped(
                place.black,
                crate::output::diag::SHOWN
            ))
        );
    } else {
        let _ = write!(li, "line {line}: outside any game");
    }
    li.push_str("</a>");
    if !result.is_empty() {
        let _ = write!(li, " <span class=\"muted\">{}</span>", escape(result));
    }
    // The game's number too where the board names it: two games on one
    // board (a replay, an input named twice) are told apart.
    if let (true, Some(game)) = (boarded, place.game) {
        let _ = write!(li, " <span class=\"muted\">(game {game})</span>");
    }
    let mut counts = Vec::new();
    if counted.errors > 0 {
        counts.push(format!(
            "<span class=\"sev-error\">{}</span>",
            plural(counted.errors, Severity::Error.as_str(), "errors")
        ));
    }
    if counted.warnings > 0 {
        counts.push(format!(
            "<span class=\"sev-warning\">{}</span>",
            plural(counted.warnings, Severity::Warning.as_str(), "warnings")
        ));
    }
    if counted.others > 0 {
        counts.push(format!("{} to look at", counted.others));
    }
    if !counts.is_empty() {
        let _ = write!(li, " · {}", counts.join(", "));
    }
    li.push_str("</li>");
    IndexEntry {
        event: known(place.event),
        round,
        board,
        li,
    }
}

/// The index: the games on the page by event (in the order met), then
/// round and board in natural order (`2` before `10`), the games without
/// a round last, in input order.
fn index_html(s: &mut String, entries: &[IndexEntry], left_off: u64) {
    if entries.is_empty() {
        return;
    }
    s.push_str("<nav id=\"index\" class=\"index\" aria-labelledby=\"index-h\"><h2 id=\"index-h\">Games on this page, by round and board</h2>");
    if left_off > 0 {
        let _ = write!(
            s,
            "<p class=\"sev-warning\">The page is full: the index lists the {} on it; {} more with findings are counted above but not listed.</p>",
            crate::output::diag::games(entries.len() as u64),
            left_off
        );
    }
    let mut events: Vec<(Option<&str>, Vec<&IndexEntry>)> = Vec::new();
    for entry in entries {
        let event = entry.event.as_deref();
        match events.iter_mut().find(|(e, _)| *e == event) {
            Some((_, list)) => list.push(entry),
            None => events.push((event, vec![entry])),
        }
    }
    for (event, list) in &events {
        let _ = write!(
            s,
            "<section><h3>{}</h3>",
            event.map_or_else(|| "Event not named".to_owned(), escape)
        );
        let (mut rounds, others): (Vec<&IndexEntry>, Vec<&IndexEntry>) =
            list.iter().partition(|e| e.round.is_some());
        // Stable: games on the same board of a round stay in input order.
        rounds.sort_by(|a, b| {
            let round = |e: &IndexEntry| e.round.clone().unwrap_or_default();
            natural_cmp(&round(a), &round(b)).then_with(|| match (&a.board, &b.board) {
                (Some(x), Some(y)) => natural_cmp(x, y),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            })
        });
        let mut at = 0;
        while at < rounds.len() {
            let round = rounds[at].round.as_deref().unwrap_or_default();
            let end = at + rounds[at..].partition_point(|e| e.round.as_deref() == Some(round));
            let _ = write!(s, "<h4>Round {}</h4><ul>", escape(round));
            for entry in &rounds[at..end] {
                s.push_str(&entry.li);
            }
            s.push_str("</ul>");
            at = end;
        }
        if !others.is_empty() {
            s.push_str(if rounds.is_empty() {
                "<h4>Games without a round</h4><ul>"
            } else {
                "<h4>Other games (no round)</h4><ul>"
            });
            for entry in &others {
                s.push_str(&entry.li);
            }
            s.push_str("</ul>");
        }
        s.push_str("</section>");
    }
    s.push_str("</nav>\n");
}

/// The page's shared drawings: the 64 squares, the arrow heads and the
/// pieces.
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
    s.push_str("<marker id=\"head\" viewBox=\"0 0 10 10\" refX=\"5\" refY=\"5\" markerWidth=\"3\" markerHeight=\"3\" orient=\"auto-start-reverse\"><path class=\"arrow-head\" d=\"M0 0L10 5L0 10z\"/></marker>");
    // The suggested move's head: open, a chevron, so that the two arrows
    // differ in shape as well as colour and line.
    s.push_str("<marker id=\"head-s\" viewBox=\"0 0 10 10\" refX=\"6\" refY=\"5\" markerWidth=\"3.2\" markerHeight=\"3.2\" orient=\"auto-start-reverse\"><path class=\"arrow-head-s\" d=\"M0 0L10 5L0 10L3 5z\"/></marker>");
    s.push_str(PIECES);
    s.push_str("</defs></svg>\n");
    s
}

/// The top-left corner of `sq` on a board seen from White's side.
fn corner(sq: Square) -> (u32, u32) {
    (u32::from(sq.file()) * SQ, (7 - u32::from(sq.rank())) * SQ)
}

/// One board: squares, the last move's squares, the king in check, the
/// pieces, the written move's arrow and the suggested one's; its FEN is
/// its text alternative.
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
    if let Some(arrow) = &board.written {
        arrow_svg(s, arrow, "arrow", "head");
    }
    if let Some(arrow) = &board.suggested {
        arrow_svg(s, arrow, "arrow-suggested", "head-s");
    }
    s.push_str("</svg>");
}

/// One arrow, from the centre of its first square to short of the centre
/// of its second, with its squares and move in data attributes.
fn arrow_svg(s: &mut String, arrow: &Arrow, class: &str, head: &str) {
    let centre = |sq| {
        let (x, y) = corner(sq);
        (x + SQ / 2, y + SQ / 2)
    };
    let ((x1, y1), (x2, y2)) = (centre(arrow.from), centre(arrow.to));
    // Stop short of the centre, so the head points at the square.
    let (dx, dy) = (f64::from(x2) - f64::from(x1), f64::from(y2) - f64::from(y1));
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    let short = 12.0 / len;
    let _ = write!(
        s,
        "<line class=\"{class}\" x1=\"{x1}\" y1=\"{y1}\" x2=\"{:.0}\" y2=\"{:.0}\" marker-end=\"url(#{head})\" data-from=\"{}\" data-to=\"{}\" data-san=\"{}\"/>",
        f64::from(x2) - dx * short,
        f64::from(y2) - dy * short,
        arrow.from,
        arrow.to,
        escape(&arrow.san)
    );
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
            written: Some(Arrow {
                from: Square::G1,
                to: Square::F3,
                san: "Nf4".into(),
            }),
            suggested: None,
            suggestion_elsewhere: None,
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

    /// A game at `event`, `round`, `board` (game `n` of `file`).
    fn filed<'a>(
        file: &'a str,
        n: u64,
        (event, round, board): (Option<&'a str>, Option<&'a str>, Option<&'a str>),
    ) -> FindingPlace<'a> {
        FindingPlace::in_game((file, n, Some(0)), ("W", "B"), (1, Color::White))
            .with_tags((event, round), &[], &[])
            .with_board(board)
    }

    fn error(code: &str) -> Item {
        Item {
            severity: Some("error"),
            code: code.into(),
            message: "m".into(),
            ..Item::default()
        }
    }

    fn finished(page: Page, head: &Head) -> String {
        let mut out = Vec::new();
        page.finish(&mut out, head).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// The index's part of `html`.
    fn index_of(html: &str) -> &str {
        let start = html.find("<nav id=\"index\"").expect("an index");
        let end = start + html[start..].find("</nav>").unwrap();
        &html[start..end]
    }

    /// In `text`, the values of `attr="…"` in order.
    fn values<'h>(text: &'h str, attr: &str) -> Vec<&'h str> {
        let key = format!("{attr}=\"");
        text.match_indices(&key)
            .map(|(i, _)| {
                let rest = &text[i + key.len()..];
                &rest[..rest.find('"').unwrap()]
            })
            .collect()
    }

    /// Issue 47: the index files the games by event, then round and board
    /// in natural order, a `5.3` round without a Board tag as round 5,
    /// board 3; the games without a round last, in input order; each line
    /// links to its game's entry, which stays in input order.
    #[test]
    fn index_groups_games_by_event_round_and_board() {
        let e = Some("Open");
        let games = [
            (e, Some("10"), Some("1")),
            (e, Some("2"), Some("3")),
            (e, None, None),
            (e, Some("2"), Some("10")),
            (Some("Blitz"), Some("1"), None),
            (e, Some("2.2"), None),
            (e, Some("3.1"), Some("4")),
            (e, Some("?"), Some("7")),
            (e, Some("2"), Some("1")),
        ];
        let mut page = Page::new("validate", 10);
        for (n, tags) in games.into_iter().enumerate() {
            let items = [error("illegal-move"), error("syntax")];
            page.game(
                &filed("t.pgn", n as u64 + 1, tags),
                "1-0",
                1,
                items.into_iter(),
            );
        }
        let html = finished(page, &Head::default());
        let index = index_of(&html);
        // By event as met, rounds 2 < 3.1 < 10, boards 1 < 2 < 3 < 10 in
        // round 2, the games without a round in input order.
        assert_eq!(
            values(index, "href"),
            [
                "#g9", "#g6", "#g2", "#g4", "#g7", "#g1", "#g3", "#g8", "#g5"
            ]
        );
        let headings: Vec<&str> = index
            .split("<h4>")
            .skip(1)
            .map(|h| &h[..h.find("</h4>").unwrap()])
            .collect();
        assert_eq!(
            headings,
            [
                "Round 2",
                "Round 3.1",
                "Round 10",
                "Other games (no round)",
                "Round 1"
            ]
        );
        assert!(index.find("<h3>Open</h3>").unwrap() < index.find("<h3>Blitz</h3>").unwrap());
        assert!(index.contains("board 2: W – B</a> <span class=\"muted\">1-0</span> <span class=\"muted\">(game 6)</span> · <span class=\"sev-error\">2 errors</span>"));
        assert!(index.contains("game 8: W – B"), "{index}");
        // Every entry has the id an index line links to, in input order.
        let ids: Vec<&str> = values(&html[html.find("<main>").unwrap()..], "id");
        assert_eq!(ids, (1..=9).map(|n| format!("g{n}")).collect::<Vec<_>>());
    }

    /// The ids are unique when an input is named twice, and carry the
    /// input's number after the first.
    #[test]
    fn index_links_are_unique_across_inputs() {
        let mut page = Page::new("validate", 10);
        let none = (None, None, None);
        for file in ["a.pgn", "b.pgn", "a.pgn"] {
            page.game(&filed(file, 4, none), "*", 1, std::iter::once(error("x")));
        }
        page.game(
            &FindingPlace::outside_games("b.pgn"),
            "",
            40,
            std::iter::once(error("syntax")),
        );
        let html = finished(page, &Head::default());
        assert_eq!(
            values(index_of(&html), "href"),
            ["#g4", "#f2-g4", "#g4-2", "#f2-line40"]
        );
        assert!(html.contains("line 40: outside any game"));
        for id in ["g4", "f2-g4", "g4-2", "f2-line40"] {
            assert_eq!(html.matches(&format!("id=\"{id}\"")).count(), 1, "{id}");
        }
    }

    /// The index is counted in the page's bytes: a full page lists in its
    /// index the games it holds, no more, and says so; the entries left
    /// off a listed game still count in its line.
    #[test]
    fn index_is_bounded_with_the_page() {
        let budget = 20_000;
        let mut page = Page::new("validate", 10).with_budget(budget);
        let item = Item {
            severity: Some("warning"),
            code: "check-suffix".into(),
            message: "m".repeat(200),
            ..Item::default()
        };
        for n in 1..=500 {
            let tags = (Some("Open"), Some("1"), None);
            page.game(
                &filed("t.pgn", n, tags),
                "*",
                1,
                std::iter::repeat_n(item.clone(), 3),
            );
        }
        let listed = page.games;
        assert!(listed > 5 && listed < 100, "{listed}");
        assert!(page.held() < budget + 2_000, "{}", page.held());
        let html = finished(page, &Head::default());
        let index = index_of(&html);
        assert_eq!(values(index, "href").len() as u64, listed);
        assert!(index.contains(&format!(
            "the index lists the {listed} games on it; {} more with findings",
            500 - listed
        )));
        assert!(index.contains("3 warnings"));
    }

    #[test]
    fn rounds_and_boards_sort_naturally() {
        let mut names = ["10", "2", "3.10", "3.2", "B", "1a", "01", "A"];
        names.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(names, ["01", "1a", "2", "3.2", "3.10", "10", "A", "B"]);
        assert_eq!(
            natural_cmp("99999999999999999999999", "100000000000000000000000"),
            Ordering::Less
        );
        assert_eq!(
            round_and_board(Some("5.3"), None),
            (Some("5".into()), Some("3".into()))
        );
        assert_eq!(
            round_and_board(Some("5.3"), Some("1")),
            (Some("5.3".into()), Some("1".into()))
        );
        assert_eq!(
            round_and_board(Some("5.x"), None),
            (Some("5.x".into()), None)
        );
        assert_eq!(round_and_board(Some(".3"), None), (Some(".3".into()), None));
    }

    /// Issue 47: the moves around a finding read as a scoresheet, its own
    /// marked, Black's moves numbered only where the line shown starts
    /// with one; `…` where the game goes on.
    #[test]
    fn moves_around_a_finding_read_as_the_scoresheet() {
        let line = [
            "d4", "Nf6", "c4", "g6", "Nc3", "Bg7", "e4", "d6", "f3", "O-O", "Be3", "Nbd7", "Qd2",
            "c5", "d5",
        ];
        let line = Moves::line(line.into_iter());
        let shown = |first_move, marked| {
            let mut s = String::new();
            moves_html(
                &mut s,
                &Moves::new(line.clone(), first_move, marked).unwrap(),
            );
            s.strip_prefix("<p class=\"around\"><span class=\"muted\">Moves as written:</span> ")
                .and_then(|s| s.strip_suffix("</p>"))
                .unwrap()
                .to_owned()
        };
        let white = (1, Color::White);
        assert_eq!(
            shown(white, 11),
            "… 3.Nc3 Bg7 4.e4 d6 5.f3 O-O <mark data-ply=\"11\">6.Be3</mark> Nbd7 7.Qd2 c5 8.d5"
        );
        // Black's move marked; a line that starts with Black's move.
        assert_eq!(
            shown(white, 12),
            "… 3...Bg7 4.e4 d6 5.f3 O-O 6.Be3 <mark data-ply=\"12\">Nbd7</mark> 7.Qd2 c5 8.d5"
        );
        // At the game's start nothing is before; the line goes on after.
        assert_eq!(
            shown(white, 2),
            "1.d4 <mark data-ply=\"2\">Nf6</mark> 2.c4 g6 3.Nc3 Bg7 …"
        );
        // A game from a FEN with Black to move at move 30.
        assert_eq!(
            shown((30, Color::Black), 1),
            "<mark data-ply=\"1\">30...d4</mark> 31.Nf6 c4 32.g6 Nc3 …"
        );
        assert_eq!(Moves::new(line.clone(), white, 16), None);
        assert_eq!(Moves::new(line.clone(), white, 0), None);
        // Moves as written: clipped and escaped, whatever they hold.
        let odd = ["e4", "<script>", &"x".repeat(100)];
        let mut s = String::new();
        moves_html(
            &mut s,
            &Moves::new(Moves::line(odd.into_iter()), white, 3).unwrap(),
        );
        assert!(
            s.contains("&lt;script&gt; <mark data-ply=\"3\">2.xxxxxxxxxxxxxxxx…</mark></p>"),
            "{s}"
        );
    }

    /// Issue 47: the written and the suggested moves are two arrows, told
    /// apart by class, colour, line and head, each with its squares in
    /// data attributes, and a legend in words says which is which.
    #[test]
    fn the_suggested_move_is_drawn_beside_the_written_one() {
        let arrow = |from, to, san: &str| Arrow {
            from,
            to,
            san: san.into(),
        };
        let board = Board {
            diagram: Diagram {
                plies: 0,
                pos: Chess::default(),
                last: None,
            },
            written: Some(arrow(Square::G1, Square::F3, "Nf3")),
            suggested: Some(arrow(Square::G1, Square::H3, "Nh3")),
            suggestion_elsewhere: None,
        };
        let mut s = String::new();
        board_svg(&mut s, &board, "fen");
        assert!(
            s.contains("<line class=\"arrow\" x1=\"292\" y1=\"337\" x2=\"252\" y2=\"258\""),
            "{s}"
        );
        assert!(s.contains(
            "marker-end=\"url(#head)\" data-from=\"g1\" data-to=\"f3\" data-san=\"Nf3\"/>"
        ));
        assert!(s.contains("<line class=\"arrow-suggested\" x1=\"292\" y1=\"337\""));
        assert!(s.contains(
            "marker-end=\"url(#head-s)\" data-from=\"g1\" data-to=\"h3\" data-san=\"Nh3\"/>"
        ));
        let mut legend_text = String::new();
        legend(&mut legend_text, &board, true);
        assert!(legend_text.contains("written: <b>Nf3</b> (blue, solid)"));
        assert!(legend_text.contains("probably meant: <b>Nh3</b> (green, dashed)"));
        // A repair of an earlier move is named, not drawn.
        let elsewhere = Board {
            suggested: None,
            suggestion_elsewhere: Some("8.Qd2, an earlier move".into()),
            ..board
        };
        let mut legend_text = String::new();
        legend(&mut legend_text, &elsewhere, true);
        assert!(legend_text.contains("probably meant: 8.Qd2, an earlier move: not drawn"));
        let mut svg = String::new();
        board_svg(&mut svg, &elsewhere, "fen");
        assert!(!svg.contains("arrow-suggested"));
    }

    /// Issue 47: the exit status in an arbiter's words, with its number.
    #[test]
    fn the_exit_status_is_said_in_plain_words() {
        let problems = || Some("3 games have errors that need a look".to_owned());
        assert_eq!(
            status_words(problems(), "No problems found", 0),
            "Problems found: 3 games have errors that need a look (exit status 1)."
        );
        assert_eq!(
            status_words(None, "No problems that fail the check: warnings only", 0),
            "No problems that fail the check: warnings only (exit status 0)."
        );
        let unread = status_words(problems(), "No problems found", 2);
        assert!(
            unread.starts_with("Some files could not be read to the end: 2 inputs stopped early")
        );
        assert!(unread.contains("(exit status 2). Problems found in what was read: 3 games have errors that need a look."));
        assert!(status_words(None, "No problems found", 1).ends_with("1 input stopped early (standard error says where), and the games read before are below (exit status 2). In what was read: no problems found."));
        // The page says it where the counts are.
        let head = Head {
            status: status_words(problems(), "", 0),
            ..Head::default()
        };
        let html = finished(Page::new("validate", 1), &head);
        assert!(html.contains("<p class=\"status\">Problems found: 3 games have errors that need a look (exit status 1).</p>"));
    }
}
