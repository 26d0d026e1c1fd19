//! The world-model verbs' arguments.

use crate::config::SleepTuning;
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

/// Who authored a card's words: `{kind, id}` (validated as the
/// understanding verbs validate it), or a label string, recorded as author
/// kind `unrecorded` with the label as its id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum CardAuthor {
    /// `{kind, id}`.
    Ref(am_journal::AuthorRef),
    /// A label (`entity-reflection`).
    Label(String),
}

impl Default for CardAuthor {
    fn default() -> Self {
        CardAuthor::Label("entity-reflection".to_owned())
    }
}

fn yes() -> bool {
    true
}

fn formation() -> serde_json::Value {
    serde_json::json!("formation")
}

/// `author_world_model(system, *, target, text, scope, owner_id,
/// author="entity-reflection", in_place=True, reader=None, sources=(),
/// cause="formation", expected_version=None, expected_fingerprint=None,
/// task_id=None)`: the authoring of a card's words, in place by default,
/// else as revision N+1.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AuthorWorldModel {
    /// The card's key.
    pub target: String,
    /// The authored words (stored exactly as given; blank is refused).
    pub text: String,
    /// The card's scope.
    pub scope: String,
    /// The card's owner.
    pub owner_id: String,
    /// Who wrote the words (default the label `entity-reflection`).
    #[serde(default)]
    pub author: CardAuthor,
    /// Rewrite the current card in place (default), or form revision N+1
    /// superseding it (`false`).
    #[serde(default = "yes")]
    pub in_place: bool,
    /// `{provider, model, thinking}`: required of a model author.
    #[serde(default)]
    pub reader: Option<am_journal::ReaderRef>,
    /// Ledger `SourceRef`s (a model author needs at least one).
    #[serde(default)]
    pub sources: Vec<am_journal::SourceRef>,
    /// A cause in `REWRITE_CAUSES` (default `formation`).
    #[serde(default = "formation")]
    pub cause: serde_json::Value,
    /// Compare-and-set on the card's version (default: the current one).
    #[serde(default)]
    pub expected_version: Option<i64>,
    /// The evidence the author read (`attributes.evidence_fingerprint`):
    /// refused when the card's evidence changed since.
    #[serde(default)]
    pub expected_fingerprint: Option<String>,
    /// The `card.author` / `digest.author` task this settles.
    #[serde(default)]
    pub task_id: Option<String>,
}

impl AuthorWorldModel {
    /// Author `target`'s card in `(scope, owner_id)` with `text`, by the
    /// default label author.
    pub fn new(target: &str, text: &str, scope: &str, owner_id: &str) -> Self {
        AuthorWorldModel {
            target: target.to_owned(),
            text: text.to_owned(),
            scope: scope.to_owned(),
            owner_id: owner_id.to_owned(),
            author: CardAuthor::default(),
            in_place: true,
            reader: None,
            sources: Vec::new(),
            cause: formation(),
            expected_version: None,
            expected_fingerprint: None,
            task_id: None,
        }
    }
}
