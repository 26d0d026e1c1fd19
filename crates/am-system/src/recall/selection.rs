//! Commit derivations: normalized used ids, per-(scope, owner) grouping with
//! the co-use pairs of the depositing slice (plus term-sharing and recorded-edge
//! hop pairs), and the snapshot's display rows. Pure, apart from one bounded
//! edge read per used subject.
//!
//! Spec: api.md `commit_selection`; algorithms.md §7 "Commit"; 0.3.2's
//! `selection.py`.

use crate::error::{Error, Result};
use crate::record::DigestRow;
use am_triples::text::{display_title, handle_digest, is_record_digest};
use am_triples::{JsonMap, TripleAssertion, TripleQuery, TripleStore, token_estimate};
use serde_json::Value;
use std::collections::HashMap;

/// Trim and de-duplicate used ids in first-seen order.
///
/// # Errors
/// `InvalidInput` when nothing is left (an empty commit deposits nothing).
pub fn normalize_used_ids(used: &[String]) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for raw in used {
        let id = raw.trim();
        if !id.is_empty() && !out.iter().any(|o| o == id) {
            out.push(id.to_owned());
        }
    }
    if out.is_empty() {
        return Err(Error::invalid(
            "commit_selection requires at least one used_record_id, got none (an empty commit \
             would deposit no trail; skip the call instead)",
        ));
    }
    Ok(out)
}

/// One (scope, owner) group of a commit: its records and its pairs.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SelectionGroup {
    /// `(scope, owner_id)` of the stream the events land in.
    pub scope_pair: (String, String),
    /// Used records of this stream, in used order.
    pub records: Vec<String>,
    /// Sorted pairs hosted by this stream (deduplicated).
    pub pairs: Vec<(String, String)>,
}

fn sorted_pair(a: &str, b: &str) -> (String, String) {
    if a <= b {
        (a.to_owned(), b.to_owned())
    } else {
        (b.to_owned(), a.to_owned())
    }
}

/// Group the depositing slice per (scope, owner) and derive its pairs: every
/// unordered pair of the slice; pairs of records sharing a subject or object
/// term; and, for each recorded edge between two used subjects, the spreading
/// hop pairs `(source digest, edge id)` and `(edge id, target digest)`. A pair
/// lives in the group of whichever member was used first. Groups are ordered by
/// first use.
///
/// # Errors
/// The store's error from the bounded edge read.
pub fn plan_selection(
    ordered: &[String],
    fetched: &HashMap<String, TripleAssertion>,
    store: &dyn TripleStore,
) -> Result<Vec<SelectionGroup>> {
    let group_of = |rid: &str| {
        let a = &fetched[rid];
        (a.scope.clone(), a.owner_id.clone().unwrap_or_default())
    };
    let mut groups: Vec<SelectionGroup> = Vec::new();
    let index_of = |groups: &Vec<SelectionGroup>, key: &(String, String)| {
        groups.iter().position(|g| &g.scope_pair == key)
    };
    for rid in ordered {
        let key = group_of(rid);
        match index_of(&groups, &key) {
            Some(i) => groups[i].records.push(rid.clone()),
            None => groups.push(SelectionGroup {
                scope_pair: key,
                records: vec![rid.clone()],
                pairs: Vec::new(),
            }),
        }
    }
    let add_pair = |groups: &mut Vec<SelectionGroup>, host: &str, pair: (String, String)| {
        if let Some(i) = index_of(groups, &group_of(host))
            && !groups[i].pairs.contains(&pair)
        {
            groups[i].pairs.push(pair);
        }
    };
    for (i, a) in ordered.iter().enumerate() {
        for b in &ordered[i + 1..] {
            add_pair(&mut groups, a, sorted_pair(a, b));
        }
    }
    for (i, a) in ordered.iter().enumerate() {
        let fa = &fetched[a];
        for b in &ordered[i + 1..] {
            let fb = &fetched[b];
            let shares = [&fa.subject, &fa.object]
                .iter()
                .filter(|t| !t.is_empty())
                .any(|t| **t == fb.subject || **t == fb.object);
            if shares {
                add_pair(&mut groups, a, sorted_pair(a, b));
            }
        }
    }
    let mut subject_to_rid: Vec<(String, String)> = Vec::new();
    for rid in ordered {
        let subject = &fetched[rid].subject;
        if !subject_to_rid.iter().any(|(s, _)| s == subject) {
            subject_to_rid.push((subject.clone(), rid.clone()));
        }
    }
    let scan_limit = 16.max(4 * ordered.len());
    for (subject, source_rid) in &subject_to_rid {
        let src = &fetched[source_rid];
        for edge in subject_rows(
            store,
            subject,
            &src.scope,
            src.owner_id.as_deref(),
            scan_limit,
        )? {
            if !am_triples::text::is_record_edge(&edge) {
                continue;
            }
            let Some(edge_id) = edge.assertion_id.as_deref() else {
                continue;
            };
            let Some((_, target_rid)) = subject_to_rid.iter().find(|(s, _)| *s == edge.object)
            else {
                continue;
            };
            if target_rid == source_rid {
                continue;
            }
            add_pair(&mut groups, source_rid, sorted_pair(source_rid, edge_id));
            add_pair(&mut groups, source_rid, sorted_pair(edge_id, target_rid));
        }
    }
    Ok(groups)
}

/// The rows of one subject within one (scope, owner), newest first, at most
/// `limit` (0 = all): the same answer as a `TripleQuery` naming subject, scope
/// and owner, read through the subject index (a subject holds one record's
/// digest and edges) and filtered here.
///
/// # Errors
/// The store's refusal.
pub fn subject_rows(
    store: &dyn TripleStore,
    subject: &str,
    scope: &str,
    owner_id: Option<&str>,
    limit: usize,
) -> Result<Vec<TripleAssertion>> {
    let rows = store.query(&TripleQuery {
        subject: Some(subject.to_owned()),
        limit: 0,
        ..TripleQuery::default()
    })?;
    let owner = owner_id.map(str::trim).filter(|o| !o.is_empty());
    let kept = rows
        .into_iter()
        .filter(|a| a.scope == scope && owner.is_none_or(|o| a.owner_id.as_deref() == Some(o)));
    Ok(if limit == 0 {
        kept.collect()
    } else {
        kept.take(limit).collect()
    })
}

/// Snapshot display rows `{record_id, title, digest, token_estimate}`:
/// references and previews, never payload copies. `title` is the bounded
/// `"s p o"` preview, as 0.3.2 writes it.
pub fn display_rows(
    ordered: &[String],
    fetched: &HashMap<String, TripleAssertion>,
) -> Vec<JsonMap> {
    ordered
        .iter()
        .map(|rid| {
            let a = &fetched[rid];
            let digest = handle_digest(a);
            let tokens = token_estimate(&digest);
            let mut row = JsonMap::new();
            row.insert("record_id".into(), Value::String(rid.clone()));
            // A formed record without a title (pending) reads null, never
            // its body's words; every other row keeps 0.3.2's preview.
            let title = if is_record_digest(a) && DigestRow::of(a).served_title().is_none() {
                Value::Null
            } else {
                Value::String(display_title(a))
            };
            row.insert("title".into(), title);
            row.insert("digest".into(), Value::String(digest));
            row.insert("token_estimate".into(), Value::from(tokens));
            row
        })
        .collect()
}
