//! The standing topics: the live community records of a pair, as the
//! version that wrote them says.

use crate::record::DigestRow;
use am_triples::TripleAssertion;
use serde_json::Value;
use std::collections::BTreeSet;

/// A standing topic, as the previous version wrote it.
#[derive(Debug, Clone)]
pub(crate) struct Standing {
    pub row: TripleAssertion,
    pub key: String,
    pub members: BTreeSet<String>,
}

/// The standing topics of a read (its live community rows).
pub(crate) fn standing_of(topics: &[TripleAssertion]) -> Vec<Standing> {
    let mut out: Vec<Standing> = topics
        .iter()
        .filter_map(|row| {
            let v = DigestRow::of(row);
            let key = v.text("community_key")?.to_owned();
            let members: BTreeSet<String> = match v.get("members") {
                Some(Value::Array(a)) => a
                    .iter()
                    .filter_map(|m| m.get("id").and_then(Value::as_str))
                    .map(str::to_owned)
                    .collect(),
                _ => BTreeSet::new(),
            };
            Some(Standing {
                row: row.clone(),
                key,
                members,
            })
        })
        .collect();
    out.sort_by(|a, b| a.key.cmp(&b.key));
    out
}
