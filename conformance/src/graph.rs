//! The `graph` group: every rule of `MemoryGraph::apply_revision` and of the
//! graph's bounded reads as a named check, run on every graph connector through
//! a [`GraphFactory`] (in-memory, SQLite, LanceDB).
//!
//! Spec: api.md "The memory graph: revisions and provenance" (`MemoryGraph`,
//! "Connectors"); memory-system.md "Time axes" and "Provenance";
//! troubleshooting.md "`ProvenanceRequired` from `MemoryGraph.apply_revision`".
//!
//! Every refusal check also checks that nothing was written: the store's rows,
//! the log's head and the journal's seq are unchanged.

use crate::check;
use crate::harness::{Check, CheckResult, ensure, ensure_eq};
use am_graph::graph::MemoryGraph;
use am_graph::{
    AssertOp, CloseKind, CloseOp, NarrowOp, Provenance, Revision, RevisionDraft, RevisionOp,
    RevisionResult, SourceRef,
};
use am_journal::{ClosureFilter, MemoryJournal};
use am_triples::{ErrorKind, TripleAssertion, TripleQuery, TripleStore};
use libtest_mimic::{Arguments, Trial};
use serde_json::{Value, json};
use std::any::Any;
use std::sync::Arc;

/// A graph opened for one check, with its store, its journal and whatever must
/// outlive them (a temporary home).
pub struct OpenGraph {
    /// The graph under test (journal attached).
    pub graph: MemoryGraph,
    /// The store the graph writes its memories to.
    pub store: Arc<dyn TripleStore>,
    /// The journal the graph writes its closures to.
    pub journal: Arc<dyn MemoryJournal>,
    /// Dropped last (a `tempfile::TempDir`, or `()`).
    pub guard: Box<dyn Any + Send>,
}

/// Opens fresh, isolated graphs for the `graph` group.
///
/// # Contract
/// - `open` returns a new, empty graph over a new store with a journal attached,
///   sharing nothing with graphs opened before.
/// - `reopen` returns another `MemoryGraph` over the SAME store and journal
///   (another handle of the same mind).
pub trait GraphFactory: Send + Sync {
    /// A fresh empty graph.
    ///
    /// # Errors
    /// Whatever the connector reports when it cannot open one.
    fn open(&self) -> am_graph::Result<OpenGraph>;

    /// Another graph over the store and journal of `g`.
    ///
    /// # Errors
    /// Whatever the connector reports.
    fn reopen(&self, g: &OpenGraph) -> am_graph::Result<MemoryGraph>;
}

/// The `graph` trials for one backend.
pub fn run_all(backend: &str, factory: Arc<dyn GraphFactory>) -> Vec<Trial> {
    crate::harness::trials(backend, "graph", &checks(), &factory, None)
}

/// Run the `graph` group for `backend` as a libtest-mimic test binary.
pub fn main_for(backend: &str, factory: impl GraphFactory + 'static) -> ! {
    let args = Arguments::from_args();
    libtest_mimic::run(&args, run_all(backend, Arc::new(factory))).exit()
}

/// Every check of the group.
pub fn checks() -> Vec<Check<dyn GraphFactory>> {
    vec![
        check!(ungrounded_revision_is_provenance_required_and_writes_nothing),
        check!(ungrounded_asserted_memory_is_provenance_required_and_writes_nothing),
        check!(applied_revision_is_logged_with_history_and_sources),
        check!(same_revision_id_again_returns_the_logged_outcome_and_writes_nothing),
        check!(derived_from_a_graph_memory_is_grounded),
        check!(derivation_cycle_is_provenance_required),
        check!(self_derivation_is_provenance_required),
        check!(chain_to_nothing_is_provenance_required),
        check!(lineage_across_owners_is_provenance_required),
        check!(close_only_revision_citing_only_the_closed_memory_is_provenance_required),
        check!(close_ends_an_open_window_and_writes_its_closure),
        check!(close_ends_a_later_window_at_the_close),
        check!(close_keeps_an_end_already_before_it),
        check!(close_before_valid_from_is_invalid_and_rolls_back_the_revision),
        check!(a_memory_is_closed_once),
        check!(narrow_moves_a_closed_window_earlier),
        check!(narrow_of_an_open_window_rolls_back_the_whole_revision),
        check!(narrow_at_or_after_the_end_is_skipped),
        check!(close_of_a_store_row_never_adopted_is_provenance_required),
        check!(close_before_its_assert_in_one_revision_is_provenance_required),
        check!(import_adopts_a_store_row_and_keeps_its_old_provenance),
        check!(adoption_by_another_cause_is_refused),
        check!(adoption_of_a_changed_row_is_invalid_input),
        check!(reasserting_a_held_id_with_the_same_claim_is_skipped),
        check!(reasserting_a_held_id_with_another_claim_is_invalid_input),
        check!(open_assert_of_a_held_open_claim_is_re_observed),
        check!(duplicate_inside_one_revision_is_re_observed_and_later_ops_act_on_the_held),
        check!(re_observation_derived_from_the_held_memory_is_a_self_derivation),
        check!(re_observation_derived_from_a_descendant_of_the_held_memory_is_a_cycle),
        check!(closed_claim_asserted_again_is_a_new_memory),
        check!(bounded_assert_is_a_new_memory),
        check!(conflicting_digest_on_a_held_source_is_refused),
        check!(record_time_is_the_graphs_clock_and_replay_keeps_the_logged_one),
        check!(reads_refuse_a_limit_below_one_and_clamp_large_ones),
        check!(history_of_an_unknown_id_is_empty_and_a_graph_id_resolves),
        check!(sources_of_includes_revision_refs_and_walks_lineage),
        check!(derived_from_source_by_run_matches_everything_stamped_with_it),
        check!(names_ref_is_the_owner_gate),
        check!(revisions_feed_is_lossless_and_refuses_bad_cursors),
        check!(replay_into_reproduces_the_graph_and_resumes),
        check!(graph_state_is_shared_by_every_graph_over_one_store),
        check!(repair_has_nothing_to_do_after_a_clean_apply),
    ]
}

// -- helpers ------------------------------------------------------------------

const T0: &str = "2026-01-05T09:00:00Z";

fn g_ok<T>(what: &str, r: am_graph::Result<T>) -> Result<T, String> {
    r.map_err(|e| format!("{what}: unexpected {} error: {e}", e.kind()))
}

fn g_kind<T: std::fmt::Debug>(
    what: &str,
    r: am_graph::Result<T>,
    kind: ErrorKind,
) -> Result<String, String> {
    match r {
        Ok(v) => Err(format!("{what}: expected a {kind} error, got Ok({v:?})")),
        Err(e) if e.kind() == kind => Ok(e.to_string()),
        Err(e) => Err(format!(
            "{what}: expected a {kind} error, got {} ({e})",
            e.kind()
        )),
    }
}

fn open(f: &dyn GraphFactory) -> Result<OpenGraph, String> {
    g_ok("open a graph", f.open())
}

fn step(run: &str, seq: i64) -> SourceRef {
    SourceRef::step(run, seq).expect("a valid step ref")
}

fn prov(sources: Vec<SourceRef>, parents: &[&str]) -> Provenance {
    Provenance::new(
        sources,
        parents.iter().map(|s| (*s).to_owned()).collect(),
        "abstractnote",
    )
    .expect("a valid provenance")
}

fn sourced() -> Provenance {
    prov(vec![step("run-42", 3)], &[])
}

fn claim(id: &str, s: &str, p: &str, o: &str) -> RevisionOp {
    let mut a = AssertOp::claim(s, p, o);
    a.assertion.assertion_id = Some(id.to_owned());
    RevisionOp::Assert(a)
}

fn claim_window(id: &str, o: &str, from: Option<&str>, until: Option<&str>) -> RevisionOp {
    let mut a = AssertOp::claim("ex:dana", "schema:worksFor", o);
    a.assertion.assertion_id = Some(id.to_owned());
    a.assertion.valid_from = from.map(str::to_owned);
    a.assertion.valid_until = until.map(str::to_owned);
    RevisionOp::Assert(a)
}

fn derived(id: &str, o: &str, parents: &[&str]) -> RevisionOp {
    let mut a = AssertOp::claim("ex:dana", "ex:note", o);
    a.assertion.assertion_id = Some(id.to_owned());
    RevisionOp::Assert(a.with_provenance(prov(vec![], parents)))
}

fn close(id: &str, until: &str) -> RevisionOp {
    RevisionOp::Close(CloseOp::new(id, until, CloseKind::Retract, "wrong"))
}

fn narrow(id: &str, until: &str) -> RevisionOp {
    RevisionOp::Narrow(NarrowOp::new(id, until).with_reason("earlier note"))
}

fn rev_as(
    id: &str,
    cause: &str,
    owner: Option<&str>,
    ops: Vec<RevisionOp>,
    p: Provenance,
) -> Revision {
    Revision::new(RevisionDraft {
        revision_id: id.into(),
        scope: "global".into(),
        owner_id: owner.map(str::to_owned),
        cause: cause.into(),
        occurred_at: T0.into(),
        ops,
        provenance: p,
        recorded_at: None,
        summary: None,
    })
    .expect("a valid revision")
}

fn rev(id: &str, ops: Vec<RevisionOp>, p: Provenance) -> Revision {
    rev_as(id, "ingest", Some("person:ada"), ops, p)
}

fn apply(g: &OpenGraph, r: &Revision) -> Result<RevisionResult, String> {
    g_ok(
        &format!("apply {}", r.revision_id()),
        g.graph.apply_revision(r, false),
    )
}

fn row(g: &OpenGraph, id: &str) -> Result<Option<TripleAssertion>, String> {
    let rows = g
        .store
        .query(&TripleQuery {
            assertion_ids: Some(vec![id.to_owned()]),
            ..TripleQuery::default()
        })
        .map_err(|e| format!("query {id}: {e}"))?;
    Ok(rows
        .into_iter()
        .find(|a| a.assertion_id.as_deref() == Some(id)))
}

fn all_rows(g: &OpenGraph) -> Result<Vec<TripleAssertion>, String> {
    let page = g
        .store
        .assertions_after(0, None, None, 100_000)
        .map_err(|e| format!("assertions_after: {e}"))?;
    Ok(page.rows.into_iter().map(|(_, a)| a).collect())
}

/// Everything a refusal must leave unchanged.
#[derive(Debug, PartialEq)]
struct Snapshot {
    rows: Vec<TripleAssertion>,
    head: i64,
    journal_seq: i64,
}

fn snapshot(g: &OpenGraph) -> Result<Snapshot, String> {
    Ok(Snapshot {
        rows: all_rows(g)?,
        head: g_ok("log head", g.graph.backend().log_head())?,
        journal_seq: g
            .journal
            .current_seq()
            .map_err(|e| format!("journal seq: {e}"))?,
    })
}

fn unchanged(g: &OpenGraph, before: &Snapshot, what: &str) -> CheckResult {
    let after = snapshot(g)?;
    ensure(&after == before, || {
        format!("{what} wrote something: before {before:?}, after {after:?}")
    })
}

fn refused(g: &OpenGraph, r: &Revision, kind: ErrorKind) -> Result<String, String> {
    let before = snapshot(g)?;
    let msg = g_kind(
        &format!("apply {}", r.revision_id()),
        g.graph.apply_revision(r, false),
        kind,
    )?;
    unchanged(g, &before, &format!("refused revision {}", r.revision_id()))?;
    Ok(msg)
}

fn events(g: &OpenGraph, id: &str) -> Result<Vec<String>, String> {
    Ok(g_ok("history", g.graph.history(id, 200))?
        .iter()
        .map(|h| h.event.clone())
        .collect())
}

fn keys(refs: &[SourceRef]) -> Vec<String> {
    refs.iter().map(SourceRef::key).collect()
}

fn closures(g: &OpenGraph, id: &str) -> Result<Vec<am_journal::ClosureRecord>, String> {
    g.journal
        .closures(&ClosureFilter {
            assertion_id: Some(id.to_owned()),
            ..ClosureFilter::default()
        })
        .map_err(|e| format!("closures: {e}"))
}

fn base(g: &OpenGraph) -> CheckResult {
    apply(
        g,
        &rev(
            "r1",
            vec![claim("c1", "ex:dana", "schema:worksFor", "ex:acme")],
            prov(
                vec![
                    step("run-42", 3),
                    SourceRef::artifact("note-1-body").expect("artifact"),
                ],
                &[],
            ),
        ),
    )?;
    Ok(())
}

// -- step 1 and 2 ----------------------------------------------------------------

/// A revision naming neither a source nor a parent is refused before anything is
/// read or written.
pub fn ungrounded_revision_is_provenance_required_and_writes_nothing(
    f: &dyn GraphFactory,
) -> CheckResult {
    let g = open(f)?;
    let r = rev(
        "r0",
        vec![claim("c1", "ex:a", "ex:b", "ex:c")],
        prov(vec![], &[]),
    );
    refused(&g, &r, ErrorKind::ProvenanceRequired)?;
    ensure_eq(
        "applied_seq",
        g_ok("applied_seq", g.graph.backend().applied_seq("r0"))?,
        None,
    )
}

/// An asserted memory whose own provenance names nothing is refused, although
/// the revision is grounded.
pub fn ungrounded_asserted_memory_is_provenance_required_and_writes_nothing(
    f: &dyn GraphFactory,
) -> CheckResult {
    let g = open(f)?;
    let mut a = AssertOp::claim("ex:a", "ex:b", "ex:c");
    a.assertion.assertion_id = Some("c1".into());
    let r = rev(
        "r0",
        vec![
            claim("c0", "ex:x", "ex:y", "ex:z"),
            RevisionOp::Assert(a.with_provenance(prov(vec![], &[]))),
        ],
        sourced(),
    );
    refused(&g, &r, ErrorKind::ProvenanceRequired).map(|_| ())
}

/// getting-started §7: the revision is logged at seq 1; `history` names the
/// revision and its cause; `sources_of` returns the step and the artifact;
/// `derived_from_source(run)` finds the memory.
pub fn applied_revision_is_logged_with_history_and_sources(f: &dyn GraphFactory) -> CheckResult {
    let g = open(f)?;
    let out = apply(
        &g,
        &rev(
            "note-1-extract",
            vec![claim("c1", "ex:dana", "schema:worksFor", "ex:acme")],
            prov(
                vec![
                    step("run-42", 3),
                    SourceRef::artifact("note-1-body").expect("artifact"),
                ],
                &[],
            ),
        ),
    )?;
    ensure(out.applied, || format!("applied: {out:?}"))?;
    ensure_eq("seq", out.seq, 1)?;
    ensure_eq(
        "assertion_ids",
        out.assertion_ids.clone(),
        vec!["c1".to_owned()],
    )?;
    let h = g_ok("history", g.graph.history("c1", 200))?;
    ensure_eq("history length", h.len(), 1)?;
    ensure_eq("event", json!(h[0].event), json!("asserted"))?;
    ensure_eq("revision", json!(h[0].revision_id), json!("note-1-extract"))?;
    ensure_eq("cause", json!(h[0].cause), json!("ingest"))?;
    ensure_eq("at", json!(h[0].at), json!(out.recorded_at))?;
    let s = g_ok("sources_of", g.graph.sources_of("c1", true, 200))?;
    ensure_eq(
        "sources",
        keys(&s),
        vec![
            "step:run-42#3".to_owned(),
            "artifact:note-1-body".to_owned(),
        ],
    )?;
    let d = g_ok(
        "derived_from_source",
        g.graph
            .derived_from_source(&SourceRef::run("run-42").expect("run"), 200),
    )?;
    ensure_eq("derived_from_source", d, vec!["c1".to_owned()])?;
    let stored = row(&g, "c1")?.ok_or("c1 not stored")?;
    ensure_eq(
        "row provenance",
        Value::Object(stored.provenance),
        sourced_dict(),
    )
}

fn sourced_dict() -> Value {
    prov(
        vec![
            step("run-42", 3),
            SourceRef::artifact("note-1-body").expect("artifact"),
        ],
        &[],
    )
    .to_dict()
}

/// A revision id already in the log returns `applied = false` with the logged
/// outcome, embedding and writing nothing.
pub fn same_revision_id_again_returns_the_logged_outcome_and_writes_nothing(
    f: &dyn GraphFactory,
) -> CheckResult {
    let g = open(f)?;
    let r = rev(
        "r1",
        vec![
            claim("c1", "ex:dana", "schema:worksFor", "ex:acme"),
            claim("c2", "ex:dana", "schema:worksFor", "ex:acme"),
        ],
        sourced(),
    );
    let first = apply(&g, &r)?;
    let before = snapshot(&g)?;
    let again = apply(&g, &r)?;
    unchanged(&g, &before, "a replayed revision id")?;
    ensure(!again.applied, || format!("second apply: {again:?}"))?;
    ensure_eq("seq", again.seq, first.seq)?;
    ensure_eq("recorded_at", again.recorded_at, first.recorded_at)?;
    ensure_eq("assertion_ids", again.assertion_ids, first.assertion_ids)?;
    ensure_eq("re_observed", again.re_observed, vec!["c1".to_owned()])
}

// -- lineage ----------------------------------------------------------------------

/// A memory derived from a memory already in the graph is grounded.
pub fn derived_from_a_graph_memory_is_grounded(f: &dyn GraphFactory) -> CheckResult {
    let g = open(f)?;
    base(&g)?;
    let out = apply(
        &g,
        &rev(
            "r2",
            vec![derived("d1", "ex:summary", &["c1"])],
            prov(vec![], &["c1"]),
        ),
    )?;
    ensure_eq("assertion_ids", out.assertion_ids, vec!["d1".to_owned()])?;
    let s = g_ok("sources_of", g.graph.sources_of("d1", true, 200))?;
    ensure(keys(&s).contains(&"step:run-42#3".to_owned()), || {
        format!("transitive sources of d1: {:?}", keys(&s))
    })?;
    let own = g_ok("sources_of", g.graph.sources_of("d1", false, 200))?;
    ensure_eq("direct sources of d1", own.len(), 0)
}

/// Two new memories derived from each other, neither sourced, are refused.
pub fn derivation_cycle_is_provenance_required(f: &dyn GraphFactory) -> CheckResult {
    let g = open(f)?;
    base(&g)?;
    let r = rev(
        "r2",
        vec![derived("a", "ex:a", &["b"]), derived("b", "ex:b", &["a"])],
        prov(vec![], &["c1"]),
    );
    refused(&g, &r, ErrorKind::ProvenanceRequired).map(|_| ())
}

/// A memory naming itself as its parent is refused.
pub fn self_derivation_is_provenance_required(f: &dyn GraphFactory) -> CheckResult {
    let g = open(f)?;
    base(&g)?;
    let r = rev(
        "r2",
        vec![derived("a", "ex:a", &["a"])],
        prov(vec![], &["c1"]),
    );
    refused(&g, &r, ErrorKind::ProvenanceRequired).map(|_| ())
}

/// A parent that is no memory of the graph (nor of the revision) is a chain to
/// nothing.
pub fn chain_to_nothing_is_provenance_required(f: &dyn GraphFactory) -> CheckResult {
    let g = open(f)?;
    base(&g)?;
    let r = rev(
        "r2",
        vec![derived("a", "ex:a", &["nowhere"])],
        prov(vec![], &["c1"]),
    );
    refused(&g, &r, ErrorKind::ProvenanceRequired)?;
    let r = rev(
        "r3",
        vec![claim("x", "ex:x", "ex:y", "ex:z")],
        prov(vec![], &["nowhere"]),
    );
    refused(&g, &r, ErrorKind::ProvenanceRequired).map(|_| ())
}

/// Lineage never crosses owners: a memory derived from another owner's memory is
/// refused.
pub fn lineage_across_owners_is_provenance_required(f: &dyn GraphFactory) -> CheckResult {
    let g = open(f)?;
    base(&g)?;
    let r = rev_as(
        "r2",
        "ingest",
        Some("person:bob"),
        vec![derived("b1", "ex:b", &["c1"])],
        sourced(),
    );
    refused(&g, &r, ErrorKind::ProvenanceRequired).map(|_| ())
}

/// A close-only revision must cite a source or a memory other than the ones it
/// changes.
pub fn close_only_revision_citing_only_the_closed_memory_is_provenance_required(
    f: &dyn GraphFactory,
) -> CheckResult {
    let g = open(f)?;
    base(&g)?;
    let r = rev(
        "r2",
        vec![close("c1", "2026-03-01T00:00:00Z")],
        prov(vec![], &["c1"]),
    );
    refused(&g, &r, ErrorKind::ProvenanceRequired)?;
    apply(
        &g,
        &rev("r3", vec![close("c1", "2026-03-01T00:00:00Z")], sourced()),
    )
    .map(|_| ())
}

// -- close and narrow ------------------------------------------------------------

/// A close ends an open window at `valid_until`, writes its closure (with a
/// deterministic id, the revision in its provenance) with the revision, and
/// `active_at` agrees.
pub fn close_ends_an_open_window_and_writes_its_closure(f: &dyn GraphFactory) -> CheckResult {
    let g = open(f)?;
    base(&g)?;
    let out = apply(
        &g,
        &rev("r2", vec![close("c1", "2026-03-01T00:00:00Z")], sourced()),
    )?;
    ensure_eq("closed", out.closed, vec!["c1".to_owned()])?;
    let r = row(&g, "c1")?.ok_or("c1 missing")?;
    ensure_eq(
        "valid_until",
        r.valid_until,
        Some("2026-03-01T00:00:00.000000+00:00".to_owned()),
    )?;
    let cs = closures(&g, "c1")?;
    ensure_eq("closures", cs.len(), 1)?;
    ensure_eq(
        "closure id",
        cs[0].closure_id.clone(),
        am_graph::graph::closure_id("r2", 0),
    )?;
    ensure_eq(
        "closure revision",
        cs[0].provenance.get("revision_id").cloned(),
        Some(json!("r2")),
    )?;
    ensure_eq("closure kind", cs[0].kind.as_str(), "retract")?;
    let active = g
        .store
        .query(&TripleQuery {
            active_at: Some("2026-04-01T00:00:00Z".into()),
            ..TripleQuery::default()
        })
        .map_err(|e| e.to_string())?;
    ensure_eq("active after the close", active.len(), 0)?;
    let h = g_ok("history", g.graph.history("c1", 200))?;
    ensure_eq(
        "closed detail window_closed",
        h[1].detail["window_closed"].clone(),
        json!(true),
    )?;
    ensure_eq(
        "closed detail closure_id",
        h[1].detail["closure_id"].clone(),
        json!(cs[0].closure_id),
    )
}

/// A claim "valid until December" retracted in March ends in March.
pub fn close_ends_a_later_window_at_the_close(f: &dyn GraphFactory) -> CheckResult {
    let g = open(f)?;
    apply(
        &g,
        &rev(
            "r1",
            vec![claim_window(
                "c1",
                "ex:acme",
                Some("2026-01-01T00:00:00Z"),
                Some("2026-12-01T00:00:00Z"),
            )],
            sourced(),
        ),
    )?;
    apply(
        &g,
        &rev("r2", vec![close("c1", "2026-03-01T00:00:00Z")], sourced()),
    )?;
    let r = row(&g, "c1")?.ok_or("c1 missing")?;
    ensure_eq(
        "valid_until",
        r.valid_until,
        Some("2026-03-01T00:00:00.000000+00:00".to_owned()),
    )?;
    let h = g_ok("history", g.graph.history("c1", 200))?;
    ensure_eq(
        "previous_valid_until",
        h[1].detail["previous_valid_until"].clone(),
        json!("2026-12-01T00:00:00.000000+00:00"),
    )
}

/// An end already at or before the close's `valid_until` is kept.
pub fn close_keeps_an_end_already_before_it(f: &dyn GraphFactory) -> CheckResult {
    let g = open(f)?;
    apply(
        &g,
        &rev(
            "r1",
            vec![claim_window(
                "c1",
                "ex:acme",
                None,
                Some("2026-02-01T00:00:00Z"),
            )],
            sourced(),
        ),
    )?;
    let out = apply(
        &g,
        &rev("r2", vec![close("c1", "2026-05-01T00:00:00Z")], sourced()),
    )?;
    ensure_eq("closed", out.closed, vec!["c1".to_owned()])?;
    let r = row(&g, "c1")?.ok_or("c1 missing")?;
    ensure_eq(
        "valid_until",
        r.valid_until,
        Some("2026-02-01T00:00:00.000000+00:00".to_owned()),
    )?;
    let h = g_ok("history", g.graph.history("c1", 200))?;
    ensure_eq(
        "window_closed",
        h[1].detail["window_closed"].clone(),
        json!(false),
    )?;
    ensure_eq("closures", closures(&g, "c1")?.len(), 1)
}

/// A close before the claim's `valid_from` is `InvalidInput` and the whole
/// revision (its earlier asserts too) rolls back.
pub fn close_before_valid_from_is_invalid_and_rolls_back_the_revision(
    f: &dyn GraphFactory,
) -> CheckResult {
    let g = open(f)?;
    apply(
        &g,
        &rev(
            "r1",
            vec![claim_window(
                "c1",
                "ex:acme",
                Some("2026-02-01T00:00:00Z"),
                None,
            )],
            sourced(),
        ),
    )?;
    let r = rev(
        "r2",
        vec![
            claim("c2", "ex:x", "ex:y", "ex:z"),
            close("c1", "2026-01-01T00:00:00Z"),
        ],
        sourced(),
    );
    refused(&g, &r, ErrorKind::InvalidInput)?;
    ensure_eq("history of c2", events(&g, "c2")?.len(), 0)?;
    // An equal end (an empty window) is allowed.
    apply(
        &g,
        &rev("r3", vec![close("c1", "2026-02-01T00:00:00Z")], sourced()),
    )
    .map(|_| ())
}

/// A memory is closed once; a second close is reported in `skipped`.
pub fn a_memory_is_closed_once(f: &dyn GraphFactory) -> CheckResult {
    let g = open(f)?;
    base(&g)?;
    apply(
        &g,
        &rev("r2", vec![close("c1", "2026-03-01T00:00:00Z")], sourced()),
    )?;
    let out = apply(
        &g,
        &rev("r3", vec![close("c1", "2026-02-01T00:00:00Z")], sourced()),
    )?;
    ensure_eq("closed", out.closed.len(), 0)?;
    ensure_eq("skipped", out.skipped.len(), 1)?;
    ensure_eq("skipped op", out.skipped[0].op.clone(), "close".to_owned())?;
    ensure_eq("closures", closures(&g, "c1")?.len(), 1)?;
    let r = row(&g, "c1")?.ok_or("c1 missing")?;
    ensure_eq(
        "valid_until",
        r.valid_until,
        Some("2026-03-01T00:00:00.000000+00:00".to_owned()),
    )
}

/// A narrow moves a closed window earlier and records when, by which revision
/// and from what.
pub fn narrow_moves_a_closed_window_earlier(f: &dyn GraphFactory) -> CheckResult {
    let g = open(f)?;
    base(&g)?;
    apply(
        &g,
        &rev("r2", vec![close("c1", "2026-03-01T00:00:00Z")], sourced()),
    )?;
    let out = apply(
        &g,
        &rev("r3", vec![narrow("c1", "2026-02-01T00:00:00Z")], sourced()),
    )?;
    ensure_eq("narrowed", out.narrowed, vec!["c1".to_owned()])?;
    let r = row(&g, "c1")?.ok_or("c1 missing")?;
    ensure_eq(
        "valid_until",
        r.valid_until,
        Some("2026-02-01T00:00:00.000000+00:00".to_owned()),
    )?;
    let h = g_ok("history", g.graph.history("c1", 200))?;
    ensure_eq(
        "events",
        events(&g, "c1")?,
        vec![
            "asserted".to_owned(),
            "closed".to_owned(),
            "narrowed".to_owned(),
        ],
    )?;
    ensure_eq(
        "previous_valid_until",
        h[2].detail["previous_valid_until"].clone(),
        json!("2026-03-01T00:00:00.000000+00:00"),
    )?;
    ensure_eq(
        "reason",
        h[2].detail["reason"].clone(),
        json!("earlier note"),
    )
}

/// A narrow of an open window is `InvalidInput` and the whole revision rolls back.
pub fn narrow_of_an_open_window_rolls_back_the_whole_revision(f: &dyn GraphFactory) -> CheckResult {
    let g = open(f)?;
    base(&g)?;
    let r = rev(
        "r2",
        vec![
            claim("c2", "ex:x", "ex:y", "ex:z"),
            narrow("c1", "2026-02-01T00:00:00Z"),
        ],
        sourced(),
    );
    refused(&g, &r, ErrorKind::InvalidInput).map(|_| ())
}

/// A narrow at or after the current end changes nothing and is reported in
/// `skipped`.
pub fn narrow_at_or_after_the_end_is_skipped(f: &dyn GraphFactory) -> CheckResult {
    let g = open(f)?;
    base(&g)?;
    apply(
        &g,
        &rev("r2", vec![close("c1", "2026-03-01T00:00:00Z")], sourced()),
    )?;
    let out = apply(
        &g,
        &rev("r3", vec![narrow("c1", "2026-03-01T00:00:00Z")], sourced()),
    )?;
    ensure_eq("narrowed", out.narrowed.len(), 0)?;
    ensure_eq("skipped", out.skipped.len(), 1)?;
    ensure_eq("events", events(&g, "c1")?.len(), 2)
}

/// A close of a store row the graph never adopted is `ProvenanceRequired`.
pub fn close_of_a_store_row_never_adopted_is_provenance_required(
    f: &dyn GraphFactory,
) -> CheckResult {
    let g = open(f)?;
    g.store
        .add(&[TripleAssertion::new("ex:a", "ex:b", "ex:c").with_id("legacy")])
        .map_err(|e| e.to_string())?;
    let r = rev(
        "r1",
        vec![close("legacy", "2026-03-01T00:00:00Z")],
        sourced(),
    );
    refused(&g, &r, ErrorKind::ProvenanceRequired).map(|_| ())
}

/// A close of a memory asserted later in the same revision is refused; after it,
/// it applies.
pub fn close_before_its_assert_in_one_revision_is_provenance_required(
    f: &dyn GraphFactory,
) -> CheckResult {
    let g = open(f)?;
    let r = rev(
        "r1",
        vec![
            close("c1", "2026-03-01T00:00:00Z"),
            claim("c1", "ex:a", "ex:b", "ex:c"),
        ],
        sourced(),
    );
    refused(&g, &r, ErrorKind::ProvenanceRequired)?;
    let out = apply(
        &g,
        &rev(
            "r2",
            vec![
                claim("c1", "ex:a", "ex:b", "ex:c"),
                close("c1", "2026-03-01T00:00:00Z"),
            ],
            sourced(),
        ),
    )?;
    ensure_eq("closed", out.closed, vec!["c1".to_owned()])
}

fn legacy_row() -> TripleAssertion {
    let mut a = TripleAssertion::new("ex:a", "ex:b", "ex:c")
        .with_id("legacy")
        .with_scope("global")
        .with_owner("person:ada")
        .with_observed_at("2025-06-01T00:00:00Z");
    a.provenance.insert("run_id".into(), json!("run-7"));
    a
}

fn adopt_op(stored: &TripleAssertion) -> RevisionOp {
    let mut a = stored.clone();
    a.provenance = am_triples::JsonMap::new();
    RevisionOp::Assert(AssertOp::from_assertion(a))
}

/// An `import` revision adopts a store row carried as stored: the row's
/// provenance becomes the graph's, the old one stays in the history, and the row
/// can then be closed.
pub fn import_adopts_a_store_row_and_keeps_its_old_provenance(f: &dyn GraphFactory) -> CheckResult {
    let g = open(f)?;
    g.store.add(&[legacy_row()]).map_err(|e| e.to_string())?;
    let stored = row(&g, "legacy")?.ok_or("legacy missing")?;
    let out = apply(
        &g,
        &rev_as(
            "imp",
            "import",
            Some("person:ada"),
            vec![adopt_op(&stored)],
            sourced(),
        ),
    )?;
    ensure_eq(
        "assertion_ids",
        out.assertion_ids,
        vec!["legacy".to_owned()],
    )?;
    let now = row(&g, "legacy")?.ok_or("legacy missing")?;
    ensure_eq(
        "row provenance",
        Value::Object(now.provenance),
        sourced().to_dict(),
    )?;
    ensure_eq("rows", all_rows(&g)?.len(), 1)?;
    let h = g_ok("history", g.graph.history("legacy", 200))?;
    ensure_eq("adopted", h[0].detail["adopted"].clone(), json!(true))?;
    ensure_eq(
        "previous_provenance",
        h[0].detail["previous_provenance"].clone(),
        json!({"run_id": "run-7"}),
    )?;
    apply(
        &g,
        &rev(
            "r2",
            vec![close("legacy", "2026-03-01T00:00:00Z")],
            sourced(),
        ),
    )
    .map(|_| ())
}

/// Only `import` and `migration` revisions adopt.
pub fn adoption_by_another_cause_is_refused(f: &dyn GraphFactory) -> CheckResult {
    let g = open(f)?;
    g.store.add(&[legacy_row()]).map_err(|e| e.to_string())?;
    let stored = row(&g, "legacy")?.ok_or("legacy missing")?;
    let r = rev_as(
        "ing",
        "ingest",
        Some("person:ada"),
        vec![adopt_op(&stored)],
        sourced(),
    );
    refused(&g, &r, ErrorKind::InvalidInput).map(|_| ())
}

/// An adoption must carry the row as stored (everything but provenance equal).
pub fn adoption_of_a_changed_row_is_invalid_input(f: &dyn GraphFactory) -> CheckResult {
    let g = open(f)?;
    g.store.add(&[legacy_row()]).map_err(|e| e.to_string())?;
    let mut stored = row(&g, "legacy")?.ok_or("legacy missing")?;
    stored.object = "ex:changed".into();
    let r = rev_as(
        "imp",
        "import",
        Some("person:ada"),
        vec![adopt_op(&stored)],
        sourced(),
    );
    refused(&g, &r, ErrorKind::InvalidInput).map(|_| ())
}

// -- re-assertion and re-observation ----------------------------------------------

/// Re-asserting an id the graph holds with the same claim is a reported skip.
pub fn reasserting_a_held_id_with_the_same_claim_is_skipped(f: &dyn GraphFactory) -> CheckResult {
    let g = open(f)?;
    base(&g)?;
    let mut a = AssertOp::claim("ex:dana", "schema:worksFor", "ex:acme");
    a.assertion.assertion_id = Some("c1".into());
    a.assertion.valid_until = Some("2027-01-01T00:00:00Z".into());
    let out = apply(&g, &rev("r2", vec![RevisionOp::Assert(a)], sourced()))?;
    ensure_eq("assertion_ids", out.assertion_ids.len(), 0)?;
    ensure_eq("skipped", out.skipped.len(), 1)?;
    ensure_eq("rows", all_rows(&g)?.len(), 1)
}

/// Re-asserting a held id with other terms is `InvalidInput`.
pub fn reasserting_a_held_id_with_another_claim_is_invalid_input(
    f: &dyn GraphFactory,
) -> CheckResult {
    let g = open(f)?;
    base(&g)?;
    let r = rev(
        "r2",
        vec![claim("c1", "ex:dana", "schema:worksFor", "ex:globex")],
        sourced(),
    );
    refused(&g, &r, ErrorKind::InvalidInput).map(|_| ())
}

/// An open assert of a claim the graph holds open writes no second row: the held
/// memory gains the new sources and a `re-observed` event.
pub fn open_assert_of_a_held_open_claim_is_re_observed(f: &dyn GraphFactory) -> CheckResult {
    let g = open(f)?;
    base(&g)?;
    let out = apply(
        &g,
        &rev(
            "r2",
            vec![claim("c9", "ex:dana", "schema:worksFor", "ex:acme")],
            prov(vec![step("run-43", 1)], &[]),
        ),
    )?;
    ensure_eq("re_observed", out.re_observed, vec!["c1".to_owned()])?;
    ensure_eq("assertion_ids", out.assertion_ids.len(), 0)?;
    ensure_eq(
        "skipped why",
        out.skipped.first().map(|s| s.why.clone()),
        Some("re-observed".to_owned()),
    )?;
    ensure_eq("rows", all_rows(&g)?.len(), 1)?;
    ensure_eq(
        "events",
        events(&g, "c1")?,
        vec!["asserted".to_owned(), "re-observed".to_owned()],
    )?;
    let s = g_ok("sources_of", g.graph.sources_of("c1", false, 200))?;
    ensure(keys(&s).contains(&"step:run-43#1".to_owned()), || {
        format!("sources after re-observation: {:?}", keys(&s))
    })?;
    let logged = apply(
        &g,
        &rev(
            "r2",
            vec![claim("c9", "ex:dana", "schema:worksFor", "ex:acme")],
            prov(vec![step("run-43", 1)], &[]),
        ),
    )?;
    ensure_eq(
        "logged re_observed",
        logged.re_observed,
        vec!["c1".to_owned()],
    )
}

/// A re-observation records its lineage on the HELD memory, so a duplicate
/// naming the held memory in its `derived_from` would derive that memory from
/// itself: a self-derivation, refused, and nothing is written (no
/// `memory_id = from_id` derivation row).
pub fn re_observation_derived_from_the_held_memory_is_a_self_derivation(
    f: &dyn GraphFactory,
) -> CheckResult {
    let g = open(f)?;
    base(&g)?;
    let mut a = AssertOp::claim("ex:dana", "schema:worksFor", "ex:acme");
    a.assertion.assertion_id = Some("c9".to_owned());
    let dup = RevisionOp::Assert(a.with_provenance(prov(vec![], &["c1"])));
    let r = rev("r2", vec![dup], prov(vec![step("run-43", 1)], &[]));
    refused(&g, &r, ErrorKind::ProvenanceRequired)?;
    let parents = g_ok("parents", g.graph.backend().parents("c1", 200))?;
    ensure_eq("parents of c1", parents, Vec::<String>::new())?;
    ensure_eq("events", events(&g, "c1")?, vec!["asserted".to_owned()])
}

/// A re-observation whose `derived_from` names a memory derived from the held
/// one would close a cycle (held -> parent -> held): refused, nothing written.
pub fn re_observation_derived_from_a_descendant_of_the_held_memory_is_a_cycle(
    f: &dyn GraphFactory,
) -> CheckResult {
    let g = open(f)?;
    base(&g)?;
    apply(
        &g,
        &rev("r2", vec![derived("p", "ex:summary", &["c1"])], sourced()),
    )?;
    let mut a = AssertOp::claim("ex:dana", "schema:worksFor", "ex:acme");
    a.assertion.assertion_id = Some("c9".to_owned());
    let dup = RevisionOp::Assert(a.with_provenance(prov(vec![], &["p"])));
    let r = rev("r3", vec![dup], prov(vec![step("run-43", 1)], &[]));
    let msg = refused(&g, &r, ErrorKind::ProvenanceRequired)?;
    ensure(msg.contains("cycle"), || {
        format!("the refusal names the cycle: {msg}")
    })?;
    let parents = g_ok("parents", g.graph.backend().parents("c1", 200))?;
    ensure_eq("parents of c1", parents, Vec::<String>::new())
}

/// A duplicate inside one revision is re-observed, and a later op naming the
/// duplicate's id acts on the held memory.
pub fn duplicate_inside_one_revision_is_re_observed_and_later_ops_act_on_the_held(
    f: &dyn GraphFactory,
) -> CheckResult {
    let g = open(f)?;
    let out = apply(
        &g,
        &rev(
            "r1",
            vec![
                claim("c1", "ex:dana", "schema:worksFor", "ex:acme"),
                claim("c2", "ex:dana", "schema:worksFor", "ex:acme"),
                close("c2", "2026-03-01T00:00:00Z"),
            ],
            sourced(),
        ),
    )?;
    ensure_eq("assertion_ids", out.assertion_ids, vec!["c1".to_owned()])?;
    ensure_eq("re_observed", out.re_observed, vec!["c1".to_owned()])?;
    ensure_eq("closed", out.closed, vec!["c1".to_owned()])?;
    ensure_eq("rows", all_rows(&g)?.len(), 1)?;
    ensure(row(&g, "c2")?.is_none(), || "c2 was written".into())
}

/// A claim that was closed and is asserted again is a new memory.
pub fn closed_claim_asserted_again_is_a_new_memory(f: &dyn GraphFactory) -> CheckResult {
    let g = open(f)?;
    base(&g)?;
    apply(
        &g,
        &rev("r2", vec![close("c1", "2026-03-01T00:00:00Z")], sourced()),
    )?;
    let out = apply(
        &g,
        &rev(
            "r3",
            vec![claim("c3", "ex:dana", "schema:worksFor", "ex:acme")],
            sourced(),
        ),
    )?;
    ensure_eq("assertion_ids", out.assertion_ids, vec!["c3".to_owned()])?;
    ensure_eq("rows", all_rows(&g)?.len(), 2)
}

/// A bounded assert (with `valid_until`) of a held claim is a new memory.
pub fn bounded_assert_is_a_new_memory(f: &dyn GraphFactory) -> CheckResult {
    let g = open(f)?;
    base(&g)?;
    let out = apply(
        &g,
        &rev(
            "r2",
            vec![claim_window(
                "c3",
                "ex:acme",
                None,
                Some("2026-12-01T00:00:00Z"),
            )],
            sourced(),
        ),
    )?;
    ensure_eq("assertion_ids", out.assertion_ids, vec!["c3".to_owned()])?;
    ensure_eq("rows", all_rows(&g)?.len(), 2)
}

/// Two refs to one source with different digests are refused where they meet (a
/// held memory's recorded ref and a re-observing revision's).
pub fn conflicting_digest_on_a_held_source_is_refused(f: &dyn GraphFactory) -> CheckResult {
    let g = open(f)?;
    let digest = |d: &str| {
        SourceRef::from_dict(&json!({"kind": "artifact", "artifact_id": "a1", "digest": d}))
            .expect("artifact ref")
    };
    apply(
        &g,
        &rev(
            "r1",
            vec![claim("c1", "ex:a", "ex:b", "ex:c")],
            prov(vec![digest(&"a".repeat(64))], &[]),
        ),
    )?;
    let r = rev(
        "r2",
        vec![claim("c2", "ex:a", "ex:b", "ex:c")],
        prov(vec![digest(&"b".repeat(64))], &[]),
    );
    refused(&g, &r, ErrorKind::InvalidInput).map(|_| ())
}

// -- time -------------------------------------------------------------------------

/// Record time is the graph's clock read under the write lock, never the
/// revision's; `replay = true` keeps the logged value.
pub fn record_time_is_the_graphs_clock_and_replay_keeps_the_logged_one(
    f: &dyn GraphFactory,
) -> CheckResult {
    let g = open(f)?;
    let OpenGraph {
        graph,
        store,
        journal,
        guard,
    } = g;
    let g = OpenGraph {
        graph: graph.with_clock(am_triples::fixed_clock(
            am_triples::Timestamp::parse("2030-01-02T03:04:05Z").map_err(|e| e.to_string())?,
        )),
        store,
        journal,
        guard,
    };
    let mut draft = RevisionDraft {
        revision_id: "r1".into(),
        scope: "global".into(),
        owner_id: Some("person:ada".into()),
        cause: "ingest".into(),
        occurred_at: T0.into(),
        ops: vec![claim("c1", "ex:a", "ex:b", "ex:c")],
        provenance: sourced(),
        recorded_at: Some("1999-01-01T00:00:00Z".into()),
        summary: None,
    };
    let out = apply(
        &g,
        &Revision::new(draft.clone()).map_err(|e| e.to_string())?,
    )?;
    ensure_eq(
        "recorded_at",
        out.recorded_at,
        "2030-01-02T03:04:05.000000+00:00".to_owned(),
    )?;
    draft.revision_id = "r2".into();
    draft.ops = vec![claim("c2", "ex:a", "ex:b", "ex:d")];
    let r2 = Revision::new(draft).map_err(|e| e.to_string())?;
    let out = g_ok("replay apply", g.graph.apply_revision(&r2, true))?;
    ensure_eq(
        "replayed recorded_at",
        out.recorded_at,
        "1999-01-01T00:00:00.000000+00:00".to_owned(),
    )?;
    let (revs, _) = g_ok("revisions", g.graph.revisions(None, 10))?;
    ensure_eq(
        "logged recorded_at",
        revs.iter()
            .map(|r| r.recorded_at().to_owned())
            .collect::<Vec<_>>(),
        vec![
            "2030-01-02T03:04:05.000000+00:00".to_owned(),
            "1999-01-01T00:00:00.000000+00:00".to_owned(),
        ],
    )
}

// -- reads -----------------------------------------------------------------------

/// Every read refuses a limit of 0 or a negative and clamps a large one to
/// `MAX_READ_LIMIT`.
pub fn reads_refuse_a_limit_below_one_and_clamp_large_ones(f: &dyn GraphFactory) -> CheckResult {
    let g = open(f)?;
    base(&g)?;
    let run = SourceRef::run("run-42").expect("run");
    for limit in [0, -1] {
        g_kind(
            "history",
            g.graph.history("c1", limit),
            ErrorKind::InvalidInput,
        )?;
        g_kind(
            "sources_of",
            g.graph.sources_of("c1", true, limit),
            ErrorKind::InvalidInput,
        )?;
        g_kind(
            "derived_from_source",
            g.graph.derived_from_source(&run, limit),
            ErrorKind::InvalidInput,
        )?;
        g_kind(
            "revisions",
            g.graph.revisions(None, limit),
            ErrorKind::InvalidInput,
        )?;
        g_kind("repair", g.graph.repair(limit), ErrorKind::InvalidInput)?;
    }
    ensure_eq(
        "history clamped",
        g_ok("history", g.graph.history("c1", i64::MAX))?.len(),
        1,
    )?;
    let many: Vec<Option<&str>> = vec![Some("x"); am_graph::MAX_READ_LIMIT + 1];
    g_kind(
        "names_ref",
        g.graph.names_ref(&run, &many),
        ErrorKind::InvalidInput,
    )
    .map(|_| ())
}

/// An unknown id has no history; a record's graph id resolves to its digest
/// assertion.
pub fn history_of_an_unknown_id_is_empty_and_a_graph_id_resolves(
    f: &dyn GraphFactory,
) -> CheckResult {
    let g = open(f)?;
    ensure_eq(
        "unknown",
        g_ok("history", g.graph.history("nope", 10))?.len(),
        0,
    )?;
    let mut a = AssertOp::claim(
        "ex:record-1",
        am_graph::DIGEST_PREDICATE,
        "The pool failed.",
    );
    a.assertion.assertion_id = Some("digest-1".into());
    apply(&g, &rev("r1", vec![RevisionOp::Assert(a)], sourced()))?;
    let h = g_ok("history", g.graph.history("ex:record-1", 10))?;
    ensure_eq("graph id history", h.len(), 1)?;
    ensure_eq(
        "sources via graph id",
        g_ok("sources_of", g.graph.sources_of("ex:record-1", false, 10))?.len(),
        1,
    )
}

/// `sources_of` names the refs of the memory's own provenance and of every
/// revision that asserted or re-observed it; transitively, its ancestors'; and
/// labelled, where each came from.
pub fn sources_of_includes_revision_refs_and_walks_lineage(f: &dyn GraphFactory) -> CheckResult {
    let g = open(f)?;
    base(&g)?;
    let mut a = AssertOp::claim("ex:dana", "ex:note", "ex:summary");
    a.assertion.assertion_id = Some("d1".into());
    apply(
        &g,
        &rev(
            "r2",
            vec![RevisionOp::Assert(a.with_provenance(prov(vec![], &["c1"])))],
            prov(vec![step("run-50", 2)], &[]),
        ),
    )?;
    let direct = g_ok("sources_of", g.graph.sources_of("d1", false, 200))?;
    ensure_eq("direct", keys(&direct), vec!["step:run-50#2".to_owned()])?;
    let all = g_ok("sources_of", g.graph.sources_of("d1", true, 200))?;
    ensure_eq(
        "transitive",
        keys(&all),
        vec![
            "step:run-50#2".to_owned(),
            "step:run-42#3".to_owned(),
            "artifact:note-1-body".to_owned(),
        ],
    )?;
    ensure_eq(
        "limit",
        g_ok("sources_of", g.graph.sources_of("d1", true, 2))?.len(),
        2,
    )?;
    let labelled = g_ok("labelled", g.graph.sources_of_labelled("d1", true, 200))?;
    ensure_eq("via", labelled[0].via.clone(), "revision".to_owned())?;
    ensure_eq("memory", labelled[1].memory_id.clone(), "c1".to_owned())?;
    ensure_eq("revision", labelled[1].revision_id.clone(), "r1".to_owned())
}

/// `derived_from_source`: a run ref matches every ref stamped with that run, once
/// per memory, then everything derived from them.
pub fn derived_from_source_by_run_matches_everything_stamped_with_it(
    f: &dyn GraphFactory,
) -> CheckResult {
    let g = open(f)?;
    let art =
        SourceRef::from_dict(&json!({"kind": "artifact", "artifact_id": "a1", "run_id": "run-9"}))
            .expect("artifact");
    apply(
        &g,
        &rev(
            "r1",
            vec![claim("m1", "ex:a", "ex:b", "ex:1")],
            prov(vec![step("run-9", 1), step("run-9", 2)], &[]),
        ),
    )?;
    apply(
        &g,
        &rev(
            "r2",
            vec![claim("m2", "ex:a", "ex:b", "ex:2")],
            prov(vec![art.clone()], &[]),
        ),
    )?;
    apply(
        &g,
        &rev(
            "r3",
            vec![claim("m3", "ex:a", "ex:b", "ex:3")],
            prov(vec![SourceRef::run("run-9").expect("run")], &[]),
        ),
    )?;
    apply(
        &g,
        &rev(
            "r4",
            vec![claim("m4", "ex:a", "ex:b", "ex:4")],
            prov(vec![step("run-10", 1)], &[]),
        ),
    )?;
    apply(
        &g,
        &rev(
            "r5",
            vec![derived("d1", "ex:d", &["m2"])],
            prov(vec![step("run-11", 1)], &[]),
        ),
    )?;
    let by_run = g_ok(
        "by run",
        g.graph
            .derived_from_source(&SourceRef::run("run-9").expect("run"), 200),
    )?;
    ensure_eq(
        "by run",
        by_run,
        vec![
            "m1".to_owned(),
            "m2".to_owned(),
            "m3".to_owned(),
            "d1".to_owned(),
        ],
    )?;
    let by_step = g_ok(
        "by step",
        g.graph.derived_from_source(&step("run-9", 2), 200),
    )?;
    ensure_eq("by step", by_step, vec!["m1".to_owned()])?;
    let by_art = g_ok("by artifact", g.graph.derived_from_source(&art, 200))?;
    ensure_eq(
        "by artifact",
        by_art,
        vec!["m2".to_owned(), "d1".to_owned()],
    )
}

/// `names_ref` is true only when a memory of one of the owners names the source;
/// `None` is the no-owner partition; no owners is false.
pub fn names_ref_is_the_owner_gate(f: &dyn GraphFactory) -> CheckResult {
    let g = open(f)?;
    base(&g)?;
    apply(
        &g,
        &rev_as(
            "r2",
            "ingest",
            None,
            vec![claim("n1", "ex:x", "ex:y", "ex:z")],
            prov(vec![step("run-77", 1)], &[]),
        ),
    )?;
    let s = step("run-42", 3);
    ensure_eq(
        "ada",
        g_ok("names_ref", g.graph.names_ref(&s, &[Some("person:ada")]))?,
        true,
    )?;
    ensure_eq(
        "bob",
        g_ok("names_ref", g.graph.names_ref(&s, &[Some("person:bob")]))?,
        false,
    )?;
    ensure_eq(
        "none",
        g_ok("names_ref", g.graph.names_ref(&s, &[]))?,
        false,
    )?;
    let run = SourceRef::run("run-42").expect("run");
    ensure_eq(
        "run",
        g_ok(
            "names_ref",
            g.graph
                .names_ref(&run, &[Some("person:bob"), Some("person:ada")]),
        )?,
        true,
    )?;
    let s77 = step("run-77", 1);
    ensure_eq(
        "no owner",
        g_ok("names_ref", g.graph.names_ref(&s77, &[None]))?,
        true,
    )?;
    ensure_eq(
        "no owner as ''",
        g_ok("names_ref", g.graph.names_ref(&s77, &[Some("")]))?,
        true,
    )?;
    ensure_eq(
        "no owner vs ada",
        g_ok("names_ref", g.graph.names_ref(&s77, &[Some("person:ada")]))?,
        false,
    )
}

/// The change feed pages in log order, returns the last seq as its cursor
/// (unchanged when nothing is new), and refuses a cursor that is not a number
/// or lies beyond the head.
pub fn revisions_feed_is_lossless_and_refuses_bad_cursors(f: &dyn GraphFactory) -> CheckResult {
    let g = open(f)?;
    for i in 0..5 {
        apply(
            &g,
            &rev(
                &format!("r{i}"),
                vec![claim(&format!("c{i}"), "ex:a", "ex:b", &format!("ex:{i}"))],
                sourced(),
            ),
        )?;
    }
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let (page, next) = g_ok("revisions", g.graph.revisions(cursor.as_deref(), 2))?;
        if page.is_empty() {
            ensure_eq("cursor unchanged", Some(next.clone()), cursor.clone())?;
            break;
        }
        seen.extend(page.iter().map(|r| r.revision_id().to_owned()));
        cursor = Some(next);
    }
    ensure_eq(
        "feed",
        seen,
        (0..5).map(|i| format!("r{i}")).collect::<Vec<_>>(),
    )?;
    ensure_eq("cursor", cursor, Some("5".to_owned()))?;
    g_kind(
        "not a number",
        g.graph.revisions(Some("abc"), 10),
        ErrorKind::InvalidInput,
    )?;
    g_kind(
        "beyond head",
        g.graph.revisions(Some("6"), 10),
        ErrorKind::InvalidInput,
    )?;
    let (page, _) = g_ok("revisions", g.graph.revisions(Some("3"), 10))?;
    ensure_eq("after 3", page.len(), 2)?;
    let (again, _) = g_ok("revisions", g.graph.revisions(None, 1))?;
    ensure_eq("first revision's ops", again[0].ops().len(), 1)
}

/// `replay_into` re-applies the log in order into another graph (keeping record
/// times and adoptions), reproducing history and sources; a second replay is a
/// no-op.
pub fn replay_into_reproduces_the_graph_and_resumes(f: &dyn GraphFactory) -> CheckResult {
    let g = open(f)?;
    g.store.add(&[legacy_row()]).map_err(|e| e.to_string())?;
    let stored = row(&g, "legacy")?.ok_or("legacy missing")?;
    base(&g)?;
    apply(
        &g,
        &rev_as(
            "imp",
            "import",
            Some("person:ada"),
            vec![adopt_op(&stored)],
            sourced(),
        ),
    )?;
    apply(
        &g,
        &rev(
            "r2",
            vec![
                derived("d1", "ex:d", &["c1"]),
                claim("c9", "ex:dana", "schema:worksFor", "ex:acme"),
            ],
            prov(vec![step("run-50", 1)], &[]),
        ),
    )?;
    apply(
        &g,
        &rev("r3", vec![close("c1", "2026-03-01T00:00:00Z")], sourced()),
    )?;
    apply(
        &g,
        &rev("r4", vec![narrow("c1", "2026-02-01T00:00:00Z")], sourced()),
    )?;
    let t = open(f)?;
    let n = g_ok("replay_into", g.graph.replay_into(&t.graph))?;
    ensure_eq("replayed", n, 5)?;
    for id in ["c1", "d1", "legacy"] {
        ensure_eq(
            &format!("history of {id}"),
            g_ok("history", t.graph.history(id, 200))?,
            g_ok("history", g.graph.history(id, 200))?,
        )?;
        ensure_eq(
            &format!("sources of {id}"),
            g_ok("sources", t.graph.sources_of_labelled(id, true, 200))?,
            g_ok("sources", g.graph.sources_of_labelled(id, true, 200))?,
        )?;
        ensure_eq(&format!("row {id}"), row(&t, id)?, row(&g, id)?)?;
    }
    ensure_eq("closures", closures(&t, "c1")?, closures(&g, "c1")?)?;
    let (a, ca) = g_ok("revisions", g.graph.revisions(None, 100))?;
    let (b, cb) = g_ok("revisions", t.graph.revisions(None, 100))?;
    ensure_eq("log", b, a)?;
    ensure_eq("cursor", cb, ca)?;
    ensure_eq(
        "second replay",
        g_ok("replay_into", g.graph.replay_into(&t.graph))?,
        0,
    )
}

/// Every `MemoryGraph` over one store object sees the same graph.
pub fn graph_state_is_shared_by_every_graph_over_one_store(f: &dyn GraphFactory) -> CheckResult {
    let g = open(f)?;
    base(&g)?;
    let other = g_ok("reopen", f.reopen(&g))?;
    ensure_eq(
        "history via another graph",
        other.history("c1", 10).map_err(|e| e.to_string())?.len(),
        1,
    )?;
    let again = other
        .apply_revision(
            &rev(
                "r1",
                vec![claim("c1", "ex:dana", "schema:worksFor", "ex:acme")],
                sourced(),
            ),
            false,
        )
        .map_err(|e| e.to_string())?;
    ensure(!again.applied, || "the other graph re-applied r1".into())?;
    other
        .apply_revision(
            &rev("r2", vec![close("c1", "2026-03-01T00:00:00Z")], sourced()),
            false,
        )
        .map_err(|e| e.to_string())?;
    ensure_eq("events via the first graph", events(&g, "c1")?.len(), 2)
}

/// With the journal committed or appended with the revision, `repair` has nothing
/// to do.
pub fn repair_has_nothing_to_do_after_a_clean_apply(f: &dyn GraphFactory) -> CheckResult {
    let g = open(f)?;
    base(&g)?;
    apply(
        &g,
        &rev("r2", vec![close("c1", "2026-03-01T00:00:00Z")], sourced()),
    )?;
    ensure_eq(
        "pending",
        g_ok("pending", g.graph.backend().pending_journal(10))?.len(),
        0,
    )?;
    ensure_eq("repair", g_ok("repair", g.graph.repair(1000))?, 0)?;
    ensure_eq("closures", closures(&g, "c1")?.len(), 1)
}
