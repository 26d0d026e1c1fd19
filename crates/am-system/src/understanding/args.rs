//! The arguments of the understanding verbs: `rewrite_digest`, `retitle`,
//! `narrate_dream`, `revert_digest`, `declare_pending` and `rearm_pending`.
//!
//! Spec: api.md "Understanding: in-place rewrites and versions", "Formation"
//! (pending fields).

use super::reading::Reading;
use am_journal::{AuthorRef, ReaderRef, SourceRef};
use am_triples::Timestamp;
use serde::{Deserialize, Serialize};

fn authored_v1() -> String {
    "authored-v1".to_owned()
}

fn formation_cause() -> serde_json::Value {
    serde_json::Value::String("formation".to_owned())
}

/// Declares an understanding verb's arguments struct with the reading
/// fields (`author`, `reader`, `sources`, `cause`, `understood_at`,
/// `task_id`) spliced in where the struct names them (`reading author,`):
/// each is declared here once, with its type, docs and serde default, so
/// every such struct keeps the spec's flat keyword arguments (and their
/// order) on the wire and in Rust; `reading cause = formation,` gives the
/// cause `narrate_dream`'s default. The struct also gets `reading()`, the
/// borrowed [`Reading`] the verbs validate with [`Reading::validate`].
///
/// Not `#[serde(flatten)]` of a shared struct: a flattened struct buffers
/// its keys, so a mistyped value loses its argument path and an unknown key
/// the list of known ones in exec's refusals (serde documents flatten as
/// unsupported with `deny_unknown_fields`), and `narrate_dream`'s cause has
/// a default the others' lacks.
macro_rules! with_reading {
    ($(#[$m:meta])* pub struct $name:ident { $($body:tt)* }) => {
        with_reading!(@fields [$(#[$m])*] $name [] $($body)*);
    };
    (@fields $m:tt $name:ident [$($done:tt)*] reading author, $($rest:tt)*) => {
        with_reading!(@fields $m $name [$($done)*
            /// `{kind, id}`, kind in `AUTHOR_KINDS`.
            pub author: AuthorRef,
        ] $($rest)*);
    };
    (@fields $m:tt $name:ident [$($done:tt)*] reading reader, $($rest:tt)*) => {
        with_reading!(@fields $m $name [$($done)*
            /// `{provider, model, thinking}`: required for a model author.
            #[serde(default)]
            pub reader: Option<ReaderRef>,
        ] $($rest)*);
    };
    (@fields $m:tt $name:ident [$($done:tt)*] reading sources, $($rest:tt)*) => {
        with_reading!(@fields $m $name [$($done)*
            /// Ledger `SourceRef`s (a model author needs at least one).
            #[serde(default)]
            pub sources: Vec<SourceRef>,
        ] $($rest)*);
    };
    (@fields $m:tt $name:ident [$($done:tt)*] reading cause, $($rest:tt)*) => {
        with_reading!(@fields $m $name [$($done)*
            /// A cause in `REWRITE_CAUSES`, or `{"cause": ..., ...}` (extra keys kept).
            pub cause: serde_json::Value,
        ] $($rest)*);
    };
    (@fields $m:tt $name:ident [$($done:tt)*] reading cause = formation, $($rest:tt)*) => {
        with_reading!(@fields $m $name [$($done)*
            /// A cause in `REWRITE_CAUSES`, or `{"cause": ..., ...}` (extra
            /// keys kept); default `formation`.
            #[serde(default = "formation_cause")]
            pub cause: serde_json::Value,
        ] $($rest)*);
    };
    (@fields $m:tt $name:ident [$($done:tt)*] reading task_id, $($rest:tt)*) => {
        with_reading!(@fields $m $name [$($done)*
            /// The task this settles (needs the task queue: refused
            /// `no_task_queue` on a home without one).
            #[serde(default)]
            pub task_id: Option<String>,
        ] $($rest)*);
    };
    (@fields $m:tt $name:ident [$($done:tt)*] reading understood_at, $($rest:tt)*) => {
        with_reading!(@fields $m $name [$($done)*
            /// When the reading was written (default: now).
            #[serde(default)]
            pub understood_at: Option<Timestamp>,
        ] $($rest)*);
    };
    (@fields $m:tt $name:ident [$($done:tt)*] $(#[$fm:meta])* pub $f:ident : $t:ty, $($rest:tt)*) => {
        with_reading!(@fields $m $name [$($done)* $(#[$fm])* pub $f: $t,] $($rest)*);
    };
    (@fields [$($m:tt)*] $name:ident [$($done:tt)*]) => {
        $($m)*
        pub struct $name {
            $($done)*
        }

        impl $name {
            /// This call's reading: who wrote it, from what, why, when and
            /// for which task.
            pub fn reading(&self) -> Reading<'_> {
                Reading {
                    author: &self.author,
                    reader: self.reader.as_ref(),
                    sources: &self.sources,
                    cause: &self.cause,
                    understood_at: self.understood_at,
                    task_id: self.task_id.as_deref(),
                }
            }
        }
    };
}

with_reading! {
    /// The arguments of [`crate::MemorySystem::rewrite_digest`]:
    /// `rewrite_digest(record_id, *, text, author, cause, expected_version,
    /// reader=None, sources=(), derived_from=(), title=None, keywords=None,
    /// digest_method="authored-v1", magnitude=None, task_id=None,
    /// understood_at=None)`.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct RewriteDigest {
        /// The record: its graph id or its digest assertion id.
        pub record_id: String,
        /// The new digest, stored exactly as given.
        pub text: String,
        reading author,
        reading cause,
        /// Compare-and-set on the record's `digest_version` (0: never rewritten).
        pub expected_version: i64,
        reading reader,
        reading sources,
        /// Memories this reading was derived from.
        #[serde(default)]
        pub derived_from: Vec<String>,
        /// A new title, written with its own title version.
        #[serde(default)]
        pub title: Option<String>,
        /// New keywords.
        #[serde(default)]
        pub keywords: Option<Vec<String>>,
        /// How the words were produced (default `authored-v1`).
        #[serde(default = "authored_v1")]
        pub digest_method: String,
        /// The size of the change, when the reader says.
        #[serde(default)]
        pub magnitude: Option<f64>,
        reading task_id,
        reading understood_at,
    }
}

impl RewriteDigest {
    /// Rewrite `record_id`'s digest to `text`, by `author` for `cause`, if its
    /// version is still `expected_version`.
    pub fn new(
        record_id: &str,
        text: &str,
        author: AuthorRef,
        cause: serde_json::Value,
        expected_version: i64,
    ) -> Self {
        RewriteDigest {
            record_id: record_id.to_owned(),
            text: text.to_owned(),
            author,
            cause,
            expected_version,
            reader: None,
            sources: Vec::new(),
            derived_from: Vec::new(),
            title: None,
            keywords: None,
            digest_method: authored_v1(),
            magnitude: None,
            task_id: None,
            understood_at: None,
        }
    }
}

with_reading! {
    /// The arguments of [`crate::MemorySystem::retitle`]: `retitle(record_id, *,
    /// title, author, cause, expected_version, reader=None, sources=(),
    /// task_id=None, understood_at=None)`.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct Retitle {
        /// The record: its graph id or its digest assertion id.
        pub record_id: String,
        /// The new title, stored exactly as given (never cut).
        pub title: String,
        reading author,
        reading cause,
        /// Compare-and-set on the record's `title_version` (0: never retitled).
        pub expected_version: i64,
        reading reader,
        reading sources,
        reading task_id,
        reading understood_at,
    }
}

impl Retitle {
    /// Retitle `record_id` to `title`, by `author` for `cause`, if its title
    /// version is still `expected_version`.
    pub fn new(
        record_id: &str,
        title: &str,
        author: AuthorRef,
        cause: serde_json::Value,
        expected_version: i64,
    ) -> Self {
        Retitle {
            record_id: record_id.to_owned(),
            title: title.to_owned(),
            author,
            cause,
            expected_version,
            reader: None,
            sources: Vec::new(),
            task_id: None,
            understood_at: None,
        }
    }
}

with_reading! {
    /// The arguments of [`crate::MemorySystem::narrate_dream`]:
    /// `narrate_dream(dream_id, *, text, author, expected_version=0, reader=None,
    /// sources=(), cause="formation", task_id=None, understood_at=None)`.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct NarrateDream {
        /// The dream: its graph id or its digest assertion id.
        pub dream_id: String,
        /// The narration, stored exactly as given.
        pub text: String,
        reading author,
        /// Compare-and-set on `narration_version` (default 0: never narrated).
        #[serde(default)]
        pub expected_version: i64,
        reading reader,
        reading sources,
        reading cause = formation,
        reading task_id,
        reading understood_at,
    }
}

impl NarrateDream {
    /// Narrate `dream_id` with `text` by `author`.
    pub fn new(dream_id: &str, text: &str, author: AuthorRef) -> Self {
        NarrateDream {
            dream_id: dream_id.to_owned(),
            text: text.to_owned(),
            author,
            expected_version: 0,
            reader: None,
            sources: Vec::new(),
            cause: formation_cause(),
            task_id: None,
            understood_at: None,
        }
    }
}

/// The arguments of [`crate::MemorySystem::revert_digest`]:
/// `revert_digest(record_id, to_version, *, expected_version, by=None,
/// reason=None, field=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RevertDigest {
    /// The record: its graph id or its digest assertion id.
    pub record_id: String,
    /// The version to restore (as a NEW version).
    pub to_version: i64,
    /// Compare-and-set on the field's current version.
    pub expected_version: i64,
    /// Who reverts: `{kind, id}` (default the operator), recorded in the cause.
    #[serde(default)]
    pub by: Option<AuthorRef>,
    /// Why, recorded in the cause.
    #[serde(default)]
    pub reason: Option<String>,
    /// The field (default the record's own: `digest`, `card` for a card);
    /// `title` restores a title.
    #[serde(default)]
    pub field: Option<String>,
}

impl RevertDigest {
    /// Restore `record_id`'s version `to_version` if its version is still
    /// `expected_version`.
    pub fn new(record_id: &str, to_version: i64, expected_version: i64) -> Self {
        RevertDigest {
            record_id: record_id.to_owned(),
            to_version,
            expected_version,
            by: None,
            reason: None,
            field: None,
        }
    }
}

fn pending_fields() -> Vec<String> {
    vec!["title".into(), "summary".into()]
}

fn repair() -> String {
    "repair".into()
}

/// The arguments of [`crate::MemorySystem::declare_pending`]:
/// `declare_pending(record_id, *, fields=("title", "summary"),
/// cause="repair", reason=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeclarePending {
    /// The record: its graph id or its digest assertion id.
    pub record_id: String,
    /// The fields declared pending (`PENDING_FIELDS`, non-empty).
    #[serde(default = "pending_fields")]
    pub fields: Vec<String>,
    /// A cause in `REWRITE_CAUSES` (default `repair`).
    #[serde(default = "repair")]
    pub cause: String,
    /// Why, recorded in the declaration's cause.
    #[serde(default)]
    pub reason: Option<String>,
}

impl DeclarePending {
    /// Declare `record_id`'s title and summary pending, cause `repair`.
    pub fn new(record_id: &str) -> Self {
        DeclarePending {
            record_id: record_id.to_owned(),
            fields: pending_fields(),
            cause: repair(),
            reason: None,
        }
    }
}

/// The arguments of [`crate::MemorySystem::rearm_pending`]:
/// `rearm_pending(record_id, *, cause="repair", reason=None)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RearmPending {
    /// The record: its graph id or its digest assertion id.
    pub record_id: String,
    /// A cause in `REWRITE_CAUSES` (default `repair`).
    #[serde(default = "repair")]
    pub cause: String,
    /// Why, recorded in the re-arm's cause.
    #[serde(default)]
    pub reason: Option<String>,
}

impl RearmPending {
    /// Re-arm `record_id`'s exhausted pending fields, cause `repair`.
    pub fn new(record_id: &str) -> Self {
        RearmPending {
            record_id: record_id.to_owned(),
            cause: repair(),
            reason: None,
        }
    }
}
