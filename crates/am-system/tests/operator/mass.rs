//! `mind_mass_report` on both stacks: a pure read, its refusals, the
//! closed warning vocabulary, and the embedding-space section over pinned
//! homes (the oracle's homes carry no vectors, so these are ours alone).

use crate::common::{Stack, assert_refused, on_both, written};
use am_backend_sqlite::{SqliteHome, SqliteMemoryHome, SqliteStoreOptions};
use am_system::kinds::RecordKind;
use am_system::operator::{MindMass, VECTOR_SCAN_LIMIT, WARNING_WORDS, WarningWord};
use am_system::{MemoryRecordInput, RememberMany};
use am_system::{MemorySystem, SystemOptions};
use am_triples::ErrorKind::InvalidInput;
use am_triples::pin::build_pin;
use am_triples::{InMemoryTripleStore, TextEmbedder, TripleStore};
use std::sync::Arc;

const PAIR: (&str, &str) = ("session", "s1");

fn remember(s: &Stack, key: &str, kind: RecordKind, title: &str, digest: &str) {
    s.system
        .remember_many(&RememberMany::new(
            vec![MemoryRecordInput::new(kind, title, digest)],
            PAIR.0,
            PAIR.1,
            key,
        ))
        .unwrap();
}

fn words(r: &am_system::operator::MindMassReport) -> Vec<&'static str> {
    r.warnings.iter().map(|w| w.word.as_str()).collect()
}

#[test]
fn warning_words_are_the_closed_vocabulary_of_six() {
    assert_eq!(
        WARNING_WORDS,
        [
            "embedder_mismatch",
            "dimension_mismatch",
            "unpinned",
            "vectorless_records",
            "vector_scan_partial",
            "never_slept",
        ]
    );
    assert_eq!(VECTOR_SCAN_LIMIT, 4000);
    assert!(WarningWord::parse("too_big").is_err());
}

#[test]
fn mind_mass_report_is_a_pure_read_on_both_stacks() {
    on_both(|s| {
        remember(
            s,
            "a",
            RecordKind::Lesson,
            "Slow cool",
            "the glaze cracks when cooled fast",
        );
        remember(
            s,
            "b",
            RecordKind::Lesson,
            "Slow cool",
            "cool the kiln slowly for the glaze",
        );
        let before = written(s);
        let r = s
            .system
            .mind_mass_report(&MindMass::new(&[PAIR]), None)
            .unwrap();
        assert_eq!(
            written(s),
            before,
            "[{}] the report wrote something",
            s.name
        );
        assert_eq!(r.formation.records_total, 2, "[{}]", s.name);
        assert_eq!(r.duplicates.title_clusters, 1, "[{}]", s.name);
        assert_eq!(r.duplicates.title_cluster_records, 2, "[{}]", s.name);
        assert_eq!(r.as_of_seq, before_seq(s), "[{}]", s.name);
        assert!(
            words(&r).contains(&"never_slept"),
            "[{}] {:?}",
            s.name,
            words(&r)
        );
    });
}

fn before_seq(s: &Stack) -> i64 {
    s.journal.current_seq().unwrap()
}

#[test]
fn mind_mass_report_refuses_another_bucket_a_window_under_a_day_and_no_pair() {
    on_both(|s| {
        remember(s, "a", RecordKind::Memory, "One", "one record");
        let before = written(s);
        let mut week = MindMass::new(&[PAIR]);
        week.bucket = "week".into();
        assert_refused(
            s,
            &before,
            s.system.mind_mass_report(&week, None),
            InvalidInput,
            &["day"],
        );
        let mut zero = MindMass::new(&[PAIR]);
        zero.days = 0;
        assert_refused(
            s,
            &before,
            s.system.mind_mass_report(&zero, None),
            InvalidInput,
            &["days"],
        );
        assert_refused(
            s,
            &before,
            s.system.mind_mass_report(&MindMass::new(&[]), None),
            InvalidInput,
            &["pair"],
        );
        let mut bad_now = MindMass::new(&[PAIR]);
        bad_now.now = Some("yesterday".into());
        assert_refused(
            s,
            &before,
            s.system.mind_mass_report(&bad_now, None),
            InvalidInput,
            &["yesterday"],
        );
    });
}

#[test]
fn mind_mass_arguments_refuse_unknown_keys() {
    let err = serde_json::from_value::<MindMass>(serde_json::json!({
        "scopes": [["session", "s1"]], "dayz": 3
    }))
    .unwrap_err();
    assert!(err.to_string().contains("dayz"), "{err}");
}

fn offline() -> Arc<dyn TextEmbedder> {
    Arc::new(am_embed::OfflineEmbedder::new().unwrap())
}

/// Both stacks pinned to the offline embedder's space, embedding at write.
fn pinned_stacks() -> Vec<(Stack, Option<tempfile::TempDir>)> {
    let e = offline();
    let pin = build_pin(e.model_id().as_deref(), e.dimension(), "creation", None).unwrap();
    let mem: Arc<dyn TripleStore> =
        Arc::new(InMemoryTripleStore::with_pin(Some(e.clone()), pin.clone()).unwrap());
    let mem_journal: Arc<dyn am_journal::MemoryJournal> =
        Arc::new(am_journal::InMemoryJournal::new());
    let mem_system =
        MemorySystem::with_options(mem.clone(), mem_journal.clone(), SystemOptions::default())
            .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let home = SqliteHome::open(dir.path().join("home.sqlite3")).unwrap();
    let mh = Arc::new(
        SqliteMemoryHome::open(
            &home,
            Some(e),
            SqliteStoreOptions {
                embedding_pin: Some(pin),
                ..SqliteStoreOptions::default()
            },
        )
        .unwrap(),
    );
    let (store, journal): (Arc<dyn TripleStore>, Arc<dyn am_journal::MemoryJournal>) =
        (mh.sqlite_store().clone(), mh.sqlite_journal().clone());
    let system = MemorySystem::over_home_with_options(mh, SystemOptions::default()).unwrap();
    vec![
        (Stack::over("memory", mem, mem_journal, mem_system), None),
        (Stack::over("sqlite", store, journal, system), Some(dir)),
    ]
}

#[test]
fn a_pinned_home_with_every_vector_reads_matched_and_without_embedding_warnings() {
    for (s, _dir) in pinned_stacks() {
        for i in 0..3 {
            remember(
                &s,
                &format!("k{i}"),
                RecordKind::Memory,
                &format!("Note {i}"),
                "the kiln glaze needs a slow cool",
            );
        }
        let wired = offline();
        let r = s
            .system
            .mind_mass_report(&MindMass::new(&[PAIR]), Some(wired.as_ref()))
            .unwrap();
        assert_eq!(r.embedding.matches, Some(true), "[{}]", s.name);
        assert_eq!(r.embedding.wired_model, wired.model_id(), "[{}]", s.name);
        assert_eq!(r.embedding.vector_scan.scanned, 3, "[{}]", s.name);
        assert_eq!(r.embedding.vector_scan.vectorless, 0, "[{}]", s.name);
        assert_eq!(r.embedding.vector_scan.off_dimension, 0, "[{}]", s.name);
        assert_eq!(
            r.embedding.pin_note,
            format!("{}@64d (creation)", wired.model_id().unwrap()),
            "[{}]",
            s.name
        );
        assert_eq!(words(&r), vec!["never_slept"], "[{}]", s.name);
    }
}

#[test]
fn a_wired_embedder_of_another_model_is_an_embedder_mismatch_warning() {
    for (s, _dir) in pinned_stacks() {
        remember(&s, "k", RecordKind::Memory, "Note", "the kiln glaze");
        let other = am_embed::OfflineEmbedder::new()
            .unwrap()
            .with_model_id("another-model");
        let r = s
            .system
            .mind_mass_report(&MindMass::new(&[PAIR]), Some(&other))
            .unwrap();
        assert_eq!(r.embedding.matches, Some(false), "[{}]", s.name);
        assert_eq!(
            words(&r),
            vec!["embedder_mismatch", "never_slept"],
            "[{}]",
            s.name
        );
        assert!(
            r.warnings[0].detail.contains("another-model"),
            "[{}] {}",
            s.name,
            r.warnings[0].detail
        );
    }
}

/// An embedder that declares a dimension other than the one it embeds in.
struct Declares(usize);

impl TextEmbedder for Declares {
    fn embed_texts(&self, texts: &[String]) -> am_triples::Result<Vec<Vec<f32>>> {
        Ok(texts.iter().map(|_| vec![1.0; 8]).collect())
    }
    fn dimension(&self) -> Option<usize> {
        Some(self.0)
    }
}

#[test]
fn a_wired_embedder_declaring_another_dimension_is_a_dimension_mismatch_warning() {
    for (s, _dir) in pinned_stacks() {
        remember(&s, "k", RecordKind::Memory, "Note", "the kiln glaze");
        let r = s
            .system
            .mind_mass_report(&MindMass::new(&[PAIR]), Some(&Declares(128)))
            .unwrap();
        assert_eq!(r.embedding.matches, Some(false), "[{}]", s.name);
        assert_eq!(
            words(&r),
            vec!["dimension_mismatch", "never_slept"],
            "[{}]",
            s.name
        );
        assert!(r.warnings[0].detail.contains("64") && r.warnings[0].detail.contains("128"));
    }
}

#[test]
fn the_vector_scan_reads_the_newest_rows_up_to_its_bound_and_says_it_was_partial() {
    for (s, _dir) in pinned_stacks() {
        for i in 0..4 {
            remember(
                &s,
                &format!("k{i}"),
                RecordKind::Memory,
                &format!("Note {i}"),
                "a kiln note",
            );
        }
        let mut args = MindMass::new(&[PAIR]);
        args.vector_scan_limit = 2;
        let r = s.system.mind_mass_report(&args, None).unwrap();
        assert_eq!(
            (r.embedding.vector_scan.scanned, r.embedding.vector_scan.of),
            (2, 4),
            "[{}]",
            s.name
        );
        assert!(r.embedding.vector_scan.partial);
        assert_eq!(
            words(&r),
            vec!["vector_scan_partial", "never_slept"],
            "[{}]",
            s.name
        );
        args.vector_scan_limit = 0;
        let whole = s.system.mind_mass_report(&args, None).unwrap();
        assert_eq!(
            whole.embedding.vector_scan.scanned, 4,
            "[{}] 0 reads every row",
            s.name
        );
        assert!(!whole.embedding.vector_scan.partial);
    }
}

#[test]
fn an_unpinned_home_says_unpinned_and_counts_its_vectorless_rows_without_the_vectorless_warning() {
    on_both(|s| {
        remember(s, "k", RecordKind::Memory, "Note", "a kiln note");
        let r = s
            .system
            .mind_mass_report(&MindMass::new(&[PAIR]), None)
            .unwrap();
        assert_eq!(r.embedding.pin, None);
        assert_eq!(r.embedding.pin_note, "unpinned");
        assert_eq!(r.embedding.vector_scan.vectorless, 1, "[{}]", s.name);
        assert_eq!(words(&r), vec!["unpinned", "never_slept"], "[{}]", s.name);
    });
}
