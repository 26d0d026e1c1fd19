//! The count bookkeeping of an append: 0.3.2's `memj_selected_counts` and this
//! port's checkpointed count logs (`memj_selected_log`, `memj_pair_log`),
//! written once per append instead of once per event.
//!
//! A log row `(key, seq, n)` is a checkpoint: "`n` `selected` (or
//! `co_selected`) events of `key` through `seq`". An anchored count is the last
//! checkpoint at or before the anchor plus the events of the key between that
//! checkpoint and the anchor, counted on 0.3.2's own indexes
//! (`idx_memj_events_record_seq` for a record, the partial
//! `idx_memj_events_pair` for a pair). That sum is exact whatever checkpoints
//! exist; the writer keeps it flat by writing a checkpoint whenever
//! [`CHECKPOINT_EVERY`] events of a key (for a record: events of any kind
//! naming it, since all of them sit in the record's index range) have passed
//! since the last one, so an anchored read visits fewer than
//! [`CHECKPOINT_EVERY`] index entries at any journal size. One checkpoint per
//! [`CHECKPOINT_EVERY`] events instead of one row per event is what keeps
//! batched appends from dirtying a random log page per event.
//!
//! The writer needs each key's current count and events-since-checkpoint: a
//! [`CountCache`] per journal handle keeps them while the journal's high-water
//! mark is the one this handle committed, and a key it does not hold is read
//! from the log and the index (fewer than [`CHECKPOINT_EVERY`] entries once the
//! logs are maintained). `memj_selected_counts` gets one upsert row per
//! distinct selected record, in first-selection order (so a new record's rowid
//! is the one a per-event upsert would have given it).
//!
//! Spec: api.md "The journal" (`selected_count`, `pair_selected_count`);
//! oracle `journal_sqlite.py` (`memj_selected_counts`).

use super::rows::{self, check_inserted, storage};
use am_journal::Result;
use rusqlite::{Connection, OptionalExtension};
use std::collections::HashMap;
use std::collections::hash_map::Entry;

/// Events of one key between two checkpoints (see the module docs): an
/// anchored count visits fewer index entries than this.
pub(crate) const CHECKPOINT_EVERY: i64 = 8;

/// Keys a [`CountCache`] holds before it starts over (about 100 bytes each).
const MAX_CACHED_KEYS: usize = 1 << 18;

/// Rows per multi-row log insert (at most 4 columns each).
const ROWS_PER_STATEMENT: usize = 64;

/// One key's count state as of the journal's high-water mark: `n` events
/// counted in total, `since` events of the key after its last checkpoint.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct KeyState {
    n: i64,
    since: i64,
}

/// The count states of the keys one journal handle has written, valid while
/// the journal's high-water mark is `hw` (the mark this handle last
/// committed). Another writer's commit moves the mark, and the next write
/// through this handle starts over; a write that fails or is rolled back
/// leaves the cache marked invalid.
#[derive(Default)]
pub(crate) struct CountCache {
    /// The high-water mark the states describe; `-1` while a write is in
    /// flight or after one failed (the states are then dropped on next use).
    hw: i64,
    records: HashMap<String, KeyState>,
    pairs: HashMap<(String, String), KeyState>,
}

impl std::fmt::Debug for CountCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CountCache")
            .field("hw", &self.hw)
            .field("records", &self.records.len())
            .field("pairs", &self.pairs.len())
            .finish()
    }
}

impl CountCache {
    /// An empty cache (every key is read from the home).
    pub(crate) fn new() -> Self {
        CountCache {
            hw: -1,
            ..CountCache::default()
        }
    }

    /// Start a write at high-water mark `hw`: keep the states only if they
    /// describe `hw`, and mark the cache in flight until [`CountCache::settle`].
    pub(crate) fn begin(&mut self, hw: i64) {
        if self.hw != hw || self.records.len() + self.pairs.len() > MAX_CACHED_KEYS {
            self.clear();
        }
        self.hw = -1;
    }

    /// The write committed at high-water mark `hw`: the states describe it.
    pub(crate) fn settle(&mut self, hw: i64) {
        self.hw = hw;
    }

    /// Drop every state (another writer's events are about to be counted).
    pub(crate) fn clear(&mut self) {
        self.records.clear();
        self.pairs.clear();
    }
}

/// The count steps of one append, flushed by [`CountLog::flush`] before the
/// append's transaction commits.
#[derive(Default)]
pub(crate) struct CountLog {
    /// Distinct records named by an event, first appearance first.
    records: Vec<String>,
    record_index: HashMap<String, usize>,
    /// `(index into records, seq, is a selected event)` per event naming a
    /// record, in seq order.
    record_steps: Vec<(usize, i64, bool)>,
    /// Indexes into `records` of the selected records, first selection first.
    selected_order: Vec<usize>,
    /// Whether `records[i]` is in `selected_order`.
    is_selected: Vec<bool>,
    /// Distinct canonical pairs, first appearance first.
    pairs: Vec<(String, String)>,
    pair_index: HashMap<(String, String), usize>,
    /// `(index into pairs, seq)` per `co_selected` step, in seq order.
    pair_steps: Vec<(usize, i64)>,
    /// Also bump `memj_selected_counts` (appends do; a catch-up of events
    /// another writer counted does not).
    bump_counts: bool,
}

impl CountLog {
    /// The steps of new events: logged and counted in `memj_selected_counts`.
    pub(crate) fn for_append() -> Self {
        CountLog {
            bump_counts: true,
            ..CountLog::default()
        }
    }

    /// The steps of events another writer appended (and counted): logged only.
    pub(crate) fn for_catch_up() -> Self {
        CountLog::default()
    }

    /// One event of any kind naming `record_id`, at `seq` (seqs arrive
    /// ascending); `selected` says whether it is a `selected` event.
    pub(crate) fn record_event(&mut self, record_id: &str, seq: i64, selected: bool) {
        let i = match self.record_index.get(record_id) {
            Some(&i) => i,
            None => {
                self.records.push(record_id.to_owned());
                self.is_selected.push(false);
                self.record_index
                    .insert(record_id.to_owned(), self.records.len() - 1);
                self.records.len() - 1
            }
        };
        if selected && !self.is_selected[i] {
            self.is_selected[i] = true;
            self.selected_order.push(i);
        }
        self.record_steps.push((i, seq, selected));
    }

    /// One `co_selected` event of the pair `(a, b)` (as the event stores it) at `seq`.
    pub(crate) fn pair(&mut self, a: &str, b: &str, seq: i64) {
        let key = (a.to_owned(), b.to_owned());
        let i = match self.pair_index.entry(key) {
            Entry::Occupied(o) => *o.get(),
            Entry::Vacant(v) => {
                self.pairs.push(v.key().clone());
                v.insert(self.pairs.len() - 1);
                self.pairs.len() - 1
            }
        };
        self.pair_steps.push((i, seq));
    }

    /// Write the checkpoints (and the `memj_selected_counts` upserts) of every
    /// step. `upto` is the seq through which the journal's events were counted
    /// before these steps (the states of keys `cache` does not hold are read
    /// as of it); `cache` ends up holding every stepped key's new state.
    ///
    /// # Errors
    /// `Storage` when SQLite fails or a row was not written.
    pub(crate) fn flush(self, conn: &Connection, upto: i64, cache: &mut CountCache) -> Result<()> {
        if !self.records.is_empty() {
            let mut states = Vec::with_capacity(self.records.len());
            for rid in &self.records {
                states.push(match cache.records.get(rid.as_str()) {
                    Some(s) => *s,
                    None => record_state(conn, rid, upto)?,
                });
            }
            let mut bumps = vec![0i64; self.records.len()];
            let mut rows: Vec<(usize, i64, i64)> = Vec::new();
            for &(i, seq, selected) in &self.record_steps {
                let s = &mut states[i];
                s.since += 1;
                if selected {
                    s.n += 1;
                    bumps[i] += 1;
                }
                if s.since >= CHECKPOINT_EVERY {
                    rows.push((i, seq, s.n));
                    s.since = 0;
                }
            }
            insert_rows(
                conn,
                "INSERT OR IGNORE INTO memj_selected_log (record_id, seq, n) VALUES ",
                3,
                &rows,
                "memj_selected_log",
                |stmt, base, &(i, seq, n)| {
                    stmt.raw_bind_parameter(base + 1, &self.records[i])?;
                    stmt.raw_bind_parameter(base + 2, seq)?;
                    stmt.raw_bind_parameter(base + 3, n)
                },
            )?;
            if self.bump_counts && !self.selected_order.is_empty() {
                let rows: Vec<(usize, i64)> =
                    self.selected_order.iter().map(|&i| (i, bumps[i])).collect();
                insert_rows(
                    conn,
                    "INSERT OR IGNORE INTO memj_selected_counts (record_id, n) VALUES ",
                    2,
                    &rows,
                    "memj_selected_counts",
                    |stmt, base, &(i, k)| {
                        stmt.raw_bind_parameter(base + 1, &self.records[i])?;
                        stmt.raw_bind_parameter(base + 2, k)
                    },
                )?;
            }
            for (rid, s) in self.records.into_iter().zip(states) {
                cache.records.insert(rid, s);
            }
        }
        if !self.pairs.is_empty() {
            let mut states = Vec::with_capacity(self.pairs.len());
            for p in &self.pairs {
                states.push(match cache.pairs.get(p) {
                    Some(s) => *s,
                    None => pair_state(conn, &p.0, &p.1, upto)?,
                });
            }
            let mut rows: Vec<(usize, i64, i64)> = Vec::new();
            for &(i, seq) in &self.pair_steps {
                let s = &mut states[i];
                s.since += 1;
                s.n += 1;
                if s.since >= CHECKPOINT_EVERY {
                    rows.push((i, seq, s.n));
                    s.since = 0;
                }
            }
            insert_rows(
                conn,
                "INSERT OR IGNORE INTO memj_pair_log (id_a, id_b, seq, n) VALUES ",
                4,
                &rows,
                "memj_pair_log",
                |stmt, base, &(i, seq, n)| {
                    let (a, b) = &self.pairs[i];
                    stmt.raw_bind_parameter(base + 1, a)?;
                    stmt.raw_bind_parameter(base + 2, b)?;
                    stmt.raw_bind_parameter(base + 3, seq)?;
                    stmt.raw_bind_parameter(base + 4, n)
                },
            )?;
            for (p, s) in self.pairs.into_iter().zip(states) {
                cache.pairs.insert(p, s);
            }
        }
        Ok(())
    }
}

/// The last checkpoint `(seq, n)` of a record at or before `upto` (`(0, 0)`
/// when it has none): one probe of the log's primary key.
fn last_record_checkpoint(conn: &Connection, record_id: &str, upto: i64) -> Result<(i64, i64)> {
    conn.prepare_cached(
        "SELECT seq, n FROM memj_selected_log WHERE record_id = ?1 AND seq <= ?2 \
         ORDER BY seq DESC LIMIT 1",
    )
    .and_then(|mut s| {
        s.query_row(rusqlite::params![record_id, upto], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .optional()
    })
    .map_err(storage)
    .map(Option::unwrap_or_default)
}

/// The last checkpoint `(seq, n)` of a pair at or before `upto` (`(0, 0)` when none).
fn last_pair_checkpoint(conn: &Connection, a: &str, b: &str, upto: i64) -> Result<(i64, i64)> {
    conn.prepare_cached(
        "SELECT seq, n FROM memj_pair_log WHERE id_a = ?1 AND id_b = ?2 AND seq <= ?3 \
         ORDER BY seq DESC LIMIT 1",
    )
    .and_then(|mut s| {
        s.query_row(rusqlite::params![a, b, upto], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .optional()
    })
    .map_err(storage)
    .map(Option::unwrap_or_default)
}

/// The events naming `record_id` with `after < seq <= upto`: `(all kinds,
/// selected)`, walked on `idx_memj_events_record_seq`.
fn record_events_between(
    conn: &Connection,
    record_id: &str,
    after: i64,
    upto: i64,
) -> Result<(i64, i64)> {
    conn.prepare_cached(
        "SELECT COUNT(*), COALESCE(SUM(kind = 'selected'), 0) FROM memj_events \
         WHERE record_id = ?1 AND seq > ?2 AND seq <= ?3",
    )
    .and_then(|mut s| {
        s.query_row(rusqlite::params![record_id, after, upto], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
    })
    .map_err(storage)
}

/// The `co_selected` events of the pair `(a, b)` with `after < seq <= upto`,
/// counted on the partial `idx_memj_events_pair` alone (it holds only
/// `co_selected` rows, keyed by the pair's JSON, then seq).
fn pair_events_between(conn: &Connection, a: &str, b: &str, after: i64, upto: i64) -> Result<i64> {
    let key = rows::pair_json(a, b)?;
    conn.prepare_cached(
        "SELECT COUNT(*) FROM memj_events WHERE kind = 'co_selected' AND pair_ids_json = ?1 \
         AND seq > ?2 AND seq <= ?3",
    )
    .and_then(|mut s| s.query_row(rusqlite::params![key, after, upto], |r| r.get(0)))
    .map_err(storage)
}

/// A record's state as of `upto`: its last checkpoint plus the events after it.
fn record_state(conn: &Connection, record_id: &str, upto: i64) -> Result<KeyState> {
    let (seq0, n0) = last_record_checkpoint(conn, record_id, upto)?;
    let (since, selected) = record_events_between(conn, record_id, seq0, upto)?;
    Ok(KeyState {
        n: n0 + selected,
        since,
    })
}

/// A pair's state as of `upto`: its last checkpoint plus the events after it.
fn pair_state(conn: &Connection, a: &str, b: &str, upto: i64) -> Result<KeyState> {
    let (seq0, n0) = last_pair_checkpoint(conn, a, b, upto)?;
    let since = pair_events_between(conn, a, b, seq0, upto)?;
    Ok(KeyState {
        n: n0 + since,
        since,
    })
}

/// `selected` events of `record_id` with `seq <= upto`: the last checkpoint
/// plus fewer than [`CHECKPOINT_EVERY`] index entries after it (when the logs
/// are maintained; exact either way).
///
/// # Errors
/// `Storage` when SQLite fails.
pub(crate) fn selected_as_of(conn: &Connection, record_id: &str, upto: i64) -> Result<i64> {
    let (seq0, n0) = last_record_checkpoint(conn, record_id, upto)?;
    let n = conn
        .prepare_cached(
            "SELECT COUNT(*) FROM memj_events WHERE record_id = ?1 AND seq > ?2 AND seq <= ?3 \
             AND kind = 'selected'",
        )
        .and_then(|mut s| {
            s.query_row(rusqlite::params![record_id, seq0, upto], |r| {
                r.get::<_, i64>(0)
            })
        })
        .map_err(storage)?;
    Ok(n0 + n)
}

/// `co_selected` events of the canonical pair `(a, b)` with `seq <= upto`:
/// the last checkpoint plus the pair index entries after it.
///
/// # Errors
/// `Storage` when SQLite fails.
pub(crate) fn pair_as_of(conn: &Connection, a: &str, b: &str, upto: i64) -> Result<i64> {
    let (seq0, n0) = last_pair_checkpoint(conn, a, b, upto)?;
    Ok(n0 + pair_events_between(conn, a, b, seq0, upto)?)
}

/// Insert `rows` with multi-row statements of `prefix` (chunks of 64, then
/// powers of two), `cols` parameters per row bound by `bind`. Into
/// `memj_selected_counts` the insert is an upsert adding to an existing count.
/// `OR IGNORE` spares SQLite the statement journal of a multi-row `ABORT`
/// statement; a skipped row is refused here (the transaction rolls back).
fn insert_rows<T>(
    conn: &Connection,
    prefix: &str,
    cols: usize,
    rows: &[T],
    table: &str,
    bind: impl Fn(&mut rusqlite::Statement<'_>, usize, &T) -> rusqlite::Result<()>,
) -> Result<()> {
    let upsert = table == "memj_selected_counts";
    let mut rest = rows;
    while !rest.is_empty() {
        let n = if rest.len() >= ROWS_PER_STATEMENT {
            ROWS_PER_STATEMENT
        } else {
            1 << rest.len().ilog2()
        };
        let (chunk, tail) = rest.split_at(n);
        let row = format!("({})", vec!["?"; cols].join(", "));
        let mut sql = format!("{prefix}{}", vec![row.as_str(); n].join(", "));
        if upsert {
            sql.push_str(" ON CONFLICT(record_id) DO UPDATE SET n = n + excluded.n");
        }
        let mut stmt = conn.prepare_cached(&sql).map_err(storage)?;
        for (k, r) in chunk.iter().enumerate() {
            bind(&mut stmt, cols * k, r).map_err(storage)?;
        }
        let written = stmt.raw_execute().map_err(storage)?;
        check_inserted(table, written, n)?;
        rest = tail;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::SqliteHome;
    use crate::journal::SQLiteJournal;
    use am_journal::{EventKind, MemoryEvent, MemoryJournal};
    use am_triples::ErrorKind;

    fn table(conn: &rusqlite::Connection, sql: &str) -> Vec<(String, i64, i64)> {
        conn.prepare(sql)
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    }

    /// A batch whose records and pairs repeat, appended after an earlier batch.
    fn batches() -> (Vec<MemoryEvent>, Vec<MemoryEvent>) {
        // `r1` and the pair `r0+r5` are counted again by the second batch.
        let first = vec![
            MemoryEvent::on_record(EventKind::Selected, "b", "session", "s1"),
            MemoryEvent::co_selected("a", "b", "session", "s1"),
            MemoryEvent::on_record(EventKind::Selected, "r1", "session", "s1"),
            MemoryEvent::co_selected("r0", "r5", "session", "s1"),
        ];
        let second: Vec<MemoryEvent> = (0..200)
            .map(|i| match i % 4 {
                0 | 1 => MemoryEvent::on_record(
                    EventKind::Selected,
                    &format!("r{}", i % 7),
                    "session",
                    "s1",
                ),
                2 => MemoryEvent::co_selected(
                    &format!("r{}", i % 5),
                    &format!("r{}", 5 + i % 3),
                    "session",
                    "s1",
                ),
                _ => MemoryEvent::on_record(EventKind::Listed, "b", "session", "s1"),
            })
            .collect();
        (first, second)
    }

    #[test]
    fn counts_written_once_per_append_equal_per_event_counts_at_every_anchor() {
        let dir = tempfile::tempdir().unwrap();
        let home = SqliteHome::open(dir.path().join("home.sqlite3")).unwrap();
        let j = SQLiteJournal::open(&home).unwrap();
        let (first, second) = batches();
        let mut all = j.append_events(&first).unwrap();
        all.extend(j.append_events(&second).unwrap());
        let hw = j.current_seq().unwrap();
        let records = ["b", "r0", "r1", "r3", "r6", "r9"];
        let pairs = [
            ("a", "b"),
            ("r0", "r5"),
            ("r6", "r1"),
            ("r2", "r7"),
            ("r4", "r9"),
        ];
        for anchor in 0..=hw {
            for rid in records {
                let expected = all
                    .iter()
                    .filter(|e| {
                        e.seq <= anchor
                            && e.kind == EventKind::Selected
                            && e.record_id.as_deref() == Some(rid)
                    })
                    .count() as u64;
                assert_eq!(
                    j.selected_count(rid, Some(anchor)).unwrap(),
                    expected,
                    "{rid}@{anchor}"
                );
            }
            for (a, b) in pairs {
                let key = if a <= b { (a, b) } else { (b, a) };
                let expected = all
                    .iter()
                    .filter(|e| {
                        e.seq <= anchor
                            && e.pair_ids.as_ref().map(|(x, y)| (x.as_str(), y.as_str()))
                                == Some(key)
                    })
                    .count() as u64;
                assert_eq!(
                    j.pair_selected_count((a, b), Some(anchor)).unwrap(),
                    expected,
                    "{a}+{b}@{anchor}"
                );
            }
        }
        // 0.3.2's counts table: one row per record, in first-selection order.
        let conn = home.conn();
        let conn = conn.lock().unwrap();
        let counts = table(
            &conn,
            "SELECT record_id, n, rowid FROM memj_selected_counts ORDER BY rowid",
        );
        let mut order: Vec<&str> = Vec::new();
        for e in all.iter().filter(|e| e.kind == EventKind::Selected) {
            let rid = e.record_id.as_deref().unwrap();
            if !order.contains(&rid) {
                order.push(rid);
            }
        }
        let got: Vec<(&str, i64)> = counts.iter().map(|(r, n, _)| (r.as_str(), *n)).collect();
        let want: Vec<(&str, i64)> = order
            .iter()
            .map(|rid| {
                let n = all
                    .iter()
                    .filter(|e| {
                        e.kind == EventKind::Selected && e.record_id.as_deref() == Some(*rid)
                    })
                    .count() as i64;
                (*rid, n)
            })
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_seq_collision_is_a_storage_error_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let home = SqliteHome::open(dir.path().join("home.sqlite3")).unwrap();
        let j = SQLiteJournal::open(&home).unwrap();
        let (first, second) = batches();
        j.append_events(&first).unwrap();
        let snapshot = |conn: &rusqlite::Connection| {
            (
                table(
                    conn,
                    "SELECT event_id, seq, 0 FROM memj_events ORDER BY seq",
                ),
                table(
                    conn,
                    "SELECT record_id, seq, n FROM memj_selected_log ORDER BY 1, 2",
                ),
                table(
                    conn,
                    "SELECT id_a || '+' || id_b, seq, n FROM memj_pair_log ORDER BY 1, 2",
                ),
                table(
                    conn,
                    "SELECT record_id, n, rowid FROM memj_selected_counts ORDER BY rowid",
                ),
            )
        };
        let before = {
            let conn = home.conn();
            let conn = conn.lock().unwrap();
            // Damage the axis: the next seq now collides with a stored event.
            conn.execute("UPDATE memj_seq SET value = value - 1", [])
                .unwrap();
            conn.execute("UPDATE memj_count_logs SET high_water = high_water - 1", [])
                .unwrap();
            (snapshot(&conn), j.current_seq_in(&conn).unwrap())
        };
        let err = j.append_events(&second).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Storage, "{err}");
        assert!(err.to_string().contains("memj_events"), "{err}");
        let conn = home.conn();
        let conn = conn.lock().unwrap();
        assert_eq!((snapshot(&conn), j.current_seq_in(&conn).unwrap()), before);
    }

    /// A deterministic mix over few keys (so checkpoints are frequent):
    /// selected, listed and co_selected events.
    fn mix(start: u64, n: u64) -> Vec<MemoryEvent> {
        (start..start + n)
            .map(|k| {
                let x = k.wrapping_mul(6_364_136_223_846_793_005) >> 33;
                let a = format!("r{}", x % 5);
                let b = format!("r{}", (x / 5) % 5);
                match x % 7 {
                    0..=2 => MemoryEvent::on_record(EventKind::Selected, &a, "session", "s1"),
                    3 | 4 if a != b => MemoryEvent::co_selected(&a, &b, "session", "s1"),
                    _ => MemoryEvent::on_record(EventKind::Listed, &a, "session", "s1"),
                }
            })
            .collect()
    }

    /// Rows written the way a writer without count logs (0.3.2) writes them.
    fn python_style(conn: &rusqlite::Connection, events: &[MemoryEvent]) {
        let mut seq: i64 = conn
            .query_row("SELECT value FROM memj_seq", [], |r| r.get(0))
            .unwrap();
        for e in events {
            seq += 1;
            let pair = e.pair_ids.as_ref().map(|(a, b)| {
                let (a, b) = if a <= b { (a, b) } else { (b, a) };
                format!(r#"["{a}","{b}"]"#)
            });
            conn.execute(
                "INSERT INTO memj_events (seq, event_id, kind, scope, owner_id, record_id, \
                 pair_ids_json, weight, observed_at, actor, provenance_json) VALUES (?1, ?2, ?3, \
                 'session', 's1', ?4, ?5, 8.0, '2026-01-01T00:00:00.000000+00:00', 'runtime', '{}')",
                rusqlite::params![seq, format!("py-{seq}"), e.kind.as_str(), e.record_id, pair],
            )
            .unwrap();
            if e.kind == EventKind::Selected {
                conn.execute(
                    "INSERT INTO memj_selected_counts (record_id, n) VALUES (?1, 1) \
                     ON CONFLICT(record_id) DO UPDATE SET n = n + 1",
                    [&e.record_id],
                )
                .unwrap();
            }
        }
        conn.execute("UPDATE memj_seq SET value = ?1", [seq])
            .unwrap();
    }

    fn brute_selected(conn: &rusqlite::Connection, rid: &str, upto: i64) -> u64 {
        conn.query_row(
            "SELECT COUNT(*) FROM memj_events NOT INDEXED WHERE kind = 'selected' \
             AND record_id = ?1 AND seq <= ?2",
            rusqlite::params![rid, upto],
            |r| r.get(0),
        )
        .unwrap()
    }

    fn brute_pair(conn: &rusqlite::Connection, a: &str, b: &str, upto: i64) -> u64 {
        conn.query_row(
            "SELECT COUNT(*) FROM memj_events NOT INDEXED WHERE kind = 'co_selected' \
             AND pair_ids_json = ?1 AND seq <= ?2",
            rusqlite::params![format!(r#"["{a}","{b}"]"#), upto],
            |r| r.get(0),
        )
        .unwrap()
    }

    #[test]
    fn checkpointed_counts_equal_event_counts_at_every_anchor_across_handles_and_writers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("home.sqlite3");
        let home = SqliteHome::open(&path).unwrap();
        let j = SQLiteJournal::open(&home).unwrap();
        // A second handle on its own connection: its commits move the mark
        // under the first handle's cache.
        let other_home = SqliteHome::open(&path).unwrap();
        let other = SQLiteJournal::open(&other_home).unwrap();
        let mut k = 0u64;
        let mut next = |n: u64| {
            let batch = mix(k, n);
            k += n;
            batch
        };
        j.append_events(&next(40)).unwrap();
        j.append_events(&next(3)).unwrap(); // the cached states
        other.append_events(&next(25)).unwrap(); // a write the cache never saw
        j.append_events(&next(17)).unwrap();
        {
            let raw = rusqlite::Connection::open(&path).unwrap();
            python_style(&raw, &next(30)); // no count logs kept
        }
        j.append_events(&next(9)).unwrap(); // catches the logs up first
        {
            // Appended inside a caller's transaction that rolls back: the
            // handle's cache must not count them.
            let conn = home.conn();
            let mut conn = conn.lock().unwrap();
            let tx = conn.transaction().unwrap();
            j.append_events_in(&tx, &next(12)).unwrap();
            tx.rollback().unwrap();
        }
        j.append_events(&next(21)).unwrap();
        j.append_binding(&am_journal::ScopeBinding::new(
            "r1",
            "session",
            "s1",
            am_journal::SearchState::Indexed,
        ))
        .unwrap();
        j.append_events(&next(30)).unwrap();
        {
            let conn = home.conn();
            let conn = conn.lock().unwrap();
            let tx = conn.unchecked_transaction().unwrap();
            j.append_events_in(&tx, &next(6)).unwrap();
            tx.commit().unwrap();
        }
        j.append_events(&next(11)).unwrap();

        let hw = j.current_seq().unwrap();
        let raw = rusqlite::Connection::open(&path).unwrap();
        let records: Vec<String> = (0..5).map(|i| format!("r{i}")).collect();
        for anchor in 0..=hw {
            for rid in &records {
                assert_eq!(
                    j.selected_count(rid, Some(anchor)).unwrap(),
                    brute_selected(&raw, rid, anchor),
                    "{rid}@{anchor}"
                );
            }
            for a in &records {
                for b in &records {
                    if a < b {
                        assert_eq!(
                            j.pair_selected_count((b, a), Some(anchor)).unwrap(),
                            brute_pair(&raw, a, b, anchor),
                            "{a}+{b}@{anchor}"
                        );
                    }
                }
            }
        }
        for rid in &records {
            assert_eq!(
                j.selected_count(rid, None).unwrap(),
                brute_selected(&raw, rid, hw)
            );
        }
    }

    #[test]
    fn an_anchored_count_visits_fewer_than_checkpoint_every_events_at_any_journal_size() {
        let dir = tempfile::tempdir().unwrap();
        let home = SqliteHome::open(dir.path().join("home.sqlite3")).unwrap();
        let j = SQLiteJournal::open(&home).unwrap();
        for i in 0..20 {
            j.append_events(&mix(i * 97, 97)).unwrap();
        }
        let conn = home.conn();
        let conn = conn.lock().unwrap();
        let hw: i64 = conn
            .query_row("SELECT value FROM memj_seq", [], |r| r.get(0))
            .unwrap();
        // Between two checkpoints of a key (and after its last one) fewer than
        // CHECKPOINT_EVERY events sit in the key's index range.
        for rid in (0..5).map(|i| format!("r{i}")) {
            let mut marks: Vec<i64> = conn
                .prepare("SELECT seq FROM memj_selected_log WHERE record_id = ?1 ORDER BY seq")
                .unwrap()
                .query_map([&rid], |r| r.get(0))
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap();
            assert!(marks.len() > 5, "{rid}: {marks:?}");
            marks.insert(0, 0);
            marks.push(hw + 1);
            for w in marks.windows(2) {
                let between: i64 = conn
                    .query_row(
                        "SELECT COUNT(*) FROM memj_events WHERE record_id = ?1 AND seq > ?2 AND seq < ?3",
                        rusqlite::params![rid, w[0], w[1]],
                        |r| r.get(0),
                    )
                    .unwrap();
                assert!(between < super::CHECKPOINT_EVERY, "{rid} {w:?}: {between}");
            }
        }
        // Each range is walked on an index (the pair's alone, covering).
        let plan = |sql: &str| -> String {
            conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
                .unwrap()
                .query_map(rusqlite::params!["r1", 3, 9], |r| r.get::<_, String>(3))
                .unwrap()
                .map(Result::unwrap)
                .collect::<Vec<_>>()
                .join(" | ")
        };
        let record = plan(
            "SELECT COUNT(*) FROM memj_events WHERE record_id = ?1 AND seq > ?2 AND seq <= ?3 \
             AND kind = 'selected'",
        );
        assert!(
            record.contains("idx_memj_events_record_seq (record_id=? AND seq>? AND seq<?)"),
            "{record}"
        );
        let pair = plan(
            "SELECT COUNT(*) FROM memj_events WHERE kind = 'co_selected' AND pair_ids_json = ?1 \
             AND seq > ?2 AND seq <= ?3",
        );
        assert!(
            pair.contains(
                "COVERING INDEX idx_memj_events_pair (pair_ids_json=? AND rowid>? AND rowid<?)"
            ),
            "{pair}"
        );
    }
}
