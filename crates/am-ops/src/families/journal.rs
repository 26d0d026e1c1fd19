//! The journal's position (`current_seq`, `seq_at`) and reads: `events`, `bindings`, `closures`, `traces`,
//! `snapshots`, `valence_events`, `versions` (the journal's reader and the
//! system's verb under one name), `selected_count`, `pair_selected_count`.

use super::NoArgs;
use crate::error::OpResult;
use crate::home::Home;
use crate::verb::{Answer, CallShape, Family, Verb};
use am_journal::{
    ActiveMemorySnapshot, BindingFilter, ClosureFilter, ClosureRecord, EventFilter, MemoryEvent,
    ReconstructionTrace, ScopeBinding, TraceFilter, UnderstandingVersion, ValenceEvent,
    ValenceFilter, VersionFilter,
};
use am_system::VersionView;
use serde::Deserialize;
use serde::de::{self, Deserializer};
use serde_json::{Value, json};

/// `seq_at`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SeqAtArgs {
    iso_ts: String,
}

/// `selected_count`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SelectedCountArgs {
    record_id: String,
    #[serde(default)]
    until_seq: Option<i64>,
}

/// `pair_selected_count`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PairSelectedCountArgs {
    pair: (String, String),
    #[serde(default)]
    until_seq: Option<i64>,
}

/// The system's `versions(record_id, field=None)`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SystemVersionsArgs {
    /// The record (either id namespace).
    record_id: String,
    /// One field's versions (`digest`, `title`, ...), or all.
    #[serde(default)]
    field: Option<String>,
}

/// `versions`: the system's verb when the call names `record_id` and none
/// of the journal reader's `assertion_id`, `until_seq`, `limit`; the
/// journal's reader (a `VersionFilter`) otherwise.
#[derive(Debug, schemars::JsonSchema)]
#[serde(untagged)]
pub(crate) enum VersionsArgs {
    /// The system's verb.
    System(SystemVersionsArgs),
    /// The journal's reader.
    Journal(VersionFilter),
}

/// The journal reader's own arguments, which make a `versions` call its.
const JOURNAL_ONLY: [&str; 3] = ["assertion_id", "until_seq", "limit"];

impl<'de> Deserialize<'de> for VersionsArgs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = am_triples::JsonMap::deserialize(d)?;
        let system =
            map.contains_key("record_id") && !JOURNAL_ONLY.iter().any(|k| map.contains_key(*k));
        let v = Value::Object(map);
        let named = |e: serde_path_to_error::Error<serde_json::Error>| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            if path == "." {
                de::Error::custom(inner)
            } else {
                de::Error::custom(format!("argument {path}: {inner}"))
            }
        };
        if system {
            serde_path_to_error::deserialize(crate::nulls::NullIsAbsent(v))
                .map(VersionsArgs::System)
                .map_err(named)
        } else {
            serde_path_to_error::deserialize(crate::nulls::NullIsAbsent(v))
                .map(VersionsArgs::Journal)
                .map_err(named)
        }
    }
}

/// `versions`' answer: the system's views or the journal's rows.
#[derive(schemars::JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum VersionsAnswer {
    System(Vec<VersionView>),
    Journal(Vec<UnderstandingVersion>),
}

fn versions(home: &mut dyn Home, _: &crate::Host, a: VersionsArgs) -> OpResult<Answer> {
    let sys = home.system()?;
    match a {
        VersionsArgs::System(SystemVersionsArgs { record_id, field }) => {
            Answer::of(&sys.versions(&record_id, field.as_deref())?)
        }
        VersionsArgs::Journal(filter) => Answer::of(&sys.journal().versions(&filter)?),
    }
}

pub(super) fn verbs() -> Vec<Verb> {
    let f = Family::Journal;
    let j = CallShape::JournalMethod;
    vec![
        Verb::declare("current_seq", f, "The journal's current seq.")
            .answers::<i64>()
            .run(|h, _, NoArgs {}| Ok(Answer::value(json!(h.system()?.current_seq()?)))),
        Verb::declare(
            "seq_at",
            f,
            "The highest journal seq observed at or before an instant.",
        )
        .answers::<i64>()
        .run(|h, _, a: SeqAtArgs| Ok(Answer::value(json!(h.system()?.seq_at(&a.iso_ts)?)))),
        Verb::declare("events", f, "The journal's attention and audit events, filtered.")
            .shape(j)
            .answers::<Vec<MemoryEvent>>()
            .run(|h, _, a: EventFilter| Answer::of(&h.system()?.journal().events(&a)?)),
        Verb::declare("bindings", f, "The journal's scope bindings, filtered.")
            .shape(j)
            .answers::<Vec<ScopeBinding>>()
            .run(|h, _, a: BindingFilter| Answer::of(&h.system()?.journal().bindings(&a)?)),
        Verb::declare("closures", f, "The journal's closure records, filtered.")
            .shape(j)
            .answers::<Vec<ClosureRecord>>()
            .run(|h, _, a: ClosureFilter| Answer::of(&h.system()?.journal().closures(&a)?)),
        Verb::declare("traces", f, "The journal's reconstruction traces, filtered.")
            .shape(j)
            .answers::<Vec<ReconstructionTrace>>()
            .run(|h, _, a: TraceFilter| Answer::of(&h.system()?.journal().traces(&a)?)),
        Verb::declare("snapshots", f, "The journal's active-memory snapshots (commits), filtered.")
            .shape(j)
            .answers::<Vec<ActiveMemorySnapshot>>()
            .run(|h, _, a: TraceFilter| Answer::of(&h.system()?.journal().snapshots(&a)?)),
        Verb::declare("valence_events", f, "The journal's valence events, filtered.")
            .shape(j)
            .answers::<Vec<ValenceEvent>>()
            .run(|h, _, a: ValenceFilter| Answer::of(&h.system()?.journal().valence_events(&a)?)),
        Verb::declare("versions", f, "A record's understanding versions (record_id, field), or the journal's version rows (a VersionFilter).")
            .answers::<VersionsAnswer>()
            .run(versions),
        Verb::declare("selected_count", f, "How often a record was committed as used, as of until_seq.")
            .shape(j)
            .answers::<u64>()
            .run(|h, _, a: SelectedCountArgs| {
                Ok(Answer::value(json!(h.system()?.journal().selected_count(&a.record_id, a.until_seq)?)))
            }),
        Verb::declare("pair_selected_count", f, "How often a pair was committed as used together, as of until_seq.")
            .shape(j)
            .answers::<u64>()
            .run(|h, _, a: PairSelectedCountArgs| {
                let (x, y) = &a.pair;
                Ok(Answer::value(json!(h.system()?.journal().pair_selected_count((x, y), a.until_seq)?)))
            }),
    ]
}
