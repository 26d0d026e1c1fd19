//! `redigestion_candidates`: the labelled mechanical-digest debt of a home,
//! worst first — each record whose `digest_method` declares itself
//! mechanical (the label is the consent marker), outside the kinds a
//! machine never re-digests ([`REDIGESTION_PROTECTED_KINDS`]), with what a
//! re-digester needs (the digest, its verbatim's `payload_ref`, keywords,
//! participants, its use). A pure read: listing a debt is not using the
//! memories.
//!
//! Worst first: poverty (what is left once the act-frame markers such as
//! `[used tool: read_file]` are stripped is shorter than
//! `min_residue_chars`), then the most-used (the global selected count),
//! then the record id.
//!
//! Spec: api.md "Maintenance, health, and operator tools"
//! (`redigestion_candidates`, `RedigestionCandidate`); constants
//! `REDIGESTION_PROTECTED_KINDS`, `MECHANICAL_DIGEST_METHODS`. The
//! candidate's keys, the ranking and the marker rule follow
//! AbstractMemory 0.3.2 where the spec is silent, with one difference:
//! 0.3.2 asks the journal for the selected count of the digest row's
//! assertion id, which no selection event names, so its count is always 0
//! and its "most-used first" never ranks; we count the record's graph id,
//! the id selections are journaled under.

use std::collections::HashSet;

use am_triples::TripleQuery;
use am_triples::text::py_str;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::record::DigestRow;
use crate::system::MemorySystem;
use crate::tasks::MECHANICAL_DIGEST_METHODS;

/// Kinds a batch never re-digests: elected words (`diary`), identity acts
/// (`value`, `purpose`, `trait`, `interest`) and born-digest artifacts
/// (`dream`, `world_model`).
pub const REDIGESTION_PROTECTED_KINDS: [&str; 7] = [
    "diary",
    "value",
    "purpose",
    "trait",
    "interest",
    "dream",
    "world_model",
];

/// The longest act-frame marker, in characters between the brackets.
const MARKER_MAX_CHARS: usize = 120;

/// `redigestion_candidates(system, *, scopes, limit=50,
/// min_residue_chars=24, methods=MECHANICAL_DIGEST_METHODS)`'s keywords.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RedigestionCandidates {
    /// The `(scope, owner_id)` pairs (an empty owner is any owner).
    pub scopes: Vec<(String, String)>,
    /// At most this many candidates (at least 1).
    #[serde(default = "default_limit")]
    pub limit: usize,
    /// A residue shorter than this many characters is poverty.
    #[serde(default = "default_min_residue")]
    pub min_residue_chars: usize,
    /// The digest methods that count as mechanical debt.
    #[serde(default = "default_methods")]
    pub methods: Vec<String>,
}

fn default_limit() -> usize {
    50
}
fn default_min_residue() -> usize {
    24
}
fn default_methods() -> Vec<String> {
    MECHANICAL_DIGEST_METHODS
        .iter()
        .map(|m| (*m).to_owned())
        .collect()
}

impl RedigestionCandidates {
    /// The debt of `scopes` with the spec's defaults.
    pub fn new(scopes: &[(&str, &str)]) -> Self {
        RedigestionCandidates {
            scopes: scopes
                .iter()
                .map(|(s, o)| ((*s).to_owned(), (*o).to_owned()))
                .collect(),
            limit: default_limit(),
            min_residue_chars: default_min_residue(),
            methods: default_methods(),
        }
    }
}

/// `RedigestionCandidate`: one labelled-mechanical record awaiting authored
/// words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RedigestionCandidate {
    /// The graph id.
    pub record_id: String,
    /// The kind (trimmed, lowercased).
    pub kind: String,
    /// The title (`""` when none).
    pub title: String,
    /// The current mechanical digest.
    pub digest: String,
    /// Its `digest_method` (trimmed).
    pub digest_method: String,
    /// The verbatim's artifact, the source for re-authoring.
    pub payload_ref: Option<String>,
    /// The keywords.
    pub keywords: Vec<String>,
    /// The participants.
    pub participants: Vec<String>,
    /// The global selected count (never decays).
    pub selected_count: u64,
    /// Whether the residue is shorter than `min_residue_chars`.
    pub poverty: bool,
    /// The digest with its act-frame markers stripped, white space folded.
    pub content_residue: String,
    /// When it formed.
    pub observed_at: String,
    /// Its scope.
    pub scope: String,
    /// Its owner (`""` when none).
    pub owner_id: String,
}

/// `redigestion_candidates`' answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RedigestionDebt {
    /// `redigestion_candidates`.
    pub pass_name: String,
    /// The worst `limit` candidates, worst first.
    pub candidates: Vec<RedigestionCandidate>,
    /// Every labelled candidate found.
    pub total_labeled: usize,
    /// Of them, the poor ones.
    pub poverty_count: usize,
    /// What the read deposited: nothing.
    pub deposits: String,
}

/// The digest with every act-frame marker (`[` up to 120 characters with no
/// bracket `]`) replaced by a space, white space folded to single spaces.
pub fn content_residue(digest: &str) -> String {
    let chars: Vec<char> = digest.chars().collect();
    let mut out = String::with_capacity(digest.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '[' {
            let mut j = i + 1;
            while j < chars.len() && j - i <= MARKER_MAX_CHARS && chars[j] != '[' && chars[j] != ']'
            {
                j += 1;
            }
            if j < chars.len() && chars[j] == ']' && j > i + 1 && j - i - 1 <= MARKER_MAX_CHARS {
                out.push(' ');
                i = j + 1;
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn strings(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Array(items)) => items.iter().map(py_str).collect(),
        _ => Vec::new(),
    }
}

impl MemorySystem {
    /// The labelled mechanical-digest debt of `args.scopes`, worst first
    /// (see the module doc). A pure read.
    ///
    /// # Errors
    /// `InvalidInput` for `limit` 0, no pair or a blank scope; the store's
    /// or journal's failure.
    pub fn redigestion_candidates(&self, args: &RedigestionCandidates) -> Result<RedigestionDebt> {
        if args.limit == 0 {
            return Err(Error::invalid(
                "redigestion_candidates: limit must be at least 1, got 0",
            ));
        }
        let pairs = super::mind_mass::mass_pairs("redigestion_candidates", &args.scopes)?;
        let methods: HashSet<&str> = args.methods.iter().map(String::as_str).collect();
        let mut out: Vec<RedigestionCandidate> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        for (scope, owner) in &pairs {
            let q = TripleQuery {
                scope: Some(scope.clone()),
                owner_id: (!owner.is_empty()).then(|| owner.clone()),
                limit: 0,
                ..TripleQuery::default()
            };
            for a in self.store.query(&q)? {
                let row = DigestRow::of(&a);
                if row.flag("record_edge") || row.flag("bookkeeping") {
                    continue;
                }
                let kind = row
                    .get("record_kind")
                    .filter(|v| am_triples::assertion::json_truthy(Some(v)))
                    .map(|v| py_str(v).trim().to_lowercase())
                    .unwrap_or_default();
                if kind.is_empty() || REDIGESTION_PROTECTED_KINDS.contains(&kind.as_str()) {
                    continue;
                }
                let method = row
                    .get("digest_method")
                    .filter(|v| am_triples::assertion::json_truthy(Some(v)))
                    .map(|v| py_str(v).trim().to_owned())
                    .unwrap_or_default();
                if !methods.contains(method.as_str()) {
                    continue;
                }
                if !seen.insert(a.subject.clone()) {
                    continue;
                }
                let residue = content_residue(&a.object);
                out.push(RedigestionCandidate {
                    record_id: a.subject.clone(),
                    kind,
                    title: row
                        .get("title")
                        .filter(|v| am_triples::assertion::json_truthy(Some(v)))
                        .map(py_str)
                        .unwrap_or_default(),
                    digest: a.object.clone(),
                    digest_method: method,
                    payload_ref: row
                        .get("payload_ref")
                        .filter(|v| am_triples::assertion::json_truthy(Some(v)))
                        .map(py_str),
                    keywords: strings(row.get("keywords")),
                    participants: strings(row.get("participants")),
                    selected_count: self.journal.selected_count(&a.subject, None)?,
                    poverty: residue.chars().count() < args.min_residue_chars,
                    content_residue: residue,
                    observed_at: a.observed_at.clone(),
                    scope: a.scope.clone(),
                    owner_id: a.owner_id.clone().unwrap_or_default(),
                });
            }
        }
        out.sort_by(|a, b| {
            b.poverty
                .cmp(&a.poverty)
                .then(b.selected_count.cmp(&a.selected_count))
                .then(a.record_id.cmp(&b.record_id))
        });
        let total_labeled = out.len();
        let poverty_count = out.iter().filter(|c| c.poverty).count();
        out.truncate(args.limit);
        Ok(RedigestionDebt {
            pass_name: "redigestion_candidates".to_owned(),
            candidates: out,
            total_labeled,
            poverty_count,
            deposits: "none: listing a debt is a pure read".to_owned(),
        })
    }
}
