//! The sleep cadence's completion rows: `memq_maintenance`, one row per
//! `(scope, owner_id)` pair and kind, the table kit's first table
//! (`am_journal::table`: a row type and a [`TableDef`], no plumbing).
//!
//! `record_maintenance` writes a completed night's rows in one transaction
//! at `tasks.record_maintenance`; `last_maintenance` reads the newest row.
//! `sleep_pass` records a whole night as `night` and a cycle window as
//! `cycle` (which does not reset `records_since_maintenance`'s count), once
//! the night lands; until then a host records its own.
//!
//! Choices the spec leaves open (ours; docs/tasks.md): the verb's arguments
//! (`scopes`, `kind` defaulting to `night`, `detail` an object defaulting to
//! `{}`, `now`); a pair is keyed as the store keys it (scope trimmed and
//! lowercased, owner trimmed; a blank scope refused, a blank owner kept);
//! `seq` is the journal's `current_seq` read just before the transaction
//! (a record formed by another writer meanwhile numbers after it, so it
//! counts as formed after the night); a new record replaces the pair's row of
//! that kind whatever its time; `last_maintenance` answers the row with the
//! latest `completed_at` (as an instant), then the highest `seq`, then the
//! last in key order, or `None` (`scopes: None` reads every pair, `[]` none).
//!
//! Spec: api.md "Sleep" (`records_since_maintenance`: "`sleep_pass` records
//! the completion (the queue's `memq_maintenance`, one row per pair and
//! kind)"; `MemoryTaskQueue.last_maintenance(scopes=None, *, kind="night")`
//! reads `{completed_at, seq, scope, owner_id, kind, detail}`) and "Commit
//! guard" (`tasks.record_maintenance`).

use super::TaskQueue;
use super::args::{LastMaintenance, MaintenanceKind, RecordMaintenance};
use crate::error::{Error, Result};
use am_journal::{Column, HomeRow, TableDef, get_row, put_row, rows};
use am_triples::{CommitPoint, Timestamp};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// `memq_maintenance`, byte for byte the table a home's queue created
/// before the kit: `scope, owner_id, kind, completed_at, seq, detail_json`,
/// `PRIMARY KEY (scope, owner_id, kind)`.
pub const MAINTENANCE_TABLE: TableDef = TableDef {
    name: "memq_maintenance",
    columns: &[
        Column::text("scope"),
        Column::text("owner_id"),
        Column::text("kind"),
        Column::text("completed_at"),
        Column::integer("seq"),
        Column::json("detail"),
    ],
    key: 3,
    indexes: &[],
};

/// One completion row: `{completed_at, seq, scope, owner_id, kind, detail}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MaintenanceRow {
    /// When the night completed (canonical UTC).
    pub completed_at: String,
    /// The journal's seq when it was recorded.
    pub seq: i64,
    /// The pair's scope.
    pub scope: String,
    /// The pair's owner.
    pub owner_id: String,
    /// `night` or `cycle`.
    pub kind: MaintenanceKind,
    /// The night's particulars (an object).
    pub detail: Value,
}

impl HomeRow for MaintenanceRow {
    const TABLE: &'static TableDef = &MAINTENANCE_TABLE;
}

/// `pairs` keyed as the store keys them, duplicates dropped, order kept.
fn keyed(pairs: &[(String, String)]) -> Result<Vec<(String, String)>> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (scope, owner) in pairs {
        let pair = (
            am_triples::canonicalize_term(scope),
            am_triples::assertion::py_strip(owner).to_owned(),
        );
        if pair.0.is_empty() {
            return Err(Error::invalid(format!(
                "a maintenance row needs a scope, got {} (owner {})",
                am_triples::text::shown(scope),
                am_triples::text::shown(owner)
            )));
        }
        if !out.contains(&pair) {
            out.push(pair);
        }
    }
    Ok(out)
}

/// Whether `a` completed after `b` (as instants; then by seq).
fn later(a: &MaintenanceRow, b: &MaintenanceRow) -> bool {
    let at = |r: &MaintenanceRow| Timestamp::parse(&r.completed_at).ok();
    match (at(a), at(b)) {
        (Some(x), Some(y)) if x != y => x > y,
        (Some(_), Some(_)) => a.seq >= b.seq,
        _ => (a.completed_at.as_str(), a.seq) >= (b.completed_at.as_str(), b.seq),
    }
}

impl TaskQueue<'_> {
    /// `record_maintenance`: record a completed night (or cycle) over
    /// `scopes`, one row per pair, in ONE transaction at
    /// `tasks.record_maintenance`; a pair's earlier row of that kind is
    /// replaced. Returns the rows written.
    ///
    /// # Errors
    /// `InvalidInput` for no pairs, a blank scope or a `detail` that is not
    /// an object (nothing written); the guard's refusal; the home's failure.
    pub fn record_maintenance(&self, args: &RecordMaintenance) -> Result<Vec<MaintenanceRow>> {
        let pairs = keyed(&args.scopes)?;
        if pairs.is_empty() {
            return Err(Error::invalid(
                "record_maintenance needs scopes: a non-empty list of [scope, owner_id]",
            ));
        }
        if !args.detail.is_object() {
            return Err(Error::invalid(format!(
                "a maintenance row's detail is an object, got {}",
                am_triples::text::shown(&args.detail)
            )));
        }
        let completed_at = self.now(args.now)?;
        let seq = self.sys.journal.current_seq()?;
        let rows: Vec<MaintenanceRow> = pairs
            .into_iter()
            .map(|(scope, owner_id)| MaintenanceRow {
                completed_at: completed_at.clone(),
                seq,
                scope,
                owner_id,
                kind: args.kind,
                detail: args.detail.clone(),
            })
            .collect();
        self.sys
            .home
            .transaction(CommitPoint::TasksRecordMaintenance, &mut |tx| {
                let tables = tx.tables()?;
                for r in &rows {
                    put_row(tables, r)?;
                }
                Ok(())
            })?;
        Ok(rows)
    }

    /// `last_maintenance(scopes=None, *, kind="night")`: the newest row of
    /// `kind` over these pairs (`None`: any pair), or `None`. A pure read.
    ///
    /// # Errors
    /// `InvalidInput` for a blank scope; the home's read failure.
    pub fn last_maintenance(&self, args: &LastMaintenance) -> Result<Option<MaintenanceRow>> {
        let pairs = args.scopes.as_deref().map(keyed).transpose()?;
        let kind = json!(args.kind.as_str());
        let mut found: Vec<MaintenanceRow> = Vec::new();
        self.sys.home.read_tables(&mut |r| {
            found = match &pairs {
                None => rows(r, &[("kind", kind.clone())])?,
                Some(pairs) => {
                    let mut out = Vec::new();
                    for (scope, owner) in pairs {
                        out.extend(get_row::<MaintenanceRow>(
                            r,
                            &[json!(scope), json!(owner), kind.clone()],
                        )?);
                    }
                    out
                }
            };
            Ok(())
        })?;
        found.sort_by(|a, b| (&a.scope, &a.owner_id).cmp(&(&b.scope, &b.owner_id)));
        Ok(found
            .into_iter()
            .reduce(|best, r| if later(&r, &best) { r } else { best }))
    }
}
