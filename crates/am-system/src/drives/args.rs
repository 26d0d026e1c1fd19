//! The drives' arguments: the scope ladder every read folds over
//! ([`DriveScopes`]), `alive_drives`' `k` ([`AliveDrives`]) and the pure
//! grouping's items ([`DriveGroups`], [`DriveItem`]).

use crate::config::GROUP_MIN_SHARED_TERMS;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

fn five() -> usize {
    5
}

fn min_shared() -> usize {
    GROUP_MIN_SHARED_TERMS
}

/// The keywords of `drive_pressure`, `open_drive_partition` and
/// `cognition_health`: `(store, journal, *, scopes)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DriveScopes {
    /// The ladder of `(scope, owner_id)` pairs (scope trimmed and lowercased,
    /// owner trimmed, blank scopes and repeats dropped, order kept).
    pub scopes: Vec<(String, String)>,
}

impl DriveScopes {
    /// The ladder `scopes`.
    pub fn new(scopes: &[(&str, &str)]) -> Self {
        DriveScopes {
            scopes: owned(scopes),
        }
    }
}

/// `alive_drives(system, *, scopes, k=5)`'s keywords.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AliveDrives {
    /// The ladder of `(scope, owner_id)` pairs.
    pub scopes: Vec<(String, String)>,
    /// At most this many items, strongest first (0: none).
    #[serde(default = "five")]
    pub k: usize,
}

impl AliveDrives {
    /// The top five alive drives of `scopes`.
    pub fn new(scopes: &[(&str, &str)]) -> Self {
        AliveDrives {
            scopes: owned(scopes),
            k: five(),
        }
    }
}

/// `drive_groups(items, *, min_shared_terms=GROUP_MIN_SHARED_TERMS)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DriveGroups {
    /// The drive items to cluster (repeats of one `record_id` count once).
    pub items: Vec<DriveItem>,
    /// Shared discriminative terms at which two items join one group.
    #[serde(default = "min_shared")]
    pub min_shared_terms: usize,
}

impl DriveGroups {
    /// Group `items` at [`GROUP_MIN_SHARED_TERMS`].
    pub fn new(items: Vec<DriveItem>) -> Self {
        DriveGroups {
            items,
            min_shared_terms: min_shared(),
        }
    }
}

/// One drive to group: its id, title and text (`digest` when there is no
/// `text`: an `alive_drives` item), and when it was observed (the exemplar
/// is the oldest member). Other keys an item carries (an alive drive's
/// `kind`, `aliveness`, ...) are accepted and ignored, so a read's items
/// group as they are.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DriveItem {
    /// The drive's record id (blank items are skipped).
    #[serde(default)]
    pub record_id: String,
    /// Its title (`None`: pending or absent).
    #[serde(default)]
    pub title: Option<String>,
    /// Its text.
    #[serde(default)]
    pub text: Option<String>,
    /// Its digest (read when `text` is absent or empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// When it was observed (ISO text; blank sorts last for the exemplar).
    #[serde(default)]
    pub observed_at: Option<String>,
}

fn owned(scopes: &[(&str, &str)]) -> Vec<(String, String)> {
    scopes
        .iter()
        .map(|(s, o)| ((*s).to_owned(), (*o).to_owned()))
        .collect()
}

/// The ladder normalized as every drive read normalizes it: scope trimmed
/// and lowercased, owner trimmed, blank scopes and repeats dropped, order
/// kept.
pub(crate) fn ladder(scopes: &[(String, String)]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (s, o) in scopes {
        let p = (s.trim().to_lowercase(), o.trim().to_owned());
        if !p.0.is_empty() && !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// [`ladder`], refusing a ladder with no pair left (`verb` names the read).
pub(crate) fn required_ladder(
    verb: &str,
    scopes: &[(String, String)],
) -> Result<Vec<(String, String)>> {
    let pairs = ladder(scopes);
    if pairs.is_empty() {
        return Err(Error::invalid(format!(
            "{verb} requires at least one (scope, owner_id) pair with a non-blank scope"
        )));
    }
    Ok(pairs)
}
