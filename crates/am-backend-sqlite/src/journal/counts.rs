//! The count bookkeeping of an append: 0.3.2's `memj_selected_counts` and this
//! port's cumulative count logs (`memj_selected_log`, `memj_pair_log`), written
//! once per append instead of once per event.
//!
//! A log row `(key, seq, n)` says "`n` `selected` (or `co_selected`) events of
//! `key` through `seq`", so `selected_count(key, until_seq)` is the `n` of the
//! last row with `seq <= until_seq`: one probe of the log's primary key. An
//! append collects its `(key, seq)` steps in seq order, reads each distinct
//! key's last `n` in one statement, and inserts the rows in multi-row
//! statements; `memj_selected_counts` gets one upsert row per distinct record,
//! in first-appearance order (so a new record's rowid is the one a per-event
//! upsert would have given it).
//!
//! Spec: api.md "The journal" (`selected_count`, `pair_selected_count`);
//! oracle `journal_sqlite.py` (`memj_selected_counts`).

use super::rows::{check_inserted, storage};
use am_journal::Result;
use rusqlite::Connection;
use std::collections::HashMap;
use std::collections::hash_map::Entry;

/// Rows per multi-row log insert (at most 4 columns each).
const ROWS_PER_STATEMENT: usize = 64;

/// The count steps of one append, flushed by [`CountLog::flush`] before the
/// append's transaction commits.
#[derive(Default)]
pub(crate) struct CountLog {
    /// Distinct selected records, first appearance first.
    records: Vec<String>,
    record_index: HashMap<String, usize>,
    /// `(index into records, seq)` per `selected` step, in seq order.
    record_steps: Vec<(usize, i64)>,
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

    /// One `selected` event of `record_id` at `seq` (seqs arrive ascending).
    pub(crate) fn selected(&mut self, record_id: &str, seq: i64) {
        let i = match self.record_index.get(record_id) {
            Some(&i) => i,
            None => {
                self.records.push(record_id.to_owned());
                self.record_index
                    .insert(record_id.to_owned(), self.records.len() - 1);
                self.records.len() - 1
            }
        };
        self.record_steps.push((i, seq));
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

    /// Write the log rows (and the `memj_selected_counts` upserts) of every step.
    ///
    /// # Errors
    /// `Storage` when SQLite fails or a row was not written.
    pub(crate) fn flush(self, conn: &Connection) -> Result<()> {
        if !self.records.is_empty() {
            let mut n = last_selected_counts(conn, &self.records)?;
            let rows: Vec<(usize, i64, i64)> = self
                .record_steps
                .iter()
                .map(|&(i, seq)| {
                    n[i] += 1;
                    (i, seq, n[i])
                })
                .collect();
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
            if self.bump_counts {
                let mut bumps = vec![0i64; self.records.len()];
                for &(i, _) in &self.record_steps {
                    bumps[i] += 1;
                }
                let rows: Vec<(usize, i64)> = bumps.into_iter().enumerate().collect();
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
        }
        if !self.pairs.is_empty() {
            let mut n = last_pair_counts(conn, &self.pairs)?;
            let rows: Vec<(usize, i64, i64)> = self
                .pair_steps
                .iter()
                .map(|&(i, seq)| {
                    n[i] += 1;
                    (i, seq, n[i])
                })
                .collect();
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
        }
        Ok(())
    }
}

/// Each record's last logged count (0 when it has none), in `records` order:
/// one statement probing the log's primary key once per record.
fn last_selected_counts(conn: &Connection, records: &[String]) -> Result<Vec<i64>> {
    let keys = serde_json::to_string(records)
        .map_err(|e| am_journal::Error::Storage(format!("cannot encode count-log keys: {e}")))?;
    last_counts(
        conn,
        "SELECT j.key, (SELECT n FROM memj_selected_log WHERE record_id = j.value \
         ORDER BY seq DESC LIMIT 1) FROM json_each(?1) AS j",
        &keys,
        records.len(),
    )
}

/// Each pair's last logged count (0 when it has none), in `pairs` order.
fn last_pair_counts(conn: &Connection, pairs: &[(String, String)]) -> Result<Vec<i64>> {
    let keys = serde_json::to_string(pairs)
        .map_err(|e| am_journal::Error::Storage(format!("cannot encode count-log keys: {e}")))?;
    last_counts(
        conn,
        "SELECT j.key, (SELECT n FROM memj_pair_log WHERE id_a = j.value ->> 0 \
         AND id_b = j.value ->> 1 ORDER BY seq DESC LIMIT 1) FROM json_each(?1) AS j",
        &keys,
        pairs.len(),
    )
}

fn last_counts(conn: &Connection, sql: &str, keys: &str, len: usize) -> Result<Vec<i64>> {
    let mut out = vec![0i64; len];
    let mut stmt = conn.prepare_cached(sql).map_err(storage)?;
    let mut rows = stmt.query([keys]).map_err(storage)?;
    while let Some(row) = rows.next().map_err(storage)? {
        let i: usize = row.get(0).map_err(storage)?;
        let n: Option<i64> = row.get(1).map_err(storage)?;
        if let Some(slot) = out.get_mut(i) {
            *slot = n.unwrap_or(0);
        }
    }
    Ok(out)
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
    use am_journal::{MemoryEvent, MemoryJournal};
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
            MemoryEvent::on_record("selected", "b", "session", "s1"),
            MemoryEvent::co_selected("a", "b", "session", "s1"),
            MemoryEvent::on_record("selected", "r1", "session", "s1"),
            MemoryEvent::co_selected("r0", "r5", "session", "s1"),
        ];
        let second: Vec<MemoryEvent> = (0..200)
            .map(|i| match i % 4 {
                0 | 1 => {
                    MemoryEvent::on_record("selected", &format!("r{}", i % 7), "session", "s1")
                }
                2 => MemoryEvent::co_selected(
                    &format!("r{}", i % 5),
                    &format!("r{}", 5 + i % 3),
                    "session",
                    "s1",
                ),
                _ => MemoryEvent::on_record("listed", "b", "session", "s1"),
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
                            && e.kind == "selected"
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
        for e in all.iter().filter(|e| e.kind == "selected") {
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
                    .filter(|e| e.kind == "selected" && e.record_id.as_deref() == Some(*rid))
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
}
