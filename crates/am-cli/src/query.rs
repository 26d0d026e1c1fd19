//! `am query`: one layer-1 `TripleQuery` against a home, built from flags or
//! given whole as JSON (`--json-query '{...}'`, the spec's field names).

use crate::ctx::{Ctx, require_existing_home};
use crate::embedder;
use crate::error::{CliError, CliResult};
use crate::home::{self, HomeSpec, PinnedClock};
use am_journal::SearchState;
use am_triples::{Order, TripleAssertion, TripleQuery};
use serde_json::{Value, json};
use std::path::PathBuf;

/// Run one layer-1 TripleQuery (from flags or --json-query).
#[derive(Debug, clap::Args)]
pub struct QueryCmd {
    /// The SQLite home (must exist).
    #[arg(long)]
    home: PathBuf,
    #[command(flatten)]
    args: Box<QueryArgs>,
}

impl QueryCmd {
    /// Run the query against the home and print its rows.
    ///
    /// # Errors
    /// Bad input for a bad query, a missing home or an unknown scope; the
    /// engine's failure.
    pub fn run(self, ctx: &Ctx) -> CliResult<u8> {
        let QueryCmd { home, args } = self;
        let q = args.to_query()?;
        require_existing_home(&home)?;
        if let Some(scope) = &args.scope {
            match scope.split_once(':') {
                Some((sc, ow)) => home::require_stream(&home, &sc.to_lowercase(), ow)?,
                None => home::require_scope(&home, &scope.to_lowercase())?,
            }
        }
        let facts = home::read_facts(&home)?;
        let pin = facts.as_ref().and_then(|f| f.pin.as_ref());
        let spec = embedder::resolve(ctx.embedder(), "offline", pin, false, true, &home)?;
        let clock = PinnedClock::wall();
        let engine = home::open_to_read(
            &HomeSpec::Sqlite(home),
            ctx.build_embedder(&spec)?,
            &clock,
            am_system::ReconstructConfig::default(),
        )?;
        let rows = engine.system.query(&q)?;
        let v = json!({"assertions": rows.iter().map(am_triples::TripleAssertion::to_dict).collect::<Vec<_>>()});
        let marks = marks(&engine.system, &rows, &clock.now())?;
        let human: String = rows
            .iter()
            .zip(&marks)
            .map(|(a, m)| render(a, m) + "\n")
            .collect();
        ctx.emit(&v, &human)?;
        Ok(0)
    }
}

/// The query flags of `am query`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct QueryArgs {
    /// Exact subject.
    #[arg(long)]
    pub subject: Option<String>,
    /// Exact predicate.
    #[arg(long)]
    pub predicate: Option<String>,
    /// Exact object.
    #[arg(long)]
    pub object: Option<String>,
    /// Scope and optionally owner: `SCOPE` or `SCOPE:OWNER`.
    #[arg(long)]
    pub scope: Option<String>,
    /// `observed_at >= SINCE` (ISO timestamp).
    #[arg(long)]
    pub since: Option<String>,
    /// `observed_at <= UNTIL` (ISO timestamp).
    #[arg(long)]
    pub until: Option<String>,
    /// Rows whose validity window contains this instant.
    #[arg(long)]
    pub active_at: Option<String>,
    /// Semantic query text (needs an embedder).
    #[arg(long)]
    pub text: Option<String>,
    /// Maximum rows (`<= 0` unbounded; default 100).
    #[arg(long, allow_hyphen_values = true)]
    pub limit: Option<i64>,
    /// `asc` or `desc` (default `desc`).
    #[arg(long)]
    pub order: Option<String>,
    /// The whole query as a JSON object (excludes the other flags).
    #[arg(long)]
    pub json_query: Option<String>,
}

/// Deserialize a `TripleQuery` JSON object, refusing unknown keys (the
/// verb table's reader, [`am_ops::query_from_json`]).
///
/// # Errors
/// Bad input naming the unknown key or the malformed field.
pub fn query_from_json(v: &Value) -> CliResult<TripleQuery> {
    am_ops::query_from_json(v).map_err(CliError::from)
}

impl QueryArgs {
    /// Build the query.
    ///
    /// # Errors
    /// Bad input for JSON mixed with flags, bad JSON, a bad order.
    pub fn to_query(&self) -> CliResult<TripleQuery> {
        if let Some(j) = &self.json_query {
            let flags = [
                &self.subject,
                &self.predicate,
                &self.object,
                &self.scope,
                &self.since,
                &self.until,
                &self.active_at,
                &self.text,
                &self.order,
            ];
            if flags.iter().any(|f| f.is_some()) || self.limit.is_some() {
                return Err(CliError::invalid(
                    "--json-query gives the whole query: expected no other query flag beside it",
                ));
            }
            let v: Value = serde_json::from_str(j).map_err(|e| {
                CliError::invalid(format!(
                    "--json-query: expected a JSON object, got invalid JSON ({e})"
                ))
            })?;
            return query_from_json(&v);
        }
        let (scope, owner_id) = match &self.scope {
            None => (None, None),
            Some(s) => match s.split_once(':') {
                Some((sc, ow)) => (Some(sc.to_owned()), Some(ow.to_owned())),
                None => (Some(s.clone()), None),
            },
        };
        let order = match self.order.as_deref().map(str::to_lowercase).as_deref() {
            None | Some("desc") => Order::Desc,
            Some("asc") => Order::Asc,
            Some(_) => {
                return Err(CliError::invalid(format!(
                    "--order must be asc or desc, got {:?}",
                    self.order.as_deref().unwrap_or_default()
                )));
            }
        };
        Ok(TripleQuery {
            subject: self.subject.clone(),
            predicate: self.predicate.clone(),
            object: self.object.clone(),
            scope,
            owner_id,
            since: self.since.clone(),
            until: self.until.clone(),
            active_at: self.active_at.clone(),
            query_text: self.text.clone(),
            limit: self.limit.unwrap_or(100),
            order,
            ..TripleQuery::default()
        })
    }
}

/// The marks `am query` prints before a row: `closed (<kind>)` when the
/// journal holds a closure of it, `window ended <valid_until>` when its
/// validity window ended at or before `now` (`valid until <t>` when it ends
/// later), `hidden` when its record's folded binding in its stream is
/// `search_state = hidden`. Ranked recall skips closed and hidden records;
/// a query shows every row, marked.
///
/// # Errors
/// The journal's failure.
pub fn marks(
    system: &am_system::MemorySystem,
    rows: &[TripleAssertion],
    now: &str,
) -> CliResult<Vec<Vec<String>>> {
    let subjects: Vec<String> = rows.iter().map(|a| a.subject.clone()).collect();
    let bindings = system.journal().fold_bindings_for(&subjects, None)?;
    let mut out = Vec::with_capacity(rows.len());
    for a in rows {
        let mut m = Vec::new();
        if let Some(id) = &a.assertion_id {
            let closures = system.journal().closures(&am_journal::ClosureFilter {
                assertion_id: Some(id.clone()),
                limit: 1,
                ..am_journal::ClosureFilter::default()
            })?;
            if let Some(c) = closures.first() {
                m.push(format!("closed ({})", c.kind));
            }
        }
        if let Some(until) = &a.valid_until {
            let ended = am_triples::timestamp::parse_timestamp(until)
                .ok()
                .zip(am_triples::timestamp::parse_timestamp(now).ok())
                .is_some_and(|(u, n)| u <= n);
            m.push(if ended {
                format!("window ended {until}")
            } else {
                format!("valid until {until}")
            });
        }
        let owner = a.owner_id.as_deref().unwrap_or("");
        if bindings.get(&a.subject).is_some_and(|bs| {
            bs.iter().any(|b| {
                b.scope == a.scope && b.owner_id == owner && b.search_state == SearchState::Hidden
            })
        }) {
            m.push("hidden".to_owned());
        }
        out.push(m);
    }
    Ok(out)
}

/// One assertion as a human-readable line, its marks first (stored text
/// escaped for the terminal).
pub fn render(a: &TripleAssertion, marks: &[String]) -> String {
    use crate::text::escape;
    let marks: String = marks.iter().map(|m| format!("[{m}] ")).collect();
    format!(
        "{marks}{}  {} {} {}  [{}:{}]  {}",
        escape(a.assertion_id.as_deref().unwrap_or("-")),
        escape(&a.subject),
        escape(&a.predicate),
        escape(&a.object),
        escape(&a.scope),
        escape(a.owner_id.as_deref().unwrap_or("")),
        escape(&a.observed_at)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_queries_refuse_unknown_fields_and_bad_orders() {
        let q = query_from_json(&json!({"subject": "a", "order": "ASC", "limit": 3})).unwrap();
        assert_eq!(
            (q.subject.as_deref(), q.order, q.limit),
            (Some("a"), Order::Asc, 3)
        );
        for bad in [
            json!({"subjekt": "a"}),
            json!({"order": "up"}),
            json!([1]),
            json!({"limit": "x"}),
        ] {
            assert_eq!(query_from_json(&bad).unwrap_err().code, 2, "{bad}");
        }
    }
}
