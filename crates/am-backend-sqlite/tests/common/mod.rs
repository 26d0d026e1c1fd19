//! Shared helpers of the SQLite store tests: real embedders (deterministic, no
//! network), temporary homes, and raw file inspection.

#![allow(dead_code, reason = "each test binary uses a different subset")]

use am_backend_sqlite::{SQLiteTripleStore, SqliteStoreOptions};
use am_triples::{Result, TextEmbedder};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The Python fixture's `TinyEmbedder`: a 16-d hashed bag of words (sha256 of
/// each whitespace token of the lowercased text; bucket `h[0] % 16`, sign from
/// `h[1] & 1`), L2-normalized, reporting `tiny-hash-bow-16`.
#[derive(Debug, Clone)]
pub(crate) struct TinyEmbedder {
    pub model: Option<String>,
    pub dim: usize,
}

impl Default for TinyEmbedder {
    fn default() -> Self {
        TinyEmbedder {
            model: Some("tiny-hash-bow-16".into()),
            dim: 16,
        }
    }
}

impl TinyEmbedder {
    /// The vector of one text, computed in f64 as Python does, then narrowed.
    pub(crate) fn embed_f64(&self, text: &str) -> Vec<f64> {
        let mut v = vec![0.0f64; self.dim];
        for tok in text.to_lowercase().split_whitespace() {
            let h = Sha256::digest(tok.as_bytes());
            v[usize::from(h[0]) % self.dim] += if h[1] & 1 == 1 { 1.0 } else { -1.0 };
        }
        let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        let n = if n == 0.0 { 1.0 } else { n };
        v.iter().map(|x| x / n).collect()
    }
}

impl TextEmbedder for TinyEmbedder {
    fn embed_texts(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        Ok(texts
            .iter()
            .map(|t| self.embed_f64(t).into_iter().map(|x| x as f32).collect())
            .collect())
    }
    fn model_id(&self) -> Option<String> {
        self.model.clone()
    }
    fn dimension(&self) -> Option<usize> {
        self.model.as_ref().map(|_| self.dim)
    }
}

/// An embedder that fails (as an unreachable endpoint does) while `failing` is set.
#[derive(Debug, Default)]
pub(crate) struct FlakyEmbedder {
    pub failing: AtomicBool,
}

impl TextEmbedder for FlakyEmbedder {
    fn embed_texts(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        if self.failing.load(Ordering::Relaxed) {
            return Err(am_triples::Error::embedder(
                "HTTP 400: model 'tiny-hash-bow-16' not found",
            ));
        }
        TinyEmbedder::default().embed_texts(texts)
    }
    fn model_id(&self) -> Option<String> {
        Some("tiny-hash-bow-16".into())
    }
}

/// An embedder returning a fixed vector for every text.
#[derive(Debug, Clone)]
pub(crate) struct ConstEmbedder(pub Vec<f32>);

impl TextEmbedder for ConstEmbedder {
    fn embed_texts(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        Ok(texts.iter().map(|_| self.0.clone()).collect())
    }
}

pub(crate) fn tiny() -> Arc<dyn TextEmbedder> {
    Arc::new(TinyEmbedder::default())
}

pub(crate) fn home_path(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("home.sqlite3")
}

pub(crate) fn open(path: &Path, embedder: Option<Arc<dyn TextEmbedder>>) -> SQLiteTripleStore {
    SQLiteTripleStore::open(path, embedder, SqliteStoreOptions::default()).expect("open store")
}

/// Every byte of the main file (a WAL home checkpointed on its last close).
pub(crate) fn bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).expect("read home")
}

/// Checkpoint the WAL into the main file so byte comparisons see everything.
pub(crate) fn checkpoint(path: &Path) {
    let c = rusqlite::Connection::open(path).expect("open");
    c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .expect("checkpoint");
}

/// One raw SQL value read off the file with a separate connection.
pub(crate) fn raw_i64(path: &Path, sql: &str) -> i64 {
    let c = rusqlite::Connection::open(path).expect("open");
    c.query_row(sql, [], |r| r.get(0)).expect("query")
}

pub(crate) fn raw_opt_text(path: &Path, sql: &str) -> Option<String> {
    let c = rusqlite::Connection::open(path).expect("open");
    c.query_row(sql, [], |r| r.get(0)).ok()
}

/// Every table of the file (SQLite's own excepted), each row's every column
/// (rowid first), in rowid order.
pub(crate) fn dump_tables(path: &Path) -> Vec<(String, Vec<Vec<rusqlite::types::Value>>)> {
    let c = rusqlite::Connection::open(path).unwrap();
    let mut names: Vec<(String, String)> = c
        .prepare(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
             ORDER BY name",
        )
        .unwrap()
        .query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get::<_, Option<String>>(1)?.unwrap_or_default(),
            ))
        })
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    names.retain(|(_, sql)| !sql.contains("VIRTUAL TABLE"));
    names
        .into_iter()
        .map(|(name, sql)| {
            let without_rowid = sql.contains("WITHOUT ROWID");
            let q = if without_rowid {
                let n: i64 = c
                    .query_row(
                        &format!("SELECT COUNT(*) FROM pragma_table_info('{name}')"),
                        [],
                        |r| r.get(0),
                    )
                    .unwrap();
                let order: Vec<String> = (1..=n).map(|i| i.to_string()).collect();
                format!("SELECT * FROM {name} ORDER BY {}", order.join(", "))
            } else {
                format!("SELECT rowid, * FROM {name} ORDER BY rowid")
            };
            let mut stmt = c.prepare(&q).unwrap();
            let n = stmt.column_count();
            let rows = stmt
                .query_map([], |r| {
                    (0..n)
                        .map(|i| r.get::<_, rusqlite::types::Value>(i))
                        .collect::<rusqlite::Result<Vec<_>>>()
                })
                .unwrap()
                .collect::<rusqlite::Result<Vec<_>>>()
                .unwrap();
            (name, rows)
        })
        .collect()
}
