//! Commands embedded in comments, as lichess, chess.com and broadcast
//! software write them after a move: the clock, `{[%clk 0:04:58]}` (time
//! left, fractions of a second kept to the millisecond), and the engine's
//! evaluation, `{[%eval 0.35]}` in pawns or `{[%eval #-3]}` a signed mate
//! distance (optionally followed by `,depth`), both as written: lichess and
//! chess.com give White's point of view.
//!
//! Other commands (`[%emt …]`, `[%csl …]`, `[%cal …]`) are left alone. A
//! `[%clk …]` or `[%eval …]` that cannot be read is an error of its own
//! (never a zero), which the callers report as an `invalid-command` finding.

use crate::rules::finding::{Code, Finding};

/// An engine's evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eval {
    /// Centipawns (`0.35` is 35; rounded to the nearest centipawn).
    Centipawns(i32),
    /// A signed distance to mate in moves (`#-3`: Black mates in 3).
    Mate(i32),
}

/// The clock and the evaluation a comment gives, each the first of its
/// kind in the comment; `Err` holds why one could not be read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Commands {
    /// Time left in milliseconds.
    pub clock: Option<Result<u64, String>>,
    pub eval: Option<Result<Eval, String>>,
}

impl Commands {
    /// Whether the comment held neither command.
    pub fn is_empty(&self) -> bool {
        self.clock.is_none() && self.eval.is_none()
    }

    /// Why each unreadable command could not be read.
    pub fn errors(&self) -> impl Iterator<Item = &str> {
        let clock = self.clock.as_ref().and_then(|c| c.as_ref().err());
        let eval = self.eval.as_ref().and_then(|e| e.as_ref().err());
        clock.into_iter().chain(eval).map(String::as_str)
    }

    /// An `invalid-command` finding for each unreadable command of a
    /// comment at `line`, after the main-line move `on` (its ply and text)
    /// when it follows one.
    pub fn findings<'a>(
        &'a self,
        line: u64,
        on: Option<(u32, &'a str)>,
    ) -> impl Iterator<Item = Finding> + 'a {
        self.errors().map(move |why| {
            let message = format!("invalid command {why}: read as none");
            match on {
                Some((ply, san)) => Finding::at_ply(Code::InvalidCommand, line, ply, san, message),
                None => Finding::game(Code::InvalidCommand, line, message),
            }
        })
    }
}

/// Whether `comment` may hold a command (the cheap test before
/// [`commands`]).
pub fn may_hold_command(comment: &[u8]) -> bool {
    // `contains` on bytes is a memchr: comments are most of some archives.
    comment.contains(&b'%') && comment.windows(2).any(|w| w == b"[%")
}

/// The `[%clk …]` and `[%eval …]` commands of `comment`.
///
/// # Examples
///
/// ```
/// use pgnkit::rules::commands::{commands, Eval};
/// let c = commands(b" [%eval -1.5] [%clk 1:02:03.4] ");
/// assert_eq!(c.clock, Some(Ok(3_723_400)));
/// assert_eq!(c.eval, Some(Ok(Eval::Centipawns(-150))));
/// assert!(commands(b"[%clk 0:61:00]").clock.unwrap().is_err());
/// ```
pub fn commands(comment: &[u8]) -> Commands {
    let mut found = Commands::default();
    let mut rest = comment;
    while let Some(at) = rest.windows(2).position(|w| w == b"[%") {
        rest = &rest[at + 2..];
        let name_end = rest
            .iter()
            .position(|b| !b.is_ascii_alphanumeric() && *b != b'_')
            .unwrap_or(rest.len());
        let (name, after) = rest.split_at(name_end);
        let slot = match name {
            b"clk" if found.clock.is_none() => Slot::Clock,
            b"eval" if found.eval.is_none() => Slot::Eval,
            _ => continue,
        };
        let close = after.iter().position(|&b| b == b']');
        let argument = close.map(|c| &after[..c]);
        rest = close.map_or(&after[after.len()..], |c| &after[c + 1..]);
        let shown = |arg: &[u8]| {
            let text = String::from_utf8_lossy(arg);
            let text: String = text.chars().take(40).collect();
            format!("[%{} {}]", String::from_utf8_lossy(name), text.trim())
        };
        match slot {
            Slot::Clock => {
                found.clock = Some(match argument {
                    None => Err(format!("unclosed `[%clk` command: {}", shown(after))),
                    Some(arg) => clock(arg).map_err(|why| format!("`{}`: {why}", shown(arg))),
                });
            }
            Slot::Eval => {
                found.eval = Some(match argument {
                    None => Err(format!("unclosed `[%eval` command: {}", shown(after))),
                    Some(arg) => eval(arg).map_err(|why| format!("`{}`: {why}", shown(arg))),
                });
            }
        }
    }
    found
}

enum Slot {
    Clock,
    Eval,
}

/// `H:MM:SS` or `H:MM:SS.fff` (hours of any number of digits, minutes
/// and seconds below 60) in milliseconds; digits past the third of a
/// fraction are dropped.
fn clock(arg: &[u8]) -> Result<u64, &'static str> {
    const FORM: &str = "a clock is H:MM:SS, with minutes and seconds below 60";
    let arg = arg.trim_ascii();
    let mut parts = arg.split(|&b| b == b':');
    let (Some(h), Some(m), Some(s), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(FORM);
    };
    let (s, frac) = match s.iter().position(|&b| b == b'.') {
        Some(dot) => (&s[..dot], Some(&s[dot + 1..])),
        None => (s, None),
    };
    let number = |d: &[u8], most: usize| -> Option<u64> {
        if d.is_empty() || d.len() > most || !d.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(d).ok()?.parse().ok()
    };
    let (Some(h), Some(m), Some(s)) = (number(h, 9), number(m, 2), number(s, 2)) else {
        return Err(FORM);
    };
    if m >= 60 || s >= 60 {
        return Err(FORM);
    }
    let ms = match frac {
        None => 0,
        Some(f) if !f.is_empty() && f.iter().all(u8::is_ascii_digit) => f
            .iter()
            .chain(b"000")
            .take(3)
            .fold(0, |n, d| n * 10 + u64::from(d - b'0')),
        Some(_) => return Err(FORM),
    };
    Ok(((h * 60 + m) * 60 + s) * 1000 + ms)
}

/// `0.35`, `-1`, `+2.50` (pawns) or `#3`, `#-3` (mate), optionally followed
/// by `,depth`.
fn eval(arg: &[u8]) -> Result<Eval, &'static str> {
    const FORM: &str = "an evaluation is pawns (`0.35`) or a mate distance (`#-3`)";
    let arg = arg.trim_ascii();
    let value = match arg.iter().position(|&b| b == b',') {
        Some(comma) => {
            let depth = &arg[comma + 1..];
            if depth.is_empty() || !depth.iter().all(u8::is_ascii_digit) {
                return Err(FORM);
            }
            &arg[..comma]
        }
        None => arg,
    };
    let (mate, value) = match value.strip_prefix(b"#") {
        Some(v) => (true, v),
        None => (false, value),
    };
    let (negative, digits) = match value.first() {
        Some(b'-') => (true, &value[1..]),
        Some(b'+') => (false, &value[1..]),
        _ => (false, value),
    };
    let (whole, frac) = match digits.iter().position(|&b| b == b'.') {
        Some(dot) if !mate => (&digits[..dot], &digits[dot + 1..]),
        _ => (digits, &b""[..]),
    };
    let all_digits = |d: &[u8]| d.iter().all(u8::is_ascii_digit);
    if whole.is_empty() && frac.is_empty()
        || whole.len() > 6
        || !all_digits(whole)
        || !all_digits(frac)
    {
        return Err(FORM);
    }
    let whole: i64 = if whole.is_empty() {
        0
    } else {
        std::str::from_utf8(whole)
            .ok()
            .and_then(|w| w.parse().ok())
            .ok_or(FORM)?
    };
    let sign = if negative { -1 } else { 1 };
    if mate {
        return Ok(Eval::Mate((sign * whole) as i32));
    }
    // Hundredths, rounded half away from zero on the third decimal.
    let digit = |i: usize| frac.get(i).map_or(0, |d| i64::from(d - b'0'));
    let mut cp = whole * 100 + digit(0) * 10 + digit(1);
    if digit(2) >= 5 {
        cp += 1;
    }
    Ok(Eval::Centipawns((sign * cp) as i32))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock_of(text: &str) -> Option<Result<u64, String>> {
        commands(text.as_bytes()).clock
    }

    fn eval_of(text: &str) -> Option<Result<Eval, String>> {
        commands(text.as_bytes()).eval
    }

    #[test]
    fn clocks_as_lichess_and_chess_com_write_them() {
        assert_eq!(clock_of("[%clk 0:04:58]"), Some(Ok(298_000)));
        assert_eq!(clock_of(" [%clk 0:00:09.3] "), Some(Ok(9_300)));
        assert_eq!(clock_of("[%clk 1:30:00.125]"), Some(Ok(5_400_125)));
        assert_eq!(clock_of("[%clk 0:00:00.0009]"), Some(Ok(0)));
        assert_eq!(clock_of("[%clk 120:00:00]"), Some(Ok(432_000_000)));
        assert_eq!(clock_of("no command"), None);
        assert_eq!(clock_of("[%emt 0:00:03] [%csl Ga1]"), None);
        // The first clock counts.
        assert_eq!(clock_of("[%clk 0:01:00][%clk 0:02:00]"), Some(Ok(60_000)));
    }

    #[test]
    fn a_malformed_clock_is_an_error_never_a_zero() {
        for bad in [
            "[%clk]",
            "[%clk ]",
            "[%clk 4:58]",
            "[%clk 0:60:00]",
            "[%clk 0:00:60]",
            "[%clk 0:0a:00]",
            "[%clk -0:01:00]",
            "[%clk 0:01:00.]",
            "[%clk 0:01:00:00]",
            "[%clk 0:01:00",
            "[%clk 9999999999:00:00]",
        ] {
            let got = clock_of(bad);
            assert!(matches!(got, Some(Err(_))), "{bad}: {got:?}");
        }
        let why = clock_of("[%clk 0:61:00]").unwrap().unwrap_err();
        assert!(why.contains("[%clk 0:61:00]"), "{why}");
    }

    #[test]
    fn evaluations_in_pawns_or_mate() {
        assert_eq!(eval_of("[%eval 0.35]"), Some(Ok(Eval::Centipawns(35))));
        assert_eq!(eval_of("[%eval -1.2]"), Some(Ok(Eval::Centipawns(-120))));
        assert_eq!(eval_of("[%eval +2]"), Some(Ok(Eval::Centipawns(200))));
        assert_eq!(eval_of("[%eval -0.005]"), Some(Ok(Eval::Centipawns(-1))));
        assert_eq!(eval_of("[%eval .5]"), Some(Ok(Eval::Centipawns(50))));
        assert_eq!(eval_of("[%eval 0.17,23]"), Some(Ok(Eval::Centipawns(17))));
        assert_eq!(eval_of("[%eval #-3]"), Some(Ok(Eval::Mate(-3))));
        assert_eq!(eval_of("[%eval #12,40]"), Some(Ok(Eval::Mate(12))));
        for bad in [
            "[%eval]",
            "[%eval x]",
            "[%eval #1.5]",
            "[%eval 1,]",
            "[%eval 1-2]",
        ] {
            assert!(matches!(eval_of(bad), Some(Err(_))), "{bad}");
        }
    }

    #[test]
    fn both_in_one_comment_with_text_around() {
        let c = commands(b"Good move [%eval #2] and [%clk 0:00:30] left");
        assert_eq!(c.eval, Some(Ok(Eval::Mate(2))));
        assert_eq!(c.clock, Some(Ok(30_000)));
        assert!(may_hold_command(b"x [%clk 0:00:01]"));
        assert!(!may_hold_command(b"50% of the time"));
    }
}
