//! `pgnkit.perft`: the library's perft, its lines made into rows of a
//! small record defined here once ([`COLUMNS`]): the root move and the
//! leaf nodes below it (with `divide`), else one row of the total.

use std::io::Write;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, StringArray, UInt64Array};
use arrow_ipc::writer::StreamWriter;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use pgnkit::Error;
use pgnkit::cli::PerftArgs;
use pgnkit::exit::ExitStatus;

/// The perft record's columns: name, type, nullable, meaning.
pub const COLUMNS: [(&str, DataType, bool, &str); 2] = [
    (
        "move",
        DataType::Utf8,
        true,
        "the root move in UCI (with divide); null on the one row of the total",
    ),
    (
        "nodes",
        DataType::UInt64,
        false,
        "leaf nodes at the depth below the move (or the position)",
    ),
];

/// The perft record as an Arrow schema.
pub fn schema() -> SchemaRef {
    let fields: Vec<Field> = COLUMNS
        .iter()
        .map(|(name, ty, nullable, doc)| {
            Field::new(*name, ty.clone(), *nullable).with_metadata(std::collections::HashMap::from(
                [("doc".to_owned(), (*doc).to_owned())],
            ))
        })
        .collect();
    Arc::new(Schema::new(fields))
}

/// Runs perft as the command line does and writes its rows as an Arrow
/// stream to `out`.
///
/// # Errors
///
/// Perft's own (a bad FEN), or a failed write.
pub fn run(args: &PerftArgs, out: &mut dyn Write) -> Result<ExitStatus, Error> {
    let mut text = Vec::new();
    let status = pgnkit::cmd::perft::run(args, &mut text)?;
    let text = String::from_utf8_lossy(&text);
    let (mut moves, mut nodes) = (Vec::new(), Vec::new());
    let mut total = None;
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let bad = || Error::internal(std::io::Error::other(format!("perft wrote `{line}`")));
        match line.split_once(": ") {
            Some((uci, count)) => {
                moves.push(Some(uci.to_owned()));
                nodes.push(count.parse::<u64>().map_err(|_| bad())?);
            }
            None => total = Some(line.parse::<u64>().map_err(|_| bad())?),
        }
    }
    if !args.divide {
        moves = vec![None];
        nodes = vec![total.unwrap_or(0)];
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(moves)),
        Arc::new(UInt64Array::from(nodes)),
    ];
    let schema = schema();
    let batch = RecordBatch::try_new(Arc::clone(&schema), columns).map_err(Error::internal)?;
    let mut writer = StreamWriter::try_new(out, &schema).map_err(Error::internal)?;
    writer.write(&batch).map_err(Error::internal)?;
    writer.finish().map_err(Error::internal)?;
    Ok(status)
}
