//! Opening and closing a `SQLiteTripleStore`: table names that clash with
//! another store's sidecar or keyword index are refused before anything is
//! written, a home SQLite cannot write is an error naming its path, and what
//! `close()` releases (the matrix cache; the handle stays usable, as the spec
//! states no refusal after close).

use am_backend_sqlite::store::{SQLiteTripleStore, SqliteStoreOptions};
use am_triples::{ErrorKind, TripleAssertion, TripleQuery, TripleStore};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

fn named(table: &str) -> SqliteStoreOptions {
    SqliteStoreOptions {
        table_name: Some(table.into()),
        ..SqliteStoreOptions::default()
    }
}

fn file_bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

#[test]
fn a_table_name_clashing_with_a_sidecar_or_keyword_index_is_invalid_input_naming_the_clash() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    // (name, what the message must name)
    let cases = [
        ("triples_meta", "meta sidecar of the table \"triples\""),
        ("triples_fts", "FTS5 keyword index of the table \"triples\""),
        ("Triples_FTS", "FTS5 keyword index of the table \"Triples\""),
        ("triples_fts_data", "shadow table of the table \"triples\""),
        ("triples_fts_idx", "shadow table of the table \"triples\""),
        (
            "triples_fts_docsize",
            "shadow table of the table \"triples\"",
        ),
        (
            "triples_fts_config",
            "shadow table of the table \"triples\"",
        ),
        ("notes_meta", "meta sidecar of the table \"notes\""),
        ("notes_fts", "FTS5 keyword index of the table \"notes\""),
        ("sqlite_notes", "reserved sqlite_ prefix"),
    ];
    for (name, clash) in cases {
        let err = SQLiteTripleStore::open(&path, None, named(name)).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{name}: {err}");
        let msg = err.to_string();
        assert!(msg.contains(name) && msg.contains(clash), "{name}: {msg}");
    }
    // Refused before the file is created.
    assert!(!path.exists());
}

#[test]
fn a_clashing_table_name_leaves_an_existing_home_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let store = SQLiteTripleStore::open(&path, None, SqliteStoreOptions::default()).unwrap();
    store
        .add(&[TripleAssertion::new("a", "b", "c").with_id("row-1")])
        .unwrap();
    drop(store);
    let before = file_bytes(&path);
    for name in ["triples_meta", "triples_fts"] {
        let err = SQLiteTripleStore::open(&path, None, named(name)).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
    }
    assert_eq!(file_bytes(&path), before);
    let store = SQLiteTripleStore::open(&path, None, SqliteStoreOptions::default()).unwrap();
    assert_eq!(store.query(&TripleQuery::default()).unwrap().len(), 1);
}

#[test]
fn names_that_only_resemble_a_sidecar_still_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    for name in [
        "metadata",
        "fts_notes",
        "_meta",
        "notes_metas",
        "triples_ftsx",
    ] {
        let store = SQLiteTripleStore::open(&path, None, named(name)).unwrap();
        assert_eq!(store.table_name(), name);
    }
}

/// Makes `path` (a file or a directory) read-only for this process, even when
/// it runs as root (which ignores permission bits): the mode bits first, then
/// the immutable attribute when the bits are not enough. Undone by `restore`.
struct ReadOnly<'a> {
    path: &'a Path,
    mode: u32,
    immutable: bool,
}

fn writable(path: &Path) -> bool {
    if path.is_dir() {
        let probe = path.join(".probe");
        let ok = std::fs::File::create(&probe).is_ok();
        let _ = std::fs::remove_file(&probe);
        ok
    } else {
        std::fs::OpenOptions::new().append(true).open(path).is_ok()
    }
}

impl<'a> ReadOnly<'a> {
    fn make(path: &'a Path) -> Self {
        let mode = std::fs::metadata(path).unwrap().permissions().mode();
        let ro = if path.is_dir() { 0o555 } else { 0o444 };
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(ro)).unwrap();
        let mut guard = ReadOnly {
            path,
            mode,
            immutable: false,
        };
        if writable(path) {
            // Root: permission bits do not bind it; the immutable attribute does.
            let status = std::process::Command::new("chattr")
                .arg("+i")
                .arg(path)
                .status();
            guard.immutable = status.is_ok_and(|s| s.success());
        }
        assert!(
            !writable(path),
            "could not make {} read-only for this process (mode bits and chattr +i)",
            path.display()
        );
        guard
    }
}

impl Drop for ReadOnly<'_> {
    fn drop(&mut self) {
        if self.immutable {
            let _ = std::process::Command::new("chattr")
                .arg("-i")
                .arg(self.path)
                .status();
        }
        let _ = std::fs::set_permissions(self.path, std::fs::Permissions::from_mode(self.mode));
    }
}

#[test]
fn opening_a_read_only_home_file_is_an_error_naming_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    // A fresh SQLite file without the store's schema: opening must write it.
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch("CREATE TABLE other (x); PRAGMA journal_mode = DELETE;")
        .unwrap();
    let before = file_bytes(&path);
    let err = {
        let _ro = ReadOnly::make(&path);
        SQLiteTripleStore::open(&path, None, SqliteStoreOptions::default()).unwrap_err()
    };
    assert_eq!(err.kind(), ErrorKind::Storage, "{err}");
    assert!(
        err.to_string().contains(&path.display().to_string()),
        "{err}"
    );
    assert_eq!(file_bytes(&path), before);
}

#[test]
fn opening_a_home_in_a_read_only_directory_is_an_error_naming_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("ro");
    std::fs::create_dir(&sub).unwrap();
    let path = sub.join("home.sqlite3");
    let err = {
        let _ro = ReadOnly::make(&sub);
        SQLiteTripleStore::open(&path, None, SqliteStoreOptions::default()).unwrap_err()
    };
    assert_eq!(err.kind(), ErrorKind::Storage, "{err}");
    assert!(
        err.to_string().contains(&path.display().to_string()),
        "{err}"
    );
    assert!(!path.exists());
}

#[test]
fn close_releases_the_matrix_cache_and_the_handle_stays_usable() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.sqlite3");
    let store = SQLiteTripleStore::open(&path, None, SqliteStoreOptions::default()).unwrap();
    store
        .add(&[
            TripleAssertion::new("a", "b", "c").with_id("row-1"),
            TripleAssertion::new("d", "e", "f").with_id("row-2"),
        ])
        .unwrap();
    let vectors = [
        ("row-1".to_owned(), vec![1.0f32, 0.0]),
        ("row-2".to_owned(), vec![0.6f32, 0.8]),
    ]
    .into_iter()
    .collect();
    let pin = am_triples::pin::build_pin(Some("test-2d"), Some(2), "creation", None).unwrap();
    store.replace_vectors(&vectors, &pin, 2, None).unwrap();
    let vq = TripleQuery {
        query_vector: Some(vec![1.0, 0.0]),
        limit: 2,
        ..TripleQuery::default()
    };
    let first = store.query(&vq).unwrap();
    assert!(store.vector_cache_bytes() > 0);

    store.close().unwrap();
    assert_eq!(store.vector_cache_bytes(), 0);
    store.close().unwrap(); // idempotent

    // Still usable: the next semantic query rebuilds the cache from the file.
    assert_eq!(store.query(&vq).unwrap(), first);
    assert!(store.vector_cache_bytes() > 0);
    store
        .add(&[TripleAssertion::new("g", "h", "i").with_id("row-3")])
        .unwrap();
    assert_eq!(store.row_count().unwrap(), 3);
}
