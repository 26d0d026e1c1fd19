//! The world-model verbs' arguments.

use crate::sleep::SleepTuning;
use serde::{Deserialize, Serialize};

/// The arguments of the card reads (`standing_world_models`,
/// `current_world_models`, `alias_map`): the pair whose cards are read. The
/// spec's `journal=` is the read's journal argument (`None`: the layer-1 read
/// with no closure fold).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CardsOf {
    /// The cards' scope.
    pub scope: String,
    /// The cards' owner (empty: any owner).
    pub owner_id: String,
}

impl CardsOf {
    /// The cards of `(scope, owner_id)`.
    pub fn new(scope: &str, owner_id: &str) -> Self {
        CardsOf {
            scope: scope.to_owned(),
            owner_id: owner_id.to_owned(),
        }
    }
}

/// `world_model_pass(system, *, scopes, owner_id, report_only=False,
/// tuning=SleepTuning(), author=None)`: the sleep phase over the whole
/// evidence (the `author` is the host's hook, passed beside the arguments).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorldModelPass {
    /// `(scope, owner_id)` pairs the evidence is read from; the cards form in
    /// the first pair's scope. JSON `[[scope, owner_id], ...]`.
    pub scopes: Vec<(String, String)>,
    /// The entity whose cards these are (never a target of its own).
    pub owner_id: String,
    /// Plan and report only: nothing is formed, closed or repaired.
    #[serde(default)]
    pub report_only: bool,
    /// The sleep lane's numbers (the `world_model_*` fields).
    #[serde(default)]
    pub tuning: SleepTuning,
}

impl WorldModelPass {
    /// The full pass over `scopes` for `owner_id` with the default tuning.
    pub fn new(scopes: &[(&str, &str)], owner_id: &str) -> Self {
        WorldModelPass {
            scopes: owned_pairs(scopes),
            owner_id: owner_id.to_owned(),
            report_only: false,
            tuning: SleepTuning::default(),
        }
    }
}

fn scan_400() -> usize {
    400
}

/// `world_model_update(system, *, scopes, owner_id, targets, scan_limit=400,
/// tuning=SleepTuning(), author=None)`: the per-turn update of the named
/// targets from the newest `scan_limit` rows of each pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorldModelUpdate {
    /// `(scope, owner_id)` pairs, as [`WorldModelPass::scopes`].
    pub scopes: Vec<(String, String)>,
    /// The entity whose cards these are.
    pub owner_id: String,
    /// The targets the turn touched (at least one).
    pub targets: Vec<String>,
    /// The newest rows read per pair (default 400; 0 reads as 1).
    #[serde(default = "scan_400")]
    pub scan_limit: usize,
    /// The sleep lane's numbers.
    #[serde(default)]
    pub tuning: SleepTuning,
}

impl WorldModelUpdate {
    /// An update of `targets` with the spec's window and tuning.
    pub fn new(scopes: &[(&str, &str)], owner_id: &str, targets: &[&str]) -> Self {
        WorldModelUpdate {
            scopes: owned_pairs(scopes),
            owner_id: owner_id.to_owned(),
            targets: targets.iter().map(|t| (*t).to_owned()).collect(),
            scan_limit: 400,
            tuning: SleepTuning::default(),
        }
    }
}

fn owned_pairs(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(s, o)| ((*s).to_owned(), (*o).to_owned()))
        .collect()
}
