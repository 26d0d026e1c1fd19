//! One entry of the verb table: a verb declared once, with everything a
//! front end needs to call it, describe it and check its coverage.

use crate::error::{OpError, OpResult};
use crate::home::Home;
use crate::host::{Hook, Host};
use am_triples::JsonMap;
use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Where a verb belongs: the session's own ops, layer 1, the journal, the
/// memory graph, or the am-system faculty whose room holds the verb (the
/// sections of docs/exec.md follow this list).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// The session's own ops (`clock`, `reopen`, `write_barrier`).
    Engine,
    /// Layer 1: triples through the system's store.
    Layer1,
    /// Formation: `remember_many`, `remember`.
    Formation,
    /// Recall: reconstruction, commit, the deliberate acts, bindings and
    /// closures.
    Recall,
    /// The journal's position and reads.
    Journal,
    /// Understanding rewrites, versions and readings.
    Understanding,
    /// Identity: the spark, `engram`, the self records.
    Identity,
    /// Valence: feelings, scars, bonds, gradation.
    Valence,
    /// Observing a mind: replay, diagnostics, the card, the diary's reads.
    Observe,
    /// World models: the orientation cards, their aliases and their passes.
    WorldModels,
    /// Reach: probe, expansion, familiarity, concept anchoring.
    Reach,
    /// Communities: the home's topics, their pass and their reads.
    Communities,
    /// The memory graph.
    Graph,
    /// The memory task queue (a home opened with its queue).
    Tasks,
    /// Sleep: the night's reports, cadence and passes.
    Sleep,
    /// Drives: what is alive and pressing.
    Drives,
    /// Situate: one past moment rebuilt.
    Situate,
    /// Ripple: a change reconsidered through connected memories (a home
    /// opened with its queue).
    Ripple,
    /// Candidates: disposal of what machines proposed, the identity review.
    Candidates,
    /// Operator: the operator's glance reads over a whole home.
    Operator,
}

/// How the spec exposes a verb: what a binding calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CallShape {
    /// A method of the memory system (`system.remember_many(...)`).
    Method,
    /// A method of the system's store (`system.store.close_assertion(...)`).
    StoreMethod,
    /// A method of the system's journal (`system.journal.events(...)`).
    JournalMethod,
    /// A method of the system's task queue (`system.tasks.claim(...)`).
    QueueMethod,
    /// A method of the memory graph over the home.
    GraphMethod,
    /// A module function over a store and a journal (`feelings_about(journal, ...)`).
    StoreJournalFunction,
    /// A pure function of its arguments (`lint_spark(spark)`).
    PureFunction,
    /// A function over paths (`journal_cold_cut(src, dst)`).
    PathFunction,
    /// An op of the session itself (no spec verb: the clock, a reopen).
    Engine,
}

/// How a verb's result is presented to a host that has objects (Python).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Present {
    /// The spec's object, with attributes and `to_dict()` (its JSON is the dict).
    Object,
    /// A plain value: a dict, a list, a string or a number.
    Plain,
}

/// How a pass relates to the host's windows (the engine manifest's closed
/// cadence classes; the host owns the cadence, these words state the
/// engine's contract for each pass).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cadence {
    /// The one-call full night (a host wires exactly one).
    NightlyComposition,
    /// Runs inside `sleep_pass`'s composition.
    NightPhase,
    /// A cycle window skips it (nights only).
    NightlyOnly,
    /// A pure read for panels: cache it, never poll.
    GlanceRead,
    /// The entity's or the operator's own dispositive act.
    WakingVerb,
    /// An operator-gated repair.
    Doctoring,
}

impl Cadence {
    /// Every cadence class, in declaration order.
    pub const ALL: [Cadence; 6] = [
        Cadence::NightlyComposition,
        Cadence::NightPhase,
        Cadence::NightlyOnly,
        Cadence::GlanceRead,
        Cadence::WakingVerb,
        Cadence::Doctoring,
    ];
}

type Run = dyn Fn(&mut dyn Home, &Host, JsonMap) -> OpResult<Answer> + Send + Sync;

/// One verb of the table.
pub struct Verb {
    /// The op name (the spec's name; `tasks.<method>` for the queue's).
    pub name: &'static str,
    /// Where it belongs.
    pub family: Family,
    /// One line saying what it does.
    pub summary: &'static str,
    /// Whether it writes to the home.
    pub writes: bool,
    /// How the spec exposes it.
    pub shape: CallShape,
    /// How its result is presented.
    pub present: Present,
    /// The hooks it takes beside its arguments.
    pub hooks: &'static [Hook],
    /// Whether it needs the home's task queue (refused before its arguments
    /// are read on a home opened without one).
    pub needs_queue: bool,
    /// Whether it takes no arguments at all.
    pub no_args: bool,
    /// Its cadence class, for a pass the engine manifest lists.
    pub cadence: Option<Cadence>,
    /// The honesty properties it declares (the manifest's words).
    pub honesty: &'static [&'static str],
    args_schema: fn(SchemaGenerator) -> Schema,
    answer_schema: fn(SchemaGenerator) -> Schema,
    check: fn(&str, JsonMap) -> OpResult<()>,
    run: Box<Run>,
}

impl std::fmt::Debug for Verb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Verb")
            .field("name", &self.name)
            .field("family", &self.family)
            .field("writes", &self.writes)
            .finish_non_exhaustive()
    }
}

/// What one call answers: the result's JSON and the warnings the call raised
/// (its own, never another call's).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Answer {
    /// The result, as the spec's dict.
    pub value: Value,
    /// The call's warnings (`#FALLBACK: ...` and plain notes).
    pub warnings: Vec<String>,
}

impl Answer {
    /// A value with no warnings.
    pub fn value(value: Value) -> Answer {
        Answer {
            value,
            warnings: Vec::new(),
        }
    }

    /// The serde form of a typed result.
    ///
    /// # Errors
    /// `Internal` when the value cannot be encoded.
    pub fn of<T: Serialize + ?Sized>(v: &T) -> OpResult<Answer> {
        Ok(Answer::value(to_json(v)?))
    }

    /// A result that carries its warnings ([`am_system::Warned`]).
    ///
    /// # Errors
    /// As [`Answer::of`].
    pub fn warned<T: Serialize>(w: am_system::Warned<T>) -> OpResult<Answer> {
        Ok(Answer {
            value: to_json(&w.value)?,
            warnings: w.warnings,
        })
    }

    /// The same answer with `warnings` added.
    #[must_use]
    pub fn with_warnings(mut self, warnings: impl IntoIterator<Item = String>) -> Answer {
        self.warnings.extend(warnings);
        self
    }
}

/// The serde form of `v`.
///
/// # Errors
/// `Internal` when the value cannot be encoded.
pub fn to_json<T: Serialize + ?Sized>(v: &T) -> OpResult<Value> {
    serde_json::to_value(v).map_err(|e| OpError::internal(format!("cannot encode the answer: {e}")))
}

fn check_args<A: DeserializeOwned>(op: &str, args: JsonMap) -> OpResult<()> {
    crate::args::parse::<A>(op, args).map(|_| ())
}

fn schema_of<T: JsonSchema>(g: SchemaGenerator) -> Schema {
    g.into_root_schema_for::<T>()
}

impl Verb {
    /// A verb named `name` in `family`, declared by the builder calls that
    /// follow (`writes`, `shape`, `answers`, then `run`).
    pub(crate) fn declare(name: &'static str, family: Family, summary: &'static str) -> Builder {
        Builder {
            name,
            family,
            summary,
            writes: false,
            shape: CallShape::Method,
            present: Present::Plain,
            hooks: &[],
            needs_queue: matches!(family, Family::Tasks | Family::Ripple),
            cadence: None,
            honesty: &[],
            answer_schema: schema_of::<Value>,
        }
    }

    /// The JSON Schema of the verb's arguments (an object), as they are
    /// read (schemars' deserialize contract: a defaulted field is optional).
    pub fn args_schema(&self) -> Schema {
        (self.args_schema)(
            SchemaSettings::draft2020_12()
                .for_deserialize()
                .into_generator(),
        )
    }

    /// The JSON Schema of the verb's answer (the `ok` of an exec line), as
    /// it is written (the serialize contract: a field skipped when empty is
    /// optional).
    pub fn answer_schema(&self) -> Schema {
        (self.answer_schema)(
            SchemaSettings::draft2020_12()
                .for_serialize()
                .into_generator(),
        )
    }

    /// Read `args` as the verb's arguments without running it: what a front
    /// end checks before it queues a job.
    ///
    /// # Errors
    /// As the call would refuse them (`InvalidInput` naming the argument).
    pub fn check_args(&self, args: JsonMap) -> OpResult<()> {
        (self.check)(self.name, args)
    }

    /// Run the verb over `home` with `args` and the host's hooks.
    ///
    /// # Errors
    /// The op's refusal or failure; `InvalidInput` for arguments the verb
    /// does not take.
    pub fn call(&self, home: &mut dyn Home, host: &Host, args: JsonMap) -> OpResult<Answer> {
        if self.needs_queue
            && let Err(e) = home.system()?.tasks()
        {
            return Err(home.no_queue(self.name, e.into()));
        }
        (self.run)(home, host, args)
    }
}

/// A verb being declared.
pub(crate) struct Builder {
    name: &'static str,
    family: Family,
    summary: &'static str,
    writes: bool,
    shape: CallShape,
    present: Present,
    hooks: &'static [Hook],
    needs_queue: bool,
    cadence: Option<Cadence>,
    honesty: &'static [&'static str],
    answer_schema: fn(SchemaGenerator) -> Schema,
}

impl Builder {
    /// It is a pass the engine manifest lists: its cadence class and the
    /// honesty properties it declares.
    pub(crate) fn cadence(mut self, cadence: Cadence, honesty: &'static [&'static str]) -> Self {
        self.cadence = Some(cadence);
        self.honesty = honesty;
        self
    }

    /// It writes to the home.
    pub(crate) fn writes(mut self) -> Self {
        self.writes = true;
        self
    }

    /// How the spec exposes it (default: a method of the system).
    pub(crate) fn shape(mut self, shape: CallShape) -> Self {
        self.shape = shape;
        self
    }

    /// Its answer is the spec's object (attributes and `to_dict()`).
    pub(crate) fn object(mut self) -> Self {
        self.present = Present::Object;
        self
    }

    /// The hooks it takes.
    pub(crate) fn hooks(mut self, hooks: &'static [Hook]) -> Self {
        self.hooks = hooks;
        self
    }

    /// Its answer's type (for the answer's schema).
    pub(crate) fn answers<R: JsonSchema>(mut self) -> Self {
        self.answer_schema = schema_of::<R>;
        self
    }

    /// Its handler, over the call's JSON arguments as given (nulls kept):
    /// for the one verb whose spec keyword gives `None` a meaning of its own
    /// (`pending_records(live_task=None)`), which the handler reads before
    /// parsing `A` (the arguments struct, for the schema and the check).
    pub(crate) fn run_raw<A>(self, f: fn(&mut dyn Home, &Host, JsonMap) -> OpResult<Answer>) -> Verb
    where
        A: DeserializeOwned + JsonSchema + 'static,
    {
        let mut verb = self.run::<A>(|_, _, _| Ok(Answer::default()));
        verb.run = Box::new(f);
        verb
    }

    /// Its handler, over the arguments struct `A` (read through
    /// [`crate::args::parse`]).
    pub(crate) fn run<A>(self, f: fn(&mut dyn Home, &Host, A) -> OpResult<Answer>) -> Verb
    where
        A: DeserializeOwned + JsonSchema + 'static,
    {
        let name = self.name;
        Verb {
            name,
            family: self.family,
            summary: self.summary,
            writes: self.writes,
            shape: self.shape,
            present: self.present,
            hooks: self.hooks,
            needs_queue: self.needs_queue,
            no_args: std::any::TypeId::of::<A>() == std::any::TypeId::of::<crate::args::NoArgs>(),
            cadence: self.cadence,
            honesty: self.honesty,
            args_schema: schema_of::<A>,
            answer_schema: self.answer_schema,
            check: check_args::<A>,
            run: Box::new(move |home, host, args| {
                let a: A = crate::args::parse(name, args)?;
                f(home, host, a)
            }),
        }
    }
}
