//! Appends inside an open transaction: seq allocation on the one `memj_seq` axis,
//! supplied-id dedup, the denormalised counters and the checkpointed count logs.
//!
//! Every function here assumes the caller holds the home's connection inside an
//! open write transaction, and validated its records first (nothing is validated
//! here, so a refusal never reaches SQL).

use super::counts::{CountCache, CountLog};
use super::rows::{self, storage};
use am_journal::common::{fill_id, fill_observed_at};
use am_journal::{
    ActiveMemorySnapshot, ClosureRecord, EventKind, MemoryEvent, ReconstructionTrace, Result,
    ScopeBinding, UnderstandingVersion, ValenceEvent,
};
use rusqlite::{Connection, OptionalExtension, Row};
use std::collections::{HashMap, HashSet};

/// The seq cursor of one append: reads the high-water mark once, hands out the
/// next seqs, and writes the new mark back (with the count logs' mark) at the end.
pub(crate) struct SeqCursor {
    start: i64,
    next: i64,
}

impl SeqCursor {
    /// Read the mark, catching the count logs up first when another writer left them behind.
    pub(crate) fn begin(conn: &Connection, cache: &mut CountCache) -> Result<Self> {
        let hw = current_seq(conn)?;
        catch_up_count_logs(conn, hw, cache)?;
        Ok(SeqCursor {
            start: hw,
            next: hw,
        })
    }

    /// The next seq.
    pub(crate) fn take(&mut self) -> i64 {
        self.next += 1;
        self.next
    }

    /// Persist the new high-water mark (no write when nothing was appended).
    pub(crate) fn finish(self, conn: &Connection) -> Result<()> {
        if self.next != self.start {
            conn.prepare_cached("UPDATE memj_seq SET value = ?1 WHERE id = 1")
                .and_then(|mut s| s.execute([self.next]))
                .map_err(storage)?;
            conn.prepare_cached("UPDATE memj_count_logs SET high_water = ?1 WHERE id = 1")
                .and_then(|mut s| s.execute([self.next]))
                .map_err(storage)?;
        }
        Ok(())
    }
}

/// The high-water mark of the seq axis.
pub(crate) fn current_seq(conn: &Connection) -> Result<i64> {
    conn.prepare_cached("SELECT value FROM memj_seq WHERE id = 1")
        .and_then(|mut s| s.query_row([], |r| r.get::<_, i64>(0)).optional())
        .map_err(storage)
        .map(|v| v.unwrap_or(0))
}

/// The seq through which the count logs' checkpoints are kept.
pub(crate) fn count_logs_high_water(conn: &Connection) -> Result<i64> {
    conn.prepare_cached("SELECT high_water FROM memj_count_logs WHERE id = 1")
        .and_then(|mut s| s.query_row([], |r| r.get::<_, i64>(0)).optional())
        .map_err(storage)
        .map(|v| v.unwrap_or(0))
}

/// Write the checkpoints of the events after the logs' mark (events another
/// writer appended: every event naming a record, every `co_selected`), then
/// move the mark to `hw`. `cache` is emptied first (its states predate them).
pub(crate) fn catch_up_count_logs(
    conn: &Connection,
    hw: i64,
    cache: &mut CountCache,
) -> Result<()> {
    let mark = count_logs_high_water(conn)?;
    if mark >= hw {
        return Ok(());
    }
    cache.clear();
    let pending: Vec<(i64, String, Option<String>, Option<String>)> = conn
        .prepare(
            "SELECT seq, kind, record_id, pair_ids_json FROM memj_events \
             WHERE seq > ?1 AND (record_id IS NOT NULL OR kind = 'co_selected') ORDER BY seq ASC",
        )
        .and_then(|mut s| {
            s.query_map([mark], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
                .collect::<rusqlite::Result<Vec<_>>>()
        })
        .map_err(storage)?;
    let mut log = CountLog::for_catch_up();
    for (seq, kind, record_id, pair_json) in pending {
        if let Some(rid) = record_id {
            log.record_event(&rid, seq, kind == EventKind::Selected.as_str());
        } else if kind == EventKind::CoSelected.as_str()
            && let Some(raw) = pair_json
        {
            let pair: Vec<String> =
                am_journal::common::json_load(Some(&raw), "pair_ids_json", Vec::new())?;
            if let [a, b] = pair.as_slice() {
                log.pair(a, b, seq);
            }
        }
    }
    log.flush(conn, mark, cache)?;
    conn.execute(
        "UPDATE memj_count_logs SET high_water = ?1 WHERE id = 1",
        [hw],
    )
    .map_err(storage)?;
    Ok(())
}

fn find<T>(
    conn: &Connection,
    sql: &str,
    id: &str,
    decode: impl Fn(&Row<'_>) -> Result<T>,
) -> Result<Option<T>> {
    let mut stmt = conn.prepare_cached(sql).map_err(storage)?;
    let mut rows = stmt.query([id]).map_err(storage)?;
    match rows.next().map_err(storage)? {
        Some(row) => decode(row).map(Some),
        None => Ok(None),
    }
}

/// The stored events whose `event_id` is one of `ids`, by id: one statement
/// probing `uq_memj_events_event_id` once per id.
fn stored_events(conn: &Connection, ids: &[&str]) -> Result<HashMap<String, MemoryEvent>> {
    let mut out = HashMap::new();
    if ids.is_empty() {
        return Ok(out);
    }
    let keys = serde_json::to_string(ids)
        .map_err(|e| am_journal::Error::storage(format!("cannot encode event ids: {e}")))?;
    let mut stmt = conn
        .prepare_cached(
            // A join, not `IN (SELECT ...)`: the IN form builds an ephemeral
            // b-tree of the ids per call; `CROSS JOIN` keeps json_each outer.
            "SELECT e.* FROM json_each(?1) AS j CROSS JOIN memj_events AS e ON e.event_id = j.value",
        )
        .map_err(storage)?;
    let mut rows = stmt.query([keys]).map_err(storage)?;
    while let Some(row) = rows.next().map_err(storage)? {
        let e = rows::row_to_event(row)?;
        out.insert(e.event_id.clone(), e);
    }
    Ok(out)
}

/// The new events of `out[from..]` (those `fresh` marks), in order.
fn pending<'a>(out: &'a [MemoryEvent], fresh: &[bool], from: usize) -> Vec<&'a MemoryEvent> {
    out[from..]
        .iter()
        .zip(&fresh[from..])
        .filter(|(_, f)| **f)
        .map(|(e, _)| e)
        .collect()
}

/// Append validated events. Supplied ids are looked up in one statement first;
/// new events are inserted in multi-row statements ([`rows::insert_events`]) and
/// their counts written once at the end ([`CountLog`]). An id repeated within
/// the batch flushes the pending rows and reads the first occurrence back, as
/// a later append would.
pub(crate) fn events(
    conn: &Connection,
    items: Vec<MemoryEvent>,
    cache: &mut CountCache,
) -> Result<Vec<MemoryEvent>> {
    let mut cursor = SeqCursor::begin(conn, cache)?;
    let upto = cursor.start;
    let supplied: Vec<&str> = items
        .iter()
        .map(|e| e.event_id.trim())
        .filter(|id| !id.is_empty())
        .collect();
    let stored = stored_events(conn, &supplied)?;
    let mut seen: HashSet<String> = HashSet::new();
    let mut log = CountLog::for_append();
    let mut out: Vec<MemoryEvent> = Vec::with_capacity(items.len());
    // Whether `out[i]` is a new event; `out[unwritten..]`'s new events are not
    // inserted yet.
    let mut fresh: Vec<bool> = Vec::with_capacity(items.len());
    let mut unwritten = 0;
    for mut e in items {
        let supplied = e.event_id.trim();
        if !supplied.is_empty() {
            if let Some(orig) = stored.get(supplied) {
                out.push(orig.clone());
                fresh.push(false);
                continue;
            }
            if seen.contains(supplied) {
                rows::insert_events(conn, &pending(&out, &fresh, unwritten))?;
                unwritten = out.len();
                if let Some(orig) = find(
                    conn,
                    "SELECT * FROM memj_events WHERE event_id = ?1",
                    supplied,
                    rows::row_to_event,
                )? {
                    out.push(orig);
                    fresh.push(false);
                    unwritten = out.len();
                    continue;
                }
            }
            seen.insert(supplied.to_owned());
        }
        fill_id(&mut e.event_id);
        fill_observed_at(&mut e.observed_at);
        e.seq = cursor.take();
        if let Some(rid) = e.record_id.as_deref() {
            log.record_event(rid, e.seq, e.kind == EventKind::Selected);
        } else if e.kind == EventKind::CoSelected
            && let Some((a, b)) = e.pair_ids.as_ref()
        {
            log.pair(a, b, e.seq);
        }
        out.push(e);
        fresh.push(true);
    }
    rows::insert_events(conn, &pending(&out, &fresh, unwritten))?;
    log.flush(conn, upto, cache)?;
    cursor.finish(conn)?;
    Ok(out)
}

/// Append validated valence events.
pub(crate) fn valence(
    conn: &Connection,
    items: Vec<ValenceEvent>,
    cache: &mut CountCache,
) -> Result<Vec<ValenceEvent>> {
    let mut cursor = SeqCursor::begin(conn, cache)?;
    let mut out = Vec::with_capacity(items.len());
    for mut e in items {
        let supplied = e.event_id.trim();
        if !supplied.is_empty()
            && let Some(orig) = find(
                conn,
                "SELECT * FROM memj_valence WHERE event_id = ?1",
                supplied,
                rows::row_to_valence,
            )?
        {
            out.push(orig);
            continue;
        }
        fill_id(&mut e.event_id);
        fill_observed_at(&mut e.observed_at);
        e.seq = cursor.take();
        rows::insert_valence(conn, &e)?;
        out.push(e);
    }
    cursor.finish(conn)?;
    Ok(out)
}

/// Append validated bindings.
pub(crate) fn bindings(
    conn: &Connection,
    items: Vec<ScopeBinding>,
    cache: &mut CountCache,
) -> Result<Vec<ScopeBinding>> {
    let mut cursor = SeqCursor::begin(conn, cache)?;
    let mut out = Vec::with_capacity(items.len());
    for mut b in items {
        let supplied = b.binding_id.trim();
        if !supplied.is_empty()
            && let Some(orig) = find(
                conn,
                &format!(
                    "SELECT {} FROM memj_bindings WHERE binding_id = ?1",
                    rows::BINDING_COLUMNS
                ),
                supplied,
                rows::row_to_binding,
            )?
        {
            out.push(orig);
            continue;
        }
        fill_id(&mut b.binding_id);
        fill_observed_at(&mut b.observed_at);
        b.seq = cursor.take();
        rows::insert_binding(conn, &b)?;
        out.push(b);
    }
    cursor.finish(conn)?;
    Ok(out)
}

/// Append validated closures.
pub(crate) fn closures(
    conn: &Connection,
    items: Vec<ClosureRecord>,
    cache: &mut CountCache,
) -> Result<Vec<ClosureRecord>> {
    let mut cursor = SeqCursor::begin(conn, cache)?;
    let mut out = Vec::with_capacity(items.len());
    for mut c in items {
        let supplied = c.closure_id.trim();
        if !supplied.is_empty()
            && let Some(orig) = find(
                conn,
                "SELECT * FROM memj_closures WHERE closure_id = ?1",
                supplied,
                rows::row_to_closure,
            )?
        {
            out.push(orig);
            continue;
        }
        fill_id(&mut c.closure_id);
        fill_observed_at(&mut c.observed_at);
        c.seq = cursor.take();
        rows::insert_closure(conn, &c)?;
        out.push(c);
    }
    cursor.finish(conn)?;
    Ok(out)
}

/// Append one validated trace.
pub(crate) fn trace(
    conn: &Connection,
    mut t: ReconstructionTrace,
    cache: &mut CountCache,
) -> Result<ReconstructionTrace> {
    if !t.trace_id.is_empty()
        && let Some(orig) = find(
            conn,
            "SELECT * FROM memj_traces WHERE trace_id = ?1",
            &t.trace_id,
            rows::row_to_trace,
        )?
    {
        return Ok(orig);
    }
    let mut cursor = SeqCursor::begin(conn, cache)?;
    fill_id(&mut t.trace_id);
    fill_observed_at(&mut t.observed_at);
    t.seq = cursor.take();
    rows::insert_trace(conn, &t)?;
    cursor.finish(conn)?;
    Ok(t)
}

/// Append one validated snapshot.
pub(crate) fn snapshot(
    conn: &Connection,
    mut s: ActiveMemorySnapshot,
    cache: &mut CountCache,
) -> Result<ActiveMemorySnapshot> {
    if !s.snapshot_id.is_empty()
        && let Some(orig) = find(
            conn,
            "SELECT * FROM memj_snapshots WHERE snapshot_id = ?1",
            &s.snapshot_id,
            rows::row_to_snapshot,
        )?
    {
        return Ok(orig);
    }
    let mut cursor = SeqCursor::begin(conn, cache)?;
    fill_id(&mut s.snapshot_id);
    fill_observed_at(&mut s.observed_at);
    s.seq = cursor.take();
    rows::insert_snapshot(conn, &s)?;
    cursor.finish(conn)?;
    Ok(s)
}

/// Append one validated understanding version.
pub(crate) fn version(
    conn: &Connection,
    mut v: UnderstandingVersion,
    cache: &mut CountCache,
) -> Result<UnderstandingVersion> {
    if let Some(orig) = find(
        conn,
        &format!(
            "SELECT {} FROM memj_versions WHERE version_id = ?1",
            rows::VERSION_COLUMNS
        ),
        &v.version_id,
        rows::row_to_version,
    )? {
        return Ok(orig);
    }
    let mut cursor = SeqCursor::begin(conn, cache)?;
    fill_observed_at(&mut v.understood_at);
    v.seq = cursor.take();
    rows::insert_version(conn, &v)?;
    cursor.finish(conn)?;
    Ok(v)
}

#[cfg(test)]
mod tests {
    use crate::SqliteHome;
    use crate::journal::SQLiteJournal;
    use am_journal::{ActiveMemorySnapshot, EventFilter, EventKind, MemoryEvent, MemoryJournal};

    fn sel(rid: &str, id: &str) -> MemoryEvent {
        MemoryEvent::on_record(EventKind::Selected, rid, "session", "s1").with_event_id(id)
    }

    #[test]
    fn a_batch_naming_a_stored_id_returns_the_original_and_appends_only_the_new_events() {
        let dir = tempfile::tempdir().unwrap();
        let home = SqliteHome::open(dir.path().join("home.sqlite3")).unwrap();
        let j = SQLiteJournal::open(&home).unwrap();
        j.append_events(&[sel("r1", "x1"), sel("r2", "x2")])
            .unwrap();
        // The optimistic insert meets x1 in the unique index, rolls back and
        // appends again with the lookup.
        let out = j
            .append_events(&[sel("r3", "x3"), sel("r9", "x1"), sel("r1", "x4")])
            .unwrap();
        let got: Vec<(&str, i64, Option<&str>)> = out
            .iter()
            .map(|e| (e.event_id.as_str(), e.seq, e.record_id.as_deref()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("x3", 3, Some("r3")),
                ("x1", 1, Some("r1")),
                ("x4", 4, Some("r1"))
            ]
        );
        assert_eq!(j.current_seq().unwrap(), 4);
        let all = j
            .events(&EventFilter {
                limit: 0,
                ..EventFilter::new("session", "s1")
            })
            .unwrap();
        assert_eq!(all.len(), 4);
        assert_eq!(j.selected_count("r1", None).unwrap(), 2);
        assert_eq!(j.selected_count("r1", Some(3)).unwrap(), 1);
        assert_eq!(j.selected_count("r9", None).unwrap(), 0);
        // A commit replaying one stored event: the snapshot lands after the new event.
        let snapshot = ActiveMemorySnapshot {
            snapshot_id: "snap-1".into(),
            seq: -1,
            trace_id: "t1".into(),
            used_record_ids: vec!["r1".into(), "r5".into()],
            display: Vec::new(),
            prompt_token_estimate: None,
            observed_at: String::new(),
            provenance: am_triples::JsonMap::new(),
        };
        let (events, snap) = j
            .append_selection(&[sel("r1", "x4"), sel("r5", "x5")], &snapshot)
            .unwrap();
        assert_eq!(events.iter().map(|e| e.seq).collect::<Vec<_>>(), vec![4, 5]);
        assert_eq!(snap.seq, 6);
        assert_eq!(j.current_seq().unwrap(), 6);
        assert_eq!(j.selected_count("r1", None).unwrap(), 2);
        assert_eq!(j.selected_count("r5", Some(5)).unwrap(), 1);
    }
}
