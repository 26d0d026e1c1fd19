//! The memory graph: `apply_revision`, `history`, `sources_of`,
//! `names_ref`, `derived_from_source`, `revisions`, `repair`, `replay_into`,
//! with the spec's argument names and `to_dict()` answers. The graph is
//! opened per call over the front end's home ([`Home::graph`]).
//!
//! Spec: api.md "The memory graph: revisions and provenance".

use crate::error::{OpError, OpResult};
use crate::home::Home;
use crate::verb::{Answer, CallShape, Family, Verb, to_json};
use am_graph::{
    DEFAULT_READ_LIMIT, DEFAULT_REVISION_PAGE, HistoryEntry, LabelledSource, MAX_READ_LIMIT,
    Revision, RevisionResult, SourceRef, check_read_limit_json,
};
use serde::Deserialize;
use serde_json::{Value, json};

fn limit(v: Option<Value>, default: usize) -> OpResult<i64> {
    match v {
        None | Some(Value::Null) => Ok(i64::try_from(default).unwrap_or(1)),
        Some(v) => check_read_limit_json(&v)
            .map(|n| i64::try_from(n).unwrap_or(1))
            .map_err(|e| OpError::from(e).context("limit")),
    }
}

fn source(v: &Value, op: &str) -> OpResult<SourceRef> {
    SourceRef::from_dict(v).map_err(|e| OpError::from(e).context(&format!("{op}: ref")))
}

fn yes() -> bool {
    true
}

// A `limit` stays JSON so the graph's own rule (`check_read_limit_json`: a
// positive int, never a bool or a float) refuses it; a `Revision` and a
// `SourceRef` are read by their `from_dict`, which refuse unknown keys.

/// `apply_revision`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ApplyRevisionArgs {
    #[schemars(with = "Revision")]
    revision: Value,
    #[serde(default)]
    replay: bool,
}

/// `history`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct HistoryArgs {
    memory_id: String,
    /// A positive int (default 200, the graph's read limit; at most 1000).
    #[serde(default)]
    #[schemars(with = "Option<u32>", range(min = 1, max = 1000))]
    limit: Option<Value>,
}

/// `sources_of`' arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SourcesOfArgs {
    memory_id: String,
    #[serde(default = "yes")]
    transitive: bool,
    /// A positive int (default 200, the graph's read limit; at most 1000).
    #[serde(default)]
    #[schemars(with = "Option<u32>", range(min = 1, max = 1000))]
    limit: Option<Value>,
    /// Answer each source with its label.
    #[serde(default)]
    labelled: bool,
}

/// `names_ref`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NamesRefArgs {
    #[serde(rename = "ref")]
    #[schemars(with = "SourceRef")]
    source: Value,
    owner_ids: Vec<Option<String>>,
}

/// `derived_from_source`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DerivedFromSourceArgs {
    #[serde(rename = "ref")]
    #[schemars(with = "SourceRef")]
    source: Value,
    /// A positive int (default 200, the graph's read limit; at most 1000).
    #[serde(default)]
    #[schemars(with = "Option<u32>", range(min = 1, max = 1000))]
    limit: Option<Value>,
}

/// `revisions`' arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RevisionsArgs {
    #[serde(default)]
    after: Option<String>,
    /// A positive int (default 100, the revision page; at most 1000).
    #[serde(default)]
    #[schemars(with = "Option<u32>", range(min = 1, max = 1000))]
    limit: Option<Value>,
}

/// `repair`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RepairArgs {
    /// A positive int (default 1000, the read maximum).
    #[serde(default)]
    #[schemars(with = "Option<u32>", range(min = 1, max = 1000))]
    limit: Option<Value>,
}

/// `replay_into`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReplayIntoArgs {
    /// The path of the SQLite home the log is replayed into.
    target_home: String,
}

/// `sources_of`' answer: the sources, labelled when asked.
#[derive(schemars::JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum SourcesAnswer {
    Plain(Vec<SourceRef>),
    Labelled(Vec<LabelledSource>),
}

fn apply_revision(home: &mut dyn Home, _: &crate::Host, a: ApplyRevisionArgs) -> OpResult<Answer> {
    let rev = Revision::from_dict(&a.revision)
        .map_err(|e| OpError::from(e).context("apply_revision: revision"))?;
    let g = home.graph()?;
    Ok(Answer::value(g.apply_revision(&rev, a.replay)?.to_dict()))
}

fn sources_of(home: &mut dyn Home, _: &crate::Host, a: SourcesOfArgs) -> OpResult<Answer> {
    let n = limit(a.limit, DEFAULT_READ_LIMIT)?;
    let g = home.graph()?;
    if a.labelled {
        Ok(Answer::value(to_json(&g.sources_of_labelled(
            &a.memory_id,
            a.transitive,
            n,
        )?)?))
    } else {
        let refs = g.sources_of(&a.memory_id, a.transitive, n)?;
        Ok(Answer::value(Value::Array(
            refs.iter().map(SourceRef::to_dict).collect(),
        )))
    }
}

fn names_ref(home: &mut dyn Home, _: &crate::Host, a: NamesRefArgs) -> OpResult<Answer> {
    let r = source(&a.source, "names_ref")?;
    if a.owner_ids.len() > MAX_READ_LIMIT {
        return Err(OpError::invalid(format!(
            "names_ref takes at most {MAX_READ_LIMIT} owner ids, got {}",
            a.owner_ids.len()
        )));
    }
    let borrowed: Vec<Option<&str>> = a.owner_ids.iter().map(Option::as_deref).collect();
    Ok(Answer::value(json!(
        home.graph()?.names_ref(&r, &borrowed)?
    )))
}

fn derived_from_source(
    home: &mut dyn Home,
    _: &crate::Host,
    a: DerivedFromSourceArgs,
) -> OpResult<Answer> {
    let r = source(&a.source, "derived_from_source")?;
    let n = limit(a.limit, DEFAULT_READ_LIMIT)?;
    Ok(Answer::value(json!(
        home.graph()?.derived_from_source(&r, n)?
    )))
}

fn revisions(home: &mut dyn Home, _: &crate::Host, a: RevisionsArgs) -> OpResult<Answer> {
    let n = limit(a.limit, DEFAULT_REVISION_PAGE)?;
    let (revs, cursor) = home.graph()?.revisions(a.after.as_deref(), n)?;
    Ok(Answer::value(json!([
        revs.iter().map(Revision::to_dict).collect::<Vec<_>>(),
        cursor
    ])))
}

fn replay_into(home: &mut dyn Home, _: &crate::Host, a: ReplayIntoArgs) -> OpResult<Answer> {
    let g = home.graph()?;
    let t = home.graph_at(&a.target_home)?;
    Ok(Answer::value(json!(g.replay_into(&t)?)))
}

pub(super) fn verbs() -> Vec<Verb> {
    let f = Family::Graph;
    let g = CallShape::GraphMethod;
    vec![
        Verb::declare(
            "apply_revision",
            f,
            "Apply a graph revision (idempotent by revision_id) with its provenance.",
        )
        .writes()
        .shape(g)
        .object()
        .answers::<RevisionResult>()
        .run(apply_revision),
        Verb::declare(
            "history",
            f,
            "A memory's history: every revision event that touched it.",
        )
        .shape(g)
        .answers::<Vec<HistoryEntry>>()
        .run(|h, _, a: HistoryArgs| {
            let n = limit(a.limit, DEFAULT_READ_LIMIT)?;
            Answer::of(&h.graph()?.history(&a.memory_id, n)?)
        }),
        Verb::declare(
            "sources_of",
            f,
            "The sources a memory derives from (transitively by default).",
        )
        .shape(g)
        .answers::<SourcesAnswer>()
        .run(sources_of),
        Verb::declare(
            "names_ref",
            f,
            "Whether any revision of these owners names a source ref.",
        )
        .shape(g)
        .answers::<bool>()
        .run(names_ref),
        Verb::declare(
            "derived_from_source",
            f,
            "The memories derived from a source ref.",
        )
        .shape(g)
        .answers::<Vec<String>>()
        .run(derived_from_source),
        Verb::declare(
            "revisions",
            f,
            "A page of the revision log after a cursor, with the next cursor.",
        )
        .shape(g)
        .answers::<(Vec<Revision>, String)>()
        .run(revisions),
        Verb::declare(
            "repair",
            f,
            "Re-apply revisions the journal logged but the store lacks; answers how many.",
        )
        .writes()
        .shape(g)
        .answers::<usize>()
        .run(|h, _, a: RepairArgs| {
            let n = limit(a.limit, MAX_READ_LIMIT)?;
            Ok(Answer::value(json!(h.graph()?.repair(n)?)))
        }),
        Verb::declare(
            "replay_into",
            f,
            "Replay the revision log into another home; answers how many revisions applied.",
        )
        .writes()
        .shape(g)
        .answers::<usize>()
        .run(replay_into),
    ]
}
