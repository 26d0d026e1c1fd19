//! The task queue's closed vocabularies: task kinds and windows.
//!
//! Spec: api.md "The task queue" (`TASK_KINDS`, `WINDOWS`). The queue itself is
//! not built yet; its verbs and tables will use these types.

am_triples::vocabulary! {
    /// What a queued task asks for (`TASK_KINDS`), in the spec's order.
    pub enum TaskKind("task kind") {
        /// Author the title of a record formed pending (summaries).
        TitleAuthor = "title.author",
        /// Author the digest of a record formed pending (summaries).
        DigestAuthor = "digest.author",
        /// Rewrite a mechanical digest (summaries).
        DigestRewrite = "digest.rewrite",
        /// Author a legacy card still in mechanical words (summaries).
        CardAuthor = "card.author",
        /// Narrate a formed dream (understanding; `night` and `nap` windows).
        DreamNarrate = "dream.narrate",
        /// Reconsider a memory a ripple reached (understanding).
        RippleReconsider = "ripple.reconsider",
        /// Consolidate a ripple (understanding; `night` windows only).
        RippleConsolidate = "ripple.consolidate",
    }
}

am_triples::vocabulary! {
    /// The host's windows in which tasks run (`WINDOWS`), in the spec's order.
    pub enum Window("window") {
        /// One turn of a conversation (the default of `select_for_window`).
        Turn = "turn",
        /// A visit.
        Visit = "visit",
        /// A nap.
        Nap = "nap",
        /// A cycle.
        Cycle = "cycle",
        /// A night.
        Night = "night",
        /// Idle time.
        Idle = "idle",
    }
}

/// The spec's `TASK_KINDS` ([`TaskKind`]).
pub const TASK_KINDS: [&str; 7] = TaskKind::NAMES;
/// The spec's `WINDOWS` ([`Window`]).
pub const WINDOWS: [&str; 6] = Window::NAMES;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_kinds_and_windows_are_the_specs() {
        assert_eq!(
            TASK_KINDS,
            [
                "title.author",
                "digest.author",
                "digest.rewrite",
                "card.author",
                "dream.narrate",
                "ripple.reconsider",
                "ripple.consolidate"
            ]
        );
        assert_eq!(WINDOWS, ["turn", "visit", "nap", "cycle", "night", "idle"]);
        assert_eq!(
            serde_json::to_string(&TaskKind::RippleReconsider).unwrap(),
            "\"ripple.reconsider\""
        );
        assert!(Window::parse("weekend").is_err());
    }
}
