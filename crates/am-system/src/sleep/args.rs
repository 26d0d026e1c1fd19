//! The arguments of the sleep faculty's verbs, one struct per verb: the
//! spec's required arguments through `new(..)`, every optional keyword a
//! public field holding the spec's default.
//!
//! Spec: api.md "Consolidation (sleep and dreams)" and "Maintenance, health,
//! and operator tools".

use std::num::NonZeroU64;

use am_triples::Timestamp;
use serde::{Deserialize, Serialize};

use super::tuning::SleepTuning;

use crate::error::{Error, Result};

fn pairs_of(scopes: &[(&str, &str)]) -> Vec<(String, String)> {
    scopes
        .iter()
        .map(|(s, o)| ((*s).to_owned(), (*o).to_owned()))
        .collect()
}

/// The pairs a sleep read covers, keyed as the store keys them (scope
/// trimmed and lowercased, owner trimmed), duplicates dropped, order kept.
///
/// # Errors
/// `InvalidInput` for no pair or a blank scope (0.3.2 reads an empty list as
/// an empty home and a blank scope as whatever its store makes of it; a sleep
/// read over nothing is the caller's mistake here).
pub(crate) fn sleep_pairs(
    verb: &str,
    scopes: &[(String, String)],
) -> Result<Vec<(String, String)>> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (scope, owner) in scopes {
        let pair = (
            am_triples::canonicalize_term(scope),
            am_triples::assertion::py_strip(owner).to_owned(),
        );
        if pair.0.is_empty() {
            return Err(Error::invalid(format!(
                "{verb} needs a scope in every [scope, owner_id] pair, got {} (owner {})",
                am_triples::text::shown(scope),
                am_triples::text::shown(owner)
            )));
        }
        if !out.contains(&pair) {
            out.push(pair);
        }
    }
    if out.is_empty() {
        return Err(Error::invalid(format!(
            "{verb} needs scopes: a non-empty list of [scope, owner_id], got none"
        )));
    }
    Ok(out)
}

/// `structural_report(store, journal, *, scopes, as_of=None)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StructuralReport {
    /// `(scope, owner_id)` pairs (JSON `[[scope, owner_id], ...]`; a blank
    /// owner reads every owner of the scope).
    pub scopes: Vec<(String, String)>,
    /// The journal seq the co-use trails (and, with `evidence_grade`, the
    /// closures) are read up to (`None`: the head). The store's rows are read
    /// as they stand, as 0.3.2 reads them.
    #[serde(default)]
    pub as_of: Option<i64>,
    /// 0.3.2's keyword (the spec is silent; the dream-resolution pass's
    /// view): fold closures (closed records and edges leave the substrate)
    /// and leave maintenance candidates out. Default `false`: the raw graph.
    #[serde(default)]
    pub evidence_grade: bool,
}

impl StructuralReport {
    /// The structure of `scopes` at the head.
    pub fn new(scopes: &[(&str, &str)]) -> Self {
        StructuralReport {
            scopes: pairs_of(scopes),
            as_of: None,
            evidence_grade: false,
        }
    }
}

/// `maintenance_report(store, journal, *, scopes, as_of=None,
/// scan_limit=None, tuning=SleepTuning())`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MaintenanceReport {
    /// `(scope, owner_id)` pairs.
    pub scopes: Vec<(String, String)>,
    /// The journal seq the structure's trails are read up to (`None`: the
    /// head).
    #[serde(default)]
    pub as_of: Option<i64>,
    /// How many of the newest records the near-duplicate scan compares
    /// (`None`: `tuning.near_dup_scan_limit`).
    #[serde(default)]
    pub scan_limit: Option<usize>,
    /// Every policy number of the report.
    #[serde(default)]
    pub tuning: SleepTuning,
}

impl MaintenanceReport {
    /// The report over `scopes` with every default.
    pub fn new(scopes: &[(&str, &str)]) -> Self {
        MaintenanceReport {
            scopes: pairs_of(scopes),
            as_of: None,
            scan_limit: None,
            tuning: SleepTuning::default(),
        }
    }
}

/// `last_maintenance_seq(store, journal, *, scopes) -> int`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LastMaintenanceSeq {
    /// `(scope, owner_id)` pairs.
    pub scopes: Vec<(String, String)>,
}

impl LastMaintenanceSeq {
    /// The anchor of `scopes`.
    pub fn new(scopes: &[(&str, &str)]) -> Self {
        LastMaintenanceSeq {
            scopes: pairs_of(scopes),
        }
    }
}

/// `maintenance_due(store, journal, *, scopes, since_seq=None,
/// min_new_records=12, min_signal=3, tasks=None)`. `tasks` is a flag here:
/// `true` counts this home's own queue (the spec passes `system.tasks`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MaintenanceDue {
    /// `(scope, owner_id)` pairs.
    pub scopes: Vec<(String, String)>,
    /// Count formations after this seq (`None`: `last_maintenance_seq`).
    #[serde(default)]
    pub since_seq: Option<i64>,
    /// New records that make a pass due on their own (at least 1: a home
    /// with nothing new is never due).
    #[serde(default = "default_min_new_records")]
    pub min_new_records: NonZeroU64,
    /// The fragmentation signal (duplicate-title groups + isolated records)
    /// that makes a pass due once anything new formed.
    #[serde(default = "default_min_signal")]
    pub min_signal: u64,
    /// Count the home's pending night-only tasks (`pending_tasks`).
    #[serde(default)]
    pub tasks: bool,
}

fn default_min_new_records() -> NonZeroU64 {
    NonZeroU64::new(12).unwrap_or(NonZeroU64::MIN)
}
fn default_min_signal() -> u64 {
    3
}

impl MaintenanceDue {
    /// The cadence predicate over `scopes` with every default.
    pub fn new(scopes: &[(&str, &str)]) -> Self {
        MaintenanceDue {
            scopes: pairs_of(scopes),
            since_seq: None,
            min_new_records: default_min_new_records(),
            min_signal: default_min_signal(),
            tasks: false,
        }
    }
}

/// `records_since_maintenance(system, *, scopes=None, after=None)`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordsSinceMaintenance {
    /// `(scope, owner_id)` pairs (`None`: every pair).
    #[serde(default)]
    pub scopes: Option<Vec<(String, String)>>,
    /// The host's own last maintenance (any offset style; naive is UTC).
    #[serde(default)]
    pub after: Option<Timestamp>,
}
