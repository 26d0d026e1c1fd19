//! Recall: the stimulus-driven reconstruction (`reconstruct`, its channels,
//! spreading, the shelf and the recall index), the attention fold that scores
//! it, commit of use (`commit_selection`, the only strengthening path) with
//! its selection plan, the deliberate acts (`reinforce`, `attenuate`,
//! `refocus`), the inspection reads (`activation`, `access_counts`), the
//! payload read, and the bindings and closures (`bind`, `close_assertions`,
//! `close_record`).
//!
//! Spec: api.md "Reconstruction", "Committing use, deliberate acts,
//! inspection", "Bindings and closures"; memory-system.md; algorithms.md §3–7.

mod acts;
pub mod args;
pub mod attention;
pub mod commit;
mod payload;
pub(crate) mod reconstruct;
pub mod selection;
