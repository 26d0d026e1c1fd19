//! The LanceDB graph connector's tables beside the triple table, with their
//! explicit Arrow schemas: the revision log (`memg_revisions`, each row carrying
//! the revision's staged projection so `repair` can re-derive it), the history
//! (`memg_history`), the provenance (`memg_provenance`) and the lineage
//! (`memg_derivations`); named `memg_<table>_*` beside a triple table with a
//! custom name, as the SQLite connector names them.
//!
//! Spec: api.md "The graph tables (SQLite)" (the columns this connector mirrors)
//! and "Connectors" (the LanceDB connector); stores.md "LanceDBTripleStore" ("as
//! a graph home").

use am_graph::backend::{DerivationRow, GraphTables, HistoryRow, ProvenanceRow, RevisionRow};
use am_triples::{Error, Result};
use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, ArrayRef, BooleanArray, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use serde_json::Value;
use std::sync::Arc;

/// The four graph tables of `t` with their columns, in creation order.
pub fn with_columns(t: &GraphTables) -> [(&str, &'static [Column]); 4] {
    [
        (&t.revisions, REVISION_COLUMNS),
        (&t.provenance, PROVENANCE_COLUMNS),
        (&t.derivations, DERIVATION_COLUMNS),
        (&t.history, HISTORY_COLUMNS),
    ]
}

/// The Arrow type of a graph column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `Utf8`, not null.
    Text,
    /// `Utf8`, nullable.
    OptText,
    /// `Int64`, not null.
    Int,
    /// `Boolean`, not null.
    Bool,
}

/// One column: its name and type.
pub type Column = (&'static str, Kind);

/// `memg_revisions`: the log. `seq` is the change-feed position; `projected`
/// turns true once the revision's rows are all written; `stage_json` is the
/// staged projection (the rows, window and provenance changes, history,
/// provenance and lineage rows) the log-first commit writes before them.
pub const REVISION_COLUMNS: &[Column] = &[
    ("seq", Kind::Int),
    ("revision_id", Kind::Text),
    ("scope", Kind::Text),
    ("owner_id", Kind::OptText),
    ("cause", Kind::Text),
    ("occurred_at", Kind::Text),
    ("recorded_at", Kind::Text),
    ("ops_json", Kind::Text),
    ("provenance_json", Kind::Text),
    ("summary", Kind::OptText),
    ("journal_applied", Kind::Bool),
    ("projected", Kind::Bool),
    ("stage_json", Kind::Text),
];

/// The log's columns without the staged projection (what the feed reads).
pub const REVISION_READ: usize = 12;

/// `memg_history`: one lifecycle event per row, `seq` the record order.
pub const HISTORY_COLUMNS: &[Column] = &[
    ("seq", Kind::Int),
    ("memory_id", Kind::Text),
    ("event", Kind::Text),
    ("at", Kind::Text),
    ("revision_id", Kind::Text),
    ("detail_json", Kind::Text),
];

/// `memg_provenance`: a memory names a ledger source; `ord` the record order.
pub const PROVENANCE_COLUMNS: &[Column] = &[
    ("ord", Kind::Int),
    ("memory_id", Kind::Text),
    ("ref_key", Kind::Text),
    ("ref_kind", Kind::Text),
    ("run_id", Kind::OptText),
    ("revision_id", Kind::Text),
    ("ref_json", Kind::Text),
    ("via", Kind::Text),
    ("owner_id", Kind::Text),
];

/// `memg_derivations`: a memory was derived from another; `ord` the record
/// order.
pub const DERIVATION_COLUMNS: &[Column] = &[
    ("ord", Kind::Int),
    ("memory_id", Kind::Text),
    ("from_id", Kind::Text),
    ("revision_id", Kind::Text),
];

/// One cell of a graph row.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// A text cell (`None`: null).
    Text(Option<String>),
    /// An integer cell.
    Int(i64),
    /// A boolean cell.
    Bool(bool),
}

impl Cell {
    fn text(s: &str) -> Cell {
        Cell::Text(Some(s.to_owned()))
    }

    fn opt(s: Option<&str>) -> Cell {
        Cell::Text(s.map(str::to_owned))
    }

    /// The cell as text (`''` for null or a non-text cell).
    pub fn as_str(&self) -> &str {
        match self {
            Cell::Text(Some(s)) => s,
            _ => "",
        }
    }

    fn as_opt(&self) -> Option<String> {
        match self {
            Cell::Text(s) => s.clone(),
            _ => None,
        }
    }

    /// The cell as an integer (0 for a non-integer cell).
    pub fn as_int(&self) -> i64 {
        match self {
            Cell::Int(i) => *i,
            _ => 0,
        }
    }

    fn as_bool(&self) -> bool {
        matches!(self, Cell::Bool(true))
    }
}

/// The Arrow schema of `columns`.
pub fn schema(columns: &[Column]) -> SchemaRef {
    Arc::new(Schema::new(
        columns
            .iter()
            .map(|(n, k)| match k {
                Kind::Text => Field::new(*n, DataType::Utf8, false),
                Kind::OptText => Field::new(*n, DataType::Utf8, true),
                Kind::Int => Field::new(*n, DataType::Int64, false),
                Kind::Bool => Field::new(*n, DataType::Boolean, false),
            })
            .collect::<Vec<_>>(),
    ))
}

/// Encode `rows` (cells in `columns` order) as one record batch.
///
/// # Errors
/// `Storage` when a cell does not fit its column.
pub fn to_batch(columns: &[Column], rows: &[Vec<Cell>]) -> Result<RecordBatch> {
    let mut arrays: Vec<ArrayRef> = Vec::with_capacity(columns.len());
    for (i, (name, kind)) in columns.iter().enumerate() {
        let cell = |r: &Vec<Cell>| r.get(i).cloned();
        let array: ArrayRef = match kind {
            Kind::Text | Kind::OptText => Arc::new(
                rows.iter()
                    .map(|r| match cell(r) {
                        Some(Cell::Text(s)) => Ok(s),
                        other => Err(other),
                    })
                    .collect::<std::result::Result<StringArray, _>>()
                    .map_err(|c| bad_cell(name, c.as_ref()))?,
            ),
            Kind::Int => Arc::new(
                rows.iter()
                    .map(|r| match cell(r) {
                        Some(Cell::Int(v)) => Ok(Some(v)),
                        other => Err(other),
                    })
                    .collect::<std::result::Result<Int64Array, _>>()
                    .map_err(|c| bad_cell(name, c.as_ref()))?,
            ),
            Kind::Bool => Arc::new(
                rows.iter()
                    .map(|r| match cell(r) {
                        Some(Cell::Bool(v)) => Ok(Some(v)),
                        other => Err(other),
                    })
                    .collect::<std::result::Result<BooleanArray, _>>()
                    .map_err(|c| bad_cell(name, c.as_ref()))?,
            ),
        };
        arrays.push(array);
    }
    RecordBatch::try_new(schema(columns), arrays).map_err(|e| {
        Error::storage(format!("cannot build a graph table batch: {e}")).with_source(e)
    })
}

fn bad_cell(column: &str, cell: Option<&Cell>) -> Error {
    Error::storage(format!(
        "graph column {column:?} cannot hold the cell {cell:?}"
    ))
}

/// Decode the first `width` columns of `columns` from `batches` (which must
/// hold them), one `Vec<Cell>` per row.
///
/// # Errors
/// `Storage` for a missing or mistyped column (a table this connector did not
/// write).
pub fn from_batches(
    columns: &[Column],
    width: usize,
    batches: &[RecordBatch],
) -> Result<Vec<Vec<Cell>>> {
    let mut out = Vec::new();
    for b in batches {
        let mut cols: Vec<Vec<Cell>> = Vec::with_capacity(width);
        for (name, kind) in columns.iter().take(width) {
            let a = b.column_by_name(name).ok_or_else(|| {
                Error::storage(format!("LanceDB graph answer lacks the column {name:?}"))
            })?;
            let mistyped = || {
                Error::storage(format!(
                    "LanceDB graph column {name:?} is {}, expected {kind:?}",
                    a.data_type()
                ))
            };
            let cells: Vec<Cell> = match kind {
                Kind::Text | Kind::OptText => {
                    let s = a.as_string_opt::<i32>().ok_or_else(mistyped)?;
                    (0..s.len())
                        .map(|i| Cell::Text((!s.is_null(i)).then(|| s.value(i).to_owned())))
                        .collect()
                }
                Kind::Int => {
                    let s = a.as_primitive_opt::<Int64Type>().ok_or_else(mistyped)?;
                    (0..s.len()).map(|i| Cell::Int(s.value(i))).collect()
                }
                Kind::Bool => {
                    let s = a.as_boolean_opt().ok_or_else(mistyped)?;
                    (0..s.len()).map(|i| Cell::Bool(s.value(i))).collect()
                }
            };
            cols.push(cells);
        }
        for i in 0..b.num_rows() {
            out.push(cols.iter().map(|c| c[i].clone()).collect());
        }
    }
    Ok(out)
}

/// The names of the first `width` columns.
pub fn names(columns: &[Column], width: usize) -> Vec<&'static str> {
    columns.iter().take(width).map(|(n, _)| *n).collect()
}

/// A log row's cells (with its projection state and staged projection).
pub fn revision_cells(row: &RevisionRow, projected: bool, stage_json: &str) -> Vec<Cell> {
    vec![
        Cell::Int(row.seq),
        Cell::text(&row.revision_id),
        Cell::text(&row.scope),
        Cell::opt(row.owner_id.as_deref()),
        Cell::text(&row.cause),
        Cell::text(&row.occurred_at),
        Cell::text(&row.recorded_at),
        Cell::text(&row.ops_json),
        Cell::text(&row.provenance_json),
        Cell::opt(row.summary.as_deref()),
        Cell::Bool(row.journal_applied),
        Cell::Bool(projected),
        Cell::text(stage_json),
    ]
}

/// A decoded log row: the revision, whether it is projected, and its staged
/// projection when it was read.
pub fn revision_from(c: &[Cell]) -> (RevisionRow, bool, Option<String>) {
    (
        RevisionRow {
            seq: c[0].as_int(),
            revision_id: c[1].as_str().to_owned(),
            scope: c[2].as_str().to_owned(),
            owner_id: c[3].as_opt(),
            cause: c[4].as_str().to_owned(),
            occurred_at: c[5].as_str().to_owned(),
            recorded_at: c[6].as_str().to_owned(),
            ops_json: c[7].as_str().to_owned(),
            provenance_json: c[8].as_str().to_owned(),
            summary: c[9].as_opt(),
            journal_applied: c[10].as_bool(),
        },
        c[11].as_bool(),
        c.get(12).and_then(Cell::as_opt),
    )
}

/// A history row's cells.
pub fn history_cells(row: &HistoryRow) -> Vec<Cell> {
    vec![
        Cell::Int(row.seq),
        Cell::text(&row.memory_id),
        Cell::text(&row.event),
        Cell::text(&row.at),
        Cell::text(&row.revision_id),
        Cell::text(&row.detail.to_string()),
    ]
}

/// A decoded history row.
///
/// # Errors
/// `Storage` when `detail_json` is not JSON.
pub fn history_from(c: &[Cell]) -> Result<HistoryRow> {
    Ok(HistoryRow {
        seq: c[0].as_int(),
        memory_id: c[1].as_str().to_owned(),
        event: c[2].as_str().to_owned(),
        at: c[3].as_str().to_owned(),
        revision_id: c[4].as_str().to_owned(),
        detail: json(c[5].as_str(), "detail_json")?,
    })
}

/// A provenance row's cells at record position `ord`.
pub fn provenance_cells(ord: i64, row: &ProvenanceRow) -> Vec<Cell> {
    vec![
        Cell::Int(ord),
        Cell::text(&row.memory_id),
        Cell::text(&row.ref_key),
        Cell::text(&row.ref_kind),
        Cell::opt(row.run_id.as_deref()),
        Cell::text(&row.revision_id),
        Cell::text(&row.ref_json.to_string()),
        Cell::text(&row.via),
        Cell::text(&row.owner_id),
    ]
}

/// A decoded provenance row and its record position.
///
/// # Errors
/// `Storage` when `ref_json` is not JSON.
pub fn provenance_from(c: &[Cell]) -> Result<(i64, ProvenanceRow)> {
    Ok((
        c[0].as_int(),
        ProvenanceRow {
            memory_id: c[1].as_str().to_owned(),
            ref_key: c[2].as_str().to_owned(),
            ref_kind: c[3].as_str().to_owned(),
            run_id: c[4].as_opt(),
            revision_id: c[5].as_str().to_owned(),
            ref_json: json(c[6].as_str(), "ref_json")?,
            via: c[7].as_str().to_owned(),
            owner_id: c[8].as_str().to_owned(),
        },
    ))
}

/// A derivation row's cells at record position `ord`.
pub fn derivation_cells(ord: i64, row: &DerivationRow) -> Vec<Cell> {
    vec![
        Cell::Int(ord),
        Cell::text(&row.memory_id),
        Cell::text(&row.from_id),
        Cell::text(&row.revision_id),
    ]
}

/// A decoded derivation row and its record position.
pub fn derivation_from(c: &[Cell]) -> (i64, DerivationRow) {
    (
        c[0].as_int(),
        DerivationRow {
            memory_id: c[1].as_str().to_owned(),
            from_id: c[2].as_str().to_owned(),
            revision_id: c[3].as_str().to_owned(),
        },
    )
}

fn json(text: &str, what: &str) -> Result<Value> {
    serde_json::from_str(text).map_err(|e| {
        Error::storage(format!("LanceDB graph column {what} is not JSON: {e}")).with_source(e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::DEFAULT_TABLE;

    #[test]
    fn default_and_custom_table_names_follow_the_sqlite_rule() {
        let d = GraphTables::for_table(DEFAULT_TABLE, DEFAULT_TABLE);
        assert_eq!(d.revisions, "memg_revisions");
        assert_eq!(d.history, "memg_history");
        let c = GraphTables::for_table("kg", DEFAULT_TABLE);
        assert_eq!(c.provenance, "memg_kg_provenance");
        assert_eq!(c.derivations, "memg_kg_derivations");
    }

    #[test]
    fn a_log_row_round_trips_through_arrow() {
        let row = RevisionRow {
            seq: 7,
            revision_id: "r1".into(),
            scope: "global".into(),
            owner_id: None,
            cause: "ingest".into(),
            occurred_at: "2026-01-05T09:00:00.000000+00:00".into(),
            recorded_at: "2026-01-05T09:00:01.000000+00:00".into(),
            ops_json: "[]".into(),
            provenance_json: "{}".into(),
            summary: Some("it's".into()),
            journal_applied: false,
        };
        let batch = to_batch(REVISION_COLUMNS, &[revision_cells(&row, true, "{}")]).unwrap();
        let back = from_batches(REVISION_COLUMNS, REVISION_COLUMNS.len(), &[batch]).unwrap();
        assert_eq!(revision_from(&back[0]), (row, true, Some("{}".into())));
    }

    #[test]
    fn a_cell_of_the_wrong_type_is_a_storage_error() {
        let err = to_batch(DERIVATION_COLUMNS, &[vec![Cell::text("x")]]).unwrap_err();
        assert_eq!(err.kind(), am_triples::ErrorKind::Storage);
    }
}
