//! Identity: the spark (template, lint, hash), the engram pass that turns a
//! spark into the prompt-active identity core, the folded identity read
//! `self_records`, and the legacy birth-label predicate.
//!
//! Spec: api.md "Identity: spark, engram, self core, floors";
//! memory-system.md "Identity: present by right, not by recall"; operator.md
//! §1.

pub mod spark;

use crate::record::DigestRow;
use am_journal::{BindingSource, Lifecycle, PromptState, SearchState};
pub use spark::{
    DEFAULT_SPARK_TEMPLATE, SHARED_VULNERABILITY_STATEMENT, SPARK_KEYS, canonical_spark_hash,
    lint_spark,
};

use crate::error::{Error, Result};
use crate::formation::authoring::{
    Author, AuthorContext, AuthorField, AuthoringReceipt, author_or_pend,
};
use crate::formation::records::MemoryRecordInput;
use crate::formation::{DIGEST_PREDICATE, build_formation_plan};
use crate::ids;
use crate::kinds::{RecordKind, kind_rank};
use crate::system::MemorySystem;
use am_journal::{MemoryJournal, ScopeBinding};
use am_triples::{JsonMap, TripleAssertion, TripleQuery, TripleStore};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::HashSet;

/// The kinds of the identity core `self_records` reads (the self seats).
pub const SELF_CORE_KINDS: [&str; 3] = ["value", "purpose", "trait"];

/// The title prefix of the engram marker record (a `claim` kept as
/// bookkeeping), one per spark version: `spark-engram v<N>`.
pub const ENGRAM_MARKER_PREFIX: &str = "spark-engram v";

/// The stems of the legacy birth labels (`<stem>-<ordinal>`).
pub const LEGACY_BIRTH_LABEL_STEMS: [&str; 4] = ["value", "purpose", "trait", "limit"];

/// Whether `title` is a legacy birth label: the WHOLE title is
/// `<stem>-<ordinal>`, `stem` one of [`LEGACY_BIRTH_LABEL_STEMS`] exactly
/// (lowercase), one hyphen, `ordinal` one or more ASCII digits (no sign,
/// padding, spaces or suffix). Such titles were written for unnamed spark
/// items until 2026-11-10; a host's sleep repair treats them as placeholders.
/// They count only on `value` / `purpose` / `trait` records carrying
/// `attributes.spark_version` (see [`is_legacy_birth_label_record`]).
///
/// ```
/// use am_system::identity::is_legacy_birth_label;
/// assert!(is_legacy_birth_label("trait-0"));
/// assert!(is_legacy_birth_label("limit-12"));
/// assert!(!is_legacy_birth_label("Trait-0"));
/// assert!(!is_legacy_birth_label("trait-0 "));
/// assert!(!is_legacy_birth_label("my trait-0"));
/// assert!(!is_legacy_birth_label("value-"));
/// assert!(!is_legacy_birth_label("value-+1"));
/// ```
pub fn is_legacy_birth_label(title: &str) -> bool {
    let Some((stem, ordinal)) = title.split_once('-') else {
        return false;
    };
    LEGACY_BIRTH_LABEL_STEMS.contains(&stem)
        && !ordinal.is_empty()
        && ordinal.bytes().all(|b| b.is_ascii_digit())
}

/// Whether a stored row is an identity record whose title is a legacy birth
/// label: kind `value`, `purpose` or `trait`, `attributes.spark_version`
/// present, and [`is_legacy_birth_label`] of its title.
pub fn is_legacy_birth_label_record(a: &TripleAssertion) -> bool {
    let row = DigestRow::of(a);
    is_self_core(row.kind())
        && row.get("spark_version").is_some_and(|v| !v.is_null())
        && row.as_stored("title").is_some_and(is_legacy_birth_label)
}

/// Whether `kind` is one of [`SELF_CORE_KINDS`] (a stored kind outside the
/// vocabulary is not).
fn is_self_core(kind: Option<RecordKind>) -> bool {
    kind.is_some_and(|k| SELF_CORE_KINDS.contains(&k.as_str()))
}

fn self_scope() -> String {
    "self".to_owned()
}

/// The arguments of [`MemorySystem::engram`]: `engram(system, spark, *,
/// scope="self", owner_id, spark_artifact_ref=None, author=None)` (the
/// author is the verb's second argument: a callable is not data).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Engram {
    /// The spark document (six keys; an optional `spark` key is its version,
    /// default 1).
    pub spark: JsonMap,
    /// The scope of the core (default `self`).
    #[serde(default = "self_scope")]
    pub scope: String,
    /// The entity.
    pub owner_id: String,
    /// The attested spark document, kept as every record's `payload_ref`.
    #[serde(default)]
    pub spark_artifact_ref: Option<String>,
    /// This port's extension (the spec's `engram` has no such keyword; its
    /// `lint_spark` has): whether the spark must carry the framework's own
    /// value (`shared_vulnerability`, core). `false` engrams a custom
    /// identity without it, as `lint_spark(spark, framework=False)` accepts.
    #[serde(default = "framework_required", skip_serializing_if = "is_true")]
    pub framework: bool,
}

fn framework_required() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

impl Engram {
    /// Engram `spark` for `owner_id` in scope `self`.
    pub fn new(spark: JsonMap, owner_id: &str) -> Self {
        Engram {
            spark,
            scope: self_scope(),
            owner_id: owner_id.to_owned(),
            spark_artifact_ref: None,
            framework: true,
        }
    }
}

/// The graph ids an engram formed, per spark section.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EngramRecordIds {
    /// `values` → `value` records.
    pub values: Vec<String>,
    /// `purposes` → `purpose` records.
    pub purposes: Vec<String>,
    /// `traits` → `trait` records.
    pub traits: Vec<String>,
    /// `honesty` → `trait` records with `trait_class = "limit"`.
    pub honesty: Vec<String>,
}

/// What one engram produced or found (`EngramResult`): JSON `{record_ids,
/// binding_ids, warnings, created, authoring}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EngramResult {
    /// The identity records per section, in spark order.
    pub record_ids: EngramRecordIds,
    /// The prompt-active self bindings, in record order.
    pub binding_ids: Vec<String>,
    /// The lint's warnings and what formation raised.
    pub warnings: Vec<String>,
    /// `false` when this spark was already engrammed (a replay: nothing new).
    pub created: bool,
    /// The titles authored at birth, and why any was not (empty on a replay).
    pub authoring: AuthoringReceipt,
}

/// The arguments of [`MemorySystem::self_records`]: `self_records(*, scope,
/// owner_id, spark_version=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SelfRecords {
    /// The core's scope.
    pub scope: String,
    /// The entity.
    pub owner_id: String,
    /// Only records of this spark version.
    #[serde(default)]
    pub spark_version: Option<i64>,
    /// The anchor of the binding and closure folds (`None`: now); the entity
    /// card's identity-at-T.
    #[serde(default)]
    pub as_of: Option<i64>,
}

impl SelfRecords {
    /// The current core of `owner_id` in `scope`.
    pub fn new(scope: &str, owner_id: &str) -> Self {
        SelfRecords {
            scope: scope.to_owned(),
            owner_id: owner_id.to_owned(),
            spark_version: None,
            as_of: None,
        }
    }
}

/// The spark's version: its `spark` key (a positive integer or its text),
/// default 1.
fn spark_version(spark: &JsonMap) -> Result<i64> {
    let bad = |v: &Value| {
        Error::invalid(format!(
            "spark[\"spark\"] is the spark's version, a positive integer, got {v}"
        ))
    };
    match spark.get("spark") {
        None | Some(Value::Null) => Ok(1),
        Some(Value::Bool(false)) => Ok(1),
        Some(v @ Value::Number(n)) => match n.as_i64() {
            Some(0) => Ok(1),
            Some(i) => Ok(i),
            None => Err(bad(v)),
        },
        Some(v @ Value::String(s)) => match s.trim().parse::<i64>() {
            Ok(0) => Ok(1),
            Ok(i) => Ok(i),
            Err(_) if s.is_empty() => Ok(1),
            Err(_) => Err(bad(v)),
        },
        Some(v) => Err(bad(v)),
    }
}

/// One planned identity record: its section, position in the batch and the
/// record itself.
struct Birth {
    section: &'static str,
    record: MemoryRecordInput,
    /// Whether the title must be authored (an unnamed item not yet formed).
    unnamed: bool,
}

const SECTIONS: [(&str, RecordKind); 4] = [
    ("values", RecordKind::Value),
    ("purposes", RecordKind::Purpose),
    ("traits", RecordKind::Trait),
    ("honesty", RecordKind::Trait),
];

impl MemorySystem {
    /// Turn a linted spark into the identity core: one `value` / `purpose` /
    /// `trait` record per item (honesty items are traits with `trait_class =
    /// "limit"`; each carries `precedence` = its ordinal and
    /// `spark_version`), a bookkeeping marker claim `spark-engram v<N>`
    /// holding the spark's hash, and a prompt-active self binding per
    /// record; all in ONE transaction of the home. An item's `name` is its
    /// title as given (`title_provenance`: operator `spark-v<N>`); an unnamed
    /// item's title is authored by `author` before anything forms, and when
    /// it is not (no author, a failure, an unusable answer) the record forms
    /// pending with its `title.author` task on a home with a task queue, and
    /// the whole birth is refused on one without. Idempotent
    /// by [`canonical_spark_hash`]: the same spark again is a no-op
    /// (`created: false`).
    ///
    /// # Errors
    /// `InvalidInput`, writing nothing, for lint errors; a spark of a version
    /// already engrammed with other content; a higher version while an
    /// earlier version's core is still prompt-active; an unnamed item whose
    /// title was not authored on a home without a task queue (a pending title
    /// is stored only beside its task); a malformed version; and every
    /// formation refusal.
    pub fn engram(&self, args: &Engram, author: Option<&dyn Author>) -> Result<EngramResult> {
        let issues = lint_spark(&args.spark, args.framework);
        let (errors, lint_warnings): (Vec<String>, Vec<String>) =
            issues.into_iter().partition(|i| i.starts_with("ERROR"));
        if !errors.is_empty() {
            return Err(Error::invalid(format!(
                "engram refused: the spark has lint errors:\n{}",
                errors.join("\n")
            )));
        }
        let version = spark_version(&args.spark)?;
        let hash = canonical_spark_hash(&args.spark);
        let owner = args.owner_id.trim();
        let key = format!("engram|{owner}|spark-v{version}|{}", &hash[..16]);
        let marker_title = format!("{ENGRAM_MARKER_PREFIX}{version}");

        // The version guards read the pair's marker claims.
        let mut existing: Option<TripleAssertion> = None;
        let mut prior_versions: Vec<i64> = Vec::new();
        for a in self.store.query(&TripleQuery {
            scope: Some(args.scope.clone()),
            owner_id: Some(owner.to_owned()),
            limit: 0,
            ..TripleQuery::default()
        })? {
            let row = DigestRow::of(&a);
            if row.kind() != Some(RecordKind::Claim) {
                continue;
            }
            let title = row.as_stored("title").unwrap_or("");
            if title == marker_title {
                existing = Some(a);
            } else if title.starts_with(ENGRAM_MARKER_PREFIX)
                && let Some(v) = row.get("spark_version").and_then(as_int)
            {
                prior_versions.push(v);
            }
        }
        if let Some(marker) = &existing {
            let prior = DigestRow::of(marker).as_stored("spark_hash").unwrap_or("");
            if prior != hash {
                return Err(Error::invalid(format!(
                    "engram refused: spark v{version} is already engrammed for {owner:?} with other content \
                     (hash {} there, {} here); a spark is kept for life, and identity changes by the entity's \
                     own revision of its records, never by rewriting the spark",
                    &prior[..prior.len().min(16)],
                    &hash[..16]
                )));
            }
        }
        prior_versions.sort_unstable();
        prior_versions.dedup();
        for prior in prior_versions.into_iter().filter(|p| *p < version) {
            let core = self.self_records(&SelfRecords {
                spark_version: Some(prior),
                ..SelfRecords::new(&args.scope, owner)
            })?;
            if !core.is_empty() {
                return Err(Error::invalid(format!(
                    "engram refused: the v{prior} core of {owner:?} is engrammed and still prompt-active; \
                     engramming v{version} is an exceptional repair that first retires the v{prior} records \
                     (close them and bind them inactive)"
                )));
            }
        }

        let now = self.now()?;
        let mut marker_attrs = JsonMap::new();
        marker_attrs.insert("spark_hash".into(), json!(hash));
        marker_attrs.insert("spark_version".into(), json!(version));
        marker_attrs.insert("bookkeeping".into(), json!(true));
        let marker = MemoryRecordInput {
            attributes: marker_attrs,
            payload_ref: args.spark_artifact_ref.clone(),
            ..MemoryRecordInput::new(
                RecordKind::Claim,
                &marker_title,
                &format!(
                    "Engram marker of spark v{version} for {owner}; spark hash {}.",
                    &hash[..16]
                ),
            )
        };
        let mut births: Vec<Birth> = Vec::new();
        for (section, kind) in SECTIONS {
            for (ordinal, item) in spark::section_items(&args.spark, section)
                .into_iter()
                .filter_map(Value::as_object)
                .enumerate()
            {
                let mut attributes = JsonMap::new();
                attributes.insert("precedence".into(), json!(ordinal));
                attributes.insert("spark_version".into(), json!(version));
                if section == "values" {
                    let class = match item.get("class") {
                        Some(Value::String(s)) => s.clone(),
                        None | Some(Value::Null) => String::new(),
                        Some(other) => other.to_string(),
                    };
                    attributes.insert("value_class".into(), json!(class));
                }
                if section == "honesty" {
                    attributes.insert("trait_class".into(), json!("limit"));
                }
                let statement = match item.get("statement") {
                    Some(Value::String(s)) => s.clone(),
                    None | Some(Value::Null) => String::new(),
                    Some(other) => other.to_string(),
                };
                let name = match item.get("name") {
                    Some(Value::String(s)) => s.trim().to_owned(),
                    None | Some(Value::Null) => String::new(),
                    Some(other) => other.to_string(),
                };
                let unnamed = name.is_empty();
                if !unnamed {
                    let mut stamp = JsonMap::new();
                    stamp.insert(
                        "author".into(),
                        json!({"kind": "operator", "id": format!("spark-v{version}")}),
                    );
                    stamp.insert("sources".into(), json!([]));
                    stamp.insert("cause".into(), json!("formation"));
                    stamp.insert("version".into(), json!(0));
                    stamp.insert("understood_at".into(), json!(now));
                    attributes.insert("title_provenance".into(), Value::Object(stamp));
                }
                let mut record = MemoryRecordInput::new(kind, &name, &statement);
                record.attributes = attributes;
                record.payload_ref = args.spark_artifact_ref.clone();
                births.push(Birth {
                    section,
                    record,
                    unnamed,
                });
            }
        }

        if let Some(first) = births.first() {
            let probe = ids::record_id_for(first.record.kind, &key, 1);
            self.refuse_a_vectorless_birth(&probe, owner)?;
        }

        // Titles of unnamed items: a record already formed keeps its stored
        // title (a replay never asks the author again); the others are
        // authored now, before anything is written.
        let mut authoring = AuthoringReceipt::default();
        for (i, b) in births.iter_mut().enumerate().filter(|(_, b)| b.unnamed) {
            let position = i + 1; // the marker rides position 0
            let record_id = ids::record_id_for(b.record.kind, &key, position);
            if let Some(title) = self.stored_title(&record_id)? {
                b.record.title = Some(title);
                continue;
            }
            let context = AuthorContext {
                pass: "engram".into(),
                record_kind: b.record.kind.as_str().to_owned(),
                scope: args.scope.clone(),
                owner_id: owner.to_owned(),
                fields: vec![AuthorField::Title],
                title: None,
                source_ids: Vec::new(),
                attributes: b.record.attributes.clone(),
            };
            b.record.title = None;
            let decision = author_or_pend(author, &mut b.record, &context, &now);
            if let Some(failure) = &decision.failure
                && !self.home.has_task_queue()
            {
                return Err(Error::invalid(format!(
                    "engram refused before writing anything: {} item {} has no name and its title was not \
                     authored ({}: {}); a pending title needs the home's task queue (MemorySystem(task_queue=True)), \
                     which this home was not opened with",
                    b.section,
                    b.record
                        .attributes
                        .get("precedence")
                        .unwrap_or(&Value::Null),
                    match &failure.error_class {
                        Some(class) => format!("{} {class}", failure.reason.as_str()),
                        None => failure.reason.as_str().to_owned(),
                    },
                    failure.message
                )));
            }
            authoring.absorb(decision.receipt(&record_id, b.record.kind.as_str(), "engram"));
        }

        let mut inputs = vec![marker];
        inputs.extend(births.iter().map(|b| b.record.clone()));
        let clock = self.clock.clone();
        let plan = build_formation_plan(&inputs, &args.scope, owner, &key, None, &*clock)?;
        let mut record_ids = EngramRecordIds::default();
        let mut bindings: Vec<ScopeBinding> = Vec::new();
        for (i, b) in births.iter().enumerate() {
            let position = i + 1;
            let gid = plan.record_ids[position].clone();
            match b.section {
                "values" => record_ids.values.push(gid.clone()),
                "purposes" => record_ids.purposes.push(gid.clone()),
                "traits" => record_ids.traits.push(gid.clone()),
                _ => record_ids.honesty.push(gid.clone()),
            }
            bindings.push(ScopeBinding {
                record_id: gid,
                scope: args.scope.clone(),
                owner_id: owner.to_owned(),
                search_state: SearchState::Indexed,
                prompt_state: PromptState::Active,
                lifecycle: Lifecycle::Promoted,
                source: BindingSource::Operator,
                reason: Some(format!("engram spark v{version}")),
                observed_at: now.clone(),
                provenance: JsonMap::new(),
                binding_id: ids::derived_hex(&format!("{key}|{position}|self-binding"), 32),
                seq: -1,
            });
        }
        // A pending birth title owes its `title.author` task, queued in the
        // same transaction (only a home with a task queue gets here with one).
        let owed = if self.home.has_task_queue() {
            crate::formation::owed::owed_tasks(&plan, &now)
        } else {
            Vec::new()
        };
        let point = if owed.is_empty() {
            am_triples::CommitPoint::StoreAdd
        } else {
            am_triples::CommitPoint::TasksFormWithTasks
        };
        let rows = self.home.prepare_rows(&plan.assertions)?;
        let written = self.home.transaction(point, &mut |tx| {
            tx.store().add(&rows)?;
            tx.journal().append_bindings(&plan.bindings)?;
            tx.journal().append_bindings(&bindings)?;
            if !owed.is_empty() {
                crate::formation::owed::enqueue_owed(tx.tasks()?, &owed)?;
            }
            Ok(())
        })?;
        let binding_ids = bindings.into_iter().map(|b| b.binding_id).collect();
        let mut warnings = lint_warnings;
        warnings.extend(plan.warnings);
        warnings.extend(written);
        let created = existing.is_none();
        Ok(EngramResult {
            record_ids,
            binding_ids,
            warnings,
            created,
            authoring: if created {
                authoring
            } else {
                AuthoringReceipt::default()
            },
        })
    }

    /// Birth strictness: under a pinned embedding space the identity core
    /// must be vectored. Refused (before anything is written) when the
    /// birth's first identity record already stands without a vector (a
    /// replay of a vectorless birth: the replay writes nothing and could
    /// never re-vector it) or does not stand yet and the store will store it
    /// vectorless (it has no embedder). A pinless store passes: a vectorless
    /// home is a legal, deliberate mode; the pin declares that vectors were
    /// expected. (0.3.2 forms the records first and refuses after; the
    /// spec's refusals write nothing, so ours decides first.)
    fn refuse_a_vectorless_birth(&self, probe_record_id: &str, owner: &str) -> Result<()> {
        let Some(pin) = self.store.embedding_pin()? else {
            return Ok(());
        };
        let digest = self.store.query(&TripleQuery {
            subject: Some(probe_record_id.to_owned()),
            predicate: Some(DIGEST_PREDICATE.to_owned()),
            limit: 1,
            ..TripleQuery::default()
        })?;
        let vectorless = match digest.first().and_then(|a| a.assertion_id.as_deref()) {
            Some(id) => self.store.stored_vector(id)?.is_none(),
            None => self.store.embeds_on_add() == Some(false),
        };
        if !vectorless {
            return Ok(());
        }
        let model = pin.model_id.as_deref().unwrap_or("an unnamed model");
        Err(Error::invalid(format!(
            "engram refused before writing anything: the identity core of {owner:?} would be vectorless under \
             this home's pinned embedding space ({model}); {}. An entity's core is vectored at birth: open the \
             home with its pinned embedder, or repair a vectorless core with the operator's re-embedding",
            if digest.is_empty() {
                "the store has no embedder to vector it"
            } else {
                "it was born without vectors, and a replay writes nothing, so it cannot re-vector it"
            }
        )))
    }

    /// The stored title of a formed record's digest, if it stands.
    fn stored_title(&self, record_id: &str) -> Result<Option<String>> {
        let rows = self.store.query(&TripleQuery {
            subject: Some(record_id.to_owned()),
            predicate: Some(DIGEST_PREDICATE.to_owned()),
            limit: 1,
            ..TripleQuery::default()
        })?;
        Ok(rows
            .into_iter()
            .next()
            .and_then(|a| DigestRow::of(&a).as_stored("title").map(str::to_owned)))
    }

    /// [`self_records`] over this system's store and journal.
    ///
    /// # Errors
    /// As [`self_records`].
    pub fn self_records(&self, args: &SelfRecords) -> Result<Vec<TripleAssertion>> {
        self_records(&*self.store, &*self.journal, args)
    }
}

/// The folded identity core (`self_records`): the digest rows of the
/// pair's prompt-active records (latest binding per record is `indexed`
/// and `active`), neither closed nor hidden, of the kinds `value`,
/// `purpose` and `trait` (optionally of one `spark_version`), ordered by
/// kind rank, then `precedence` (missing: last), then record id.
///
/// # Errors
/// `InvalidInput` for an anchor outside the journal; the store's or
/// journal's failure.
pub fn self_records(
    store: &dyn TripleStore,
    journal: &dyn MemoryJournal,
    args: &SelfRecords,
) -> Result<Vec<TripleAssertion>> {
    let scope = args.scope.trim().to_lowercase();
    let owner = args.owner_id.trim().to_owned();
    let current = journal.current_seq()?;
    am_journal::journal::check_anchor("as_of", args.as_of, current)?;
    let as_of = args.as_of.unwrap_or(current);
    let folds = crate::pair_folds::PairFolds::load(store, journal, &scope, &owner, as_of)?;
    core_records(
        store,
        (&scope, &owner),
        folds
            .bindings
            .iter()
            .filter(|b| b.is_prompt_active())
            .map(|b| b.record_id.as_str()),
        |id| folds.excludes(id),
        args.spark_version,
    )
}

/// Whether a binding in these states puts its record in the prompt
/// (`indexed` and `active`): the identity core is the pair's records so bound.
/// The identity core of one normalized pair from the ids of its
/// prompt-active records (in fold order): each id's row (the row with that
/// assertion id, else the first formed row with that subject), neither
/// `excluded` (closed or hidden) nor seen before, of a core kind (and of
/// `spark_version` when given), in the core's order. The second half of
/// [`self_records`], which the identity card calls with the prompt-active
/// ids its own binding fold holds.
///
/// # Errors
/// The store's failure.
pub(crate) fn core_records<'r>(
    store: &dyn TripleStore,
    (scope, owner): (&str, &str),
    prompt_active: impl IntoIterator<Item = &'r str>,
    excluded: impl Fn(&str) -> bool,
    spark_version: Option<i64>,
) -> Result<Vec<TripleAssertion>> {
    let pair_query = |q: TripleQuery| TripleQuery {
        scope: Some(scope.to_owned()),
        owner_id: (!owner.is_empty()).then(|| owner.to_owned()),
        ..q
    };
    let mut out: Vec<TripleAssertion> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for record_id in prompt_active {
        let by_id = store.query(&pair_query(TripleQuery {
            assertion_ids: Some(vec![record_id.to_owned()]),
            limit: 1,
            ..TripleQuery::default()
        }))?;
        let row = match by_id.into_iter().next() {
            Some(a) => Some(a),
            None => store
                .query(&pair_query(TripleQuery {
                    subject: Some(record_id.to_owned()),
                    limit: 0,
                    ..TripleQuery::default()
                }))?
                .into_iter()
                .find(|a| {
                    DigestRow::of(a).get("record_kind").is_some() && a.assertion_id.is_some()
                }),
        };
        let Some(a) = row else { continue };
        let Some(id) = a.assertion_id.clone() else {
            continue;
        };
        if excluded(&id) || seen.contains(&id) {
            continue;
        }
        let row = DigestRow::of(&a);
        if !is_self_core(row.kind()) {
            continue;
        }
        if let Some(want) = spark_version
            && row.get("spark_version").and_then(as_int) != Some(want)
        {
            continue;
        }
        seen.insert(id);
        out.push(a);
    }
    let precedence = |a: &TripleAssertion| {
        DigestRow::of(a)
            .get("precedence")
            .and_then(as_int)
            .unwrap_or(1_000_000)
    };
    out.sort_by(|a, b| {
        let rank = |x: &TripleAssertion| {
            kind_rank(DigestRow::of(x).as_stored("record_kind").unwrap_or(""))
        };
        rank(a)
            .cmp(&rank(b))
            .then_with(|| precedence(a).cmp(&precedence(b)))
            .then_with(|| a.subject.cmp(&b.subject))
            .then_with(|| a.assertion_id.cmp(&b.assertion_id))
    });
    Ok(out)
}

/// An attribute read as Python's `int(v)` would: an integral number or the
/// text of one.
pub(crate) fn as_int(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| {
            n.as_f64()
                .filter(|f| f.is_finite())
                .map(|f| f.trunc() as i64)
        }),
        Value::String(s) => s.trim().parse().ok(),
        Value::Bool(b) => Some(i64::from(*b)),
        _ => None,
    }
}
