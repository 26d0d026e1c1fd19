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
//!
//! How it is built. The pipeline is a private context struct with one method
//! per phase (`reconstruct/pipeline.rs`: `Recall`, from the candidate gather
//! to the trace; `reconstruct/shelf.rs`: `Fill`, the union fill's seats); the
//! candidate universe the pipeline and the hybrid profile both fill is
//! `reconstruct/universe.rs`. The hybrid profile (`reconstruct/hybrid.rs`,
//! `ReconstructConfig::hybrid()`, docs/retrieval.md) adds BM25 keyword and
//! whole-pair vector candidates, a newest window, a weighted-sum fusion and a
//! neighbour boost; with `hybrid: None` (the spec's default) none of it runs.
//! The recall index (`reconstruct/index.rs`) keeps each pair's rows and the
//! journal's folds fresh from the change feed and the journal's tail, so a
//! recall reads only what was written since the last one; its caches are
//! taken at the pipeline's entry and given back at its exit. The phases read
//! the store through `RecallRead` (`reconstruct/read.rs`: a query's rows and
//! the embedding pin), which the index's `IndexedStore` answers index first;
//! the accelerated reads (keyword discovery, ranking by position) go to the
//! system's store.
//!
//! The exclusion over-fetch headroom of a recall (the candidate window, the
//! channels' fetches, spreading's per-term reads) is the size of 0.3.2's one
//! exclusion set, capped at 256: closed ids, the rows latest-hidden bindings
//! exclude, and an anchored read's rows formed after the anchor
//! (`Folds::exclusion_headroom`). Nothing here names the valence code
//! (tidy's `valence_problems`).

mod acts;
pub mod args;
pub mod attention;
pub mod commit;
mod payload;
pub(crate) mod reconstruct;
pub mod selection;
