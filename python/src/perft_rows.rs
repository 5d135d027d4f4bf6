//! `pgnkit.perft`: the library's perft, its typed rows
//! ([`pgnkit::api::PerftRow`]) made into rows of the perft record of the
//! one definition ([`PERFT`]): the root move and the leaf nodes below it
//! (with `divide`), else one row of the total.

use pgnkit::api::{BatchSink, PerftRow, PerftSink};
use pgnkit::schema::Cells;
use pgnkit::schema::arrow::ArrowRows;
pub use pgnkit::schema::perft::PERFT;

/// The rows of one perft run, kept until it ends (one row per root move
/// at most: a few hundred).
pub struct Rows {
    rows: ArrowRows,
}

impl Rows {
    pub fn new() -> Rows {
        Rows {
            rows: ArrowRows::new(&PERFT),
        }
    }

    /// Hands the rows, one batch, to `out`.
    ///
    /// # Errors
    ///
    /// When the batch cannot be made or `out` takes no more.
    pub fn finish(mut self, out: &mut dyn BatchSink) -> std::io::Result<()> {
        let batch = self.rows.batch().map_err(std::io::Error::other)?;
        out.schema(std::sync::Arc::clone(self.rows.schema()))?;
        out.batch(batch)
    }

    fn push(&mut self, uci: Option<&str>, nodes: u64) {
        let mut row = self.rows.row();
        row.opt_str(uci);
        row.uint(Some(nodes));
        row.finish();
    }
}

impl PerftSink for Rows {
    fn row(&mut self, row: PerftRow<'_>) -> std::io::Result<()> {
        match row {
            PerftRow::RootMove { uci, nodes } => self.push(Some(uci), nodes),
            // With `divide` the root moves are the rows.
            PerftRow::Total { divide: true, .. } => {}
            PerftRow::Total {
                nodes,
                divide: false,
            } => self.push(None, nodes),
            PerftRow::Check { .. } => {
                return Err(std::io::Error::other(
                    "perft suites are not rows of the package",
                ));
            }
        }
        Ok(())
    }
}
