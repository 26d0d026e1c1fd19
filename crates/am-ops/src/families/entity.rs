//! The entity: valence (`appraise`, `heal_scar`, `break_bond`, `gradation`,
//! `feelings_about`, `stimulus_feelings`), identity (`lint_spark`,
//! `canonical_spark_hash`, `engram`, `self_records`) and the diary reads
//! (`open_questions`, `open_problems`, `open_ideas`, `open_commitments`,
//! `triggered_commitments`, `verify_diary_chain`).

use crate::error::OpResult;
use crate::home::Home;
use crate::host::Hook;
use crate::verb::{Answer, CallShape, Family, Verb};
use am_system::identity::{Engram, EngramResult, SelfRecords, canonical_spark_hash, lint_spark};
use am_system::observe::diary::{self, ChainReport, DiaryRead, TriggeredCommitments};
use am_system::valence::{FeelingsAboutResult, StimulusFeeling};
use am_system::{
    Appraise, BreakBond, FeelingsAbout, Gradation, GradationScore, HealScar, OrderedMap,
    StimulusFeelings, feelings_about, stimulus_feelings,
};
use am_triples::{JsonMap, TripleAssertion};
use serde::Deserialize;
use serde_json::{Value, json};

fn yes() -> bool {
    true
}

fn hundred() -> usize {
    100
}

/// `lint_spark`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct LintArgs {
    /// The spark (the identity's founding document).
    spark: JsonMap,
    /// Whether the framework's own value is required.
    #[serde(default = "yes")]
    framework: bool,
}

/// `canonical_spark_hash`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct HashArgs {
    spark: JsonMap,
}

/// An open-set read's arguments with the spec's `journal=` switch (the
/// session's journal, or none: a layer-1 read).
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DiaryArgs {
    scope: String,
    owner_id: String,
    #[serde(default = "hundred")]
    limit: usize,
    #[serde(default = "yes")]
    journal: bool,
}

/// `diary_entry_hash`'s arguments (spec: `diary_entry_hash(title, digest,
/// observed_at) -> str`).
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct EntryHashArgs {
    /// The entry's title.
    title: String,
    /// The entry's digest (its body).
    digest: String,
    /// When it was observed, as stored (the canonical UTC text).
    observed_at: String,
}

/// `verify_diary_chain`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ChainArgs {
    scope: String,
    owner_id: String,
}

/// One triggered commitment as answered: the entry's row as its dict.
#[derive(schemars::JsonSchema)]
#[allow(dead_code)]
struct Triggered {
    entry: Option<TripleAssertion>,
    matched: Vec<String>,
    line: String,
}

fn rows(rows: &[TripleAssertion]) -> Answer {
    Answer::value(Value::Array(
        rows.iter().map(TripleAssertion::to_dict).collect(),
    ))
}

type DiaryFn = fn(
    &dyn am_triples::TripleStore,
    Option<&dyn am_journal::MemoryJournal>,
    &DiaryRead,
) -> am_system::Result<Vec<TripleAssertion>>;

fn open_set(home: &mut dyn Home, d: DiaryArgs, read: DiaryFn) -> OpResult<Answer> {
    let sys = home.system()?;
    let j = d.journal.then_some(&**sys.journal());
    let args = DiaryRead {
        limit: d.limit,
        ..DiaryRead::new(&d.scope, &d.owner_id)
    };
    Ok(rows(&read(&**sys.store(), j, &args)?))
}

fn engram(home: &mut dyn Home, host: &crate::Host, a: Engram) -> OpResult<Answer> {
    // A callable cannot travel in a JSON call: a call's `author` is the
    // callable's answers, scripted (Host::scripted).
    let r = home.system()?.engram(&a, host.author.as_deref())?;
    Answer::of(&r)
}

fn triggered(home: &mut dyn Home, _: &crate::Host, a: TriggeredCommitments) -> OpResult<Answer> {
    let sys = home.system()?;
    let r = diary::triggered_commitments(&**sys.store(), Some(&**sys.journal()), &a)?;
    let items: Vec<Value> = r
        .value
        .iter()
        .map(|t| {
            json!({"entry": t.entry.as_ref().map(TripleAssertion::to_dict),
                   "matched": t.matched, "line": t.line})
        })
        .collect();
    Ok(Answer::value(Value::Array(items)).with_warnings(r.warnings))
}

pub(super) fn verbs() -> Vec<Verb> {
    let f = Family::Entity;
    let sj = CallShape::StoreJournalFunction;
    vec![
        Verb::declare("appraise", f, "Record a feeling about a target (valence), optionally a scar or a bond.")
            .writes()
            .answers::<Vec<String>>()
            .run(|h, _, a: Appraise| Ok(Answer::value(json!(h.system()?.appraise(&a)?)))),
        Verb::declare("heal_scar", f, "Heal a scar with a reason; answers the healing event's id.")
            .writes()
            .answers::<String>()
            .run(|h, _, a: HealScar| Ok(Answer::value(json!(h.system()?.heal_scar(&a)?)))),
        Verb::declare("break_bond", f, "Break a bond with a reason; answers the event's id.")
            .writes()
            .answers::<String>()
            .run(|h, _, a: BreakBond| Ok(Answer::value(json!(h.system()?.break_bond(&a)?)))),
        Verb::declare("gradation", f, "The gradation (net feeling, scarred, bonded) of each target.")
            .answers::<OrderedMap<GradationScore>>()
            .run(|h, _, a: Gradation| Answer::of(&h.system()?.gradation(&a)?)),
        Verb::declare("feelings_about", f, "Every feeling about one target across scope pairs.")
            .shape(sj)
            .object()
            .answers::<FeelingsAboutResult>()
            .run(|h, _, a: FeelingsAbout| {
                let sys = h.system()?;
                Answer::of(&feelings_about(Some(&**sys.journal()), &a)?)
            }),
        Verb::declare("stimulus_feelings", f, "The feelings a stimulus touches (targets it names or matches).")
            .shape(sj)
            .answers::<Vec<StimulusFeeling>>()
            .run(|h, _, a: StimulusFeelings| {
                let sys = h.system()?;
                Answer::warned(stimulus_feelings(&**sys.store(), Some(&**sys.journal()), &a)?)
            }),
        Verb::declare("lint_spark", f, "What is wrong with a spark (an empty list: nothing).")
            .shape(CallShape::PureFunction)
            .answers::<Vec<String>>()
            .run(|_, _, a: LintArgs| Ok(Answer::value(json!(lint_spark(&a.spark, a.framework))))),
        Verb::declare("canonical_spark_hash", f, "The spark's canonical hash (hex).")
            .shape(CallShape::PureFunction)
            .answers::<String>()
            .run(|_, _, a: HashArgs| Ok(Answer::value(json!(canonical_spark_hash(&a.spark))))),
        Verb::declare("engram", f, "Form the identity core from a spark (idempotent); unnamed items are authored by the host's author.")
            .writes()
            .object()
            .hooks(&[Hook::Author])
            .answers::<EngramResult>()
            .run(engram),
        Verb::declare("self_records", f, "The identity core's records (prompt-active self rows).")
            .answers::<Vec<TripleAssertion>>()
            .run(|h, _, a: SelfRecords| Ok(rows(&h.system()?.self_records(&a)?))),
        Verb::declare("open_questions", f, "The diary's open questions.")
            .shape(sj)
            .answers::<Vec<TripleAssertion>>()
            .run(|h, _, d: DiaryArgs| open_set(h, d, diary::open_questions)),
        Verb::declare("open_problems", f, "The diary's open problems.")
            .shape(sj)
            .answers::<Vec<TripleAssertion>>()
            .run(|h, _, d: DiaryArgs| open_set(h, d, diary::open_problems)),
        Verb::declare("open_ideas", f, "The diary's open ideas.")
            .shape(sj)
            .answers::<Vec<TripleAssertion>>()
            .run(|h, _, d: DiaryArgs| open_set(h, d, diary::open_ideas)),
        Verb::declare("open_commitments", f, "The diary's open commitments.")
            .shape(sj)
            .answers::<Vec<TripleAssertion>>()
            .run(|h, _, d: DiaryArgs| open_set(h, d, diary::open_commitments)),
        Verb::declare("triggered_commitments", f, "The open commitments a stimulus triggers, each with a presentation line.")
            .shape(sj)
            .answers::<Vec<Triggered>>()
            .run(triggered),
        Verb::declare("diary_entry_hash", f, "The diary chain's content hash of an entry (sha256 of title, digest and observed_at).")
            .shape(CallShape::PureFunction)
            .answers::<String>()
            .run(|_, _, a: EntryHashArgs| {
                Ok(Answer::value(json!(am_system::diary_entry_hash(&a.title, &a.digest, &a.observed_at))))
            }),
        Verb::declare("verify_diary_chain", f, "Whether the diary's hash chain is intact, and where it breaks.")
            .shape(CallShape::StoreJournalFunction)
            .object()
            .answers::<ChainReport>()
            .run(|h, _, a: ChainArgs| {
                Answer::of(&diary::verify_diary_chain(&**h.system()?.store(), &a.scope, &a.owner_id)?)
            }),
    ]
}
