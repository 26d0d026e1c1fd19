//! The seam types a host exchanges with `MemorySystem`: [`Stimulus`] in,
//! [`ReconstructionResult`] with its [`MemoryHandle`]s, [`EdgeView`]s and
//! [`DroppedEntry`]s out. All JSON-safe; `to_dict()` gives the spec's shape
//! (every field present, `null` for absent optionals, tuples as lists), as the
//! Python library's `seam.py` does.
//!
//! `ActiveMemorySnapshot` is a journal record and lives in `am-journal`.
//! Spec: api.md "Seam types".

use am_triples::JsonMap;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// A JSON object whose keys keep insertion order (Python dict order), with
/// typed values. Serializes as a JSON object.
#[derive(Debug, Clone, PartialEq)]
pub struct OrderedMap<V>(pub Vec<(String, V)>);

impl<V> Default for OrderedMap<V> {
    fn default() -> Self {
        OrderedMap(Vec::new())
    }
}

impl<V> OrderedMap<V> {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// The value under `key`.
    pub fn get(&self, key: &str) -> Option<&V> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Set `key`: replaces in place when present (keeping its position),
    /// appends otherwise.
    pub fn insert(&mut self, key: impl Into<String>, value: V) {
        let key = key.into();
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.0.push((key, value)),
        }
    }

    /// Whether `key` is present.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Entries in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &V)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<V> FromIterator<(String, V)> for OrderedMap<V> {
    fn from_iter<I: IntoIterator<Item = (String, V)>>(iter: I) -> Self {
        let mut m = OrderedMap::new();
        for (k, v) in iter {
            m.insert(k, v);
        }
        m
    }
}

impl<V: Serialize> Serialize for OrderedMap<V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de, V: DeserializeOwned> Deserialize<'de> for OrderedMap<V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = serde_json::Map::<String, Value>::deserialize(deserializer)?;
        raw.into_iter()
            .map(|(k, v)| {
                serde_json::from_value(v)
                    .map(|v| (k, v))
                    .map_err(serde::de::Error::custom)
            })
            .collect()
    }
}

/// A JSON object whose every value is a `V` (key order is not a schema matter).
impl<V: schemars::JsonSchema> schemars::JsonSchema for OrderedMap<V> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("Map_of_{}", V::schema_name()).into()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        format!("am_system::OrderedMap<{}>", V::schema_id()).into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "additionalProperties": generator.subschema_for::<V>(),
        })
    }
}

fn trimmed_nonempty(values: &[String]) -> Vec<String> {
    values
        .iter()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

fn trimmed_opt(v: &Option<String>) -> Option<String> {
    v.as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// The incoming cue of one reconstruction.
///
/// `patterns` are serialized `TripleQuery` filters (the exact channel);
/// `participants` are identity strings for co-presence scoring; `as_of`
/// anchors the read to a journal seq (`None` = latest); `turn_id` and
/// `cue_source` are provenance only (never part of the query fingerprint).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Stimulus {
    /// The cue text (trimmed).
    pub cue_text: String,
    /// Serialized `TripleQuery` filters.
    pub patterns: Vec<JsonMap>,
    /// Records the host anchors the recall on.
    pub anchor_record_ids: Vec<String>,
    /// Identity strings (`person:ada`) for the participants channel.
    pub participants: Vec<String>,
    /// A precomputed cue embedding.
    pub embedding: Option<Vec<f64>>,
    /// Journal seq anchor; `None` = latest.
    pub as_of: Option<i64>,
    /// The host's turn identity (provenance).
    pub turn_id: Option<String>,
    /// The channel the cue came through (provenance; 0.3.2's additive field).
    pub cue_source: Option<String>,
}

impl Stimulus {
    /// A stimulus with only a cue text.
    ///
    /// # Examples
    /// ```
    /// let s = am_system::Stimulus::new("  pool outage ").with_as_of(3);
    /// assert_eq!((s.cue_text.as_str(), s.as_of), ("pool outage", Some(3)));
    /// ```
    pub fn new(cue_text: &str) -> Self {
        Stimulus {
            cue_text: cue_text.trim().to_owned(),
            ..Stimulus::default()
        }
    }

    /// Set the `as_of` anchor.
    pub fn with_as_of(mut self, seq: i64) -> Self {
        self.as_of = Some(seq);
        self
    }

    /// Set the participants.
    pub fn with_participants(mut self, participants: &[&str]) -> Self {
        self.participants = participants.iter().map(|s| (*s).to_owned()).collect();
        self
    }

    /// Add one exact-channel pattern (a serialized `TripleQuery` filter).
    pub fn with_pattern(mut self, pattern: JsonMap) -> Self {
        self.patterns.push(pattern);
        self
    }

    /// Set the turn id.
    pub fn with_turn_id(mut self, turn_id: &str) -> Self {
        self.turn_id = Some(turn_id.to_owned());
        self
    }

    /// The canonical form, as Python's `__post_init__`: trimmed cue text,
    /// blank anchor ids and participants dropped, blank `turn_id` /
    /// `cue_source` become `None`.
    pub fn normalized(&self) -> Stimulus {
        Stimulus {
            cue_text: self.cue_text.trim().to_owned(),
            patterns: self.patterns.clone(),
            anchor_record_ids: trimmed_nonempty(&self.anchor_record_ids),
            participants: trimmed_nonempty(&self.participants),
            embedding: self.embedding.clone(),
            as_of: self.as_of,
            turn_id: trimmed_opt(&self.turn_id),
            cue_source: trimmed_opt(&self.cue_source),
        }
    }

    /// The JSON object form (every field, nulls included).
    pub fn to_dict(&self) -> Value {
        serde_json::to_value(self.normalized()).unwrap_or(Value::Null)
    }
}

/// How a handle entered the working set. Only [`Admission::Stimulus`] and
/// [`Admission::Both`] deposit at commit (presence is not use).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Admission {
    /// Identity core, admitted by binding state (`"self"`).
    #[serde(rename = "self")]
    SelfCore,
    /// Trail-hot short-term standing (`"stm"`).
    Stm,
    /// A channel match (`"stimulus"`).
    Stimulus,
    /// Trail-hot and channel-matched (`"both"`).
    Both,
    /// Reserved, not emitted (`"historical"`).
    Historical,
}

impl Admission {
    /// The label's JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Admission::SelfCore => "self",
            Admission::Stm => "stm",
            Admission::Stimulus => "stimulus",
            Admission::Both => "both",
            Admission::Historical => "historical",
        }
    }

    /// Whether committing a record with this label deposits use.
    pub fn deposits(self) -> bool {
        matches!(self, Admission::Stimulus | Admission::Both)
    }
}

/// Whether a trace admission label (free text in foreign traces) deposits at
/// commit: everything but `stm`, `self` and `historical` does, unlabelled
/// ids included. Spec: api.md `commit_selection`; algorithms.md §7 "Commit".
pub fn label_deposits(label: Option<&str>) -> bool {
    !matches!(label, Some("stm" | "self" | "historical"))
}

/// The activation decomposition of a handle (`base_level` + `spread` = `total`).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ActivationParts {
    /// The decayed trail fold.
    pub base_level: f64,
    /// Per-stimulus spreading (never stored).
    pub spread: f64,
    /// `base_level + spread`.
    pub total: f64,
}

am_triples::vocabulary! {
    /// A payload tier a handle can be read at (`MemoryHandle::payload_tiers`,
    /// `Payload::tier`; `MemorySystem::payload`). The spec's reserved tiers
    /// (`summary`, `compact`) are refused by `payload`, never served.
    pub enum PayloadTier("payload tier") {
        /// The canonical text the handle carries.
        Digest = "digest",
        /// The host artifact reference (`attributes.payload_ref`).
        Raw = "raw",
    }
}

am_triples::vocabulary! {
    /// Why a candidate did not take a seat (`DroppedEntry::reason`).
    pub enum DropReason("drop reason") {
        /// A byte-identical digest already took a seat.
        DuplicateDigest = "duplicate_digest",
        /// The token budget ran out at some point of the fill.
        BudgetExhausted = "budget_exhausted",
        /// The shelf filled before this candidate.
        BelowShelf = "below_shelf",
        /// An identity member past the self cap.
        SelfCapped = "self_capped",
        /// An STM member past the STM cap.
        StmCapped = "stm_capped",
        /// Below `min_activation` in the working-set view.
        BelowMinActivation = "below_min_activation",
        /// A newest-seat candidate found no seat it could take.
        NewestSeatNoEvictable = "newest_seat_no_evictable",
        /// A newest-seat candidate did not fit the tokens even after an eviction.
        NewestSeatCapped = "newest_seat_capped",
        /// A seat given up to a newest-seat candidate.
        NewestSeatYielded = "newest_seat_yielded",
    }
}

am_triples::vocabulary! {
    /// Why a reconstruction's fill stopped (`ReconstructionResult::stop_reason`).
    pub enum StopReason("stop reason") {
        /// The shelf took what it wanted.
        Enough = "enough",
        /// The token budget ran out.
        BudgetExhausted = "budget_exhausted",
        /// No candidate was found and nothing was seated.
        NoCandidates = "no_candidates",
    }
}

/// These vocabularies compare equal to their wire names, so code and tests
/// written against the earlier string fields keep reading
/// (`r.stop_reason == "enough"`).
macro_rules! eq_wire_name {
    ($($name:ident),+) => {$(
        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.as_str() == other
            }
        }
        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.as_str() == *other
            }
        }
    )+};
}
eq_wire_name!(PayloadTier, DropReason, StopReason);

impl PayloadTier {
    /// The tier a caller asked `payload` for, as the spec reads its `tier`
    /// keyword (trimmed, any case): parsed once at the boundary, so
    /// [`MemorySystem::payload`](crate::MemorySystem::payload) takes the enum.
    ///
    /// # Errors
    /// `Unsupported` for the reserved tiers `summary` / `compact`;
    /// `InvalidInput` for any other name.
    ///
    /// ```
    /// use am_system::PayloadTier;
    /// assert_eq!(PayloadTier::requested(" Raw ").unwrap(), PayloadTier::Raw);
    /// assert!(PayloadTier::requested("summary").is_err());
    /// ```
    pub fn requested(tier: &str) -> crate::Result<PayloadTier> {
        let requested = tier.trim().to_lowercase();
        match requested.as_str() {
            "digest" => Ok(PayloadTier::Digest),
            "raw" => Ok(PayloadTier::Raw),
            "summary" | "compact" => Err(crate::Error::unsupported(format!(
                "payload tier {requested:?} is reserved and not served; use 'digest' or 'raw' (attributes.payload_ref)"
            ))),
            _ => Err(crate::Error::invalid(format!(
                "unknown payload tier {tier:?}: expected 'digest' or 'raw' (reserved: 'compact', 'summary')"
            ))),
        }
    }
}

fn default_tiers() -> Vec<PayloadTier> {
    vec![PayloadTier::Digest]
}

/// One scored memory of a reconstruction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MemoryHandle {
    /// The digest assertion id (the id commits and counters key on).
    pub record_id: String,
    /// The record kind.
    pub kind: String,
    /// The title; `None` while the record's title is pending.
    pub title: Option<String>,
    /// The serialize-ready digest (canonical text for plain triples).
    pub digest: String,
    /// Token estimate of `digest`.
    pub token_estimate: usize,
    /// Relevance per present channel (`exact`, `keyword`, `vector`, ...).
    pub relevance: OrderedMap<f64>,
    /// `base_level` / `spread` / `total`.
    pub activation: ActivationParts,
    /// Human-readable "why".
    pub cues: Vec<String>,
    /// Folded binding, `"{search_state}+{prompt_state}"`.
    pub binding: String,
    /// The record's scope.
    pub scope: String,
    /// The record's owner (`""` for none).
    pub owner_id: String,
    /// Provenance, including `global_count`.
    #[serde(default)]
    pub provenance: JsonMap,
    /// Payload tiers reachable through `payload`.
    #[serde(default = "default_tiers")]
    pub payload_tiers: Vec<PayloadTier>,
    /// How the handle entered the working set.
    pub admission: Admission,
}

impl MemoryHandle {
    /// The JSON object form.
    pub fn to_dict(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// A spreading hop the walk took (`source: "walked"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WalkedEdge {
    /// Where the hop started.
    pub source_id: String,
    /// The relation that carried the spread (`co_used` for a trail hop).
    pub predicate: String,
    /// Where it arrived.
    pub target_id: String,
    /// `recorded` (an edge assertion) or `trail` (a co-use pair).
    pub strength_label: String,
    /// The pair's trail activation.
    pub trail_activation: f64,
    /// Always `walked`.
    pub source: String,
}

/// A hot trail pair surfaced unwalked in the working-set view (`source: "stm_trail"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StmTrailEdge {
    /// Always `stm_trail`.
    pub source: String,
    /// The sorted pair.
    pub pair: [String; 2],
    /// The pair's trail activation.
    pub trail_activation: f64,
}

/// One render-side edge of the working-set view (never a handle).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum EdgeView {
    /// A hop the walk took.
    Walked(WalkedEdge),
    /// A hot trail pair the walk did not take.
    StmTrail(StmTrailEdge),
}

/// Drop reason: a byte-identical digest already took a seat.
pub const DROP_DUPLICATE_DIGEST: DropReason = DropReason::DuplicateDigest;
/// Drop reason: the token budget ran out at some point of the fill.
pub const DROP_BUDGET_EXHAUSTED: DropReason = DropReason::BudgetExhausted;
/// Drop reason: the shelf filled before this candidate.
pub const DROP_BELOW_SHELF: DropReason = DropReason::BelowShelf;
/// Drop reason: an identity member past the self cap.
pub const DROP_SELF_CAPPED: DropReason = DropReason::SelfCapped;
/// Drop reason: an STM member past the STM cap.
pub const DROP_STM_CAPPED: DropReason = DropReason::StmCapped;
/// Drop reason: below `min_activation` in the working-set view.
pub const DROP_BELOW_MIN_ACTIVATION: DropReason = DropReason::BelowMinActivation;

/// A candidate that did not take a seat, with why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DroppedEntry {
    /// The candidate's record id.
    pub record_id: String,
    /// Its fused score (0.0 for capped identity members).
    pub score: f64,
    /// Why it did not take a seat.
    pub reason: DropReason,
}

/// Which view a reconstruction returns.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum View {
    /// The shelf (default).
    #[default]
    Shelf,
    /// The working set, with `edges`.
    WorkingSet,
}

impl View {
    /// Parse `"shelf"` / `"working_set"`.
    ///
    /// # Errors
    /// `InvalidInput` naming both valid views and what arrived.
    pub fn parse(s: &str) -> crate::Result<View> {
        match s {
            "shelf" => Ok(View::Shelf),
            "working_set" => Ok(View::WorkingSet),
            other => Err(crate::Error::invalid(format!(
                "view must be 'shelf' or 'working_set', got {other:?}"
            ))),
        }
    }
}

fn default_route() -> String {
    "heuristic".to_owned()
}

fn default_stop() -> StopReason {
    StopReason::Enough
}

/// The output of one reconstruction: one call, two views.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReconstructionResult {
    /// The trace identity (supplied or fresh).
    pub trace_id: String,
    /// `shelf` or `working_set`.
    pub view: View,
    /// The journal high-water mark the read folded to; persist it for replay.
    pub as_of_seq: i64,
    /// The admitted handles: self seats, then STM seats, then stimulus seats.
    pub handles: Vec<MemoryHandle>,
    /// Render-side edges (working-set view only).
    #[serde(default)]
    pub edges: Vec<EdgeView>,
    /// Candidates that did not take a seat.
    #[serde(default)]
    pub dropped: Vec<DroppedEntry>,
    /// `heuristic` (the shelf is heuristic).
    #[serde(default = "default_route")]
    pub selector_route: String,
    /// Why the fill stopped.
    #[serde(default = "default_stop")]
    pub stop_reason: StopReason,
    /// `#FALLBACK` notes of degraded paths.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// What the fill spent (tokens, seats, edges visited, ...).
    #[serde(default)]
    pub budget_spent: BudgetSpent,
}

/// A payload read (`payload(record_id, tier)`): the `digest` tier carries the
/// canonical text and its token estimate; the `raw` tier the host artifact
/// reference with `content` and `token_estimate` null (the package never
/// fetches verbatim). A diary projection adds `entry_id`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Payload {
    /// The record as the caller named it.
    pub record_id: String,
    /// The tier read.
    pub tier: PayloadTier,
    /// The host artifact reference (`raw` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload_ref: Option<String>,
    /// The canonical text (`digest`); null for `raw`.
    pub content: Option<String>,
    /// The text's token estimate (`digest`); null for `raw`.
    pub token_estimate: Option<usize>,
    /// A diary projection's pointer into the host-side diary book.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry_id: Option<String>,
}

/// What one reconstruction spent against its [`crate::RecallBudget`]
/// (`ReconstructionResult.budget_spent`), in the spec's key order; the
/// identity keys are present only when `self_fraction > 0`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BudgetSpent {
    /// Tokens the seated handles cost.
    pub tokens_used: usize,
    /// The budget's `token_budget`.
    pub token_budget: usize,
    /// Handles seated.
    pub handles: usize,
    /// Of them, STM seats.
    pub stm_handles: usize,
    /// Tokens the STM seats cost.
    pub stm_tokens_used: usize,
    /// The budget's `shelf_size`.
    pub shelf_size: usize,
    /// Edges the spreading walk accepted.
    pub edges_visited: usize,
    /// The walk's edge budget.
    pub max_edges: usize,
    /// Candidates gathered (and those below `min_activation`).
    pub candidates_considered: usize,
    /// Identity seats (only with `self_fraction > 0`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub self_handles: Option<usize>,
    /// Tokens the identity seats cost (only with `self_fraction > 0`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub self_tokens_used: Option<usize>,
}

impl BudgetSpent {
    /// The JSON object form (the journal's trace keeps it as an open map).
    pub fn to_map(&self) -> JsonMap {
        match serde_json::to_value(self) {
            Ok(Value::Object(m)) => m,
            _ => JsonMap::new(),
        }
    }
}

impl ReconstructionResult {
    /// The JSON object form.
    pub fn to_dict(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn stimulus_to_dict_keeps_every_field_and_normalizes() {
        let s = Stimulus {
            cue_text: " hi ".into(),
            participants: vec![" person:ada ".into(), "  ".into()],
            turn_id: Some("  ".into()),
            ..Stimulus::default()
        };
        assert_eq!(
            s.to_dict(),
            json!({"cue_text": "hi", "patterns": [], "anchor_record_ids": [],
                   "participants": ["person:ada"], "embedding": null, "as_of": null,
                   "turn_id": null, "cue_source": null})
        );
    }

    #[test]
    fn handle_serializes_in_the_seam_field_order_with_a_null_pending_title() {
        let mut relevance = OrderedMap::new();
        relevance.insert("keyword", 0.5);
        relevance.insert("exact", 1.0);
        let h = MemoryHandle {
            record_id: "r".into(),
            kind: "memory".into(),
            title: None,
            digest: "d".into(),
            token_estimate: 1,
            relevance,
            activation: ActivationParts::default(),
            cues: vec![],
            binding: "indexed+inactive".into(),
            scope: "s".into(),
            owner_id: String::new(),
            provenance: JsonMap::new(),
            payload_tiers: default_tiers(),
            admission: Admission::SelfCore,
        };
        let text = serde_json::to_string(&h.to_dict()).unwrap();
        assert!(text.starts_with(r#"{"record_id":"r","kind":"memory","title":null,"#));
        assert!(text.contains(r#""relevance":{"keyword":0.5,"exact":1.0}"#));
        assert!(text.ends_with(r#""payload_tiers":["digest"],"admission":"self"}"#));
        let back: MemoryHandle = serde_json::from_value(h.to_dict()).unwrap();
        assert_eq!(back, h);
    }

    #[test]
    fn edges_serialize_in_their_two_shapes() {
        let walked = EdgeView::Walked(WalkedEdge {
            source_id: "a".into(),
            predicate: "co_used".into(),
            target_id: "b".into(),
            strength_label: "trail".into(),
            trail_activation: 2.0,
            source: "walked".into(),
        });
        let trail = EdgeView::StmTrail(StmTrailEdge {
            source: "stm_trail".into(),
            pair: ["a".into(), "b".into()],
            trail_activation: 1.5,
        });
        assert_eq!(
            serde_json::to_value(&walked).unwrap(),
            json!({"source_id": "a", "predicate": "co_used", "target_id": "b",
                   "strength_label": "trail", "trail_activation": 2.0, "source": "walked"})
        );
        assert_eq!(
            serde_json::to_value(&trail).unwrap(),
            json!({"source": "stm_trail", "pair": ["a", "b"], "trail_activation": 1.5})
        );
        let back: EdgeView = serde_json::from_value(serde_json::to_value(&trail).unwrap()).unwrap();
        assert_eq!(back, trail);
    }

    #[test]
    fn only_stimulus_and_both_labels_deposit() {
        assert!(label_deposits(None));
        assert!(label_deposits(Some("stimulus")));
        assert!(label_deposits(Some("both")));
        assert!(!label_deposits(Some("stm")));
        assert!(!label_deposits(Some("self")));
        assert!(!label_deposits(Some("historical")));
        assert!(Admission::Both.deposits() && !Admission::Stm.deposits());
        assert_eq!(View::parse("working_set").unwrap(), View::WorkingSet);
        assert!(View::parse("shelves").is_err());
    }
}
