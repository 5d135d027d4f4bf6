//! The `TimeControl` tag (PGN standard, section 9.6.1) read into typed
//! periods, and the time each move of a game took, from the clocks left
//! after the moves (`[%clk …]`, read by [`crate::rules::commands`]).
//!
//! A tag value is `?` (unknown), `-` (no time control), or one or more
//! periods separated by `:`, in the order the game uses them, the last
//! one repeating as long as the game needs it:
//!
//! - `40/7200`: 40 moves in 7200 seconds;
//! - `300`: 300 seconds for the rest of the game (sudden death);
//! - `300+2`: sudden death with 2 seconds added after each move;
//! - `*180`: a sandclock (hourglass) of 180 seconds in all, set with an
//!   equal amount of sand in each chamber: the time one side uses is given
//!   to the other;
//! - `40/5400+30`: a move count with an increment, not in the standard
//!   but written by FIDE events (`40/5400+30:1800+30`);
//! - fractions of a second, `10+0.05` (lichess's ultrabullet variants),
//!   as digits on both sides of the `.`.
//!
//! A malformed value is an error, never a guess.

use std::fmt;

use super::finding::{Code, Finding};
use super::game::{RawGame, Tag};

/// One period of a time control.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Period {
    /// Moves to make in the period; `None`: the rest of the game (sudden
    /// death).
    pub moves: Option<u32>,
    /// Time for the period, seconds (may have a fraction). For a sandclock
    /// period, the sand of both chambers: each side starts with half.
    pub seconds: f64,
    /// Added after each move of the period, seconds (0 when none).
    pub increment: f64,
    /// A sandclock period (`*180`): the time one side uses is given to the
    /// other.
    pub sandclock: bool,
}

/// The value of a `TimeControl` tag ([`parse`]).
#[derive(Debug, Clone, PartialEq)]
pub enum TimeControl {
    /// `?`: unknown.
    Unknown,
    /// `-`: no time control.
    None,
    /// One or more periods, separated by `:` in the tag, in the order the
    /// game uses them; the last repeats as long as the game needs it.
    Periods(Vec<Period>),
}

/// Reads a `TimeControl` tag value. ASCII whitespace around the value is
/// trimmed; none may stand inside it.
///
/// Each field of the `:`-separated list is `moves/seconds`, `seconds`,
/// `seconds+increment`, `moves/seconds+increment` (the FIDE events'
/// extension) or `*seconds` (a sandclock); seconds and increments may have
/// a fraction (`10+0.05`). A sudden-death or sandclock period ends the
/// list; a `moves/seconds` period may end it too, and then repeats. `?`
/// and `-` stand only for the whole value.
///
/// An error is a short phrase naming the field at fault: an empty value or
/// field, a `+` with nothing before or after it, a negative number or any
/// other character, a period of zero moves or with no time at all (no
/// seconds and no increment), a move count past `u32`, a sandclock with a
/// move count or an increment, a sudden-death or sandclock period before
/// another one.
///
/// # Examples
///
/// ```
/// use pgnkit::rules::time_control::{parse, Period, TimeControl};
/// let tc = parse(" 40/5400+30:1800+30 ").unwrap();
/// let TimeControl::Periods(periods) = &tc else { unreachable!() };
/// assert_eq!(
///     periods[0],
///     Period { moves: Some(40), seconds: 5400.0, increment: 30.0, sandclock: false }
/// );
/// assert_eq!(periods[1].moves, None);
/// assert_eq!(tc.to_string(), "40/5400+30:1800+30");
/// assert_eq!(parse("-"), Ok(TimeControl::None));
/// assert_eq!(
///     parse("40/"),
///     Err("`40/` has no seconds after the move count".to_string())
/// );
/// assert_eq!(
///     parse("300:40/7200"),
///     Err("`300`: a sudden-death period must be the last".to_string())
/// );
/// ```
pub fn parse(value: &str) -> Result<TimeControl, String> {
    let value = value.trim_ascii();
    match value {
        "" => return Err("an empty time control".to_string()),
        "?" => return Ok(TimeControl::Unknown),
        "-" => return Ok(TimeControl::None),
        _ => {}
    }
    if value.contains(|c: char| c.is_ascii_whitespace()) {
        return Err(format!("`{}` has whitespace inside", shown(value)));
    }
    let fields: Vec<&str> = value.split(':').collect();
    let mut periods = Vec::with_capacity(fields.len());
    for (i, field) in fields.iter().enumerate() {
        let period = read_period(field, value)?;
        if i + 1 < fields.len() && period.moves.is_none() {
            let kind = if period.sandclock {
                "sandclock"
            } else {
                "sudden-death"
            };
            return Err(format!(
                "`{}`: a {kind} period must be the last",
                shown(field)
            ));
        }
        periods.push(period);
    }
    Ok(TimeControl::Periods(periods))
}

/// One field of the value `value`.
fn read_period(field: &str, value: &str) -> Result<Period, String> {
    let f = shown(field);
    match field {
        "" => return Err(format!("`{}` has an empty period", shown(value))),
        "?" | "-" => {
            return Err(format!(
                "`{f}` stands for a whole time control, not for one period of `{}`",
                shown(value)
            ));
        }
        _ => {}
    }
    if field.contains('-') {
        return Err(format!("`{f}` has a negative number"));
    }
    if let Some(rest) = field.strip_prefix('*') {
        if rest.contains('/') {
            return Err(format!("`{f}`: a sandclock period has no move count"));
        }
        if rest.contains('+') {
            return Err(format!("`{f}`: a sandclock period has no increment"));
        }
        if rest.is_empty() {
            return Err(format!("`{f}` has no seconds after the `*`"));
        }
        let seconds = number(field, rest)?;
        return with_time(
            field,
            Period {
                moves: None,
                seconds,
                increment: 0.0,
                sandclock: true,
            },
        );
    }
    if field.contains('*') {
        return Err(if field.contains('/') {
            format!("`{f}`: a sandclock period has no move count")
        } else {
            format!("`{f}`: a `*` only starts a sandclock period (`*180`)")
        });
    }
    let (main, increment) = match field.split_once('+') {
        Some(("", _)) => {
            return Err(format!(
                "`{f}` starts with a `+`: no seconds before the increment"
            ));
        }
        Some((_, "")) => return Err(format!("`{f}` has no increment after the `+`")),
        Some((_, inc)) if inc.contains('+') => {
            return Err(format!("`{f}` has more than one `+`"));
        }
        Some((main, inc)) => (main, number(field, inc)?),
        None => (field, 0.0),
    };
    let (moves, seconds) = match main.split_once('/') {
        Some(("", _)) => return Err(format!("`{f}` has no move count before the `/`")),
        Some((_, "")) => return Err(format!("`{f}` has no seconds after the move count")),
        Some((_, s)) if s.contains('/') => return Err(format!("`{f}` has more than one `/`")),
        Some((m, s)) => (Some(move_count(field, m)?), number(field, s)?),
        None => (None, number(field, main)?),
    };
    with_time(
        field,
        Period {
            moves,
            seconds,
            increment,
            sandclock: false,
        },
    )
}

/// `period`, unless it gives no time at all.
fn with_time(field: &str, period: Period) -> Result<Period, String> {
    if period.seconds == 0.0 && period.increment == 0.0 {
        return Err(format!("`{}` gives no time at all", shown(field)));
    }
    Ok(period)
}

/// A move count of `field`: digits, 1 or more, within `u32`.
fn move_count(field: &str, digits: &str) -> Result<u32, String> {
    let f = shown(field);
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "`{f}`: the move count `{}` is not a whole number",
            shown(digits)
        ));
    }
    match digits.parse::<u32>() {
        Ok(0) => Err(format!("`{f}` is a period of zero moves")),
        Ok(n) => Ok(n),
        Err(_) => Err(format!(
            "`{f}`: the move count `{}` is too large",
            shown(digits)
        )),
    }
}

/// Seconds of `field`: digits, optionally followed by `.` and digits.
fn number(field: &str, text: &str) -> Result<f64, String> {
    let digits = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
    let well_formed = match text.split_once('.') {
        Some((whole, fraction)) => digits(whole) && digits(fraction),
        None => digits(text),
    };
    let (f, t) = (shown(field), shown(text));
    if !well_formed {
        return Err(format!(
            "`{f}`: `{t}` is not a number of seconds (digits, with an optional fraction such as `0.05`)"
        ));
    }
    match text.parse::<f64>() {
        Ok(seconds) if seconds.is_finite() => Ok(seconds),
        _ => Err(format!("`{f}`: `{t}` seconds is too large a number")),
    }
}

/// `text` for a message: at most 40 characters of it.
fn shown(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// The field as the tag writes it: `40/5400+30`, `300`, `*180` (an
/// increment of 0 is left out).
impl fmt::Display for Period {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.sandclock {
            return write!(f, "*{}", self.seconds);
        }
        if let Some(moves) = self.moves {
            write!(f, "{moves}/")?;
        }
        write!(f, "{}", self.seconds)?;
        if self.increment != 0.0 {
            write!(f, "+{}", self.increment)?;
        }
        Ok(())
    }
}

/// The normalised tag value: `?`, `-` or the periods joined by `:`, each
/// number written as the shortest decimal that reads back to it (`300`,
/// not `300.0`; `0.05`). What [`parse`] returns reads back to itself.
///
/// # Examples
///
/// ```
/// use pgnkit::rules::time_control::parse;
/// let tc = parse("40/7200+0:*0180").unwrap();
/// assert_eq!(tc.to_string(), "40/7200:*180");
/// assert_eq!(parse(&tc.to_string()), Ok(tc));
/// ```
impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeControl::Unknown => f.write_str("?"),
            TimeControl::None => f.write_str("-"),
            TimeControl::Periods(periods) => {
                for (i, period) in periods.iter().enumerate() {
                    if i > 0 {
                        f.write_str(":")?;
                    }
                    write!(f, "{period}")?;
                }
                Ok(())
            }
        }
    }
}

/// What [`time_spent`] returns: the seconds of each ply (`None`: not
/// known) and the problems, `(ply index from 0, message)`.
pub type Spent = (Vec<Option<f64>>, Vec<(usize, String)>);

/// The seconds each ply of a game took, from the clock left after each ply
/// (`clocks[i]`: seconds left on the mover's clock after ply `i + 1`, the
/// increment and any new period's time included, as lichess and chess.com
/// write `[%clk …]`; `None` when the record has none), the side that made
/// the first ply (`first_white`, false when the game starts with Black to
/// move: it only names the sides in the problems) and the time control.
///
/// Returns one entry per ply, `Some(seconds)` (to the millisecond) or
/// `None`, and the problems, `(ply index from 0, message)` in ply order:
/// exactly one for each ply whose time is `None`. Returns `None` overall
/// when `tc` is not [`TimeControl::Periods`], or when no ply has a clock
/// (a game that records no clocks has no problem to report).
///
/// Each side's moves are counted from 1 from its first ply, and both sides
/// start the game at the start of the first period (a game from a set-up
/// position is taken as timed from its first ply). A move takes
///
/// > clock before + increment (+ the next period's time) − clock after
///
/// where:
///
/// - the clock before a side's first move is the first period's seconds
///   (half of them for a sandclock), and afterwards the clock after the
///   side's previous move;
/// - the increment is the one of the period the move is made in;
/// - the move that completes a period of `n` moves also brings the next
///   period's seconds (the last period repeats; half of a sandclock's
///   seconds: one chamber);
/// - in a sandclock period, the time the opponent used on the previous ply,
///   if it was made in the sandclock too, is added to the clock before:
///   the sum of both clocks stays what it was when the sandclock started,
///   so the clock before is that sum less the opponent's clock after the
///   previous ply, which needs no earlier time to be known (a missing clock
///   costs the two plies that read it, not the rest of the game; only a
///   clock missing where the sandclock starts after another period leaves
///   the sum, and so every later ply of the sandclock, unknown).
///
/// A ply's time is `None`, with a problem, when its own clock is missing
/// ("no clock after the move") or is not a time left (negative or not a
/// number), when the clock it starts from is missing ("no clock after
/// White's previous move": the ply after a missing clock of the same
/// side, whose own clock then serves the side's next move), and when the
/// clocks give a negative time (the clock after the move is more than the
/// clock before and what was added allow).
///
/// # Examples
///
/// ```
/// use pgnkit::rules::time_control::{parse, time_spent};
/// let tc = parse("300+3").unwrap();
/// let clocks = [Some(300.0), Some(298.5), None, Some(290.0), Some(299.0)];
/// let (spent, problems) = time_spent(&clocks, true, &tc).unwrap();
/// assert_eq!(spent, [Some(3.0), Some(4.5), None, Some(11.5), None]);
/// assert_eq!(
///     problems,
///     [
///         (2, "no clock after the move".to_string()),
///         (4, "no clock after White's previous move".to_string()),
///     ]
/// );
/// ```
pub fn time_spent(clocks: &[Option<f64>], first_white: bool, tc: &TimeControl) -> Option<Spent> {
    let TimeControl::Periods(periods) = tc else {
        return None;
    };
    time_spent_in(clocks, first_white, periods)
}

/// [`time_spent`] for a time control of `periods` (a list of none is no
/// time control): what a caller that keeps the periods calls, without a
/// [`TimeControl`] to build.
pub fn time_spent_in(
    clocks: &[Option<f64>],
    first_white: bool,
    periods: &[Period],
) -> Option<Spent> {
    if periods.is_empty() || clocks.iter().all(Option::is_none) {
        return None;
    }
    // Each period's increment and each side's share, in milliseconds, once.
    let ms: Vec<(i64, [i64; 2])> = periods
        .iter()
        .map(|p| (to_ms(p.increment), [share(p, 0), share(p, 1)]))
        .collect();
    // Index 0: the side that makes the first ply.
    let mut sides = [0, 1].map(|s| SideClock {
        period: 0,
        made: 0,
        before: Some(ms[0].1[s]),
    });
    let name = |s: usize| {
        if (s == 0) == first_white {
            "White"
        } else {
            "Black"
        }
    };
    // The sum of both clocks in the sandclock, once a ply was made in it
    // (`Some(None)`: not known, a clock at its start was missing).
    let mut sand: Option<Option<i64>> = None;
    // The previous ply: whether made in a sandclock, and its clock after.
    let mut previous: Option<(bool, Option<i64>)> = None;
    let mut spent = Vec::with_capacity(clocks.len());
    let mut problems = Vec::new();
    for (ply, clock) in clocks.iter().enumerate() {
        let s = ply % 2;
        let side = &mut sides[s];
        let period_at = side.period;
        let period = periods[period_at];
        let after = clock.map(|c| (c.is_finite() && c >= 0.0).then(|| to_ms(c)));
        let mut next_period = 0;
        if let Some(n) = period.moves {
            side.made += 1;
            if side.made == n {
                side.period = (side.period + 1).min(periods.len() - 1);
                side.made = 0;
                next_period = ms[side.period].1[s];
            }
        }
        let start: Result<i64, String> = match previous {
            Some((true, opponent_after)) if period.sandclock => {
                match (sand.flatten(), opponent_after) {
                    (None, _) => Err(SAND_UNKNOWN.to_string()),
                    (_, None) => Err(format!(
                        "no clock after {}'s previous move, which the sandclock needs",
                        name(1 - s)
                    )),
                    (Some(sum), Some(after)) => Ok(sum.saturating_sub(after)),
                }
            }
            _ => {
                if period.sandclock && sand.is_none() {
                    // The first ply in the sandclock: the sum of both
                    // clocks as it starts (the opponent's chamber when the
                    // game starts in it).
                    let other = previous.map_or(Some(share(&period, 1 - s)), |(_, after)| after);
                    sand = Some(side.before.zip(other).map(|(a, b)| a.saturating_add(b)));
                }
                side.before
                    .ok_or_else(|| format!("no clock after {}'s previous move", name(s)))
            }
        };
        side.before = after.flatten();
        previous = Some((period.sandclock, after.flatten()));
        let result = match (after, start) {
            (None, _) => Err("no clock after the move".to_string()),
            (Some(None), _) => Err(format!(
                "the clock after the move ({}) is not a time left",
                clock.unwrap_or_default()
            )),
            (_, Err(why)) => Err(why),
            (Some(Some(after)), Ok(start)) => {
                let increment = ms[period_at].0;
                let took = start
                    .saturating_add(increment)
                    .saturating_add(next_period)
                    .saturating_sub(after);
                if took >= 0 {
                    Ok(took)
                } else {
                    let mut added = String::new();
                    for (what, ms) in [
                        ("the increment", increment),
                        ("the next period's time", next_period),
                    ] {
                        if ms != 0 {
                            added += &format!(" plus {what} ({})", clock_text(ms));
                        }
                    }
                    let verb = if added.is_empty() { "" } else { " allows" };
                    Err(format!(
                        "the clock after the move ({}) is more than the clock before ({}){added}{verb}",
                        clock_text(after),
                        clock_text(start)
                    ))
                }
            }
        };
        match result {
            Ok(ms) => spent.push(Some(ms as f64 / 1000.0)),
            Err(why) => {
                spent.push(None);
                problems.push((ply, why));
            }
        }
    }
    Some((spent, problems))
}

/// The problem of a ply in a sandclock whose sum of both clocks is not
/// known.
const SAND_UNKNOWN: &str =
    "the sand in the sandclock is not known: a clock at the start of its period is missing";

/// One side's place in the time control.
struct SideClock {
    /// The period its next move is made in (an index of the periods).
    period: usize,
    /// Its moves made in that period.
    made: u32,
    /// Its clock before its next move, ms (`None`: the clock after its
    /// previous move is missing).
    before: Option<i64>,
}

/// The milliseconds `period` gives side `s` (0: the side that moves first)
/// as it starts: its seconds, or one chamber of a sandclock (half, the odd
/// millisecond to the second side).
fn share(period: &Period, s: usize) -> i64 {
    let ms = to_ms(period.seconds);
    match (period.sandclock, s) {
        (false, _) => ms,
        (true, 0) => ms / 2,
        (true, _) => ms - ms / 2,
    }
}

/// Seconds in whole milliseconds (saturating at the ends of `i64`).
fn to_ms(seconds: f64) -> i64 {
    (seconds * 1000.0).round() as i64
}

/// Milliseconds as a clock, `H:MM:SS`, with a fraction (`.3`, `.05`) only
/// when not whole.
fn clock_text(ms: i64) -> String {
    let sign = if ms < 0 { "-" } else { "" };
    let ms = ms.unsigned_abs();
    let s = ms / 1000;
    let mut text = format!("{sign}{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
    if !ms.is_multiple_of(1000) {
        let fraction = format!("{:03}", ms % 1000);
        text.push('.');
        text.push_str(fraction.trim_end_matches('0'));
    }
    text
}

/// The `invalid-tag` finding of a `TimeControl` tag that `problem`
/// ([`parse`]'s error) says is malformed.
pub fn tag_finding(tag: &Tag<'_>, problem: &str) -> Finding {
    Finding::game(
        Code::InvalidTag,
        tag.value_line,
        format!(
            "TimeControl \"{}\" is not a time control: {problem}",
            tag.text()
        ),
    )
}

/// The `clock-mismatch` findings of [`time_spent`]'s `problems` for
/// `game`, each at its ply's move as written.
pub fn clock_findings(game: &RawGame<'_>, problems: Vec<(usize, String)>) -> Vec<Finding> {
    if problems.is_empty() {
        return Vec::new();
    }
    let moves: Vec<_> = game.main_line().collect();
    problems
        .into_iter()
        .map(|(i, problem)| {
            let (line, text) = moves
                .get(i)
                .map_or((game.line, &b""[..]), |t| (t.line, t.text));
            Finding::at_ply(
                Code::ClockMismatch,
                line,
                u32::try_from(i + 1).unwrap_or(u32::MAX),
                String::from_utf8_lossy(text),
                format!("no time taken: {problem}"),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn periods(value: &str) -> Vec<Period> {
        match parse(value) {
            Ok(TimeControl::Periods(periods)) => periods,
            other => panic!("{value}: {other:?}"),
        }
    }

    fn moves(moves: u32, seconds: f64, increment: f64) -> Period {
        Period {
            moves: Some(moves),
            seconds,
            increment,
            sandclock: false,
        }
    }

    fn sudden(seconds: f64, increment: f64) -> Period {
        Period {
            moves: None,
            seconds,
            increment,
            sandclock: false,
        }
    }

    #[test]
    fn moves_then_sudden_death() {
        assert_eq!(
            periods("40/7200:3600"),
            [moves(40, 7200.0, 0.0), sudden(3600.0, 0.0)]
        );
    }

    #[test]
    fn sudden_death_with_increment() {
        assert_eq!(periods("300+2"), [sudden(300.0, 2.0)]);
        assert_eq!(periods("300"), [sudden(300.0, 0.0)]);
        assert_eq!(periods("0+2"), [sudden(0.0, 2.0)]);
    }

    #[test]
    fn sandclock() {
        assert_eq!(
            periods("*180"),
            [Period {
                moves: None,
                seconds: 180.0,
                increment: 0.0,
                sandclock: true
            }]
        );
    }

    #[test]
    fn none_and_unknown() {
        assert_eq!(parse("-"), Ok(TimeControl::None));
        assert_eq!(parse("?"), Ok(TimeControl::Unknown));
        assert_eq!(parse(" \t?\n"), Ok(TimeControl::Unknown));
    }

    #[test]
    fn fide_moves_with_increment() {
        assert_eq!(
            periods("40/5400+30:1800+30"),
            [moves(40, 5400.0, 30.0), sudden(1800.0, 30.0)]
        );
    }

    #[test]
    fn fractions_of_a_second() {
        assert_eq!(periods("10+0.05"), [sudden(10.0, 0.05)]);
        assert_eq!(periods("0.5"), [sudden(0.5, 0.0)]);
        assert_eq!(periods("15.25+0.1"), [sudden(15.25, 0.1)]);
    }

    #[test]
    fn a_moves_period_alone_repeats() {
        assert_eq!(periods("40/7200"), [moves(40, 7200.0, 0.0)]);
    }

    #[test]
    fn three_periods() {
        assert_eq!(
            periods("120/7200:20/3600:900+30"),
            [
                moves(120, 7200.0, 0.0),
                moves(20, 3600.0, 0.0),
                sudden(900.0, 30.0)
            ]
        );
    }

    #[test]
    fn malformed_values_are_errors() {
        for (bad, why) in [
            ("", "an empty time control"),
            ("   ", "an empty time control"),
            ("40/7200:", "`40/7200:` has an empty period"),
            (":300", "`:300` has an empty period"),
            ("40/7200::300", "`40/7200::300` has an empty period"),
            (
                "+300",
                "`+300` starts with a `+`: no seconds before the increment",
            ),
            ("300+", "`300+` has no increment after the `+`"),
            ("300+2+1", "`300+2+1` has more than one `+`"),
            ("-300", "`-300` has a negative number"),
            ("300+-2", "`300+-2` has a negative number"),
            ("40/-60", "`40/-60` has a negative number"),
            (
                "3a0",
                "`3a0`: `3a0` is not a number of seconds (digits, with an optional fraction such as `0.05`)",
            ),
            (
                "5m",
                "`5m`: `5m` is not a number of seconds (digits, with an optional fraction such as `0.05`)",
            ),
            (
                ".5",
                "`.5`: `.5` is not a number of seconds (digits, with an optional fraction such as `0.05`)",
            ),
            (
                "5.",
                "`5.`: `5.` is not a number of seconds (digits, with an optional fraction such as `0.05`)",
            ),
            (
                "1.2.3",
                "`1.2.3`: `1.2.3` is not a number of seconds (digits, with an optional fraction such as `0.05`)",
            ),
            (
                "1e3",
                "`1e3`: `1e3` is not a number of seconds (digits, with an optional fraction such as `0.05`)",
            ),
            ("0/60", "`0/60` is a period of zero moves"),
            ("40/", "`40/` has no seconds after the move count"),
            ("/7200", "`/7200` has no move count before the `/`"),
            ("40/60/2", "`40/60/2` has more than one `/`"),
            ("40/+30", "`40/+30` has no seconds after the move count"),
            (
                "40.5/7200",
                "`40.5/7200`: the move count `40.5` is not a whole number",
            ),
            (
                "4294967296/60",
                "`4294967296/60`: the move count `4294967296` is too large",
            ),
            (
                "300:40/7200",
                "`300`: a sudden-death period must be the last",
            ),
            (
                "300+2:60",
                "`300+2`: a sudden-death period must be the last",
            ),
            ("*180:300", "`*180`: a sandclock period must be the last"),
            ("*180+2", "`*180+2`: a sandclock period has no increment"),
            ("*40/180", "`*40/180`: a sandclock period has no move count"),
            ("40/*180", "`40/*180`: a sandclock period has no move count"),
            (
                "180*",
                "`180*`: a `*` only starts a sandclock period (`*180`)",
            ),
            ("*", "`*` has no seconds after the `*`"),
            ("0", "`0` gives no time at all"),
            ("0.000", "`0.000` gives no time at all"),
            ("0+0", "`0+0` gives no time at all"),
            ("*0", "`*0` gives no time at all"),
            ("40/0", "`40/0` gives no time at all"),
            ("40 / 7200", "`40 / 7200` has whitespace inside"),
            ("300 +2", "`300 +2` has whitespace inside"),
            (
                "40/7200:?",
                "`?` stands for a whole time control, not for one period of `40/7200:?`",
            ),
            (
                "-:300",
                "`-` stands for a whole time control, not for one period of `-:300`",
            ),
            (
                "??",
                "`??`: `??` is not a number of seconds (digits, with an optional fraction such as `0.05`)",
            ),
            ("--", "`--` has a negative number"),
        ] {
            assert_eq!(parse(bad), Err(why.to_string()), "{bad:?}");
        }
        let huge = "9".repeat(400);
        let why = parse(&huge).unwrap_err();
        assert!(why.ends_with("seconds is too large a number"), "{why}");
        assert!(why.contains('…') && why.len() < 140, "{why}");
        // The move counts at the edge of u32 are fine.
        assert_eq!(periods("4294967295/60"), [moves(u32::MAX, 60.0, 0.0)]);
    }

    #[test]
    fn display_round_trips() {
        for (value, normal) in [
            ("?", "?"),
            ("-", "-"),
            ("40/7200:3600", "40/7200:3600"),
            ("300+0", "300"),
            ("0300+02", "300+2"),
            ("*180", "*180"),
            ("40/5400+30:1800+30", "40/5400+30:1800+30"),
            ("10+0.05", "10+0.05"),
            ("0.50", "0.5"),
            ("0+0.000001", "0+0.000001"),
            ("120/7200:20/3600:900+30", "120/7200:20/3600:900+30"),
            ("0.1+0.2", "0.1+0.2"),
            (
                "123456789012345678901234567890",
                "123456789012345680000000000000",
            ),
        ] {
            let tc = parse(value).unwrap();
            assert_eq!(tc.to_string(), normal, "{value}");
            assert_eq!(parse(&tc.to_string()), Ok(tc), "{value}");
        }
    }

    fn run(
        value: &str,
        clocks: &[Option<f64>],
        first_white: bool,
    ) -> (Vec<Option<f64>>, Vec<(usize, String)>) {
        time_spent(clocks, first_white, &parse(value).unwrap()).unwrap()
    }

    fn all(clocks: &[f64]) -> Vec<Option<f64>> {
        clocks.iter().copied().map(Some).collect()
    }

    #[test]
    fn increments() {
        // White: 300 + 3 - 300, then 300 + 3 - 301; Black: 300 + 3 - 300,
        // then 300 + 3 - 302.
        let (spent, problems) = run("300+3", &all(&[300.0, 300.0, 301.0, 302.0]), true);
        assert_eq!(spent, [Some(3.0), Some(3.0), Some(2.0), Some(1.0)]);
        assert!(problems.is_empty());
    }

    #[test]
    fn fractions_are_kept_to_the_millisecond() {
        let (spent, problems) = run("10+0.05", &all(&[9.93, 9.9, 9.5, 9.1]), true);
        assert_eq!(spent, [Some(0.12), Some(0.15), Some(0.48), Some(0.85)]);
        assert!(problems.is_empty());
        let (spent, _) = run("60", &all(&[59.9996]), true);
        assert_eq!(spent, [Some(0.0)]);
    }

    #[test]
    fn the_move_that_ends_a_period_brings_the_next_ones_time() {
        // Two moves in 60 s, then 30 s for the rest.
        let clocks = all(&[55.0, 58.0, 80.0, 86.0, 70.0, 80.0]);
        let (spent, problems) = run("2/60:30", &clocks, true);
        // White: 60 - 55; 55 + 30 - 80; 80 - 70. Black: 60 - 58;
        // 58 + 30 - 86; 86 - 80.
        assert_eq!(
            spent,
            [
                Some(5.0),
                Some(2.0),
                Some(5.0),
                Some(2.0),
                Some(10.0),
                Some(6.0)
            ]
        );
        assert!(problems.is_empty());
        // Without the next period's time, White's second move would be
        // negative.
        let (_, problems) = run("2/60:30", &all(&[55.0, 58.0, 80.0]), true);
        assert!(problems.is_empty());
        // The increment of the period ending, and its next period's time.
        let (spent, problems) = run("1/60+5:30+1", &all(&[60.0, 64.0, 85.0, 90.0]), true);
        // 60 + 5 + 30 - 60 and 60 + 5 + 30 - 64; then 60 + 1 - 85 and
        // 64 + 1 - 90 are negative: the next period's time arrives once.
        assert_eq!(spent[..2], [Some(35.0), Some(31.0)]);
        assert_eq!(spent[2..], [None, None]);
        assert_eq!(
            problems[0],
            (
                2,
                "the clock after the move (0:01:25) is more than the clock before (0:01:00) \
                 plus the increment (0:00:01) allows"
                    .to_string()
            )
        );
    }

    #[test]
    fn a_moves_period_last_repeats() {
        let clocks = all(&[50.0, 60.0, 100.0, 120.0, 90.0, 110.0, 140.0, 170.0]);
        let (spent, problems) = run("2/60", &clocks, true);
        // White: 60 - 50; 50 + 60 - 100; 100 - 90; 90 + 60 - 140.
        // Black: 60 - 60; 60 + 60 - 120; 120 - 110; 110 + 60 - 170.
        assert_eq!(spent, all(&[10.0, 0.0, 10.0, 0.0, 10.0, 10.0, 10.0, 0.0]));
        assert!(problems.is_empty());
    }

    #[test]
    fn a_missing_clock_costs_its_ply_and_the_sides_next() {
        let clocks = [
            Some(59.0),
            Some(58.0),
            None,
            Some(55.0),
            Some(50.0),
            Some(54.0),
            Some(45.0),
        ];
        let (spent, problems) = run("60", &clocks, true);
        assert_eq!(
            spent,
            [
                Some(1.0),
                Some(2.0),
                None,
                Some(3.0),
                None,
                Some(1.0),
                Some(5.0)
            ]
        );
        assert_eq!(
            problems,
            [
                (2, "no clock after the move".to_string()),
                (4, "no clock after White's previous move".to_string()),
            ]
        );
        // A clock that is not a time left is named as such.
        let (spent, problems) = run("60", &[Some(-1.0), Some(f64::NAN)], true);
        assert_eq!(spent, [None, None]);
        assert_eq!(
            problems,
            [
                (
                    0,
                    "the clock after the move (-1) is not a time left".to_string()
                ),
                (
                    1,
                    "the clock after the move (NaN) is not a time left".to_string()
                ),
            ]
        );
    }

    #[test]
    fn no_clocks_or_no_periods_give_nothing() {
        let tc = parse("300+2").unwrap();
        assert_eq!(time_spent(&[None, None, None], true, &tc), None);
        assert_eq!(time_spent(&[], true, &tc), None);
        for other in [TimeControl::Unknown, TimeControl::None] {
            assert_eq!(time_spent(&[Some(300.0)], true, &other), None);
        }
        assert_eq!(
            time_spent(&[Some(300.0)], true, &TimeControl::Periods(vec![])),
            None
        );
    }

    #[test]
    fn a_negative_time_is_a_problem() {
        let (spent, problems) = run("300+2", &all(&[298.0, 300.0, 303.0]), true);
        assert_eq!(spent, [Some(4.0), Some(2.0), None]);
        assert_eq!(
            problems,
            [(
                2,
                "the clock after the move (0:05:03) is more than the clock before (0:04:58) \
                 plus the increment (0:00:02) allows"
                    .to_string()
            )]
        );
        let (_, problems) = run("60", &all(&[60.5]), true);
        assert_eq!(
            problems,
            [(
                0,
                "the clock after the move (0:01:00.5) is more than the clock before (0:01:00)"
                    .to_string()
            )]
        );
        // The side's next move starts from the clock written.
        let (spent, _) = run("60", &all(&[61.0, 60.0, 58.0]), true);
        assert_eq!(spent, [None, Some(0.0), Some(3.0)]);
    }

    #[test]
    fn black_moving_first() {
        let clocks = [Some(59.0), None, Some(57.0), Some(50.0)];
        let (spent, problems) = run("60", &clocks, false);
        assert_eq!(spent, [Some(1.0), None, Some(2.0), None]);
        assert_eq!(
            problems,
            [
                (1, "no clock after the move".to_string()),
                (3, "no clock after White's previous move".to_string()),
            ]
        );
        let (_, problems) = run("60", &clocks, true);
        assert_eq!(problems[1].1, "no clock after Black's previous move");
        // The periods are counted per side, from each side's first ply.
        let (spent, _) = run("1/60:30", &all(&[50.0, 85.0, 45.0]), false);
        assert_eq!(spent, all(&[40.0, 5.0, 5.0]));
    }

    #[test]
    fn a_sandclock_gives_the_time_used_to_the_opponent() {
        // 180 s of sand, 90 in each chamber.
        let clocks = all(&[85.0, 92.0, 80.0, 100.0, 70.0]);
        let (spent, problems) = run("*180", &clocks, true);
        // White 90 - 85; Black 90 + 5 - 92; White 85 + 3 - 80; Black
        // 92 + 8 - 100; White 80 + 0 - 70.
        assert_eq!(spent, all(&[5.0, 3.0, 8.0, 0.0, 10.0]));
        assert!(problems.is_empty());
        // A missing clock costs the two plies that read it, not the rest.
        let clocks = [Some(85.0), None, Some(80.0), Some(100.0), Some(70.0)];
        let (spent, problems) = run("*180", &clocks, true);
        assert_eq!(spent, [Some(5.0), None, None, Some(0.0), Some(10.0)]);
        assert_eq!(
            problems,
            [
                (1, "no clock after the move".to_string()),
                (
                    2,
                    "no clock after Black's previous move, which the sandclock needs".to_string()
                ),
            ]
        );
        // More than the sand allows.
        let (_, problems) = run("*180", &all(&[85.0, 96.0]), true);
        assert_eq!(
            problems,
            [(
                1,
                "the clock after the move (0:01:36) is more than the clock before (0:01:35)"
                    .to_string()
            )]
        );
    }

    #[test]
    fn a_sandclock_after_a_moves_period() {
        // One move in 60 s, then a sandclock of 20 s: each side gets one
        // chamber, 10 s, with its first move, and keeps what it had left.
        let clocks = all(&[65.0, 68.0, 60.0, 70.0, 63.0]);
        let (spent, problems) = run("1/60:*20", &clocks, true);
        // White 60 + 10 - 65; Black 60 + 10 - 68; White 65 - 60 (the
        // sandclock's first ply: Black's last was in the other period);
        // Black 68 + 5 - 70; White 60 + 3 - 63.
        assert_eq!(spent, all(&[5.0, 2.0, 5.0, 3.0, 0.0]));
        assert!(problems.is_empty());
        // A clock missing as the sandclock starts leaves its sum unknown.
        let clocks = [Some(65.0), None, Some(60.0), Some(70.0), Some(63.0)];
        let (spent, problems) = run("1/60:*20", &clocks, true);
        assert_eq!(spent, [Some(5.0), None, Some(5.0), None, None]);
        assert_eq!(
            problems[1..],
            [(3, SAND_UNKNOWN.to_string()), (4, SAND_UNKNOWN.to_string()),]
        );
    }

    #[test]
    fn clock_text_writes_a_fraction_only_when_not_whole() {
        assert_eq!(clock_text(298_000), "0:04:58");
        assert_eq!(clock_text(3_723_400), "1:02:03.4");
        assert_eq!(clock_text(9_050), "0:00:09.05");
        assert_eq!(clock_text(-1_500), "-0:00:01.5");
    }
}
