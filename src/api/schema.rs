//! `schema`: prints the columns of a record kind from
//! [`crate::schema`], as text for people or JSON for programs.

use std::io::Write;

use super::options::SchemaOptions as SchemaArgs;
use crate::error::Error;
use crate::exit::ExitStatus;
use crate::schema::{self, Format, Schema};

/// Runs `schema` ([`super::schema`]).
///
/// # Errors
///
/// An unknown record name, or a write failure.
pub(super) fn run(args: &SchemaArgs, out: &mut dyn Write) -> Result<ExitStatus, Error> {
    let chosen: Vec<&Schema> = match args.record.as_deref() {
        None => schema::ALL.to_vec(),
        Some(name) => {
            let found = super::Subcommand::from_name(name)
                .and_then(schema::of_command)
                .or_else(|| schema::ALL.iter().copied().find(|s| s.name == name));
            let Some(found) = found else {
                let kinds: Vec<&str> = schema::ALL.iter().map(|s| s.name).collect();
                let commands: Vec<&str> = super::Subcommand::ALL
                    .into_iter()
                    .filter(|c| schema::of_command(*c).is_some())
                    .map(super::Subcommand::name)
                    .collect();
                return Err(Error::usage(format!(
                    "no record kind `{name}`: name a subcommand ({}) or a kind ({})",
                    commands.join(", "),
                    kinds.join(", ")
                )));
            };
            vec![found]
        }
    };
    let mut text = String::new();
    for (i, s) in chosen.iter().enumerate() {
        if args.json {
            text.push_str(&s.to_json());
            text.push('\n');
            continue;
        }
        if i > 0 {
            text.push('\n');
        }
        text.push_str(&describe(s));
    }
    out.write_all(text.as_bytes()).map_err(Error::stdout)?;
    Ok(ExitStatus::Ok)
}

/// The text form: the kind, its CSV, JSON Lines and columnar columns, then one
/// line per column.
fn describe(s: &Schema) -> String {
    let width = s.columns.iter().map(|c| c.name.len()).max().unwrap_or(0);
    let mut text = format!("{}: {}\n", s.name, s.doc);
    for (label, format) in [
        ("csv", Format::Csv),
        ("jsonl", Format::Jsonl),
        ("arrow", Format::Arrow),
    ] {
        let names = s.names_in(format);
        if !names.is_empty() {
            text.push_str(&format!("  {label}: {}\n", names.join(",")));
        }
    }
    for c in s.columns {
        let null = c
            .null_when
            .map_or("never null".to_owned(), |w| format!("null when {w}"));
        text.push_str(&format!(
            "  {:width$}  {}; {null}: {}\n",
            c.name,
            c.ty.name(),
            c.doc
        ));
    }
    text
}
