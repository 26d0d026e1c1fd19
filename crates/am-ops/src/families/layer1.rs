//! Layer 1 through the system: `add`, `query`, `close_assertion`,
//! `narrow_assertion`, `assertions_after`, `embedding_pin`.

use super::NoArgs;
use crate::error::{OpError, OpResult};
use crate::home::Home;
use crate::verb::{Answer, CallShape, Family, Verb};
use am_triples::{EmbeddingPin, TripleAssertion, TripleQuery};
use serde::Deserialize;
use serde_json::{Value, json};

/// `add`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct AddArgs {
    /// `TripleAssertion` objects, read by `TripleAssertion::from_dict` (which
    /// refuses unknown fields) once the clock's `observed_at` is filled in.
    #[schemars(with = "Vec<TripleAssertion>")]
    assertions: Vec<Value>,
}

/// `query`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct QueryArgs {
    /// The `TripleQuery` (absent: every row, the query's defaults).
    #[serde(default)]
    #[schemars(with = "Option<TripleQuery>")]
    q: Option<Value>,
}

/// `close_assertion`'s and `narrow_assertion`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct WindowArgs {
    assertion_id: String,
    valid_until: String,
}

fn default_feed_limit() -> usize {
    am_triples::store::DEFAULT_FEED_LIMIT
}

/// `assertions_after`'s arguments: the change feed's cursor and filter.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct FeedArgs {
    #[serde(default)]
    cursor: i64,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    owner_id: Option<String>,
    #[serde(default = "default_feed_limit")]
    limit: usize,
}

/// Deserialize a `TripleQuery` JSON object, refusing unknown keys.
///
/// # Errors
/// Bad input naming the unknown key or the malformed field.
pub fn query_from_json(v: &Value) -> OpResult<TripleQuery> {
    let obj = v
        .as_object()
        .ok_or_else(|| OpError::invalid(format!("a TripleQuery must be a JSON object, got {v}")))?;
    let known = serde_json::to_value(TripleQuery::default()).unwrap_or(Value::Null);
    for k in obj.keys() {
        if known.get(k).is_none() {
            return Err(OpError::invalid(format!(
                "unknown TripleQuery field {k:?} (expected one of subject, predicate, object, scope, owner_id, \
                 assertion_ids, since, until, active_at, query_text, query_vector, vector_column, min_score, limit, order)"
            )));
        }
    }
    if let Some(o) = obj.get("order")
        && !matches!(
            o.as_str().map(str::to_lowercase).as_deref(),
            Some("asc" | "desc")
        )
    {
        return Err(OpError::invalid(format!(
            "TripleQuery.order must be \"asc\" or \"desc\", got {o}"
        )));
    }
    let mut cleaned = obj.clone();
    if let Some(Value::String(o)) = cleaned.get_mut("order") {
        *o = o.to_lowercase();
    }
    cleaned.retain(|_, v| !v.is_null());
    serde_json::from_value(Value::Object(cleaned))
        .map_err(|e| OpError::invalid(format!("malformed TripleQuery: {e}")))
}

fn add(home: &mut dyn Home, _: &crate::Host, a: AddArgs) -> OpResult<Answer> {
    let sys = home.system()?;
    let now = sys.now()?;
    let assertions = a
        .assertions
        .into_iter()
        .enumerate()
        .map(|(i, mut v)| {
            if let Value::Object(m) = &mut v
                && m.get("observed_at").is_none_or(Value::is_null)
            {
                m.insert("observed_at".into(), Value::String(now.clone()));
            }
            TripleAssertion::from_dict(&v)
                .map_err(|e| OpError::from(e).context(&format!("add: assertions[{i}]")))
        })
        .collect::<OpResult<Vec<_>>>()?;
    Answer::warned(sys.add_warned(&assertions)?)
}

fn query(home: &mut dyn Home, _: &crate::Host, a: QueryArgs) -> OpResult<Answer> {
    let q =
        query_from_json(&a.q.unwrap_or_else(|| json!({}))).map_err(|e| e.context("query: q"))?;
    let rows = home.system()?.query(&q)?;
    Ok(Answer::value(Value::Array(
        rows.iter().map(TripleAssertion::to_dict).collect(),
    )))
}

fn assertions_after(home: &mut dyn Home, _: &crate::Host, f: FeedArgs) -> OpResult<Answer> {
    let page = home.system()?.store().assertions_after(
        f.cursor,
        f.scope.as_deref(),
        f.owner_id.as_deref(),
        f.limit,
    )?;
    let rows: Vec<Value> = page
        .rows
        .iter()
        .map(|(pos, r)| json!([pos, r.to_dict()]))
        .collect();
    Ok(Answer::value(json!([rows, page.next_cursor])))
}

pub(super) fn verbs() -> Vec<Verb> {
    let f = Family::Layer1;
    vec![
        Verb::declare(
            "add",
            f,
            "Store triple assertions (layer 1); answers their ids.",
        )
        .writes()
        .answers::<Vec<String>>()
        .run(add),
        Verb::declare(
            "query",
            f,
            "Read triple assertions matching a TripleQuery (layer 1).",
        )
        .answers::<Vec<TripleAssertion>>()
        .run(query),
        Verb::declare(
            "close_assertion",
            f,
            "Close an assertion's validity window at valid_until.",
        )
        .writes()
        .shape(CallShape::StoreMethod)
        .answers::<bool>()
        .run(|h, _, a: WindowArgs| {
            let changed = h
                .system()?
                .store()
                .close_assertion(&a.assertion_id, &a.valid_until)?;
            Ok(Answer::value(json!(changed)))
        }),
        Verb::declare(
            "narrow_assertion",
            f,
            "Narrow an assertion's validity window to end at valid_until.",
        )
        .writes()
        .shape(CallShape::StoreMethod)
        .answers::<bool>()
        .run(|h, _, a: WindowArgs| {
            let changed = h
                .system()?
                .store()
                .narrow_assertion(&a.assertion_id, &a.valid_until)?;
            Ok(Answer::value(json!(changed)))
        }),
        Verb::declare(
            "assertions_after",
            f,
            "The change feed: rows after a cursor, with the next cursor.",
        )
        .shape(CallShape::StoreMethod)
        .answers::<(Vec<(i64, TripleAssertion)>, i64)>()
        .run(assertions_after),
        Verb::declare(
            "embedding_pin",
            f,
            "The home's embedding pin (model and dimension), or null.",
        )
        .shape(CallShape::StoreMethod)
        .answers::<Option<EmbeddingPin>>()
        .run(|h, _, NoArgs {}| Answer::of(&h.system()?.store().embedding_pin()?)),
    ]
}
