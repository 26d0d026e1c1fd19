//! The diary's reads (am-system `observe/diary.rs`): `open_questions`,
//! `open_problems`, `open_ideas`, `open_commitments`,
//! `triggered_commitments`, `diary_entry_hash`, `verify_diary_chain`.

use crate::error::OpResult;
use crate::home::Home;
use crate::verb::{Answer, CallShape, Family, Verb};
use am_system::observe::diary::{self, ChainReport, DiaryRead, TriggeredCommitments};
use am_triples::TripleAssertion;
use serde::Deserialize;
use serde_json::{Value, json};

fn yes() -> bool {
    true
}

fn hundred() -> usize {
    100
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

/// Rows as their dicts.
pub(in crate::families) fn rows(rows: &[TripleAssertion]) -> Answer {
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
    let f = Family::Observe;
    let sj = CallShape::StoreJournalFunction;
    vec![
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
        Verb::declare(
            "triggered_commitments",
            f,
            "The open commitments a stimulus triggers, each with a presentation line.",
        )
        .shape(sj)
        .answers::<Vec<Triggered>>()
        .run(triggered),
        Verb::declare(
            "diary_entry_hash",
            f,
            "The diary chain's content hash of an entry (sha256 of title, digest and observed_at).",
        )
        .shape(CallShape::PureFunction)
        .answers::<String>()
        .run(|_, _, a: EntryHashArgs| {
            Ok(Answer::value(json!(am_system::diary_entry_hash(
                &a.title,
                &a.digest,
                &a.observed_at
            ))))
        }),
        Verb::declare(
            "verify_diary_chain",
            f,
            "Whether the diary's hash chain is intact, and where it breaks.",
        )
        .shape(CallShape::StoreJournalFunction)
        .object()
        .answers::<ChainReport>()
        .run(|h, _, a: ChainArgs| {
            Answer::of(&diary::verify_diary_chain(
                &**h.system()?.store(),
                &a.scope,
                &a.owner_id,
            )?)
        }),
    ]
}
