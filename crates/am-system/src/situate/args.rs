//! `situate`'s arguments and [`SituateBudget`].

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

am_triples::vocabulary! {
    /// Which encounter with a participant anchors the moment.
    #[derive(Default)]
    pub enum Occurrence("occurrence") {
        /// The earliest formed record stamped with the participant.
        #[default]
        First = "first",
        /// The latest one.
        Last = "last",
    }
}

/// The declared bounds of one `situate` read (api.md `SituateBudget`). A
/// bound of zero means none of that section; a negative bound is refused
/// (the fields are signed so a negative reaches the refusal instead of a
/// parse error). Defaults are 0.3.2's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SituateBudget {
    /// Period records around the anchor (half before, the rest after).
    pub window_records: i64,
    /// Warm records at the anchor.
    pub activity_top_k: i64,
    /// Diary entries elected in the window.
    pub diary_entries: i64,
    /// Tensions open at the anchor.
    pub tensions: i64,
    /// Identity evolution entries.
    pub identity_delta: i64,
    /// Digest tokens across the period (the first period record always fits).
    pub token_budget: i64,
    /// Reconstruction traces inspected for the moment.
    pub moment_trace_walk: i64,
}

impl SituateBudget {
    /// 0.3.2's defaults.
    pub const DEFAULT: SituateBudget = SituateBudget {
        window_records: 24,
        activity_top_k: 12,
        diary_entries: 8,
        tensions: 12,
        identity_delta: 24,
        token_budget: 2400,
        moment_trace_walk: 50,
    };

    /// Refuse a negative bound, naming it.
    ///
    /// # Errors
    /// `InvalidInput` for the first negative field.
    pub fn check(&self) -> Result<()> {
        for (name, v) in [
            ("window_records", self.window_records),
            ("activity_top_k", self.activity_top_k),
            ("diary_entries", self.diary_entries),
            ("tensions", self.tensions),
            ("identity_delta", self.identity_delta),
            ("token_budget", self.token_budget),
            ("moment_trace_walk", self.moment_trace_walk),
        ] {
            if v < 0 {
                return Err(Error::invalid(format!(
                    "SituateBudget.{name} must be >= 0 (0 means none of that section; a negative \
                     bound is refused), got {v}"
                )));
            }
        }
        Ok(())
    }
}

impl Default for SituateBudget {
    fn default() -> Self {
        SituateBudget::DEFAULT
    }
}

/// The arguments of [`crate::MemorySystem::situate`]: `situate(store,
/// journal, *, scopes, at=None, seq=None, participant=None,
/// occurrence="first", budget=SituateBudget())`. Exactly one of `at`, `seq`
/// and `participant` addresses the moment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Situate {
    /// The `(scope, owner_id)` pairs whose past is read (at least one).
    pub scopes: Vec<(String, String)>,
    /// An ISO timestamp: the moment is the journal's seq at that time.
    #[serde(default)]
    pub at: Option<String>,
    /// A journal seq (`0..=current_seq`).
    #[serde(default)]
    pub seq: Option<i64>,
    /// A namespaced participant (`person:ada`): the moment is the formation
    /// of the first or last record stamped with it.
    #[serde(default)]
    pub participant: Option<String>,
    /// Which encounter with `participant` (default `first`).
    #[serde(default)]
    pub occurrence: Occurrence,
    /// The read's bounds.
    #[serde(default)]
    pub budget: SituateBudget,
}

impl Situate {
    fn over(scopes: &[(&str, &str)]) -> Self {
        Situate {
            scopes: scopes
                .iter()
                .map(|(s, o)| ((*s).to_owned(), (*o).to_owned()))
                .collect(),
            at: None,
            seq: None,
            participant: None,
            occurrence: Occurrence::First,
            budget: SituateBudget::DEFAULT,
        }
    }

    /// The moment at journal seq `seq`.
    pub fn at_seq(scopes: &[(&str, &str)], seq: i64) -> Self {
        Situate {
            seq: Some(seq),
            ..Situate::over(scopes)
        }
    }

    /// The moment at ISO time `at`.
    pub fn at_time(scopes: &[(&str, &str)], at: &str) -> Self {
        Situate {
            at: Some(at.to_owned()),
            ..Situate::over(scopes)
        }
    }

    /// The moment of the `occurrence` encounter with `participant`.
    pub fn meeting(scopes: &[(&str, &str)], participant: &str, occurrence: Occurrence) -> Self {
        Situate {
            participant: Some(participant.to_owned()),
            occurrence,
            ..Situate::over(scopes)
        }
    }
}
