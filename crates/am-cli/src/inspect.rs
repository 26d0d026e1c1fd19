//! `am inspect`: an operator's read of a SQLite home (counts by kind and
//! scope, the embedding pin, the journal's seq, the vector engine, the file
//! size). Read-only and safe on a live home: the file is opened with
//! `SQLITE_OPEN_READ_ONLY`, nothing is created, migrated or checkpointed.

use crate::ctx::Ctx;
use crate::error::CliResult;
use crate::home::{check_home_path, open_read_only, table_exists};
use am_backend_sqlite::store::schema::{
    META_EMBEDDING_PIN, META_SCHEMA_VERSION, META_VECTOR_ENCODING,
};
use am_backend_sqlite::store::vectors::ENGINE_MATRIX;
use rusqlite::{Connection, OptionalExtension};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

/// Counts by kind and scope, the pin, the journal seq, the vector engine,
/// the file size. Read-only.
#[derive(Debug, clap::Args)]
pub struct InspectCmd {
    /// The SQLite home (must exist).
    #[arg(long)]
    home: PathBuf,
}

impl InspectCmd {
    /// Inspect the home and print the report.
    ///
    /// # Errors
    /// As [`inspect`]; bad input for an unusable path or `--embedder`.
    pub fn run(self, ctx: &Ctx) -> CliResult<u8> {
        ctx.embedder_spec("none")?;
        check_home_path(&self.home)?;
        let report = inspect(&self.home)?;
        ctx.emit(&report, &render(&report))?;
        Ok(0)
    }
}

const TABLE: &str = "triples";
/// How many owner ids per scope the report names.
const OWNER_IDS_SHOWN: usize = 10;

/// Formed records per kind, from the digest rows' graph ids (`ex:{kind}-…`,
/// as formation writes them): a skip-scan of the `(subject, predicate,
/// object)` index, one seek and one range count per kind.
fn records_by_kind(conn: &Connection) -> CliResult<Vec<(String, i64)>> {
    let mut next = conn.prepare(&format!(
        "SELECT subject FROM {TABLE} WHERE subject > ?1 AND subject < 'ex;' ORDER BY subject LIMIT 1"
    ))?;
    let mut count = conn.prepare(&format!(
        "SELECT COUNT(*) FROM {TABLE} WHERE subject >= ?1 AND subject < ?2 AND predicate = 'dcterms:abstract'"
    ))?;
    let mut out = Vec::new();
    let mut after = "ex:".to_owned();
    while let Some(subject) = next
        .query_row([&after], |r| r.get::<_, String>(0))
        .optional()?
    {
        let rest = &subject[3..];
        let Some(dash) = rest.find('-') else {
            after = subject.clone();
            continue;
        };
        let kind = &rest[..dash];
        // '.' sorts right after '-': the range holds exactly the `ex:{kind}-` subjects.
        let (lo, hi) = (format!("ex:{kind}-"), format!("ex:{kind}."));
        let n: i64 = count.query_row([&lo, &hi], |r| r.get(0))?;
        if n > 0 {
            out.push((kind.to_owned(), n));
        }
        after = hi;
    }
    Ok(out)
}

/// The inspection report of the home at `path`, as a JSON object.
///
/// # Errors
/// As [`crate::home::open_read_only`]; a failure when SQLite fails mid-read.
pub fn inspect(path: &Path) -> CliResult<Value> {
    let conn = open_read_only(path)?;
    let meta = |key: &str| -> CliResult<Option<String>> {
        if !table_exists(&conn, &format!("{TABLE}_meta"))? {
            return Ok(None);
        }
        Ok(conn
            .query_row(
                &format!("SELECT value FROM {TABLE}_meta WHERE key = ?1"),
                [key],
                |r| r.get::<_, Option<String>>(0),
            )
            .optional()?
            .flatten())
    };
    let mut assertions = 0i64;
    let mut by_scope = Map::new();
    let mut by_kind = Map::new();
    let mut records = 0i64;
    if table_exists(&conn, TABLE)? {
        // Assertions per scope (and owners): a scan of the (scope, owner_id)
        // index, never of the rows (vectors and text stay on disk).
        let mut stmt = conn.prepare(&format!(
            "SELECT scope, owner_id, COUNT(*) FROM {TABLE} GROUP BY scope, owner_id"
        ))?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, Option<String>>(1)?,
                r.get::<_, i64>(2)?,
            ))
        })?;
        for row in rows {
            let (scope, owner, n) = row?;
            assertions += n;
            let entry = by_scope
                .entry(scope)
                .or_insert_with(|| json!({"assertions": 0, "owners": 0, "owner_ids": []}));
            entry["assertions"] = json!(entry["assertions"].as_i64().unwrap_or(0) + n);
            entry["owners"] = json!(entry["owners"].as_i64().unwrap_or(0) + 1);
            // The first owners in order, so a reader knows what `--scope` takes.
            if let (Some(o), Some(ids)) = (owner, entry["owner_ids"].as_array_mut())
                && ids.len() < OWNER_IDS_SHOWN
            {
                ids.push(json!(o));
            }
        }
        for (kind, n) in records_by_kind(&conn)? {
            records += n;
            by_kind.insert(kind, json!(n));
        }
    }
    let seq = if table_exists(&conn, "memj_seq")? {
        conn.query_row("SELECT value FROM memj_seq WHERE id = 1", [], |r| {
            r.get::<_, i64>(0)
        })
        .optional()?
        .unwrap_or(0)
    } else {
        0
    };
    let pin = meta(META_EMBEDDING_PIN)?
        .and_then(|s| serde_json::from_str::<Value>(&s).ok())
        .unwrap_or(Value::Null);
    let file_bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let wal_bytes = std::fs::metadata(format!("{}-wal", path.display()))
        .map(|m| m.len())
        .unwrap_or(0);
    Ok(json!({
        "home": path.display().to_string(),
        "file_bytes": file_bytes,
        "wal_bytes": wal_bytes,
        "schema_version": meta(META_SCHEMA_VERSION)?,
        "assertions": assertions,
        "records": records,
        "records_by_kind": by_kind,
        "by_scope": by_scope,
        "embedding_pin": pin,
        "vectors": {
            "dimension": pin.get("dimension").cloned().unwrap_or(Value::Null),
            "encoding": meta(META_VECTOR_ENCODING)?,
            "engine": ENGINE_MATRIX,
        },
        "journal": {"current_seq": seq},
    }))
}

/// The report as human-readable lines.
pub fn render(report: &Value) -> String {
    let mut out = String::new();
    let s = |v: &Value| match v {
        Value::String(s) => s.clone(),
        Value::Null => "-".to_owned(),
        other => other.to_string(),
    };
    out.push_str(&format!("home          {}\n", s(&report["home"])));
    out.push_str(&format!(
        "file          {} bytes (+ {} bytes WAL)\n",
        s(&report["file_bytes"]),
        s(&report["wal_bytes"])
    ));
    out.push_str(&format!("schema        {}\n", s(&report["schema_version"])));
    out.push_str(&format!(
        "assertions    {} ({} records)\n",
        s(&report["assertions"]),
        s(&report["records"])
    ));
    if let Some(kinds) = report["records_by_kind"].as_object() {
        for (k, n) in kinds {
            out.push_str(&format!("  kind {:<16} {}\n", crate::text::escape(k), s(n)));
        }
    }
    if let Some(scopes) = report["by_scope"].as_object() {
        for (k, v) in scopes {
            out.push_str(&format!(
                "  scope {:<15} {} assertions, {} owners\n",
                crate::text::escape(k),
                s(&v["assertions"]),
                s(&v["owners"])
            ));
            if let Some(ids) = v["owner_ids"].as_array()
                && !ids.is_empty()
            {
                let shown: Vec<String> = ids
                    .iter()
                    .filter_map(Value::as_str)
                    .map(crate::text::escape)
                    .collect();
                let more = v["owners"].as_u64().unwrap_or(0) - shown.len() as u64;
                let more = if more > 0 {
                    format!(" (+{more} more)")
                } else {
                    String::new()
                };
                out.push_str(&format!(
                    "    owners: {}{more} (recall --scope {}:<owner>)\n",
                    shown.join(", "),
                    crate::text::escape(k)
                ));
            }
        }
    }
    out.push_str(&format!("embedding pin {}\n", s(&report["embedding_pin"])));
    out.push_str(&format!(
        "vectors       dimension {} ({}), engine {}\n",
        s(&report["vectors"]["dimension"]),
        s(&report["vectors"]["encoding"]),
        s(&report["vectors"]["engine"])
    ));
    out.push_str(&format!(
        "journal seq   {}\n",
        s(&report["journal"]["current_seq"])
    ));
    out
}
