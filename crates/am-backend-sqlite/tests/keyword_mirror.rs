//! The in-process keyword mirror answers `keyword_positions` exactly as the
//! FTS5 query does: the same rowids in the same order (BM25 best first, ties
//! newest first) for every query, range, limit, scope and owner, on text the
//! mirror tokenizes itself (ASCII) and text SQLite tokenizes for it; it
//! follows rows written by this handle and by others; and where it cannot be
//! exact (a query token `unicode61` would not read as one ASCII term, an index
//! whose totals differ from the mirror's, an index with its own tokenizer) the
//! FTS5 query answers instead.
//!
//! The oracle is SQLite itself: the discovery SQL run on a second connection.

mod common;

use am_backend_sqlite::SQLiteTripleStore;
use am_triples::{ReadAccelerator, TripleAssertion, TripleStore};
use common::{home_path, open};
use rusqlite::{Connection, params_from_iter};
use serde_json::json;
use std::path::Path;

/// A small deterministic generator (64-bit LCG, high bits).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % n
    }
}

/// Words of the generated texts: ASCII in both cases, digits, and characters
/// only SQLite's `unicode61` knows how to read (accents it folds, a combining
/// mark, CJK, an emoji with a joiner, curly quotes, dashes, a ligature).
const WORDS: &[&str] = &[
    "zebra",
    "Zebra",
    "ZEBRA",
    "lion",
    "eats",
    "the",
    "the",
    "the",
    "a",
    "savanna",
    "grass",
    "café",
    "Café",
    "naïve",
    "e\u{301}clair",
    "日本語",
    "star🌟",
    "🧘\u{200d}♀\u{fe0f}",
    "don’t",
    "x–y",
    "mixed123",
    "42",
    "ß",
    "İstanbul",
    "ﬁle",
    "caf",
    "naive",
    "eclair",
];

/// Separators between words.
const SEPARATORS: &[&str] = &[" ", " ", ", ", " — ", "\n", "-", "’", "\u{200d}"];

/// Query tokens the mirror answers (runs of ASCII letters and digits, any case).
const ASCII_TOKENS: &[&str] = &[
    "zebra", "ZEBRA", "lion", "the", "cafe", "caf", "naive", "eclair", "star", "don", "mixed123",
    "42", "absent", "eats", "savanna", "grass", "file", "istanbul", "\"lion\"", " grass ",
];

/// Query tokens only the FTS5 query answers.
const OTHER_TOKENS: &[&str] = &["café", "日本語", "x-y", "don’t"];

fn text(rng: &mut Lcg) -> String {
    let n = rng.next(12);
    let mut out = String::new();
    for i in 0..n {
        if i > 0 {
            out.push_str(SEPARATORS[rng.next(SEPARATORS.len())]);
        }
        out.push_str(WORDS[rng.next(WORDS.len())]);
    }
    out
}

/// `n` rows over two scopes and three owners (one none), with repeated texts
/// (equal scores, so ties), record edges and bookkeeping rows (not indexed).
fn rows(rng: &mut Lcg, n: usize, tag: &str) -> Vec<TripleAssertion> {
    let mut out = Vec::new();
    let mut last = String::new();
    for i in 0..n {
        let object = if i % 7 == 3 { last.clone() } else { text(rng) };
        last.clone_from(&object);
        let mut a = TripleAssertion::new(WORDS[rng.next(WORDS.len())], "said", &object)
            .with_scope(if rng.next(3) == 0 { "run" } else { "session" })
            .with_observed_at(&format!("2026-01-01T00:{:02}:{:02}Z", i / 60 % 60, i % 60))
            .with_id(&format!("{tag}-{i}"));
        match rng.next(3) {
            0 => {}
            1 => a = a.with_owner("s1"),
            _ => a = a.with_owner("s2"),
        }
        if i % 11 == 5 {
            let mut attrs = serde_json::Map::new();
            attrs.insert("record_edge".into(), json!(true));
            a = a.with_attributes(attrs);
        } else if i % 13 == 6 {
            let mut attrs = serde_json::Map::new();
            attrs.insert("bookkeeping".into(), json!("x"));
            a = a.with_attributes(attrs);
        }
        out.push(a);
    }
    out
}

/// SQLite's answer: the discovery SQL of the store, run on its own connection.
fn fts5(
    path: &Path,
    tokens: &[String],
    scope: &str,
    owner: Option<&str>,
    limit: usize,
    range: (i64, i64),
) -> Vec<i64> {
    fts5_scored(path, tokens, scope, owner, limit, range)
        .into_iter()
        .map(|(r, _)| r)
        .collect()
}

/// [`fts5`] with each row's `-bm25()`.
fn fts5_scored(
    path: &Path,
    tokens: &[String],
    scope: &str,
    owner: Option<&str>,
    limit: usize,
    range: (i64, i64),
) -> Vec<(i64, f64)> {
    let terms: Vec<String> = tokens
        .iter()
        .map(|t| t.trim().replace('"', ""))
        .filter(|t| !t.is_empty())
        .map(|t| format!("\"{t}\""))
        .collect();
    if terms.is_empty() || limit == 0 || range.0 > range.1 {
        return Vec::new();
    }
    let conn = Connection::open(path).unwrap();
    let mut params: Vec<rusqlite::types::Value> = vec![
        terms.join(" OR ").into(),
        range.0.into(),
        range.1.into(),
        scope.to_owned().into(),
    ];
    let owner_clause = match owner {
        Some(o) => {
            params.push(o.to_owned().into());
            "AND t.owner_id = ?"
        }
        None => "",
    };
    let mut stmt = conn
        .prepare(&format!(
            "SELECT t.rowid, -bm25(triples_fts) FROM triples_fts f CROSS JOIN triples t ON t.rowid = f.rowid \
             WHERE triples_fts MATCH ? AND f.rowid >= ? AND f.rowid <= ? AND t.scope = ? \
             {owner_clause} ORDER BY bm25(triples_fts), t.rowid DESC LIMIT {limit}"
        ))
        .unwrap();
    stmt.query_map(params_from_iter(params.iter()), |r| {
        Ok((r.get(0)?, r.get(1)?))
    })
    .unwrap()
    .collect::<rusqlite::Result<Vec<(i64, f64)>>>()
    .unwrap()
}

fn max_rowid(path: &Path) -> i64 {
    Connection::open(path)
        .unwrap()
        .query_row("SELECT MAX(rowid) FROM triples", [], |r| r.get(0))
        .unwrap()
}

/// Run `count` random queries against both and compare (with `mixed`, half
/// of them hold a token only the FTS5 query answers); returns how many matched
/// at least one row (so a test can check it compared real answers).
fn compare(
    store: &SQLiteTripleStore,
    path: &Path,
    rng: &mut Lcg,
    count: usize,
    mixed: bool,
) -> usize {
    let top = max_rowid(path);
    let mut nonempty = 0;
    for _ in 0..count {
        let mut tokens: Vec<String> = (0..1 + rng.next(5))
            .map(|_| ASCII_TOKENS[rng.next(ASCII_TOKENS.len())].to_owned())
            .collect();
        let other = mixed && rng.next(2) == 0;
        if other {
            tokens.push(OTHER_TOKENS[rng.next(OTHER_TOKENS.len())].to_owned());
        }
        let scope = ["session", "run", "nowhere"][rng.next(3)];
        let owner = [None, Some("s1"), Some("s2"), Some("nobody")][rng.next(4)];
        let limit = [1, 3, 10, 64, 1000][rng.next(5)];
        let range = match rng.next(3) {
            0 => (1, top),
            1 => {
                let lo = 1 + rng.next(top as usize) as i64;
                (lo, lo + rng.next(top as usize) as i64)
            }
            _ => (0, i64::MAX),
        };
        let ours = store
            .keyword_positions(&tokens, scope, owner, limit, range)
            .unwrap()
            .unwrap();
        let theirs = fts5(path, &tokens, scope, owner, limit, range);
        assert_eq!(
            ours, theirs,
            "tokens {tokens:?} scope {scope} owner {owner:?} limit {limit} range {range:?}"
        );
        let expected_engine = if other { "fts5-sql" } else { "fts5-mirror" };
        assert_eq!(store.keyword_engine(), expected_engine, "tokens {tokens:?}");
        // The scored read: the same rows, each with FTS5's own -bm25() double.
        let scored = store
            .keyword_scores(&tokens, scope, owner, limit, range)
            .unwrap()
            .unwrap();
        let theirs_scored = fts5_scored(path, &tokens, scope, owner, limit, range);
        assert_eq!(scored.len(), theirs_scored.len(), "tokens {tokens:?}");
        for ((r1, s1), (r2, s2)) in scored.iter().zip(&theirs_scored) {
            assert_eq!(r1, r2, "tokens {tokens:?}");
            assert_eq!(s1.to_bits(), s2.to_bits(), "tokens {tokens:?} row {r1}");
        }
        nonempty += usize::from(!theirs.is_empty());
    }
    nonempty
}

/// One whole-scope query of `session` (limit 64): the store's answer, checked
/// equal to SQLite's and served by `engine`.
fn answer(store: &SQLiteTripleStore, path: &Path, tokens: &[&str], engine: &str) -> Vec<i64> {
    let tokens: Vec<String> = tokens.iter().map(|t| (*t).to_owned()).collect();
    let ours = store
        .keyword_positions(&tokens, "session", None, 64, (0, i64::MAX))
        .unwrap()
        .unwrap();
    assert_eq!(store.keyword_engine(), engine, "{tokens:?}");
    assert_eq!(
        ours,
        fts5(path, &tokens, "session", None, 64, (0, i64::MAX)),
        "{tokens:?}"
    );
    ours
}

#[test]
fn the_mirror_answers_every_query_as_the_fts5_query_does() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    let store = open(&path, None);
    let mut rng = Lcg(7);
    for batch in 0..4 {
        store
            .add(&rows(&mut rng, 150, &format!("b{batch}")))
            .unwrap();
    }
    assert_eq!(
        store.keyword_engine(),
        "fts5-sql",
        "nothing served before the first query"
    );
    let nonempty = compare(&store, &path, &mut rng, 600, false);
    assert!(nonempty > 300, "only {nonempty} queries found rows");
    assert!(store.keyword_cache_bytes() > 0);
}

#[test]
fn a_query_token_unicode61_reads_differently_is_answered_by_the_fts5_query() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    let store = open(&path, None);
    let mut rng = Lcg(11);
    store.add(&rows(&mut rng, 300, "r")).unwrap();
    let nonempty = compare(&store, &path, &mut rng, 300, true);
    assert!(nonempty > 100, "only {nonempty} queries found rows");
}

#[test]
fn rows_written_after_the_mirror_was_built_are_found_by_this_handle_and_another() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    let store = open(&path, None);
    let mut rng = Lcg(3);
    store.add(&rows(&mut rng, 100, "first")).unwrap();
    compare(&store, &path, &mut rng, 50, false);
    // This handle writes.
    store
        .add(&[TripleAssertion::new("okapi", "said", "okapi okapi")
            .with_scope("session")
            .with_id("mine")])
        .unwrap();
    // Another handle writes.
    let other = open(&path, None);
    other
        .add(&[TripleAssertion::new("okapi", "said", "an okapi café")
            .with_scope("session")
            .with_id("theirs")])
        .unwrap();
    other.add(&rows(&mut rng, 100, "second")).unwrap();
    assert_eq!(answer(&store, &path, &["okapi"], "fts5-mirror").len(), 2);
    compare(&store, &path, &mut rng, 200, false);
}

#[test]
fn an_index_whose_totals_differ_from_the_mirror_is_answered_by_the_fts5_query() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    let store = open(&path, None);
    let mut rng = Lcg(5);
    store.add(&rows(&mut rng, 200, "r")).unwrap();
    compare(&store, &path, &mut rng, 20, false);
    // A writer that indexes by another rule: a keyword row without its
    // content row, which no cursor announces.
    Connection::open(&path)
        .unwrap()
        .execute(
            "INSERT INTO triples_fts (rowid, text) VALUES (1000000, 'zebra lion zebra')",
            [],
        )
        .unwrap();
    assert!(!answer(&store, &path, &["zebra", "lion"], "fts5-sql").is_empty());
}

/// Rows of `session` whose texts are `texts`, with no attributes.
fn plain(store: &SQLiteTripleStore, texts: &[&str]) {
    let rows: Vec<TripleAssertion> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            TripleAssertion::new("s", "said", t)
                .with_scope("session")
                .with_id(&format!("p{i}"))
        })
        .collect();
    store.add(&rows).unwrap();
}

#[test]
fn a_term_in_more_than_half_the_rows_scores_with_the_floor_idf_as_fts5_does() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    let store = open(&path, None);
    plain(
        &store,
        &[
            "common alpha",
            "common beta beta beta",
            "common common gamma",
            "common",
            "alpha beta",
            "common alpha alpha alpha alpha alpha alpha",
        ],
    );
    for tokens in [
        &["common"][..],
        &["common", "alpha"],
        &["alpha", "common"],
        &["beta", "common", "gamma"],
    ] {
        answer(&store, &path, tokens, "fts5-mirror");
    }
}

#[test]
fn an_index_with_its_own_tokenizer_is_not_mirrored() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    // No record edges or bookkeeping rows: the rebuilt index holds the same
    // rows and token counts, so only the declared tokenizer tells them apart.
    let texts = [
        "zebra eats grass",
        "lion eats zebra",
        "zebra eating",
        "the eater eats",
    ];
    {
        let store = open(&path, None);
        plain(&store, &texts);
    }
    Connection::open(&path)
        .unwrap()
        .execute_batch(
            "DROP TABLE triples_fts;
             CREATE VIRTUAL TABLE triples_fts USING fts5(text, content=triples, \
                 content_rowid=rowid, tokenize='porter unicode61');
             INSERT INTO triples_fts (triples_fts) VALUES ('rebuild');",
        )
        .unwrap();
    let store = open(&path, None);
    // Porter stems "eats" and "eating" to "eat": only the FTS5 query knows.
    for token in ["eat", "eats", "zebra"] {
        assert!(
            !answer(&store, &path, &[token], "fts5-sql").is_empty(),
            "{token}"
        );
    }
}

#[test]
fn a_token_fts5_cuts_inside_a_character_is_counted_and_discovery_still_answers() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    let store = open(&path, None);
    // 32,767 bytes of `a`, then a two-byte character: FTS5 keeps 32,768 bytes.
    let long = format!("{}\u{3c9} grass", "a".repeat(32767));
    plain(&store, &["grass lion", &long, &"\u{65e5}".repeat(10923)]);
    assert_eq!(answer(&store, &path, &["grass"], "fts5-mirror").len(), 2);
    answer(&store, &path, &["s", "said"], "fts5-mirror");
    answer(&store, &path, &["caf\u{e9}"], "fts5-sql");
}

#[test]
fn text_stored_as_a_blob_a_number_or_invalid_utf8_is_read_as_fts5_reads_it() {
    for value in [
        "X'7A6562726120676F6F7365'",
        "CAST(X'7A6562726120FF20676F6F7365' AS TEXT)",
        "12345",
        "1.5",
        "CAST(X'7A656272610020676F6F7365' AS TEXT)",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = home_path(&dir);
        let store = open(&path, None);
        plain(&store, &["zebra lion", "grass"]);
        answer(&store, &path, &["zebra"], "fts5-mirror");
        // A writer that stores the text column as it likes; the store's next
        // write indexes the row.
        Connection::open(&path)
            .unwrap()
            .execute(
                &format!(
                    "INSERT INTO triples (assertion_id, subject, predicate, object, scope, \
                     observed_at, text) VALUES ('raw', 's', 'p', 'o', 'session', \
                     '2026-01-01T00:00:00Z', {value})"
                ),
                [],
            )
            .unwrap();
        store
            .add(&[TripleAssertion::new("s", "said", "zebra again")
                .with_scope("session")
                .with_id("later")])
            .unwrap();
        for tokens in [&["zebra"][..], &["goose"], &["12345"], &["1", "5"]] {
            answer(&store, &path, tokens, "fts5-mirror");
        }
    }
}

#[test]
fn inside_a_transaction_the_fts5_query_answers_and_a_rollback_leaves_nothing_mirrored() {
    let dir = tempfile::tempdir().unwrap();
    let path = home_path(&dir);
    let store = open(&path, None);
    plain(&store, &["zebra lion", "grass"]);
    answer(&store, &path, &["zebra"], "fts5-mirror");
    let apple = [TripleAssertion::new("s", "said", "apple")
        .with_scope("session")
        .with_id("in-tx")];
    {
        let conn = store.home().conn();
        let guard = conn.lock().unwrap();
        guard.execute_batch("BEGIN IMMEDIATE").unwrap();
        let prepared = store.prepare_rows(&apple).unwrap();
        assert_eq!(
            store.insert_prepared_in(&guard, &prepared).unwrap().written,
            1
        );
        // A released savepoint makes FTS5 write its totals inside the transaction.
        guard.execute_batch("SAVEPOINT sp; RELEASE sp;").unwrap();
    }
    let inside = store
        .keyword_positions(&["apple".into()], "session", None, 10, (0, i64::MAX))
        .unwrap()
        .unwrap();
    assert_eq!(store.keyword_engine(), "fts5-sql");
    assert_eq!(inside.len(), 1, "the transaction sees its own row");
    store
        .home()
        .conn()
        .lock()
        .unwrap()
        .execute_batch("ROLLBACK")
        .unwrap();
    // The next row takes the rolled-back rowid, with as many tokens.
    plain(&store, &["zebra lion", "grass", "banana"]);
    assert!(answer(&store, &path, &["apple"], "fts5-mirror").is_empty());
    assert_eq!(answer(&store, &path, &["banana"], "fts5-mirror").len(), 1);
}
