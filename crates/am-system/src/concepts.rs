//! Concepts: the concept words and terms of a text (the one tokenization the
//! mention reads share: valence's `stimulus_feelings`, recall's orientation
//! admission); concept anchoring, the edge-free associative expansion
//! `reconstruct` (with `ReconstructConfig.concept_expansion`) and reach's
//! `probe` run: records sharing a discriminative concept with a seed admit;
//! and the discriminative terms of the matching lane ([`matching_terms`]:
//! drive grouping, and the candidate miner when it lands).
//!
//! Spec: api.md "Deliberate reach: probe, expansion, familiarity"
//! (`concept_terms`, `expand_by_concepts`, `ConceptAnchorTuning`),
//! "Reconstruction" (`orientation_admission`), "Valence and gradation"
//! (`stimulus_feelings`). The spec gives no numbers: 0.3.2's
//! `concept_anchor.py` settles them (camelCase split, folded, 3+ character
//! words, bigrams; the mid-frequency gate `[min_sources, max_sources]`, the
//! newest-first scan window, the linear rarity weight, ties on record id).

use crate::error::{Error, Result};
use crate::kinds::DIGEST_PREDICATE;
/// std's maps with foldhash's per-process seeded hasher (the recall
/// pipeline's choice: short string keys hashed many times per read).
type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
/// std's set with foldhash's per-process seeded hasher.
type HashSet<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;
use crate::record::DigestRow;
use am_triples::{TripleAssertion, TripleQuery, TripleStore};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::{Borrow, Cow};
use std::collections::{BTreeMap, BTreeSet};

/// The words of `text` that name a concept: camelCase split, folded, ASCII
/// alphanumeric runs of 3+ characters, in order (repeats kept).
pub(crate) fn concept_words(text: &str) -> Vec<String> {
    let mut split = String::with_capacity(text.len() + 8);
    let mut prev: Option<char> = None;
    for c in text.chars() {
        if c.is_ascii_uppercase()
            && prev.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit())
        {
            split.push(' ');
        }
        split.push(c);
        prev = Some(c);
    }
    let folded = am_triples::text::fold_text(&split);
    folded
        .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
        .filter(|w| w.len() >= 3)
        .map(str::to_owned)
        .collect()
}

/// The concept terms of `text` as a set: its [`concept_words`] plus each
/// adjacent pair joined with `_`.
pub(crate) fn concept_term_set(text: &str) -> BTreeSet<String> {
    concept_terms(text, true).into_iter().collect()
}

/// The normalized concept tokens of `text` (api.md `concept_terms`):
/// identifier-aware words (camelCase, snake_case and kebab-case split; case
/// and accents folded; runs of 3 or more ASCII letters and digits), then, with
/// `bigrams`, each adjacent pair of words joined with `_`. Unique, in first
/// appearance. `auto-memory`, `auto memory`, `autoMemory` and `auto_memory`
/// all give `["auto", "memory", "auto_memory"]`.
pub fn concept_terms(text: &str, bigrams: bool) -> Vec<String> {
    let words = concept_words(text);
    let mut seen: HashSet<String> = HashSet::default();
    let mut out: Vec<String> = Vec::new();
    for w in &words {
        if seen.insert(w.clone()) {
            out.push(w.clone());
        }
    }
    if bigrams {
        for pair in words.windows(2) {
            let joined = format!("{}_{}", pair[0], pair[1]);
            if seen.insert(joined.clone()) {
                out.push(joined);
            }
        }
    }
    out
}

/// The tunables of concept anchoring, one object (api.md
/// `ConceptAnchorTuning`); the defaults are 0.3.2's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ConceptAnchorTuning {
    /// A concept held by fewer records anchors nothing (at least 2).
    pub min_sources: usize,
    /// A concept held by more records is a stop-concept (at least `min_sources`).
    pub max_sources: usize,
    /// Newest digest rows scanned per scope pair.
    pub scan_limit: usize,
    /// At most this many records admitted by one pass.
    pub max_admissions: usize,
    /// At most this many discriminative seed concepts, rarest first.
    pub max_seed_concepts: usize,
    /// Adjacent-word bigrams count as concepts.
    pub bigrams: bool,
}

impl Default for ConceptAnchorTuning {
    fn default() -> Self {
        ConceptAnchorTuning::DEFAULT
    }
}

impl ConceptAnchorTuning {
    /// The defaults (0.3.2's `DEFAULT_CONCEPT_TUNING`).
    pub const DEFAULT: ConceptAnchorTuning = ConceptAnchorTuning {
        min_sources: 2,
        max_sources: 16,
        scan_limit: 400,
        max_admissions: 12,
        max_seed_concepts: 24,
        bigrams: true,
    };

    /// Refuse a tuning whose gate cannot associate anything.
    ///
    /// # Errors
    /// `InvalidInput` when `min_sources < 2` (a concept one record holds
    /// associates nothing beside it) or `max_sources < min_sources`.
    pub fn validate(&self) -> Result<()> {
        if self.min_sources < 2 {
            return Err(Error::invalid(format!(
                "ConceptAnchorTuning.min_sources must be >= 2, got {}: a concept held by fewer records \
                 associates nothing beside the seed",
                self.min_sources
            )));
        }
        if self.max_sources < self.min_sources {
            return Err(Error::invalid(format!(
                "ConceptAnchorTuning.max_sources ({}) must be >= min_sources ({})",
                self.max_sources, self.min_sources
            )));
        }
        Ok(())
    }
}

/// One record a concept pass admits.
#[derive(Debug, Clone, PartialEq)]
pub struct ConceptAdmission {
    /// The digest row's assertion id.
    pub record_id: String,
    /// The digest row.
    pub assertion: TripleAssertion,
    /// Rarity-weighted score in `(0, 1]`: each shared concept adds its
    /// weight, clamped at 1.
    pub score: f64,
    /// The shared concepts, sorted.
    pub concepts: Vec<String>,
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => am_triples::text::py_str(other),
    }
}

/// The concepts of one digest row: its title, its digest text and its
/// `keywords` / `intents` / `outcomes` facets (participants anchor through
/// their own channel, never here).
pub fn record_concepts(a: &TripleAssertion, bigrams: bool) -> BTreeSet<String> {
    let row = DigestRow::of(a);
    let mut parts: Vec<String> = vec![
        row.get("title").map(text_of).unwrap_or_default(),
        a.object.clone(),
    ];
    for facet in ["keywords", "intents", "outcomes"] {
        if let Some(Value::Array(items)) = row.get(facet) {
            parts.extend(items.iter().map(text_of));
        }
    }
    parts
        .iter()
        .flat_map(|p| concept_terms(p, bigrams))
        .collect()
}

/// A read of a query's rows (the store's own, or a recall's indexed view,
/// which lends the rows it holds).
pub(crate) type Rows<'r> = dyn Fn(&TripleQuery) -> Result<Vec<Cow<'r, TripleAssertion>>> + 'r;

/// The most rows a [`ConceptMemo`] holds before it starts again.
const MEMO_CAP: usize = 50_000;

/// The concept sets of rows already read, by assertion id, each kept with
/// the words it was computed from (title, digest, the three facets) and
/// served again only while the row still carries exactly those words: a
/// row rewritten in place is computed again; and, per field read lately,
/// which of its rows hold which concept ([`FieldHolders`], brought to each
/// read's field by difference, so a read whose field has not moved counts
/// nothing again). A cache (reach keeps one in its `FacultyState`), never a
/// source of truth: an answer through it is the answer without it.
#[derive(Default)]
pub(crate) struct ConceptMemo {
    rows: MemoRows,
    /// The concept holders of the fields scanned lately, one per ladder and
    /// scan shape (at most [`MEMO_FIELDS`]).
    fields: Vec<(FieldKey, FieldHolders)>,
}

/// The memo's concept sets by row id.
#[derive(Default)]
struct MemoRows {
    rows: HashMap<String, MemoRow>,
}

/// The most fields a [`ConceptMemo`] keeps holders for.
const MEMO_FIELDS: usize = 8;

/// What a field is the field of: the ladder, the scan limit, bigrams.
type FieldKey = (Vec<(String, String)>, usize, bool);

/// The state a field was read at, when the reader can name it: the recall
/// index's feed cursor (every row it holds came before it), the journal's
/// head (every rewrite in place is a version below it) and the anchor of the
/// exclusion folds. Two reads at one stamp scan the same field, so a read at
/// the stamp the holders were brought to need not scan again.
pub(crate) type FieldStamp = (i64, i64, i64);

/// Which rows of a field hold which concept, kept across reads and brought
/// to each read's field by difference: a row that left the field, or whose
/// concepts were computed again (its words changed), is taken out; a row
/// that joined is put in. The holders of a concept are slots, unordered
/// (every use of them is order-free).
#[derive(Default)]
struct FieldHolders {
    /// The state of the rows the holders were last brought to (see
    /// [`FieldStamp`]); `None` when unknown.
    stamp: Option<FieldStamp>,
    /// Row id → its slot and the concepts it was entered with.
    held: HashMap<String, (u32, std::sync::Arc<BTreeSet<String>>)>,
    /// Slot → row id (empty while free).
    rid_of: Vec<String>,
    free: Vec<u32>,
    /// Concept → the slots of the rows holding it.
    holders: HashMap<String, Vec<u32>>,
}

impl FieldHolders {
    /// Bring the holders to `field` (row id → its concepts).
    fn sync(&mut self, field: &BTreeMap<&str, std::sync::Arc<BTreeSet<String>>>) {
        let gone: Vec<String> = self
            .held
            .iter()
            .filter(|(rid, (_, cs))| {
                field
                    .get(rid.as_str())
                    .is_none_or(|now| !std::sync::Arc::ptr_eq(now, cs))
            })
            .map(|(rid, _)| rid.clone())
            .collect();
        for rid in gone {
            let Some((slot, cs)) = self.held.remove(&rid) else {
                continue;
            };
            for c in cs.iter() {
                if let Some(slots) = self.holders.get_mut(c.as_str()) {
                    if let Some(i) = slots.iter().position(|s| *s == slot) {
                        slots.swap_remove(i);
                    }
                    if slots.is_empty() {
                        self.holders.remove(c.as_str());
                    }
                }
            }
            self.rid_of[slot as usize].clear();
            self.free.push(slot);
        }
        for (rid, cs) in field {
            if self.held.contains_key(*rid) {
                continue;
            }
            let slot = match self.free.pop() {
                Some(s) => s,
                None => {
                    self.rid_of.push(String::new());
                    u32::try_from(self.rid_of.len() - 1).unwrap_or(u32::MAX)
                }
            };
            (*rid).clone_into(&mut self.rid_of[slot as usize]);
            for c in cs.iter() {
                match self.holders.get_mut(c.as_str()) {
                    Some(slots) => slots.push(slot),
                    None => {
                        self.holders.insert(c.clone(), vec![slot]);
                    }
                }
            }
            self.held.insert((*rid).to_owned(), (slot, cs.clone()));
        }
    }

    /// How many rows hold `c`.
    fn count(&self, c: &str) -> usize {
        self.holders.get(c).map_or(0, Vec::len)
    }

    /// The ids of the rows holding `c`.
    fn rows_holding<'s>(&'s self, c: &str) -> impl Iterator<Item = &'s str> + 's {
        self.holders
            .get(c)
            .into_iter()
            .flatten()
            .map(|slot| self.rid_of[*slot as usize].as_str())
    }
}

struct MemoRow {
    bigrams: bool,
    object: String,
    title: Option<Value>,
    facets: [Option<Value>; 3],
    concepts: std::sync::Arc<BTreeSet<String>>,
}

impl MemoRows {
    /// [`record_concepts`] of row `a` (assertion id `rid`), from the memo
    /// when it holds the row's present words.
    fn concepts(
        &mut self,
        rid: &str,
        a: &TripleAssertion,
        bigrams: bool,
    ) -> std::sync::Arc<BTreeSet<String>> {
        let row = DigestRow::of(a);
        let facets = [row.get("keywords"), row.get("intents"), row.get("outcomes")];
        if let Some(m) = self.rows.get(rid)
            && m.bigrams == bigrams
            && m.object == a.object
            && m.title.as_ref() == row.get("title")
            && m.facets.iter().zip(facets).all(|(x, y)| x.as_ref() == y)
        {
            return m.concepts.clone();
        }
        if self.rows.len() >= MEMO_CAP {
            self.rows.clear();
        }
        let concepts = std::sync::Arc::new(record_concepts(a, bigrams));
        self.rows.insert(
            rid.to_owned(),
            MemoRow {
                bigrams,
                object: a.object.clone(),
                title: row.get("title").cloned(),
                facets: facets.map(|f| f.cloned()),
                concepts: concepts.clone(),
            },
        );
        concepts
    }
}

/// [`expand_by_concepts`] over any read of rows, with the exclusion as a
/// test on the row (recall and reach pass their indexed view and folds).
///
/// # Errors
/// The read's failure, the exclusion test's failure, or an invalid tuning.
pub(crate) fn expand_with<S: Borrow<TripleAssertion>>(
    rows_of: &Rows<'_>,
    seeds: &BTreeMap<String, S>,
    scope_pairs: &[(String, String)],
    excluded: &dyn Fn(&TripleAssertion) -> Result<bool>,
    tuning: &ConceptAnchorTuning,
) -> Result<(Vec<ConceptAdmission>, Vec<String>)> {
    expand_memo(rows_of, seeds, scope_pairs, excluded, tuning, None, None)
}

/// [`expand_with`], the rows' concepts read through `memo` when given.
///
/// # Errors
/// As [`expand_with`].
pub(crate) fn expand_memo<'r, S: Borrow<TripleAssertion>>(
    rows_of: &Rows<'r>,
    seeds: &BTreeMap<String, S>,
    scope_pairs: &[(String, String)],
    excluded: &dyn Fn(&TripleAssertion) -> Result<bool>,
    tuning: &ConceptAnchorTuning,
    memo: Option<&mut ConceptMemo>,
    stamp: Option<FieldStamp>,
) -> Result<(Vec<ConceptAdmission>, Vec<String>)> {
    tuning.validate()?;
    let mut notes: Vec<String> = Vec::new();
    if seeds.is_empty() {
        return Ok((Vec::new(), notes));
    }
    let key: FieldKey = (scope_pairs.to_vec(), tuning.scan_limit, tuning.bigrams);
    let mut transient = (MemoRows::default(), FieldHolders::default());
    let (memo_rows, holders): (&mut MemoRows, &mut FieldHolders) = match memo {
        Some(m) => {
            let at = match m.fields.iter().position(|(k, _)| *k == key) {
                Some(i) => i,
                None => {
                    if m.fields.len() >= MEMO_FIELDS {
                        m.fields.clear();
                    }
                    m.fields.push((key, FieldHolders::default()));
                    m.fields.len() - 1
                }
            };
            (&mut m.rows, &mut m.fields[at].1)
        }
        None => (&mut transient.0, &mut transient.1),
    };
    let mut concepts_of =
        |rid: &str, a: &TripleAssertion| memo_rows.concepts(rid, a, tuning.bigrams);
    // The field: the newest digest rows of each pair (scanned again unless
    // the holders were brought to this very stamp), then the seeds.
    let fresh = stamp.is_some() && holders.stamp == stamp;
    let mut field: BTreeMap<String, Cow<'r, TripleAssertion>> = BTreeMap::new();
    for (scope, owner) in scope_pairs.iter().filter(|_| !fresh) {
        let rows = rows_of(&TripleQuery {
            scope: Some(scope.clone()),
            owner_id: (!owner.is_empty()).then(|| owner.clone()),
            predicate: Some(DIGEST_PREDICATE.to_owned()),
            limit: tuning.scan_limit as i64,
            ..TripleQuery::default()
        })?;
        let mut kept = 0;
        for a in rows {
            let Some(rid) = a.assertion_id.clone().filter(|r| !r.is_empty()) else {
                continue;
            };
            if field.contains_key(&rid) || !DigestRow::of(&a).flag("record_kind") || excluded(&a)? {
                continue;
            }
            field.insert(rid, a);
            kept += 1;
            if kept >= tuning.scan_limit {
                break;
            }
        }
    }
    // The scanned rows' concepts (memoized), entered in the field's holders
    // (kept in the memo across reads); the seeds outside the scan counted
    // beside them.
    if !fresh {
        let scanned: BTreeMap<&str, std::sync::Arc<BTreeSet<String>>> = field
            .iter()
            .map(|(rid, a)| (rid.as_str(), concepts_of(rid, a)))
            .collect();
        holders.sync(&scanned);
        holders.stamp = stamp;
    }
    let outside: BTreeMap<&str, std::sync::Arc<BTreeSet<String>>> = seeds
        .iter()
        .filter(|(rid, _)| !holders.held.contains_key(rid.as_str()))
        .map(|(rid, a)| (rid.as_str(), concepts_of(rid, a.borrow())))
        .collect();
    let holders: &FieldHolders = holders;
    let mut outside_holders: HashMap<&str, Vec<&str>> = HashMap::default();
    for (rid, cs) in &outside {
        for c in cs.iter() {
            outside_holders.entry(c.as_str()).or_default().push(rid);
        }
    }
    let count = |c: &str| holders.count(c) + outside_holders.get(c).map_or(0, Vec::len);
    let (lo, hi) = (tuning.min_sources, tuning.max_sources);
    let mut seed_concepts: Vec<(&str, usize)> = Vec::new();
    let mut taken: HashSet<&str> = HashSet::default();
    for rid in seeds.keys() {
        let cs = holders
            .held
            .get(rid.as_str())
            .map(|(_, cs)| cs)
            .or_else(|| outside.get(rid.as_str()));
        for c in cs.into_iter().flat_map(|cs| cs.iter()) {
            let n = count(c.as_str());
            if (lo..=hi).contains(&n) && taken.insert(c.as_str()) {
                seed_concepts.push((c.as_str(), n));
            }
        }
    }
    seed_concepts.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(b.0)));
    if seed_concepts.len() > tuning.max_seed_concepts {
        notes.push(format!(
            "concept expansion: {} discriminative concepts, taking the {} rarest",
            seed_concepts.len(),
            tuning.max_seed_concepts
        ));
        seed_concepts.truncate(tuning.max_seed_concepts);
    }
    // Linear rarity: a concept held by exactly `min_sources` records weighs
    // 1; the weight falls toward the stop-concept cap.
    let rarity = |n: usize| -> f64 {
        if hi == lo {
            return 1.0;
        }
        ((hi as f64 - n as f64 + 1.0) / (hi - lo + 1) as f64).clamp(0.0, 1.0)
    };
    let mut scored: BTreeMap<&str, (f64, Vec<&str>)> = BTreeMap::new();
    for (c, n) in &seed_concepts {
        let w = rarity(*n);
        // The seeds outside the scan only count: a seed is never admitted.
        for rid in holders.rows_holding(c) {
            if seeds.contains_key(rid) {
                continue;
            }
            let entry = scored.entry(rid).or_insert((0.0, Vec::new()));
            entry.0 = (entry.0 + w).min(1.0);
            entry.1.push(*c);
        }
    }
    let mut ranked: Vec<(&str, (f64, Vec<&str>))> = scored.into_iter().collect();
    ranked.sort_by(|a, b| b.1.0.total_cmp(&a.1.0).then(a.0.cmp(b.0)));
    let total = ranked.len();
    ranked.truncate(tuning.max_admissions);
    if fresh {
        // Never a seed: a row of the field, read again by id, pair by pair
        // in ladder order and newest first, as the scan met it.
        let ids: Vec<String> = ranked.iter().map(|(rid, _)| (*rid).to_owned()).collect();
        for (scope, owner) in scope_pairs {
            let missing: Vec<String> = ids
                .iter()
                .filter(|id| !field.contains_key(id.as_str()))
                .cloned()
                .collect();
            if missing.is_empty() {
                break;
            }
            for a in rows_of(&TripleQuery {
                scope: Some(scope.clone()),
                owner_id: (!owner.is_empty()).then(|| owner.clone()),
                predicate: Some(DIGEST_PREDICATE.to_owned()),
                assertion_ids: Some(missing),
                limit: 0,
                ..TripleQuery::default()
            })? {
                if let Some(rid) = a.assertion_id.clone() {
                    field.entry(rid).or_insert(a);
                }
            }
        }
    }
    let mut admissions: Vec<ConceptAdmission> = Vec::with_capacity(ranked.len());
    for (rid, (score, mut cs)) in ranked {
        cs.sort_unstable();
        let Some(a) = field.get(rid) else {
            return Err(Error::invalid(format!(
                "concept anchoring lost the field row {rid} between two reads at one stamp"
            )));
        };
        admissions.push(ConceptAdmission {
            record_id: rid.to_owned(),
            assertion: a.clone().into_owned(),
            score,
            concepts: cs.into_iter().map(str::to_owned).collect(),
        });
    }
    if total > tuning.max_admissions {
        notes.push(format!(
            "concept expansion: {total} associated records, admitting the strongest {}",
            tuning.max_admissions
        ));
    }
    Ok((admissions, notes))
}

/// Co-occurrence expansion (api.md `expand_by_concepts`): the records of the
/// newest `tuning.scan_limit` digest rows of each pair (plus the seeds) that
/// share a discriminative concept (held by `min_sources..=max_sources`
/// records) with a seed, rarest concepts first, strongest first (ties on
/// record id), at most `max_admissions`; never a seed, never an excluded id.
/// A pure read. Returns the admissions and the notes of what was cut.
///
/// # Errors
/// `InvalidInput` for an invalid tuning; the store's failure.
pub fn expand_by_concepts(
    store: &dyn TripleStore,
    seeds: &BTreeMap<String, TripleAssertion>,
    scope_pairs: &[(String, String)],
    excluded_ids: &BTreeSet<String>,
    tuning: &ConceptAnchorTuning,
) -> Result<(Vec<ConceptAdmission>, Vec<String>)> {
    let excluded = |a: &TripleAssertion| -> Result<bool> {
        Ok(a.assertion_id
            .as_deref()
            .is_some_and(|r| excluded_ids.contains(r)))
    };
    let rows = |q: &TripleQuery| -> Result<Vec<Cow<'_, TripleAssertion>>> {
        Ok(store.query(q)?.into_iter().map(Cow::Owned).collect())
    };
    expand_with(&rows, seeds, scope_pairs, &excluded, tuning)
}

/// The function words the matching lane never counts as a shared term
/// (English and French, accents folded: `etre`, `tres`, `apres`, `meme`).
/// 0.3.2's `candidate_miner` screen settles the list.
const MATCHING_STOPWORDS: [&str; 139] = [
    "the", "a", "an", "and", "or", "of", "in", "on", "for", "with", "to", "that", "this", "those",
    "these", "is", "are", "was", "were", "be", "been", "it", "its", "his", "her", "their", "our",
    "your", "my", "i", "about", "into", "from", "what", "when", "where", "how", "why", "who",
    "does", "did", "will", "would", "could", "should", "can", "cannot", "not", "no", "yes", "but",
    "as", "at", "by", "if", "then", "than", "there", "here", "have", "has", "had", "do", "am",
    "we", "they", "some", "same", "each", "also", "just", "very", "more", "most", "dans", "cette",
    "ces", "avec", "pour", "sans", "leur", "leurs", "nous", "vous", "mais", "donc", "alors",
    "etre", "tout", "tous", "toute", "toutes", "comme", "plus", "moins", "tres", "bien", "encore",
    "aussi", "autre", "autres", "entre", "vers", "chez", "sous", "apres", "avant", "depuis",
    "quand", "comment", "pourquoi", "parce", "elle", "elles", "sont", "etait", "sera", "fait",
    "faire", "peut", "peuvent", "cela", "ceci", "celui", "celle", "ainsi", "meme", "sur", "une",
    "les", "des", "aux", "est", "ont", "par", "pas", "que", "qui", "quoi",
];

/// The discriminative terms of `text` for the matching lane (two texts about
/// the same thing share them): folded ASCII alphanumeric runs of 4+
/// characters, minus [`MATCHING_STOPWORDS`] and minus digit-dominated runs
/// (at least half digits: timestamp fragments such as `17t22` discriminate
/// nothing). A set: order and repeats carry nothing here.
pub(crate) fn matching_terms(text: &str) -> BTreeSet<String> {
    am_triples::text::token_set(text, 4)
        .into_iter()
        .filter(|t| !MATCHING_STOPWORDS.contains(&t.as_str()))
        .filter(|t| t.bytes().filter(u8::is_ascii_digit).count() * 2 < t.len())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concept_terms_split_identifiers_and_join_neighbours() {
        let t = concept_term_set("autoMemory web_search on GPU");
        for w in [
            "auto",
            "memory",
            "auto_memory",
            "web",
            "search",
            "gpu",
            "search_gpu",
        ] {
            assert!(t.contains(w), "{w} missing from {t:?}");
        }
        assert!(!t.contains("on"));
    }

    #[test]
    fn matching_terms_drop_short_function_and_digit_dominated_words() {
        let t =
            matching_terms("Comment la Mémoire tient-elle depuis 2026-07-17T22 et 17t22 kiln4?");
        let want: BTreeSet<String> = ["memoire", "tient", "kiln4"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        assert_eq!(t, want);
    }
}
