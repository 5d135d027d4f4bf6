//! `pgnkit.perft`: the library's perft, its lines made into rows of the
//! perft record of the one definition ([`PERFT`]): the root move and the
//! leaf nodes below it (with `divide`), else one row of the total.

use pgnkit::Error;
use pgnkit::cli::PerftArgs;
use pgnkit::embed::Batches;
use pgnkit::exit::ExitStatus;
use pgnkit::schema::Cells;
use pgnkit::schema::arrow::ArrowRows;
pub use pgnkit::schema::perft::PERFT;

/// Runs perft as the command line does and hands its rows, one batch, to
/// `out`.
///
/// # Errors
///
/// Perft's own (a bad FEN), or a failed write.
pub fn run(args: &PerftArgs, out: &mut dyn Batches) -> Result<ExitStatus, Error> {
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
    let mut rows = ArrowRows::new(&PERFT);
    for (uci, count) in moves.iter().zip(&nodes) {
        let mut row = rows.row();
        row.opt_str(uci.as_deref());
        row.uint(Some(*count));
        row.finish();
    }
    let batch = rows.batch().map_err(Error::internal)?;
    out.schema(std::sync::Arc::clone(rows.schema()))
        .map_err(Error::stdout)?;
    out.batch(batch).map_err(Error::stdout)?;
    Ok(status)
}
