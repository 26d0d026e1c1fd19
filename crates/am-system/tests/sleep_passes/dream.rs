//! `dream_pass`: the structural report → bridge proposals and single-facet
//! questions → at most ONE review-gated `kind="dream"` record, authored or
//! pending, idempotent by the report's fingerprint; quiet and restful nights
//! say why; the night's signals.
//!
//! Spec: api.md "Consolidation (sleep and dreams)" (`dream_pass`), "Authored
//! with the record"; memory-system.md "Sleep and dreams". Where 0.3.2
//! differs (its dream's title and digest are the pass's own words), the
//! spec's authored-or-pending dream is what these tests pin.

use crate::common::{Stack, assert_refused, written};
use crate::support::{
    OWNER, SCOPE, deposits, form, operator_author, raising_author, stacks, tasks,
};
use am_journal::ClosureKind;
use am_system::formation::authoring::AuthoringFailureReason;
use am_system::sleep::{DreamPass, DreamResult, SignalKind};
use am_system::{
    Appraise, CloseRecord, CommitSelection, MemoryRecordInput, RecordKind, SystemOptions,
};
use am_triples::{ErrorKind, TripleAssertion, TripleQuery};
use serde_json::json;
use std::sync::{Arc, Mutex};

fn pass() -> DreamPass {
    DreamPass::new(&[(SCOPE, OWNER)], OWNER)
}

fn run(s: &Stack, args: &DreamPass) -> DreamResult {
    s.system.dream_pass(args, None).unwrap().value
}

/// An episode with `keywords` and `participants`, unlinked.
fn island(s: &Stack, title: &str, keywords: &[&str], participants: &[&str]) -> String {
    let mut r = MemoryRecordInput::new(
        RecordKind::Episode,
        title,
        &format!("{title}, as it was lived that day."),
    );
    r.keywords = keywords.iter().map(|k| (*k).to_owned()).collect();
    r.participants = participants.iter().map(|p| (*p).to_owned()).collect();
    form(s, r, &format!("island|{title}"))
}

/// Two islands sharing two facets: one bridge.
fn two_islands(s: &Stack) -> (String, String) {
    let a = island(s, "Harbor walk at dawn", &["harbor", "tide"], &[]);
    let b = island(s, "Reading tide tables", &["harbor", "tide"], &[]);
    if a < b { (a, b) } else { (b, a) }
}

fn digest_row(s: &Stack, graph_id: &str) -> TripleAssertion {
    s.store
        .query(&TripleQuery {
            subject: Some(graph_id.to_owned()),
            predicate: Some("dcterms:abstract".to_owned()),
            limit: 0,
            ..TripleQuery::default()
        })
        .unwrap()
        .into_iter()
        .next()
        .expect("the dream's digest row")
}

fn edges_of(s: &Stack, graph_id: &str, predicate: &str) -> Vec<String> {
    let mut out: Vec<String> = s
        .store
        .query(&TripleQuery {
            subject: Some(graph_id.to_owned()),
            predicate: Some(predicate.to_owned()),
            limit: 0,
            ..TripleQuery::default()
        })
        .unwrap()
        .into_iter()
        .map(|a| a.object)
        .collect();
    out.sort();
    out
}

fn dreams(s: &Stack) -> Vec<TripleAssertion> {
    s.store
        .query(&TripleQuery {
            scope: Some(SCOPE.to_owned()),
            limit: 0,
            ..TripleQuery::default()
        })
        .unwrap()
        .into_iter()
        .filter(|a| a.attributes.get("record_kind") == Some(&json!("dream")))
        .collect()
}

#[test]
fn two_islands_sharing_two_facets_form_one_review_gated_dream_with_weak_mentions_edges() {
    for (s, _) in stacks(true) {
        let (a, b) = two_islands(&s);
        let r = run(&s, &pass());
        assert_eq!(r.pass_name, "dream_pass");
        assert_eq!(r.proposals.len(), 1, "[{}] {r:?}", s.name);
        assert_eq!(r.proposals[0].pair, (a.clone(), b.clone()));
        assert_eq!(r.proposals[0].shared_facets, ["harbor", "tide"]);
        assert!(r.created, "[{}]", s.name);
        assert_eq!(r.skipped_reason, None);
        let id = r.dream_record_id.clone().unwrap();
        let row = digest_row(&s, &id);
        assert_eq!(row.attributes["record_kind"], "dream");
        assert_eq!(row.attributes["interpretation_required"], true);
        assert_eq!(row.attributes["continuation_state"], "unresolved");
        assert_eq!(row.attributes["parent_dream_ids"], json!([]));
        assert_eq!(row.attributes["proposals"][0]["pair"], json!([a, b]));
        assert!(
            row.attributes["report_fingerprint"]
                .as_str()
                .is_some_and(|f| f.len() == 64)
        );
        let mut both = vec![a.clone(), b.clone()];
        both.sort();
        assert_eq!(edges_of(&s, &id, "mentions"), both, "[{}]", s.name);
        assert_eq!(dreams(&s).len(), 1, "at most one dream per pass");
    }
}

#[test]
fn without_an_author_the_dream_forms_pending_with_no_author_supplied_and_its_tasks() {
    for (s, _) in stacks(true) {
        two_islands(&s);
        let r = run(&s, &pass());
        let id = r.dream_record_id.unwrap();
        let row = digest_row(&s, &id);
        assert!(row.attributes.get("title").is_none_or(|t| t.is_null()));
        assert_eq!(row.attributes["pending"]["title"], true);
        assert_eq!(row.attributes["pending"]["summary"], true);
        assert_eq!(
            row.attributes["pending"]["failure"]["reason"],
            "no_author_supplied"
        );
        assert!(
            row.object.contains("Harbor walk at dawn"),
            "the composed text names the tension: {}",
            row.object
        );
        assert_eq!(r.authoring.failures.len(), 1);
        assert_eq!(
            r.authoring.failures[0].reason,
            AuthoringFailureReason::NoAuthorSupplied
        );
        let owed: Vec<String> = tasks(&s)
            .into_iter()
            .filter(|(_, t)| *t == id)
            .map(|(k, _)| k)
            .collect();
        assert_eq!(
            owed,
            ["digest.author", "dream.narrate", "title.author"],
            "[{}] the pending fields' tasks and the dream's narration",
            s.name
        );
    }
}

#[test]
fn the_dreams_title_and_summary_are_authored_by_the_hosts_author_from_the_composed_text() {
    for (s, _) in stacks(true) {
        let (a, b) = two_islands(&s);
        let calls = Arc::new(Mutex::new(Vec::new()));
        let author = operator_author(calls.clone());
        let r = s.system.dream_pass(&pass(), Some(&author)).unwrap().value;
        let row = digest_row(&s, r.dream_record_id.as_deref().unwrap());
        assert_eq!(
            row.attributes["title"],
            "A morning of repeated frost questions"
        );
        assert!(row.attributes.get("pending").is_none_or(|p| p.is_null()));
        assert_eq!(r.authoring.authored.len(), 1);
        let calls = calls.lock().unwrap();
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].record_kind, "dream");
        assert_eq!(calls[0].pass, "dream_pass");
        let mut want = vec![a, b];
        want.sort();
        let mut got = calls[0].source_ids.clone();
        got.sort();
        assert_eq!(got, want);
        assert_eq!(
            tasks(&s),
            [(
                "dream.narrate".to_owned(),
                r.dream_record_id.clone().unwrap()
            )],
            "[{}] only the narration waits",
            s.name
        );
    }
}

#[test]
fn an_author_that_raises_forms_the_dream_pending_as_author_raised() {
    for (s, _) in stacks(true) {
        two_islands(&s);
        let author = raising_author();
        let r = s.system.dream_pass(&pass(), Some(&author)).unwrap().value;
        assert_eq!(
            r.authoring.failures[0].reason,
            AuthoringFailureReason::AuthorRaised
        );
        let row = digest_row(&s, r.dream_record_id.as_deref().unwrap());
        assert_eq!(
            row.attributes["pending"]["failure"]["error_class"],
            "GatewayDown"
        );
    }
}

#[test]
fn a_home_without_the_task_queue_refuses_a_pending_dream_before_writing_anything() {
    for (s, _) in stacks(false) {
        two_islands(&s);
        let before = written(&s);
        assert_refused(
            &s,
            &before,
            s.system.dream_pass(&pass(), None),
            ErrorKind::InvalidInput,
            &["task_queue=True", "no_author_supplied"],
        );
        // report_only still runs; an authored dream needs no queue.
        let mut dry = pass();
        dry.report_only = true;
        assert_eq!(run(&s, &dry).proposals.len(), 1);
        let author = operator_author(Arc::new(Mutex::new(Vec::new())));
        let r = s.system.dream_pass(&pass(), Some(&author)).unwrap().value;
        assert!(r.created);
    }
}

#[test]
fn report_only_computes_the_night_and_writes_nothing() {
    for (s, _) in stacks(true) {
        two_islands(&s);
        let before = (written(&s), tasks(&s));
        let mut dry = pass();
        dry.report_only = true;
        let r = run(&s, &dry);
        assert_eq!(r.proposals.len(), 1);
        assert_eq!(r.skipped_reason.as_deref(), Some("report_only requested"));
        assert_eq!(r.dream_record_id, None);
        assert!(!r.created);
        assert!(r.signals.is_empty());
        assert_eq!((written(&s), tasks(&s)), before, "[{}]", s.name);
    }
}

#[test]
fn a_quiet_night_forms_nothing_and_says_why() {
    for (s, _) in stacks(true) {
        island(&s, "Alone with the kettle", &["kettle"], &[]);
        let before = written(&s);
        let r = run(&s, &pass());
        assert_eq!(r.salience, 0);
        let why = r.skipped_reason.unwrap();
        assert!(why.starts_with("quiet night"), "{why}");
        assert!(why.contains("below the floor of 2"), "{why}");
        assert_eq!(r.dream_record_id, None);
        assert!(r.signals.is_empty());
        assert_eq!(written(&s), before, "[{}]", s.name);
        // A raised floor is quiet too, even with a bridge.
        two_islands(&s);
        let mut high = pass();
        high.salience_floor = 100;
        let r = run(&s, &high);
        assert!(r.skipped_reason.unwrap().contains("below the floor of 100"));
    }
}

#[test]
fn the_same_graph_again_forms_nothing_new_the_standing_dream_carries_its_tensions() {
    for (s, _) in stacks(true) {
        two_islands(&s);
        let first = run(&s, &pass());
        assert!(first.created);
        let before = (written(&s), tasks(&s));
        let again = run(&s, &pass());
        assert_eq!(again.dream_record_id, None);
        assert!(!again.created);
        let why = again.skipped_reason.unwrap();
        assert!(why.starts_with("restful night"), "{why}");
        assert!(why.contains("1 standing dream(s)"), "{why}");
        assert_eq!((written(&s), tasks(&s)), before, "[{}]", s.name);
        assert_eq!(dreams(&s).len(), 1);
    }
}

#[test]
fn a_new_tension_chains_to_the_standing_dream_through_parent_dream_ids_carrying_only_the_novel_pairs()
 {
    for (s, _) in stacks(true) {
        two_islands(&s);
        let first = run(&s, &pass()).dream_record_id.unwrap();
        let c = island(&s, "Lanterns on the pier", &["lantern", "pier"], &[]);
        let d = island(&s, "Buying a lantern", &["lantern", "pier"], &[]);
        let r = run(&s, &pass());
        assert!(r.created, "[{}] {:?}", s.name, r.skipped_reason);
        assert_eq!(
            r.carried_suppressed, 1,
            "the harbor pair stays with its dream"
        );
        let mut cd = [c, d];
        cd.sort();
        assert_eq!(r.proposals.len(), 1);
        assert_eq!(r.proposals[0].pair, (cd[0].clone(), cd[1].clone()));
        let row = digest_row(&s, r.dream_record_id.as_deref().unwrap());
        assert_eq!(row.attributes["parent_dream_ids"], json!([first]));
        assert_eq!(row.attributes["continuation_state"], "unresolved");
        assert_eq!(edges_of(&s, &row.subject, "mentions"), cd.to_vec());
    }
}

#[test]
fn a_night_whose_only_pressure_is_a_standing_dream_forms_nothing_new_once_it_is_carried() {
    for (s, _) in stacks(true) {
        // A standing dream with no tension of tonight: the anchor presses,
        // and the continuation dream forms once.
        let stand = form(
            &s,
            MemoryRecordInput::new(RecordKind::Dream, "An old night", "Islands lit up.")
                .with_attribute("continuation_state", "unresolved")
                .with_attribute("keywords_note", "none"),
            "old-dream",
        );
        let mut floor_one = pass();
        floor_one.salience_floor = 1;
        let r = run(&s, &floor_one);
        assert!(r.created, "[{}] {:?}", s.name, r.skipped_reason);
        let row = digest_row(&s, r.dream_record_id.as_deref().unwrap());
        assert_eq!(row.attributes["continuation_state"], "continued");
        assert_eq!(row.attributes["parent_dream_ids"], json!([stand.clone()]));
        assert_eq!(edges_of(&s, &row.subject, "mentions"), [stand]);
        // Now both stand and the continuation carries the anchor: restful.
        let again = run(&s, &floor_one);
        assert!(
            again.skipped_reason.unwrap().starts_with("restful night"),
            "[{}]",
            s.name
        );
    }
}

#[test]
fn a_waking_rejection_sticks_a_retracted_dreams_pair_never_dreams_again() {
    for (s, _) in stacks(true) {
        two_islands(&s);
        let id = run(&s, &pass()).dream_record_id.unwrap();
        s.system
            .close_record(&CloseRecord::new(
                &id,
                ClosureKind::Retract,
                "the operator: no such connection",
            ))
            .unwrap();
        let before = written(&s);
        let r = run(&s, &pass());
        assert_eq!(r.dream_record_id, None, "[{}]", s.name);
        let why = r.skipped_reason.unwrap();
        assert!(why.contains("waking verdicts already rejected"), "{why}");
        assert_eq!(written(&s), before);
    }
}

#[test]
fn pairs_already_associated_by_a_context_edge_or_a_trail_are_excluded_and_counted() {
    for (s, _) in stacks(true) {
        let a = island(&s, "Harbor walk at dawn", &["harbor", "tide"], &[]);
        let mut b = MemoryRecordInput::new(RecordKind::Episode, "Tide tables", "Tide tables read.");
        b.keywords = vec!["harbor".into(), "tide".into()];
        b.edges = vec![("mentions".into(), a.clone())];
        form(&s, b, "b");
        let c = island(&s, "Harbor crane", &["harbor", "tide"], &[]);
        let d = island(&s, "Tide clock", &["harbor", "tide"], &[]);
        s.system
            .commit_selection(&CommitSelection::new("t1", &[c.clone(), d.clone()]))
            .unwrap();
        let mut dry = pass();
        dry.report_only = true;
        let r = run(&s, &dry);
        assert_eq!(r.context_associated, 1, "[{}] {r:?}", s.name);
        assert_eq!(r.trail_associated, 1, "[{}]", s.name);
        // 4 islands, 6 pairs, 2 already associated.
        assert_eq!(r.proposals.len(), 4, "[{}]", s.name);
        for p in &r.proposals {
            let set = [p.pair.0.as_str(), p.pair.1.as_str()];
            assert!(!(set.contains(&c.as_str()) && set.contains(&d.as_str())));
        }
    }
}

#[test]
fn a_rare_participant_bridges_alone_the_owner_and_a_constant_companion_never_do() {
    for (s, _) in stacks(true) {
        let a = island(&s, "Tea with Mara", &[], &["mara", OWNER, "visitor"]);
        let b = island(&s, "Letter from Mara", &[], &["mara", OWNER, "visitor"]);
        island(&s, "Alone at the desk", &[], &[OWNER, "visitor"]);
        island(&s, "Quiet evening", &[], &[OWNER, "visitor"]);
        let mut dry = pass();
        dry.report_only = true;
        let r = run(&s, &dry);
        assert_eq!(r.proposals.len(), 1, "[{}] {:?}", s.name, r.proposals);
        let mut ab = [a, b];
        ab.sort();
        assert_eq!(r.proposals[0].pair, (ab[0].clone(), ab[1].clone()));
        assert_eq!(r.proposals[0].shared_participants, ["mara"]);
        assert!(r.proposals[0].shared_facets.is_empty());
    }
}

#[test]
fn one_shared_facet_and_no_person_is_a_question_not_a_bridge() {
    for (s, _) in stacks(true) {
        let a = island(&s, "Rain on the roof", &["rain"], &[]);
        let b = island(&s, "Rain jacket bought", &["rain"], &[]);
        let mut dry = pass();
        dry.report_only = true;
        let r = run(&s, &dry);
        assert!(r.proposals.is_empty());
        assert_eq!(r.questions.len(), 1);
        let mut ab = [a, b];
        ab.sort();
        assert_eq!(r.questions[0].pair, (ab[0].clone(), ab[1].clone()));
        assert_eq!(r.questions[0].facet, "rain");
        assert!(r.questions[0].question.contains("rain"));
        // No vector was stored: the pair is counted, never guessed.
        assert_eq!(r.vectorless_pairs, 1, "[{}]", s.name);
        assert_eq!(
            r.salience,
            2 + 1,
            "a question (2) and the underlinked facet"
        );
    }
}

/// Both stacks with the offline embedder in the store (stored vectors),
/// each kept with its directory.
fn embedded_stacks() -> Vec<(Stack, Option<tempfile::TempDir>)> {
    let embedder: Arc<dyn am_triples::TextEmbedder> =
        Arc::new(am_embed::OfflineEmbedder::new().unwrap());
    let options = || SystemOptions {
        task_queue: true,
        ..SystemOptions::default()
    };
    let store: Arc<dyn am_triples::TripleStore> =
        Arc::new(am_triples::InMemoryTripleStore::new(Some(embedder.clone())));
    let journal: Arc<dyn am_journal::MemoryJournal> = Arc::new(am_journal::InMemoryJournal::new());
    let system =
        am_system::MemorySystem::with_options(store.clone(), journal.clone(), options()).unwrap();
    let memory = Stack::over("memory", store, journal, system);
    let dir = tempfile::tempdir().unwrap();
    let home = am_backend_sqlite::SqliteHome::open(dir.path().join("home.sqlite3")).unwrap();
    let h = Arc::new(
        am_backend_sqlite::SqliteMemoryHome::open(
            &home,
            Some(embedder),
            am_backend_sqlite::SqliteStoreOptions::default(),
        )
        .unwrap(),
    );
    let store: Arc<dyn am_triples::TripleStore> = h.sqlite_store().clone();
    let journal: Arc<dyn am_journal::MemoryJournal> = h.sqlite_journal().clone();
    let system = am_system::MemorySystem::over_home_with_options(h, options()).unwrap();
    let sqlite = Stack::over("sqlite", store, journal, system);
    vec![(memory, None), (sqlite, Some(dir))]
}

fn twin(s: &Stack, title: &str, method: Option<&str>) -> String {
    let mut r = MemoryRecordInput::new(
        RecordKind::Episode,
        title,
        "Closed the session; the notes were filed and the tools put away for the night.",
    );
    if let Some(m) = method {
        r = r.with_attribute("digest_method", m);
    }
    form(s, r, &format!("twin|{title}"))
}

#[test]
fn records_close_in_meaning_bridge_on_their_stored_vectors_alone() {
    for (s, _dir) in embedded_stacks() {
        twin(&s, "Session close one", None);
        twin(&s, "Session close two", None);
        let mut dry = pass();
        dry.report_only = true;
        let r = run(&s, &dry);
        assert_eq!(r.proposals.len(), 1, "[{}] {r:?}", s.name);
        let score = r.proposals[0].vector_score.expect("a vector bridge");
        assert!(score >= 0.35, "{score}");
        assert_eq!(r.vectorless_pairs, 0);
        assert_eq!(r.template_suppressed, 0);
    }
}

#[test]
fn two_machine_written_digests_never_bridge_on_vectors_alone_and_are_counted() {
    for (s, _dir) in embedded_stacks() {
        twin(&s, "Session close one", Some("mechanical-v1"));
        twin(&s, "Session close two", Some("mechanical-dedup-v1"));
        let mut dry = pass();
        dry.report_only = true;
        let r = run(&s, &dry);
        assert!(r.proposals.is_empty(), "[{}] {r:?}", s.name);
        assert_eq!(r.template_suppressed, 1, "[{}]", s.name);
        // One machine-written side is not a template: the vector path is open.
        twin(&s, "Session close three", None);
        let r = run(&s, &dry);
        assert_eq!(r.template_suppressed, 1);
        assert_eq!(r.proposals.len(), 2, "[{}] {r:?}", s.name);
    }
}

#[test]
fn the_result_carries_the_nights_signals_the_same_stream_the_dream_rests_with() {
    for (s, _) in stacks(true) {
        let (a, b) = two_islands(&s);
        s.system
            .appraise(&Appraise::new(&a, 1, 3.0, "a lovely morning", SCOPE, OWNER))
            .unwrap();
        let r = run(&s, &pass());
        assert_eq!(r.signals.len(), 1, "[{}] {:?}", s.name, r.signals);
        let sig = &r.signals[0];
        assert_eq!(sig.kind, SignalKind::UnresolvedTension);
        assert_eq!(sig.phase, "dream");
        assert_eq!(sig.act, "bridge_proposed");
        assert_eq!(sig.touched, [a.clone(), b.clone()]);
        assert!(sig.fragment.chars().count() <= 200);
        let felt = sig.felt.as_ref().expect("the appraised record colours it");
        assert_eq!(felt.tone, "warm");
        assert_eq!(r.signals_omitted, 0);
        let row = digest_row(&s, r.dream_record_id.as_deref().unwrap());
        assert_eq!(row.attributes["signals"], json!(r.signals));
        assert_eq!(row.attributes["signals_omitted"], 0);
    }
}

#[test]
fn as_of_with_a_write_a_blank_owner_no_pair_or_a_floor_outside_a_cosine_is_refused_writing_nothing()
{
    for (s, _) in stacks(true) {
        two_islands(&s);
        let before = written(&s);
        let mut anchored = pass();
        anchored.as_of = Some(0);
        assert_refused(
            &s,
            &before,
            s.system.dream_pass(&anchored, None),
            ErrorKind::InvalidInput,
            &["as_of", "report_only"],
        );
        assert_refused(
            &s,
            &before,
            s.system
                .dream_pass(&DreamPass::new(&[(SCOPE, OWNER)], "  "), None),
            ErrorKind::InvalidInput,
            &["owner_id"],
        );
        assert_refused(
            &s,
            &before,
            s.system.dream_pass(&DreamPass::new(&[], OWNER), None),
            ErrorKind::InvalidInput,
            &["scopes"],
        );
        let mut wild = pass();
        wild.embedder_similarity_floor = 2.0;
        assert_refused(
            &s,
            &before,
            s.system.dream_pass(&wild, None),
            ErrorKind::InvalidInput,
            &["embedder_similarity_floor"],
        );
        // An anchored audit read runs.
        anchored.report_only = true;
        assert_eq!(run(&s, &anchored).proposals.len(), 1);
    }
}

#[test]
fn the_dream_deposits_nothing_access_counts_and_activation_are_unchanged() {
    for (s, hands) in stacks(true) {
        let (a, b) = two_islands(&s);
        let ids = vec![a, b];
        let before = deposits(&s, &ids);
        let before_valence = s
            .journal
            .valence_events(&am_journal::ValenceFilter::new(SCOPE, OWNER))
            .unwrap()
            .len();
        hands.set("2026-03-02T03:00:00+00:00");
        let r = run(&s, &pass());
        assert!(r.created);
        assert_eq!(
            deposits(&s, &ids),
            before,
            "[{}] forming is not using",
            s.name
        );
        assert_eq!(
            s.journal
                .valence_events(&am_journal::ValenceFilter::new(SCOPE, OWNER))
                .unwrap()
                .len(),
            before_valence,
            "feelings colour, never deposited"
        );
    }
}

#[test]
fn the_dream_its_edges_and_its_tasks_commit_in_one_transaction() {
    let points = Arc::new(Mutex::new(Vec::<String>::new()));
    let p = points.clone();
    let make = move || SystemOptions {
        task_queue: true,
        commit_guard: Some(am_triples::CommitGuard::new({
            let p = p.clone();
            move |point| {
                p.lock().unwrap().push(point.to_owned());
                Ok(())
            }
        })),
        ..SystemOptions::default()
    };
    for s in [
        crate::common::memory_stack(make()),
        crate::common::sqlite_stack(make()),
    ] {
        two_islands(&s);
        points.lock().unwrap().clear();
        let r = run(&s, &pass());
        assert!(r.created);
        assert_eq!(
            *points.lock().unwrap(),
            ["tasks.form_with_tasks"],
            "[{}]",
            s.name
        );
    }
}
