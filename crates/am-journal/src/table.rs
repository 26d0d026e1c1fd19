//! The table kit: the home's own tables beside the task queue's `memq_*`.
//!
//! A faculty that keeps state of its own in the home (the sleep cadence's
//! completed nights in `memq_maintenance`; ripples and their gate decisions
//! to come) declares a [`TableDef`] (its name, its columns in a small type
//! vocabulary, how many leading columns form its primary key, its indexes)
//! and a row type implementing [`HomeRow`]. It writes rows with [`put_row`]
//! inside its verb's one `MemoryHome::transaction` (`HomeTx::tables`) and
//! reads them with [`get_row`] / [`rows`], there or outside a transaction
//! (`MemoryHome::read_tables`). No home is taught the table: the in-memory
//! queue keeps its rows beside the tasks, undone with the transaction
//! (`crate::InMemoryTaskQueue`); the SQLite home creates it from the
//! definition inside the first transaction that writes it and generates its
//! statements (`am_backend_sqlite::tables`). A home offers its tables with
//! its task queue.
//!
//! # Contract (every [`TablesTx`] and [`TableReads`])
//! - A row is a JSON object of the table's columns. A column it leaves out is
//!   `null`; a key that names no column, a `null` in a column that is not
//!   nullable, or a value not of its column's type ([`ColumnType`]) is
//!   refused (`InvalidInput`, nothing written). A `real` column reads back a
//!   float (`1` is stored as `1.0`).
//! - [`TablesTx::put`] stores the row under its key (the first
//!   [`TableDef::key`] columns), replacing the row stored under that key; it
//!   lands with the transaction's other writes or not at all.
//! - [`TableReads::get`] answers the row stored under a whole key (inside a
//!   transaction, its own writes included), or `None`;
//!   [`TableReads::scan`] answers the rows whose every filtered column equals
//!   the filter's value (a `null` matches a `null`), in key order (text by its
//!   UTF-8 bytes, integers by value). Filters name `text`, `integer` or
//!   `real` columns. A row reads with every column, in the definition's order.
//! - A table never written reads empty. Nothing is deleted.

use crate::error::HomeResult;
use am_triples::JsonMap;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// What a column holds: the kit's small type vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    /// A string (SQLite `TEXT`).
    Text,
    /// A 64-bit integer (SQLite `INTEGER`).
    Integer,
    /// A 64-bit float (SQLite `REAL`).
    Real,
    /// Any JSON value, stored as its text in the column `<name>_json`
    /// (SQLite `TEXT`), as every `memq_*` and `memj_*` table stores JSON.
    Json,
}

/// One column of a [`TableDef`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// The row's key for it (a JSON column is stored in `<name>_json`).
    pub name: &'static str,
    /// What it holds.
    pub ty: ColumnType,
    /// Whether it may hold `null`.
    pub nullable: bool,
}

impl Column {
    /// A `text` column, not nullable.
    pub const fn text(name: &'static str) -> Self {
        Column {
            name,
            ty: ColumnType::Text,
            nullable: false,
        }
    }

    /// An `integer` column, not nullable.
    pub const fn integer(name: &'static str) -> Self {
        Column {
            name,
            ty: ColumnType::Integer,
            nullable: false,
        }
    }

    /// A `real` column, not nullable.
    pub const fn real(name: &'static str) -> Self {
        Column {
            name,
            ty: ColumnType::Real,
            nullable: false,
        }
    }

    /// A `json` column, not nullable.
    pub const fn json(name: &'static str) -> Self {
        Column {
            name,
            ty: ColumnType::Json,
            nullable: false,
        }
    }

    /// This column, nullable.
    #[must_use]
    pub const fn nullable(self) -> Self {
        Column {
            nullable: true,
            ..self
        }
    }

    /// The column's name in SQL: its name, `<name>_json` for a JSON column.
    pub fn sql_name(&self) -> String {
        match self.ty {
            ColumnType::Json => format!("{}_json", self.name),
            _ => self.name.to_owned(),
        }
    }

    /// `v` as this column stores it (a `real` column's integer as a float).
    fn normalize(&self, table: &str, v: &Value) -> HomeResult<Value> {
        self.check_value(table, v)?;
        Ok(match (self.ty, v) {
            (ColumnType::Integer, Value::Number(n)) => n.as_i64().map_or(Value::Null, Value::from),
            (ColumnType::Real, Value::Number(n)) => n.as_f64().map_or(Value::Null, Value::from),
            _ => v.clone(),
        })
    }

    /// Whether this column can store `v` (as [`Column::normalize`] would),
    /// without building the stored value.
    fn check_value(&self, table: &str, v: &Value) -> HomeResult<()> {
        let fits = match (self.ty, v) {
            (_, Value::Null) => {
                return if self.nullable {
                    Ok(())
                } else {
                    Err(am_triples::Error::invalid(format!(
                        "{table}.{} cannot be null",
                        self.name
                    )))
                };
            }
            (ColumnType::Text, Value::String(_)) | (ColumnType::Json, _) => true,
            (ColumnType::Integer, Value::Number(n)) => n.as_i64().is_some(),
            (ColumnType::Real, Value::Number(n)) => n.as_f64().is_some(),
            _ => false,
        };
        if fits {
            return Ok(());
        }
        Err(am_triples::Error::invalid(format!(
            "{table}.{} holds {}, got {}",
            self.name,
            match self.ty {
                ColumnType::Text => "text",
                ColumnType::Integer => "a 64-bit integer",
                ColumnType::Real => "a number",
                ColumnType::Json => "JSON",
            },
            am_triples::text::shown(v)
        )))
    }
}

/// An index of a [`TableDef`] (SQLite: `CREATE INDEX IF NOT EXISTS name ON
/// table (columns)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Index {
    /// The index's name.
    pub name: &'static str,
    /// The columns it orders by (their row keys).
    pub columns: &'static [&'static str],
}

/// One home table: see the module docs.
///
/// Names (the table's, its columns', its indexes') are lowercase SQL
/// identifiers (`[a-z_][a-z0-9_]*`); the key's columns are `text` or
/// `integer`, not nullable ([`TableDef::check`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableDef {
    /// The table's name (in the home's file, beside `memq_*`).
    pub name: &'static str,
    /// Its columns, key columns first.
    pub columns: &'static [Column],
    /// How many leading columns form the primary key (at least one).
    pub key: usize,
    /// Its indexes.
    pub indexes: &'static [Index],
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// Whether two columns' SQL names ([`Column::sql_name`]) are equal, without
/// building them (the definition check runs on every row written).
fn same_sql_name(a: &Column, b: &Column) -> bool {
    fn parts(c: &Column) -> (&str, &str) {
        match c.ty {
            ColumnType::Json => (c.name, "_json"),
            _ => (c.name, ""),
        }
    }
    let ((an, asuf), (bn, bsuf)) = (parts(a), parts(b));
    an.len() + asuf.len() == bn.len() + bsuf.len()
        && an
            .bytes()
            .chain(asuf.bytes())
            .eq(bn.bytes().chain(bsuf.bytes()))
}

impl TableDef {
    /// Whether the definition is one a home can keep: identifiers for every
    /// name, distinct columns, a key of 1 to every column, key columns `text`
    /// or `integer` and not nullable, indexes over its columns.
    ///
    /// # Errors
    /// `Internal` naming the first flaw (a definition is code: a flaw is a
    /// broken invariant of ours).
    pub fn check(&self) -> HomeResult<()> {
        let bad = |what: String| {
            Err(am_triples::Error::internal(format!(
                "table definition {:?}: {what}",
                self.name
            )))
        };
        if !is_identifier(self.name) {
            return bad("its name is not a lowercase SQL identifier".into());
        }
        if self.key == 0 || self.key > self.columns.len() {
            return bad(format!(
                "a key of {} leading columns among {}",
                self.key,
                self.columns.len()
            ));
        }
        for (i, c) in self.columns.iter().enumerate() {
            if !is_identifier(c.name) {
                return bad(format!(
                    "column {:?} is not a lowercase SQL identifier",
                    c.name
                ));
            }
            if self.columns[..i]
                .iter()
                .any(|o| o.name == c.name || same_sql_name(o, c))
            {
                return bad(format!("column {:?} twice", c.name));
            }
            if i < self.key
                && (c.nullable || !matches!(c.ty, ColumnType::Text | ColumnType::Integer))
            {
                return bad(format!(
                    "key column {:?} must be text or integer and not nullable",
                    c.name
                ));
            }
        }
        for ix in self.indexes {
            if !is_identifier(ix.name) || ix.columns.is_empty() {
                return bad(format!("index {:?}", ix.name));
            }
            if let Some(c) = ix.columns.iter().find(|c| self.column(c).is_none()) {
                return bad(format!("index {:?} names no column {c:?}", ix.name));
            }
        }
        Ok(())
    }

    /// The key's columns.
    pub fn key_columns(&self) -> &'static [Column] {
        &self.columns[..self.key.min(self.columns.len())]
    }

    /// The column named `name` (its row key).
    pub fn column(&self, name: &str) -> Option<&'static Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// `row` as the table stores it: every column in order (a missing one
    /// `null`), each value checked against its column ([`Column`]).
    ///
    /// # Errors
    /// `InvalidInput` for a key naming no column, a `null` where none may
    /// be, a value of another type; `Internal` for a flawed definition.
    pub fn normalize(&self, row: &JsonMap) -> HomeResult<JsonMap> {
        self.check_row(row)?;
        let mut out = JsonMap::new();
        for c in self.columns {
            let v = c.normalize(self.name, row.get(c.name).unwrap_or(&Value::Null))?;
            out.insert(c.name.to_owned(), v);
        }
        Ok(out)
    }

    /// Whether `row` is one of this table's ([`TableDef::normalize`]'s
    /// checks and errors), without building the normalized row: a store
    /// that converts each cell itself (as SQLite's kit does) writes the
    /// same values from `row` as from its normalized form.
    ///
    /// # Errors
    /// As [`TableDef::normalize`].
    pub fn check_row(&self, row: &JsonMap) -> HomeResult<()> {
        self.check()?;
        if let Some(k) = row.keys().find(|k| self.column(k).is_none()) {
            return Err(am_triples::Error::invalid(format!(
                "{} has no column {k:?} (its columns: {})",
                self.name,
                self.columns
                    .iter()
                    .map(|c| c.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        for c in self.columns {
            c.check_value(self.name, row.get(c.name).unwrap_or(&Value::Null))?;
        }
        Ok(())
    }

    /// Whether `cells` (one per column, in order) are a row of this table
    /// ([`TableDef::check_row`]'s checks and errors on the row they make).
    ///
    /// # Errors
    /// As [`TableDef::check_row`]; `InvalidInput` for a cell count other
    /// than the columns'.
    pub fn check_cells(&self, cells: &[Cell<'_>]) -> HomeResult<()> {
        self.check()?;
        self.cells_fit(cells)
    }

    /// [`TableDef::check_cells`] for a definition already checked
    /// ([`TableDef::check`]): a home writing many rows checks it once.
    ///
    /// # Errors
    /// As [`TableDef::check_cells`], the definition aside.
    pub fn cells_fit(&self, cells: &[Cell<'_>]) -> HomeResult<()> {
        if cells.len() != self.columns.len() {
            return Err(am_triples::Error::invalid(format!(
                "a row of {} is {} cells, got {}",
                self.name,
                self.columns.len(),
                cells.len()
            )));
        }
        for (c, v) in self.columns.iter().zip(cells) {
            let fits = match (c.ty, v) {
                _ if v.is_null() => c.nullable,
                (ColumnType::Text, Cell::Text(_))
                | (ColumnType::Integer, Cell::Integer(_))
                | (ColumnType::Real, Cell::Real(_) | Cell::Integer(_))
                | (ColumnType::Json, _) => true,
                _ => false,
            };
            if !fits {
                // The row's own words for the refusal.
                c.check_value(self.name, &v.to_value())?;
                return Err(am_triples::Error::invalid(format!(
                    "{}.{} cannot store {v:?}",
                    self.name, c.name
                )));
            }
        }
        Ok(())
    }

    /// A whole key's values, checked against the key columns.
    ///
    /// # Errors
    /// `InvalidInput` for a key of another length or type.
    pub fn check_key(&self, key: &[Value]) -> HomeResult<Vec<Value>> {
        self.check()?;
        if key.len() != self.key {
            return Err(am_triples::Error::invalid(format!(
                "a key of {} is {} values ({}), got {}",
                self.name,
                self.key,
                self.key_columns()
                    .iter()
                    .map(|c| c.name)
                    .collect::<Vec<_>>()
                    .join(", "),
                am_triples::text::shown(key)
            )));
        }
        self.key_columns()
            .iter()
            .zip(key)
            .map(|(c, v)| c.normalize(self.name, v))
            .collect()
    }

    /// Scan filters, checked: each names a `text`, `integer` or `real`
    /// column, with a value of its type or `null`. Answers the columns and
    /// their values as stored.
    ///
    /// # Errors
    /// `InvalidInput` for an unknown or JSON column, or a value of another
    /// type.
    pub fn check_filter(&self, filter: &[(&str, Value)]) -> HomeResult<Vec<(Column, Value)>> {
        self.check()?;
        filter
            .iter()
            .map(|(name, v)| {
                let c = self.column(name).ok_or_else(|| {
                    am_triples::Error::invalid(format!(
                        "{} has no column {name:?} to filter on",
                        self.name
                    ))
                })?;
                if c.ty == ColumnType::Json {
                    return Err(am_triples::Error::invalid(format!(
                        "{}.{name} is JSON: a scan filters on text, integer or real columns",
                        self.name
                    )));
                }
                let v = if v.is_null() {
                    Value::Null
                } else {
                    c.normalize(self.name, v)?
                };
                Ok((*c, v))
            })
            .collect()
    }
}

/// The reads of a home's tables (outside a transaction through
/// `MemoryHome::read_tables`, inside one through `HomeTx::tables`, where
/// they see the transaction's own writes). See the module's `# Contract`.
pub trait TableReads {
    /// The row of `table` stored under the whole `key`.
    ///
    /// # Errors
    /// `InvalidInput` for a key that is not the table's; `Storage`.
    fn get(&self, table: &TableDef, key: &[Value]) -> HomeResult<Option<JsonMap>>;

    /// The rows of `table` whose filtered columns equal the filters' values,
    /// in key order.
    ///
    /// # Errors
    /// `InvalidInput` for a filter that is not the table's; `Storage`.
    fn scan(&self, table: &TableDef, filter: &[(&str, Value)]) -> HomeResult<Vec<JsonMap>>;
}

/// The tables' writes inside a home transaction; they land with its other
/// writes or not at all. See the module's `# Contract`.
pub trait TablesTx: TableReads {
    /// Store `row` in `table` under its key (insert or replace).
    ///
    /// # Errors
    /// `InvalidInput` for a row that is not the table's (nothing written);
    /// `Storage`. The transaction's body should return the error.
    fn put(&mut self, table: &TableDef, row: &JsonMap) -> HomeResult<()>;

    /// [`TablesTx::put`] of the row whose cells are `cells`, one per column
    /// in the definition's order ([`CellRow`]): the same row, stored the
    /// same way, without building its object. The default builds the
    /// object and puts it; a home that binds cells itself (SQLite) checks
    /// them with [`TableDef::check_cells`].
    ///
    /// # Errors
    /// As [`TablesTx::put`]; `InvalidInput` for a cell count other than the
    /// columns'.
    fn put_cells(&mut self, table: &TableDef, cells: &[Cell<'_>]) -> HomeResult<()> {
        table.check_cells(cells)?;
        let row: JsonMap = table
            .columns
            .iter()
            .zip(cells)
            .map(|(c, v)| (c.name.to_owned(), v.to_value()))
            .collect();
        self.put(table, &row)
    }

    /// [`TablesTx::put_cells`] of each row of `rows`, in order (a home may
    /// prepare its statement once for all of them).
    ///
    /// # Errors
    /// As [`TablesTx::put_cells`], for any of them.
    fn put_cells_many(&mut self, table: &TableDef, rows: &[Vec<Cell<'_>>]) -> HomeResult<()> {
        for cells in rows {
            self.put_cells(table, cells)?;
        }
        Ok(())
    }
}

/// A value a `json` cell encodes when it is stored ([`Cell::Serialized`]):
/// any `Serialize` type, written as JSON text without building its JSON
/// value first.
pub trait JsonCell {
    /// Its JSON text.
    ///
    /// # Errors
    /// `Internal` when it does not serialize.
    fn json_text(&self) -> HomeResult<String>;

    /// Its JSON value (`null` when it does not serialize).
    fn json_value(&self) -> Value;
}

impl<T: Serialize + ?Sized> JsonCell for T {
    fn json_text(&self) -> HomeResult<String> {
        serde_json::to_string(self)
            .map_err(|e| am_triples::Error::internal(format!("a JSON cell did not encode: {e}")))
    }

    fn json_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

/// One cell of a row given in column order ([`TablesTx::put_cells`]),
/// borrowed from the row.
#[derive(Clone, Copy)]
pub enum Cell<'a> {
    /// `null`.
    Null,
    /// A `text` cell.
    Text(&'a str),
    /// An `integer` cell.
    Integer(i64),
    /// A `real` cell (a non-finite one is `null`, as its JSON form is).
    Real(f64),
    /// A `json` cell (`null` is `null`).
    Json(&'a Value),
    /// A `json` cell holding what `value` serializes to (a value that
    /// serializes to `null` is `null`: a home binding the text refuses it
    /// in a column that is not nullable, as [`TableDef::check_row`] refuses
    /// the row).
    Serialized(&'a dyn JsonCell),
}

impl std::fmt::Debug for Cell<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Cell::Null => f.write_str("Null"),
            Cell::Text(t) => f.debug_tuple("Text").field(t).finish(),
            Cell::Integer(n) => f.debug_tuple("Integer").field(n).finish(),
            Cell::Real(x) => f.debug_tuple("Real").field(x).finish(),
            Cell::Json(v) => f.debug_tuple("Json").field(v).finish(),
            Cell::Serialized(v) => f.debug_tuple("Serialized").field(&v.json_value()).finish(),
        }
    }
}

impl Cell<'_> {
    /// An optional text.
    pub fn text_or_null(s: Option<&str>) -> Cell<'_> {
        s.map_or(Cell::Null, Cell::Text)
    }

    /// Whether the cell is `null` (a non-finite real, a JSON `null`).
    pub fn is_null(&self) -> bool {
        match self {
            Cell::Null => true,
            Cell::Real(x) => !x.is_finite(),
            Cell::Json(v) => v.is_null(),
            _ => false,
        }
    }

    /// The cell as the row object holds it.
    pub fn to_value(&self) -> Value {
        match self {
            _ if self.is_null() => Value::Null,
            Cell::Text(s) => Value::String((*s).to_owned()),
            Cell::Integer(n) => Value::from(*n),
            Cell::Real(x) => Value::from(*x),
            Cell::Json(v) => (*v).clone(),
            Cell::Serialized(v) => v.json_value(),
            Cell::Null => Value::Null,
        }
    }
}

/// A [`HomeRow`] that also gives its cells in column order
/// ([`put_cell_row`]): the same row as its serde form, without building it.
pub trait CellRow: HomeRow {
    /// The row's cells, one per column of [`HomeRow::TABLE`] in order; as a
    /// row object, exactly its serde form.
    fn cells(&self) -> Vec<Cell<'_>>;
}

/// Store `row` in its table inside a home transaction, by its cells.
///
/// # Errors
/// As [`TablesTx::put_cells`].
pub fn put_cell_row<R: CellRow>(tx: &mut dyn TablesTx, row: &R) -> HomeResult<()> {
    tx.put_cells(R::TABLE, &cells_of(row))
}

/// Store each of `rows` in their table inside a home transaction, by their
/// cells, in order.
///
/// # Errors
/// As [`TablesTx::put_cells_many`].
pub fn put_cell_rows<R: CellRow>(tx: &mut dyn TablesTx, rows: &[R]) -> HomeResult<()> {
    let cells: Vec<Vec<Cell<'_>>> = rows.iter().map(cells_of).collect();
    tx.put_cells_many(R::TABLE, &cells)
}

/// `row`'s cells; a debug build asserts they are its serde form's, column
/// by column.
fn cells_of<R: CellRow>(row: &R) -> Vec<Cell<'_>> {
    let cells = row.cells();
    #[cfg(debug_assertions)]
    {
        let serde = serde_json::to_value(row).unwrap_or_default();
        debug_assert_eq!(cells.len(), R::TABLE.columns.len(), "{}", R::TABLE.name);
        for (c, v) in R::TABLE.columns.iter().zip(&cells) {
            debug_assert_eq!(
                serde.get(c.name).cloned().unwrap_or_default(),
                v.to_value(),
                "{}.{}: the cell differs from the serde form",
                R::TABLE.name,
                c.name
            );
        }
    }
    cells
}

/// A row type of a home table: its serde form is the table's row object.
pub trait HomeRow: Serialize + DeserializeOwned {
    /// The table it is stored in.
    const TABLE: &'static TableDef;
}

/// Store `row` in its table inside a home transaction.
///
/// # Errors
/// As [`TablesTx::put`]; `Internal` when the row does not serialize to an
/// object.
pub fn put_row<R: HomeRow>(tx: &mut dyn TablesTx, row: &R) -> HomeResult<()> {
    match serde_json::to_value(row) {
        Ok(Value::Object(m)) => tx.put(R::TABLE, &m),
        Ok(other) => Err(am_triples::Error::internal(format!(
            "a row of {} serialized to {}, not an object",
            R::TABLE.name,
            am_triples::text::shown(&other)
        ))),
        Err(e) => Err(am_triples::Error::internal(format!(
            "a row of {} did not serialize: {e}",
            R::TABLE.name
        ))),
    }
}

/// `row` read as an `R`.
fn decode<R: HomeRow>(row: JsonMap) -> HomeResult<R> {
    serde_json::from_value(Value::Object(row)).map_err(|e| {
        am_triples::Error::storage(format!(
            "a stored row of {} is not a {}: {e}",
            R::TABLE.name,
            std::any::type_name::<R>()
        ))
    })
}

/// The row of `R`'s table stored under `key`.
///
/// # Errors
/// As [`TableReads::get`]; `Storage` when the stored row does not read as
/// an `R`.
pub fn get_row<R: HomeRow>(r: &dyn TableReads, key: &[Value]) -> HomeResult<Option<R>> {
    r.get(R::TABLE, key)?.map(decode).transpose()
}

/// The rows of `R`'s table passing `filter`, in key order.
///
/// # Errors
/// As [`TableReads::scan`]; `Storage` when a stored row does not read as an
/// `R`.
pub fn rows<R: HomeRow>(r: &dyn TableReads, filter: &[(&str, Value)]) -> HomeResult<Vec<R>> {
    r.scan(R::TABLE, filter)?.into_iter().map(decode).collect()
}

/// A key value in memory, ordered as SQLite orders the column (text by
/// bytes, integers by value).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum KeyPart {
    Integer(i64),
    Text(String),
}

/// A whole key in memory.
pub(crate) type MemKey = Vec<KeyPart>;

fn key_parts(values: &[Value]) -> MemKey {
    values
        .iter()
        .map(|v| match v {
            Value::Number(n) => KeyPart::Integer(n.as_i64().unwrap_or_default()),
            Value::String(s) => KeyPart::Text(s.clone()),
            other => KeyPart::Text(other.to_string()),
        })
        .collect()
}

/// The in-memory pair's tables (beside its task queue's rows, under the same
/// lock and undo log: `crate::task_memory`).
#[derive(Debug, Default)]
pub(crate) struct MemTables {
    tables: HashMap<String, BTreeMap<MemKey, JsonMap>>,
}

impl MemTables {
    /// Store `row` (checked) in `table`; answers its key and the row it
    /// replaced, to undo it.
    pub(crate) fn put(
        &mut self,
        table: &TableDef,
        row: &JsonMap,
    ) -> HomeResult<(MemKey, Option<JsonMap>)> {
        let row = table.normalize(row)?;
        let key: Vec<Value> = table
            .key_columns()
            .iter()
            .map(|c| row.get(c.name).cloned().unwrap_or_default())
            .collect();
        let key = key_parts(&key);
        let previous = self
            .tables
            .entry(table.name.to_owned())
            .or_default()
            .insert(key.clone(), row);
        Ok((key, previous))
    }

    /// Put back what `table` held under `key` before (`None`: nothing).
    pub(crate) fn restore(&mut self, table: &str, key: MemKey, previous: Option<JsonMap>) {
        let Some(rows) = self.tables.get_mut(table) else {
            return;
        };
        match previous {
            Some(p) => {
                rows.insert(key, p);
            }
            None => {
                rows.remove(&key);
            }
        }
    }
}

impl TableReads for MemTables {
    fn get(&self, table: &TableDef, key: &[Value]) -> HomeResult<Option<JsonMap>> {
        let key = key_parts(&table.check_key(key)?);
        Ok(self
            .tables
            .get(table.name)
            .and_then(|rows| rows.get(&key))
            .cloned())
    }

    fn scan(&self, table: &TableDef, filter: &[(&str, Value)]) -> HomeResult<Vec<JsonMap>> {
        let filter = table.check_filter(filter)?;
        let Some(rows) = self.tables.get(table.name) else {
            return Ok(Vec::new());
        };
        Ok(rows
            .values()
            .filter(|row| {
                filter
                    .iter()
                    .all(|(c, v)| row.get(c.name).unwrap_or(&Value::Null) == v)
            })
            .cloned()
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const T: TableDef = TableDef {
        name: "memq_kit_test",
        columns: &[
            Column::text("a"),
            Column::integer("b"),
            Column::real("r").nullable(),
            Column::json("detail"),
        ],
        key: 2,
        indexes: &[Index {
            name: "idx_memq_kit_test_r",
            columns: &["r"],
        }],
    };

    fn obj(v: Value) -> JsonMap {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn a_row_is_normalized_to_every_column_in_order_and_a_real_reads_a_float() {
        let row = T
            .normalize(&obj(json!({"detail": {"x": 1}, "b": 2, "a": "k", "r": 1})))
            .unwrap();
        assert_eq!(
            serde_json::to_string(&row).unwrap(),
            r#"{"a":"k","b":2,"r":1.0,"detail":{"x":1}}"#
        );
        let missing = T.normalize(&obj(json!({"a": "k", "b": 2, "detail": []})));
        assert_eq!(missing.unwrap()["r"], Value::Null);
    }

    #[test]
    fn a_row_that_is_not_the_tables_is_refused_invalid_input() {
        for bad in [
            json!({"a": "k", "b": 2, "detail": 1, "colour": "red"}),
            json!({"a": "k", "b": 2.5, "detail": 1}),
            json!({"a": 5, "b": 2, "detail": 1}),
            json!({"a": "k", "b": 2}),
            json!({"a": "k", "b": 2, "r": "1", "detail": 1}),
        ] {
            let err = T.normalize(&obj(bad.clone())).unwrap_err();
            assert_eq!(
                err.kind(),
                am_triples::ErrorKind::InvalidInput,
                "{bad}: {err}"
            );
        }
        assert!(T.check_key(&[json!("k")]).is_err());
        assert!(T.check_filter(&[("detail", json!(1))]).is_err());
        assert!(T.check_filter(&[("nope", json!(1))]).is_err());
    }

    #[test]
    fn a_flawed_definition_is_an_internal_error() {
        const JSON_KEY: &[Column] = &[Column::json("a"), Column::integer("b")];
        const TWICE: &[Column] = &[Column::text("a"), Column::text("a")];
        const SAME_SQL: &[Column] = &[Column::text("a_json"), Column::json("a")];
        for bad in [
            TableDef { key: 0, ..T },
            TableDef {
                name: "Bad Name",
                ..T
            },
            TableDef {
                columns: JSON_KEY,
                ..T
            },
            TableDef {
                columns: TWICE,
                ..T
            },
            TableDef {
                columns: SAME_SQL,
                key: 1,
                indexes: &[],
                ..T
            },
        ] {
            assert_eq!(
                bad.check().unwrap_err().kind(),
                am_triples::ErrorKind::Internal,
                "{bad:?}"
            );
        }
        T.check().unwrap();
    }
}
