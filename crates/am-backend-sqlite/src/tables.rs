//! The table kit on SQLite: an `am_journal::TableDef` becomes its table, its
//! indexes and its statements, over the home's one connection.
//!
//! A definition is DDL by one rule ([`create_sql`]): `CREATE TABLE IF NOT
//! EXISTS name (` one line per column, `name TYPE` (`text` and `json` are
//! `TEXT`, a JSON column named `<name>_json`; `integer` is `INTEGER`, `real`
//! `REAL`) with `NOT NULL` unless it is nullable, then `PRIMARY KEY (` the key
//! columns `)`, and `CREATE INDEX IF NOT EXISTS` per index. The table is
//! created inside the first home transaction that writes it (its rows and
//! its schema commit together or not at all); a read of a table that does
//! not exist answers empty, so a read-only home, or a home written before
//! the table was, reads and writes nothing. A write is an upsert (`INSERT ..
//! ON CONFLICT (key) DO UPDATE`: a replaced row keeps its rowid), a read is
//! a `SELECT` by key or by equality filters `ORDER BY` the key; every
//! statement is generated from the definition and prepared once per
//! connection (its statement cache, keyed by the generated text).
//!
//! The rows' rules (what a row may hold, what a read answers) are the kit's
//! contract, checked in `am_journal::table` for every home.

use crate::error::sqlite;
use am_journal::home::HomeResult;
use am_journal::{Cell, Column, ColumnType, TableDef, TableReads, TablesTx};
use am_triples::JsonMap;
use rusqlite::Connection;
use rusqlite::types::{Value as SqlValue, ValueRef};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

fn sql_type(ty: ColumnType) -> &'static str {
    match ty {
        ColumnType::Text | ColumnType::Json => "TEXT",
        ColumnType::Integer => "INTEGER",
        ColumnType::Real => "REAL",
    }
}

fn joined(columns: &[Column]) -> String {
    columns
        .iter()
        .map(Column::sql_name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The `CREATE TABLE IF NOT EXISTS` statement of `def` (see the module docs).
pub fn create_sql(def: &TableDef) -> String {
    let mut sql = format!("CREATE TABLE IF NOT EXISTS {} (\n", def.name);
    for c in def.columns {
        sql.push_str(&format!(
            "    {} {}{},\n",
            c.sql_name(),
            sql_type(c.ty),
            if c.nullable { "" } else { " NOT NULL" }
        ));
    }
    sql.push_str(&format!(
        "    PRIMARY KEY ({})\n)",
        joined(def.key_columns())
    ));
    sql
}

/// The `CREATE INDEX IF NOT EXISTS` statements of `def`'s indexes.
pub fn index_sql(def: &TableDef) -> Vec<String> {
    def.indexes
        .iter()
        .map(|ix| {
            let columns: Vec<String> = ix
                .columns
                .iter()
                .filter_map(|c| def.column(c).map(Column::sql_name))
                .collect();
            format!(
                "CREATE INDEX IF NOT EXISTS {} ON {}({})",
                ix.name,
                def.name,
                columns.join(", ")
            )
        })
        .collect()
}

/// The upsert of a row of `def` (see the module docs): `INSERT .. ON
/// CONFLICT (key) DO UPDATE` the other columns (`DO NOTHING` when every
/// column is the key).
fn upsert_sql(def: &TableDef) -> String {
    let names = joined(def.columns);
    let slots: Vec<String> = (1..=def.columns.len()).map(|i| format!("?{i}")).collect();
    let rest: Vec<String> = def.columns[def.key..]
        .iter()
        .map(|c| format!("{0} = excluded.{0}", c.sql_name()))
        .collect();
    format!(
        "INSERT INTO {} ({names}) VALUES ({}) ON CONFLICT ({}) DO {}",
        def.name,
        slots.join(", "),
        joined(def.key_columns()),
        if rest.is_empty() {
            "NOTHING".to_owned()
        } else {
            format!("UPDATE SET {}", rest.join(", "))
        }
    )
}

/// `v` (as the kit normalized it for column `c`) as SQLite stores it.
fn to_sql(c: &Column, v: &Value) -> HomeResult<SqlValue> {
    Ok(match (c.ty, v) {
        (_, Value::Null) => SqlValue::Null,
        (ColumnType::Json, v) => SqlValue::Text(serde_json::to_string(v).map_err(|e| {
            am_triples::Error::internal(format!("a JSON cell did not encode: {e}"))
        })?),
        (_, Value::String(s)) => SqlValue::Text(s.clone()),
        (ColumnType::Integer, Value::Number(n)) => {
            SqlValue::Integer(n.as_i64().unwrap_or_default())
        }
        (_, Value::Number(n)) => SqlValue::Real(n.as_f64().unwrap_or_default()),
        (_, other) => {
            return Err(am_triples::Error::internal(format!(
                "column {} cannot store {}",
                c.name,
                am_triples::text::shown(other)
            )));
        }
    })
}

/// A stored cell of column `c` of table `table` as the row's JSON value.
fn from_sql(table: &str, c: &Column, cell: ValueRef<'_>) -> HomeResult<Value> {
    let bad = |what: &str| {
        am_triples::Error::storage(format!(
            "{table}.{} holds {what}, not a {} cell",
            c.sql_name(),
            match c.ty {
                ColumnType::Text => "text",
                ColumnType::Integer => "integer",
                ColumnType::Real => "real",
                ColumnType::Json => "JSON text",
            }
        ))
    };
    let text =
        |t: &[u8]| String::from_utf8(t.to_vec()).map_err(|_| bad("bytes that are not UTF-8"));
    Ok(match (c.ty, cell) {
        (_, ValueRef::Null) => Value::Null,
        (ColumnType::Text, ValueRef::Text(t)) => Value::String(text(t)?),
        (ColumnType::Integer, ValueRef::Integer(i)) => Value::from(i),
        (ColumnType::Real, ValueRef::Real(f)) => Value::from(f),
        // A REAL column's integer cell (SQLite may keep a whole float so).
        (ColumnType::Real, ValueRef::Integer(i)) => Value::from(i as f64),
        (ColumnType::Json, ValueRef::Text(t)) => {
            serde_json::from_str(&text(t)?).map_err(|_| bad("text that is not JSON"))?
        }
        (_, ValueRef::Text(_)) => return Err(bad("text")),
        (_, ValueRef::Integer(_)) => return Err(bad("an integer")),
        (_, ValueRef::Real(_)) => return Err(bad("a real")),
        (_, ValueRef::Blob(_)) => return Err(bad("a blob")),
    })
}

/// The home's tables on one connection (inside a home transaction, or a
/// read outside one).
pub(crate) struct SqlTables<'a> {
    conn: &'a Connection,
    /// The tables this transaction created or found (by name).
    known: HashSet<&'static str>,
    /// Each written table's upsert statement text (by name), generated once
    /// per transaction however many rows it writes.
    upserts: HashMap<&'static str, String>,
    /// The definitions checked in this transaction (by name): a row by its
    /// cells checks its definition once.
    checked: HashSet<&'static str>,
}

impl<'a> SqlTables<'a> {
    /// The tables of `conn` (in its current transaction).
    pub(crate) fn new(conn: &'a Connection) -> Self {
        SqlTables {
            conn,
            known: HashSet::new(),
            upserts: HashMap::new(),
            checked: HashSet::new(),
        }
    }

    /// Whether `def`'s table exists (in this transaction's snapshot).
    fn exists(&self, def: &TableDef) -> HomeResult<bool> {
        if self.known.contains(def.name) {
            return Ok(true);
        }
        self.conn
            .prepare_cached("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1")
            .and_then(|mut s| s.exists([def.name]))
            .map_err(sqlite)
    }

    /// The rows `sql` answers with `params`, as `def`'s row objects.
    fn select(&self, def: &TableDef, sql: &str, params: &[SqlValue]) -> HomeResult<Vec<JsonMap>> {
        let mut stmt = self.conn.prepare_cached(sql).map_err(sqlite)?;
        let mut rows = stmt
            .query(rusqlite::params_from_iter(params))
            .map_err(sqlite)?;
        let mut out = Vec::new();
        while let Some(r) = rows.next().map_err(sqlite)? {
            let mut row = JsonMap::new();
            for (i, c) in def.columns.iter().enumerate() {
                let cell = r.get_ref(i).map_err(sqlite)?;
                row.insert(c.name.to_owned(), from_sql(def.name, c, cell)?);
            }
            out.push(row);
        }
        Ok(out)
    }
}

impl TableReads for SqlTables<'_> {
    fn get(&self, def: &TableDef, key: &[Value]) -> HomeResult<Option<JsonMap>> {
        let key = def.check_key(key)?;
        if !self.exists(def)? {
            return Ok(None);
        }
        let mut sql = format!("SELECT {} FROM {} WHERE ", joined(def.columns), def.name);
        let mut params = Vec::with_capacity(key.len());
        for (i, (c, v)) in def.key_columns().iter().zip(&key).enumerate() {
            if i > 0 {
                sql.push_str(" AND ");
            }
            sql.push_str(&format!("{} = ?{}", c.sql_name(), i + 1));
            params.push(to_sql(c, v)?);
        }
        Ok(self.select(def, &sql, &params)?.into_iter().next())
    }

    fn scan(&self, def: &TableDef, filter: &[(&str, Value)]) -> HomeResult<Vec<JsonMap>> {
        let filter = def.check_filter(filter)?;
        if !self.exists(def)? {
            return Ok(Vec::new());
        }
        let mut sql = format!(
            "SELECT {} FROM {} WHERE 1 = 1",
            joined(def.columns),
            def.name
        );
        let mut params = Vec::new();
        for (c, v) in &filter {
            if v.is_null() {
                sql.push_str(&format!(" AND {} IS NULL", c.sql_name()));
            } else {
                params.push(to_sql(c, v)?);
                sql.push_str(&format!(" AND {} = ?{}", c.sql_name(), params.len()));
            }
        }
        sql.push_str(&format!(" ORDER BY {}", joined(def.key_columns())));
        self.select(def, &sql, &params)
    }
}

impl SqlTables<'_> {
    /// `def`'s upsert text, its table created with the transaction's first
    /// write of it (the table, its indexes and its rows commit together).
    fn upsert_of(&mut self, def: &TableDef) -> HomeResult<&str> {
        if !self.known.contains(def.name) {
            let mut ddl = create_sql(def);
            for ix in index_sql(def) {
                ddl.push_str(";\n");
                ddl.push_str(&ix);
            }
            self.conn.execute_batch(&ddl).map_err(sqlite)?;
            self.known.insert(def.name);
        }
        Ok(self
            .upserts
            .entry(def.name)
            .or_insert_with(|| upsert_sql(def)))
    }
}

impl TablesTx for SqlTables<'_> {
    fn put(&mut self, def: &TableDef, row: &JsonMap) -> HomeResult<()> {
        // Checked, not copied: `to_sql` converts each cell as `normalize`
        // would have stored it.
        def.check_row(row)?;
        let params = def
            .columns
            .iter()
            .map(|c| to_sql(c, row.get(c.name).unwrap_or(&Value::Null)))
            .collect::<HomeResult<Vec<_>>>()?;
        let conn = self.conn;
        let sql = self.upsert_of(def)?;
        conn.prepare_cached(sql)
            .and_then(|mut s| s.execute(rusqlite::params_from_iter(params)))
            .map_err(sqlite)?;
        Ok(())
    }

    /// The cells bound as they are (no row object, no copy of a text), each
    /// converted as `to_sql` converts its row value.
    fn put_cells(&mut self, def: &TableDef, cells: &[Cell<'_>]) -> HomeResult<()> {
        self.write_cells(def, std::iter::once(cells))
    }

    /// [`TablesTx::put_cells`] of each row, the statement prepared once.
    fn put_cells_many(&mut self, def: &TableDef, rows: &[Vec<Cell<'_>>]) -> HomeResult<()> {
        self.write_cells(def, rows.iter().map(Vec::as_slice))
    }
}

impl SqlTables<'_> {
    /// Write `rows` of `def` by their cells: each checked (the definition
    /// once per transaction) and bound to the upsert prepared once.
    fn write_cells<'c>(
        &mut self,
        def: &TableDef,
        rows: impl Iterator<Item = &'c [Cell<'c>]>,
    ) -> HomeResult<()> {
        if !self.checked.contains(def.name) {
            def.check()?;
            self.checked.insert(def.name);
        }
        let conn = self.conn;
        let sql = self.upsert_of(def)?;
        let mut stmt = conn.prepare_cached(sql).map_err(sqlite)?;
        for cells in rows {
            def.cells_fit(cells)?;
            for (i, (c, cell)) in def.columns.iter().zip(cells).enumerate() {
                bind_cell(&mut stmt, i + 1, c, cell)?;
            }
            stmt.raw_execute().map_err(sqlite)?;
        }
        Ok(())
    }
}

/// Bind `cell` of column `c` at `at`, converted as `to_sql` converts its
/// row value.
fn bind_cell(
    stmt: &mut rusqlite::Statement<'_>,
    at: usize,
    c: &Column,
    cell: &Cell<'_>,
) -> HomeResult<()> {
    let bound = match (c.ty, cell) {
        _ if cell.is_null() => stmt.raw_bind_parameter(at, rusqlite::types::Null),
        (ColumnType::Json, Cell::Serialized(v)) => {
            let text = v.json_text()?;
            if text == "null" {
                if !c.nullable {
                    return Err(am_triples::Error::invalid(format!(
                        "{} cannot be null",
                        c.name
                    )));
                }
                stmt.raw_bind_parameter(at, rusqlite::types::Null)
            } else {
                stmt.raw_bind_parameter(at, text)
            }
        }
        (ColumnType::Json, v) => {
            let text = serde_json::to_string(&v.to_value()).map_err(|e| {
                am_triples::Error::internal(format!("a JSON cell did not encode: {e}"))
            })?;
            stmt.raw_bind_parameter(at, text)
        }
        (_, Cell::Text(t)) => stmt.raw_bind_parameter(at, *t),
        (ColumnType::Real, Cell::Integer(n)) => {
            #[allow(clippy::cast_precision_loss)]
            let x = *n as f64;
            stmt.raw_bind_parameter(at, x)
        }
        (_, Cell::Integer(n)) => stmt.raw_bind_parameter(at, *n),
        (_, Cell::Real(x)) => stmt.raw_bind_parameter(at, *x),
        (_, Cell::Null | Cell::Json(_) | Cell::Serialized(_)) => {
            stmt.raw_bind_parameter(at, rusqlite::types::Null)
        }
    };
    bound.map_err(sqlite)
}

#[cfg(test)]
mod tests {
    use super::*;
    use am_journal::Index;

    #[test]
    fn a_definition_becomes_one_create_table_with_its_key_and_its_indexes() {
        const T: TableDef = TableDef {
            name: "memq_kit",
            columns: &[
                Column::text("a"),
                Column::integer("n"),
                Column::real("r").nullable(),
                Column::json("detail"),
            ],
            key: 2,
            indexes: &[Index {
                name: "idx_memq_kit_r",
                columns: &["r", "detail"],
            }],
        };
        assert_eq!(
            create_sql(&T),
            "CREATE TABLE IF NOT EXISTS memq_kit (\n    a TEXT NOT NULL,\n    n INTEGER NOT NULL,\n    \
             r REAL,\n    detail_json TEXT NOT NULL,\n    PRIMARY KEY (a, n)\n)"
        );
        assert_eq!(
            index_sql(&T),
            ["CREATE INDEX IF NOT EXISTS idx_memq_kit_r ON memq_kit(r, detail_json)"]
        );
    }
}
