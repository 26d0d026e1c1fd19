//! Situate: put the entity back at one past moment. `situate` rebuilds the
//! context of a moment addressed by journal seq, by timestamp, or by a
//! participant's first or last appearance; `situate_prompt_block` renders
//! one result as a fenced prompt block.
//!
//! Spec: api.md "Situating a past moment" (`situate`, `situate_prompt_block`,
//! `SituateBudget`). 0.3.2's `situate.py` settles the budget's defaults, the
//! result's keys, the window rule and the orders.
//!
//! How it works. One read composes primitives other faculties own, each
//! anchored at the moment's seq: the formation axis (the `remember`
//! bindings), the closures as of the anchor, recall's activation fold
//! (`recall::attention::activation_inputs`), identity's prompt-active core as
//! of the anchor (`identity::self_records`), the nearest reconstruction trace
//! whose searched scopes overlap the asked ones, and that trace's snapshot
//! read at the anchor. Nothing is written: no trace, no event, no access
//! count. Every record-shaped item carries `admission: "historical"`, so a
//! host cannot mistake it for displayed working memory.

pub mod args;
mod block;
pub mod read;

pub use args::{Occurrence, Situate, SituateBudget};
pub use block::{BLOCK_CLOSE, BLOCK_OPEN, SituatePromptBlock, situate_prompt_block};
pub use read::{ActivityItem, BudgetReport, EvolutionEntry, HistoricalHandle, Moment, Situation};
