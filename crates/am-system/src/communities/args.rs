//! The communities verbs' arguments.

use crate::kinds::RecordKind;
use serde::{Deserialize, Serialize};

fn yes() -> bool {
    true
}

/// `communities_pass(system, *, scopes, owner_id, author, cancelled,
/// budget=None, seed_previous=True, detect_kinds=None)` (the `author` and
/// `cancelled` callables are passed beside the arguments).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommunitiesPass {
    /// `(scope, owner_id)` pairs whose records are detected; the topics form
    /// in the first pair's scope. JSON `[[scope, owner_id], ...]`.
    pub scopes: Vec<(String, String)>,
    /// The entity whose topics these are.
    pub owner_id: String,
    /// The most author calls (`None`: every new or changed topic).
    #[serde(default)]
    pub budget: Option<usize>,
    /// Warm-start the detection from the previous version (default true).
    #[serde(default = "yes")]
    pub seed_previous: bool,
    /// Only records of these kinds are detected over (the others attach
    /// through their engraved neighbours); `None`: every kind.
    #[serde(default)]
    pub detect_kinds: Option<Vec<RecordKind>>,
}

impl CommunitiesPass {
    /// The pass over `scopes` for `owner_id` with the spec's defaults.
    pub fn new(scopes: &[(&str, &str)], owner_id: &str) -> Self {
        CommunitiesPass {
            scopes: owned_pairs(scopes),
            owner_id: owner_id.to_owned(),
            budget: None,
            seed_previous: true,
            detect_kinds: None,
        }
    }
}

/// `communities(system, *, scopes, owner_id, version=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Communities {
    /// `(scope, owner_id)` pairs; the topics are read from the first pair's
    /// scope.
    pub scopes: Vec<(String, String)>,
    /// The entity whose topics these are.
    pub owner_id: String,
    /// Read an earlier version (its `version_seq`); `None`: the current one.
    #[serde(default)]
    pub version: Option<i64>,
}

impl Communities {
    /// The current topics of `owner_id` over `scopes`.
    pub fn new(scopes: &[(&str, &str)], owner_id: &str) -> Self {
        Communities {
            scopes: owned_pairs(scopes),
            owner_id: owner_id.to_owned(),
            version: None,
        }
    }
}

/// `community_of(system, record_id)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommunityOf {
    /// The record's graph id.
    pub record_id: String,
}

impl CommunityOf {
    /// The community of `record_id`.
    pub fn new(record_id: &str) -> Self {
        CommunityOf {
            record_id: record_id.to_owned(),
        }
    }
}

/// `community_keys_of(system, record_ids, *, scopes, owner_id)` and
/// `community_memberships_of(...)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommunityKeysOf {
    /// Record graph ids (a recalled record's `provenance.record_id`).
    pub record_ids: Vec<String>,
    /// `(scope, owner_id)` pairs, as [`Communities::scopes`].
    pub scopes: Vec<(String, String)>,
    /// The entity whose topics these are.
    pub owner_id: String,
}

impl CommunityKeysOf {
    /// The topic keys of `record_ids`.
    pub fn new(record_ids: &[&str], scopes: &[(&str, &str)], owner_id: &str) -> Self {
        CommunityKeysOf {
            record_ids: record_ids.iter().map(|s| (*s).to_owned()).collect(),
            scopes: owned_pairs(scopes),
            owner_id: owner_id.to_owned(),
        }
    }
}

/// `embed_missing(system, *, scopes, owner_id, record_ids=None, cancelled)`
/// (the `cancelled` callable is passed beside the arguments).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EmbedMissing {
    /// `(scope, owner_id)` pairs whose open formed records are embedded
    /// (a blank owner: every owner of the scope). JSON `[[scope, owner_id], ...]`.
    pub scopes: Vec<(String, String)>,
    /// The entity whose home this is.
    pub owner_id: String,
    /// Only these record graph ids (`None`: every open formed record of the
    /// pairs that has no vector).
    #[serde(default)]
    pub record_ids: Option<Vec<String>>,
}

impl EmbedMissing {
    /// Embed every vector-less open formed record of `scopes`.
    pub fn new(scopes: &[(&str, &str)], owner_id: &str) -> Self {
        EmbedMissing {
            scopes: owned_pairs(scopes),
            owner_id: owner_id.to_owned(),
            record_ids: None,
        }
    }
}

pub(crate) fn owned_pairs(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(s, o)| ((*s).to_owned(), (*o).to_owned()))
        .collect()
}
