//! Observing a mind (am-system `observe/`): the replay stream, the recall
//! diagnostics, the identity card and the diary's reads (`diary.rs`). All
//! are pure reads.

pub(super) mod diary;

use crate::error::OpResult;
use crate::home::Home;
use crate::verb::{Answer, Cadence, CallShape, Family, Verb};
use am_system::observe::card::{EntityCard, IdentityCard};
use am_system::observe::diagnostics::{
    AbsenceDiagnosis, OriginDiversity, OriginDiversityReport, RecallExplanation, RecallHistory,
    RecallHistoryReport, RecentRecords, RecentRecordsReport, absence_diagnosis, explain_recall,
    origin_diversity, stable_render_order,
};
use am_system::observe::replay::{ExportReplay, ReplayEnvelope};
use am_system::seam::MemoryHandle;
use serde::Deserialize;
use serde_json::{Value, json};

/// `explain_recall`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExplainArgs {
    record_id: String,
    /// One recall's trace (absent: the record's latest).
    #[serde(default)]
    trace_id: Option<String>,
}

/// `absence_diagnosis`' arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct AbsenceArgs {
    record_id: String,
    scope: String,
    #[serde(default)]
    owner_id: String,
}

/// `stable_render_order`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RenderArgs {
    handles: Vec<MemoryHandle>,
}

/// `export_replay`'s arguments: the spec's, and this port's `limit` (at
/// most this many envelopes; a host goes on from the last one's `seq` as the
/// next call's `since_seq`, the spec's own exclusive cursor).
#[derive(Debug, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub(crate) struct ExportReplayArgs {
    #[serde(flatten)]
    replay: ExportReplay,
    /// At most this many envelopes (a positive int; absent: every one).
    #[serde(default)]
    limit: Option<std::num::NonZeroUsize>,
}

impl<'de> Deserialize<'de> for ExportReplayArgs {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        let mut map = am_triples::JsonMap::deserialize(d)?;
        let limit =
            match map.remove("limit") {
                None | Some(Value::Null) => None,
                Some(v) => Some(serde_json::from_value::<std::num::NonZeroUsize>(v).map_err(
                    |e| D::Error::custom(format!("argument limit: {e} (a positive int)")),
                )?),
            };
        let replay =
            serde_path_to_error::deserialize(crate::nulls::NullIsAbsent(Value::Object(map)))
                .map_err(|e| {
                    let path = e.path().to_string();
                    let inner = e.into_inner();
                    if path == "." {
                        D::Error::custom(inner)
                    } else {
                        D::Error::custom(format!("argument {path}: {inner}"))
                    }
                })?;
        Ok(ExportReplayArgs { replay, limit })
    }
}

fn export_replay(home: &mut dyn Home, _: &crate::Host, a: ExportReplayArgs) -> OpResult<Answer> {
    let stream = home.system()?.export_replay(&a.replay)?;
    let envelopes = match a.limit {
        Some(n) => stream.take(n.get()).collect::<Result<Vec<_>, _>>()?,
        None => stream.collect::<Result<Vec<_>, _>>()?,
    };
    Answer::of(&envelopes)
}

fn render_order(_: &mut dyn Home, _: &crate::Host, a: RenderArgs) -> OpResult<Answer> {
    let ordered: Vec<Value> = stable_render_order(&a.handles)
        .into_iter()
        .map(|(h, rank)| json!([h, rank]))
        .collect();
    Ok(Answer::value(Value::Array(ordered)))
}

pub(super) fn verbs() -> Vec<Verb> {
    let f = Family::Observe;
    let sj = CallShape::StoreJournalFunction;
    vec![
        Verb::declare(
            "export_replay",
            f,
            "The journal as replay envelopes (the replay stream), after since_seq; at most limit of them.",
        )
        .answers::<Vec<ReplayEnvelope>>()
        .run(export_replay),
        Verb::declare(
            "recall_history",
            f,
            "A record's recall history: when it surfaced, was used, or was dropped.",
        )
        .object()
        .answers::<RecallHistoryReport>()
        .run(|h, _, a: RecallHistory| Answer::of(&h.system()?.recall_history(&a)?)),
        Verb::declare(
            "explain_recall",
            f,
            "Why a record did or did not surface in a recall.",
        )
.cadence(Cadence::GlanceRead, &["pure-read", "reports-only-what-traces-recorded", "explaining-is-not-use"])
        .shape(sj)
        .object()
        .answers::<RecallExplanation>()
        .run(|h, _, a: ExplainArgs| {
            let sys = h.system()?;
            Answer::of(&explain_recall(
                sys.store().as_ref(),
                sys.journal().as_ref(),
                &a.record_id,
                a.trace_id.as_deref(),
            )?)
        }),
        Verb::declare(
            "absence_diagnosis",
            f,
            "Why a record cannot surface in a scope pair (closed, hidden, out of scope, ...).",
        )
        .shape(sj)
        .object()
        .answers::<AbsenceDiagnosis>()
        .run(|h, _, a: AbsenceArgs| {
            let sys = h.system()?;
            Answer::of(&absence_diagnosis(
                sys.store().as_ref(),
                sys.journal().as_ref(),
                &a.record_id,
                (&a.scope, &a.owner_id),
            )?)
        }),
        Verb::declare(
            "origin_diversity",
            f,
            "How diverse a shelf's origins are (or null under min_counted).",
        )
        .shape(CallShape::PureFunction)
        .object()
        .answers::<Option<OriginDiversityReport>>()
        .run(|_, _, a: OriginDiversity| Answer::of(&origin_diversity(&a)?)),
        Verb::declare(
            "stable_render_order",
            f,
            "Handles in a stable render order, each with its rank.",
        )
        .shape(CallShape::PureFunction)
        .answers::<Vec<(MemoryHandle, usize)>>()
        .run(render_order),
        Verb::declare(
            "recent_records",
            f,
            "The records formed since an instant in scope pairs.",
        )
        .object()
        .answers::<RecentRecordsReport>()
        .run(|h, _, a: RecentRecords| Answer::of(&h.system()?.recent_records(&a)?)),
        Verb::declare(
            "entity_card",
            f,
            "The entity's identity card: who it is, what it holds, what it feels.",
        )
        .object()
        .answers::<IdentityCard>()
        .run(|h, _, a: EntityCard| Answer::of(&h.system()?.entity_card(&a)?)),
    ]
    .into_iter()
    .chain(diary::verbs())
    .collect()
}
