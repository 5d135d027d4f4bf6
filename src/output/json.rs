//! Minimal JSON writing for JSON Lines output: strings escaped per RFC 8259.

use std::io::{self, Write};

/// Writes `s` as a JSON string literal.
pub fn write_str(out: &mut dyn Write, s: &str) -> io::Result<()> {
    out.write_all(b"\"")?;
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape: Option<&[u8]> = match b {
            b'"' => Some(b"\\\""),
            b'\\' => Some(b"\\\\"),
            b'\n' => Some(b"\\n"),
            b'\r' => Some(b"\\r"),
            b'\t' => Some(b"\\t"),
            0..=0x1f => None,
            _ => continue,
        };
        out.write_all(&bytes[start..i])?;
        match escape {
            Some(e) => out.write_all(e)?,
            None => write!(out, "\\u{b:04x}")?,
        }
        start = i + 1;
    }
    out.write_all(&bytes[start..])?;
    out.write_all(b"\"")
}

/// Writes `Some(s)` as a string, `None` as `null`.
pub fn write_opt_str(out: &mut dyn Write, s: Option<&str>) -> io::Result<()> {
    match s {
        Some(s) => write_str(out, s),
        None => out.write_all(b"null"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        let mut out = Vec::new();
        write_str(&mut out, "a\"b\\c\nd\u{1}é").unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), r#""a\"b\\c\nd\u0001é""#);
    }
}
