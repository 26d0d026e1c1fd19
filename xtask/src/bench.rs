//! `cargo xtask bench [--quick] [--no-lance] [--only BENCH]... [--profile NAME]`: run
//! the criterion benches that carry the issues' speed targets in release, read criterion's estimates
//! (`<target>/criterion/**/new/{benchmark,estimates}.json`) and print one table:
//! each figure, ours, the target, the Python AbstractMemory 0.3.2 figure measured
//! on this machine class (from the issue texts) and the ratio to it.
//!
//! The benches: `am-backend-sqlite` `store` and `journal`, `am-system`
//! `reconstruct`, `formation`, `understanding`, `tasks`, `observe`, `entity`,
//! `card`, `sleep`, `reach`, `world_models`, `drives`, `communities`, `ripple`, `operator` and `guard_cost` (the commit guard's cost in instructions, counted by callgrind
//! when valgrind is installed: its rows print each guarded count beside the
//! unguarded one against the 2 % target, beside the criterion medians'
//! guarded/unguarded pairs), `am-embed` `offline`; then, when the release
//! `am` binary and the LoCoMo dev split exist, `am --json eval locomo` for the
//! per-question median latency. Only estimates written by this run are read, so
//! a bench that failed shows as "not run", never as an old figure.
//!
//! `--profile NAME` builds the benches with another cargo profile (`test` reuses a
//! debug build's dependencies: a smoke run, its figures not comparable with the
//! targets). `am-backend-lance`'s `store` bench (the SQLite store's workload under
//! the criterion group `lance_store`) runs too and its rows print beside the
//! SQLite store's; `--no-lance` skips it (a release build of lancedb costs about
//! 77 CPU-minutes the first time). `--only BENCH` (repeatable) runs only the bench
//! targets of that name (`--only store`: the two stores) and skips the LoCoMo
//! eval.

use crate::workspace::cargo;
use anyhow::{Context, Result, bail};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

/// The bench targets run, as `(package, bench)`.
const BENCHES: &[(&str, &str)] = &[
    ("am-backend-sqlite", "store"),
    ("am-backend-sqlite", "journal"),
    ("am-system", "reconstruct"),
    ("am-system", "formation"),
    ("am-system", "understanding"),
    ("am-system", "tasks"),
    ("am-system", "observe"),
    ("am-system", "entity"),
    ("am-system", "guard_cost"),
    ("am-system", "card"),
    ("am-system", "sleep"),
    ("am-system", "reach"),
    ("am-system", "world_models"),
    ("am-system", "drives"),
    ("am-system", "communities"),
    ("am-system", "ripple"),
    ("am-system", "operator"),
    ("am-embed", "offline"),
    ("am-cli", "serve"),
];

/// The LanceDB store's bench, skipped with `--no-lance` (its release build is heavy).
const LANCE_BENCH: (&str, &str) = ("am-backend-lance", "store");

/// Criterion arguments of a normal run (the issues' measurement settings).
const NORMAL_ARGS: &[&str] = &["--warm-up-time", "1", "--measurement-time", "3"];
/// Criterion arguments of `--quick`.
const QUICK_ARGS: &[&str] = &[
    "--warm-up-time",
    "0.3",
    "--measurement-time",
    "1",
    "--sample-size",
    "10",
];

/// The LoCoMo dev split, unless `$AM_LOCOMO` names another file.
const LOCOMO_DEV: &str = "/work/shared/fixtures/locomo/locomo-dev.json";

/// How a figure is read and compared.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// A latency per iteration; the target is a maximum, in nanoseconds.
    Latency {
        /// The target's maximum (ns); `None`: no numeric target.
        max_ns: Option<f64>,
    },
    /// Elements per second (the bench's criterion throughput); the target is a
    /// minimum.
    Rate {
        /// The target's minimum (elements/s); `None`: no numeric target.
        min_per_s: Option<f64>,
        /// The unit of one element ("rows", "events", ...).
        unit: &'static str,
    },
}

/// One row of the table.
#[derive(Debug, Clone, Copy)]
pub struct Figure {
    /// What is measured.
    pub label: &'static str,
    /// The criterion id (`group/function[/value]`); a trailing `*` matches any
    /// suffix (an id that carries a data-dependent count).
    pub id: &'static str,
    /// How to read and compare it.
    pub kind: Kind,
    /// The target as the issue words it.
    pub target: &'static str,
    /// The Python 0.3.2 figure, in the figure's unit (ns for latencies,
    /// elements/s for rates), and its note.
    pub python: Option<(f64, &'static str)>,
}

const MS: f64 = 1e6;
const US: f64 = 1e3;

/// Every figure with a target or a Python baseline in the issues (3, 4, 5, 6, 7).
pub const FIGURES: &[Figure] = &[
    Figure {
        label: "tasks: select_for_window, 10,000 live tasks",
        id: "tasks/select_for_window_10000_live",
        kind: Kind::Latency {
            max_ns: Some(5.0 * MS),
        },
        target: "<= 5 ms",
        python: None,
    },
    Figure {
        label: "tasks: enqueue of 1,000 tasks in one call",
        id: "tasks/enqueue_1000_one_call",
        kind: Kind::Rate {
            min_per_s: Some(20_000.0),
            unit: "tasks",
        },
        target: ">= 20,000 tasks/s",
        python: None,
    },
    Figure {
        label: "tasks: remember_many plain, batches of 100 (queued home)",
        id: "tasks/remember_many_plain_batch_100",
        kind: Kind::Rate {
            min_per_s: None,
            unit: "records",
        },
        target: "baseline of the pending figure",
        python: None,
    },
    Figure {
        label: "tasks: remember_many pending titles, batches of 100",
        id: "tasks/remember_many_pending_batch_100",
        kind: Kind::Rate {
            min_per_s: None,
            unit: "records",
        },
        target: "(judged interleaved, below)",
        python: None,
    },
    Figure {
        label: "export_replay, enriched, 100k journal records",
        id: "observe/export_replay_100k_enriched",
        kind: Kind::Rate {
            min_per_s: Some(100_000.0),
            unit: "envelopes",
        },
        target: ">= 100,000 envelopes/s",
        python: None,
    },
    Figure {
        label: "replay tail poll, nothing new",
        id: "observe/tail_poll_nothing_new",
        kind: Kind::Latency {
            max_ns: Some(0.1 * MS),
        },
        target: "<= 0.1 ms",
        python: None,
    },
    Figure {
        label: "explain_recall",
        id: "observe/explain_recall",
        kind: Kind::Latency {
            max_ns: Some(5.0 * MS),
        },
        target: "<= 5 ms",
        python: None,
    },
    Figure {
        label: "recent_records",
        id: "observe/recent_records",
        kind: Kind::Latency {
            max_ns: Some(2.0 * MS),
        },
        target: "<= 2 ms",
        python: None,
    },
    Figure {
        label: "reach: probe, effort standard, journal off, 100k records",
        id: "reach/probe_standard_100k",
        kind: Kind::Latency {
            max_ns: Some(2.0 * MS),
        },
        target: "<= 2 ms",
        python: None,
    },
    Figure {
        label: "reach: probe, effort standard, journaled, 100k records",
        id: "reach/probe_standard_journaled_100k",
        kind: Kind::Latency { max_ns: None },
        target: "-",
        python: None,
    },
    Figure {
        label: "reach: familiarity, effort quick, 100k records",
        id: "reach/familiarity_quick_100k",
        kind: Kind::Latency { max_ns: None },
        target: "-",
        python: None,
    },
    Figure {
        label: "reach vs 0.3.2: probe standard on 0.3.2's 10k home (0.3.2's median: reach_python.json)",
        id: "reach_vs_0_3_2/probe_standard_*",
        kind: Kind::Latency { max_ns: None },
        target: ">= 50x 0.3.2",
        python: None,
    },
    Figure {
        label: "world models: world_model_update, one target, revising, 100k records",
        id: "world_models/world_model_update_revising_100k",
        kind: Kind::Latency {
            max_ns: Some(20.0 * MS),
        },
        target: "<= 20 ms",
        python: None,
    },
    Figure {
        label: "world models: current_world_models (the system's card index), 100k records",
        id: "world_models/current_world_models_100k",
        kind: Kind::Latency {
            max_ns: Some(5.0 * MS),
        },
        target: "<= 5 ms",
        python: None,
    },
    Figure {
        label: "world models: current_world_models, the free function's whole read, 100k records",
        id: "world_models/current_world_models_whole_read_100k",
        kind: Kind::Latency { max_ns: None },
        target: "-",
        python: None,
    },
    Figure {
        label: "sleep: structural_report, 100k records",
        id: "sleep/structural_report_100k",
        kind: Kind::Latency {
            max_ns: Some(1_000.0 * MS),
        },
        target: "<= 1 s",
        python: None,
    },
    Figure {
        label: "sleep: a pair's rows read whole, 100k records (structural_report's floor)",
        id: "sleep/pair_rows_read_100k",
        kind: Kind::Latency { max_ns: None },
        target: "-",
        python: None,
    },
    Figure {
        label: "sleep: maintenance_due, first check on a fresh system, 100k records",
        id: "sleep/maintenance_due_first_check_100k",
        kind: Kind::Latency {
            max_ns: Some(1_000.0 * MS),
        },
        target: "<= 1 s",
        python: None,
    },
    Figure {
        label: "sleep: maintenance_due repeated, nothing new, 100k records",
        id: "sleep/maintenance_due_nothing_new_100k",
        kind: Kind::Latency {
            max_ns: Some(0.5 * MS),
        },
        target: "<= 0.5 ms",
        python: None,
    },
    Figure {
        label: "operator: reembed_store, offline embedder, 100k rows",
        id: "operator/reembed_store_offline_100k",
        kind: Kind::Rate {
            min_per_s: Some(20_000.0),
            unit: "rows",
        },
        target: ">= 20,000 rows/s",
        python: None,
    },
    Figure {
        label: "operator: mind_mass_report, 100k records",
        id: "operator/mind_mass_report_100k",
        kind: Kind::Latency {
            max_ns: Some(1_000.0 * MS),
        },
        target: "<= 1 s",
        python: None,
    },
    Figure {
        label: "operator: mind_mass_report, 100k records, thread CPU time",
        id: "operator/mind_mass_report_100k_cpu_time",
        kind: Kind::Latency {
            max_ns: Some(1_000.0 * MS),
        },
        target: "<= 1 s",
        python: None,
    },
    Figure {
        label: "communities: communities_pass, a first version, 100k records",
        id: "communities/communities_pass_first_version_100k",
        kind: Kind::Latency {
            max_ns: Some(10_000.0 * MS),
        },
        target: "<= 10 s",
        python: None,
    },
    Figure {
        label: "communities: community_keys_of, 50 ids, warm, 100k records",
        id: "communities/community_keys_of_50_ids_warm_100k",
        kind: Kind::Latency {
            max_ns: Some(10.0 * US),
        },
        target: "<= 10 us",
        // 0.3.2 has no communities (0.5.2's docs publish 20 us at 2,000 records).
        python: None,
    },
    Figure {
        label: "ripple: seed_ripple, a record with 1,000 neighbours",
        id: "ripple/seed_ripple_1000_neighbours",
        kind: Kind::Latency {
            max_ns: Some(20.0 * MS),
        },
        target: "<= 20 ms",
        // 0.3.2 has no ripple.
        python: None,
    },
    Figure {
        label: "entity_card, 100k records + 100k valence events",
        id: "card/entity_card_100k_records_100k_valence",
        kind: Kind::Latency {
            max_ns: Some(50.0 * MS),
        },
        target: "<= 50 ms",
        python: None,
    },
    Figure {
        label: "alive_drives, 100k records (ladder diary + life)",
        id: "drives/alive_drives_100k_records",
        kind: Kind::Latency {
            max_ns: Some(5.0 * MS),
        },
        target: "<= 5 ms",
        python: None,
    },
    Figure {
        label: "entity_card, the first of a fresh system (same home)",
        id: "card/entity_card_first_on_a_fresh_system",
        kind: Kind::Latency { max_ns: None },
        target: "none (builds the mirrors)",
        python: None,
    },
    Figure {
        label: "store: add, batches of 500 (50k x 384-d)",
        id: "store/add_batch_of_500",
        kind: Kind::Rate {
            min_per_s: Some(100_000.0),
            unit: "rows",
        },
        target: ">= 100,000 rows/s",
        python: Some((2_091.0, "2,091 rows/s")),
    },
    Figure {
        label: "store: subject read",
        id: "store/subject_read",
        kind: Kind::Latency {
            max_ns: Some(50.0 * US),
        },
        target: "<= 50 us",
        python: Some((0.26 * MS, "0.26 ms")),
    },
    Figure {
        label: "store: scope+owner latest 50",
        id: "store/scope_owner_latest_50",
        kind: Kind::Latency {
            max_ns: Some(50.0 * US),
        },
        target: "<= 50 us",
        python: Some((33.0 * MS, "33 ms")),
    },
    Figure {
        label: "store: vector query limit 10, warm",
        id: "store/vector_query_limit_10_warm",
        kind: Kind::Latency {
            max_ns: Some(10.0 * MS),
        },
        target: "<= 10 ms",
        python: Some((4_140.0 * MS, "4.14 s (20k rows)")),
    },
    Figure {
        label: "store: open a 50k-row home",
        id: "store/open_50k_home",
        kind: Kind::Latency {
            max_ns: Some(50.0 * MS),
        },
        target: "<= 50 ms",
        python: None,
    },
    Figure {
        label: "store: JSON->BLOB upgrade, 50k rows",
        id: "store/json_to_blob_upgrade_50k",
        kind: Kind::Latency {
            max_ns: Some(2_000.0 * MS),
        },
        target: "<= 2 s",
        python: None,
    },
    Figure {
        label: "journal: append, batches of 1,000",
        id: "journal_append/append_events_batch_default/1000",
        kind: Kind::Rate {
            min_per_s: Some(50_000.0),
            unit: "events",
        },
        target: ">= 50,000 events/s",
        python: None,
    },
    Figure {
        label: "journal: selected_count, 10k events",
        id: "journal_read/selected_count/10000",
        kind: Kind::Latency { max_ns: None },
        target: "flat 10k -> 1M",
        python: None,
    },
    Figure {
        label: "journal: selected_count, 1M events",
        id: "journal_read/selected_count/1000000",
        kind: Kind::Latency { max_ns: None },
        target: "flat 10k -> 1M",
        python: None,
    },
    Figure {
        label: "journal: binding fold of one record, 1M events",
        id: "journal_read/fold_bindings_one_record/1000000",
        kind: Kind::Latency { max_ns: None },
        target: "flat 10k -> 1M",
        python: None,
    },
    Figure {
        label: "system: reconstruct, 2,000 records",
        id: "reconstruct/sqlite_home_2000_records_shelf",
        kind: Kind::Latency {
            max_ns: Some(2.0 * MS),
        },
        target: "<= 2 ms",
        python: Some((593.0 * MS, "593 ms")),
    },
    Figure {
        label: "system: reconstruct, 100,000 records",
        id: "reconstruct/sqlite_home_100000_records_shelf",
        kind: Kind::Latency {
            max_ns: Some(20.0 * MS),
        },
        target: "<= 20 ms",
        python: None,
    },
    Figure {
        label: "system: remember_many, batches of 100",
        id: "remember_many/sqlite_home_batch_100",
        kind: Kind::Rate {
            min_per_s: Some(20_000.0),
            unit: "records",
        },
        target: ">= 20,000 records/s",
        python: Some((1_076.0, "1,076 records/s")),
    },
    Figure {
        label: "system: commit_selection, 2,000 records",
        id: "commit_selection/sqlite_home_2000_records_shelf_12",
        kind: Kind::Latency {
            max_ns: Some(0.2 * MS),
        },
        target: "<= 0.2 ms",
        python: Some((3.1 * MS, "3.1 ms")),
    },
    Figure {
        label: "system: gradation of one target, 100,000 events / 10,000 targets",
        id: "gradation/sqlite_home_100000_events_one_target",
        kind: Kind::Latency {
            max_ns: Some(1.0 * MS),
        },
        target: "<= 1 ms",
        python: None,
    },
    Figure {
        label: "system: gradation of every target, 100,000 events",
        id: "gradation/sqlite_home_100000_events_all_targets",
        kind: Kind::Latency {
            max_ns: Some(200.0 * MS),
        },
        target: "<= 200 ms",
        python: None,
    },
    Figure {
        label: "system: verify_diary_chain, 100,000 entries",
        id: "verify_diary_chain/sqlite_home_100000_entries",
        kind: Kind::Rate {
            min_per_s: Some(100_000.0),
            unit: "entries",
        },
        target: ">= 100,000 entries/s",
        python: None,
    },
    Figure {
        label: "system: rewrite_digest, 50,000 records (no embedding)",
        id: "rewrite_digest/sqlite_home_50000_records",
        kind: Kind::Latency {
            max_ns: Some(1.0 * MS),
        },
        target: "<= 1 ms",
        python: None,
    },
    Figure {
        label: "system: versions of a record with 100 versions",
        id: "versions/sqlite_home_100_versions",
        kind: Kind::Latency {
            max_ns: Some(0.2 * MS),
        },
        target: "<= 0.2 ms",
        python: None,
    },
    Figure {
        label: "system: current_of through 10 supersede hops",
        id: "current_of/sqlite_home_10_hops",
        kind: Kind::Latency {
            max_ns: Some(0.2 * MS),
        },
        target: "<= 0.2 ms",
        python: None,
    },
    Figure {
        label: "embed: offline potion-base-2M, LoCoMo dev turns",
        id: "offline_potion_base_2m/locomo_dev_*",
        kind: Kind::Rate {
            // 2,960 turns in at most 5 s (the ingest target, storage included).
            min_per_s: Some(592.0),
            unit: "texts",
        },
        target: ">= 592 texts/s (2,960 in 5 s)",
        python: None,
    },
    Figure {
        label: "am serve: one recall over HTTP, loopback",
        id: "serve/recall_http",
        kind: Kind::Latency { max_ns: None },
        target: "<= the exec pipe + 0.3 ms (below)",
        python: None,
    },
    Figure {
        label: "am exec: one recall over the pipe",
        id: "serve/recall_pipe",
        kind: Kind::Latency { max_ns: None },
        target: "(the HTTP row's base)",
        python: None,
    },
    Figure {
        label: "am serve: replay stream, 10 subscribers at once",
        id: "serve/sse_10_subscribers",
        kind: Kind::Rate {
            min_per_s: Some(1_000.0),
            unit: "envelopes",
        },
        target: ">= 1,000 envelopes/s each",
        python: None,
    },
];

/// The LanceDB store's figures (unless `--no-lance`), printed right after the SQLite
/// store's: the same workload, no target of its own (issue 9 asks for the
/// figures beside SQLite's), so the SQLite target is shown as a reference and
/// nothing is marked met or not; no Python 0.3.2 LanceDB figure was measured.
pub const LANCE_FIGURES: &[Figure] = &[
    Figure {
        label: "lance store: add, batches of 500 (50k x 384-d)",
        id: "lance_store/add_batch_of_500",
        kind: Kind::Rate {
            min_per_s: None,
            unit: "rows",
        },
        target: "- (SQLite: >= 100,000 rows/s)",
        python: None,
    },
    Figure {
        label: "lance store: subject read",
        id: "lance_store/subject_read",
        kind: Kind::Latency { max_ns: None },
        target: "- (SQLite: <= 50 us)",
        python: None,
    },
    Figure {
        label: "lance store: scope+owner latest 50",
        id: "lance_store/scope_owner_latest_50",
        kind: Kind::Latency { max_ns: None },
        target: "- (SQLite: <= 50 us)",
        python: None,
    },
    Figure {
        label: "lance store: vector query limit 10, warm",
        id: "lance_store/vector_query_limit_10_warm",
        kind: Kind::Latency { max_ns: None },
        target: "- (SQLite: <= 10 ms)",
        python: None,
    },
    Figure {
        label: "lance store: open a 50k-row store",
        id: "lance_store/open_50k_home",
        kind: Kind::Latency { max_ns: None },
        target: "- (SQLite: <= 50 ms)",
        python: None,
    },
];

/// A commit guard's cost (issue 18): a bench with a trivial guard installed
/// beside the same bench without one, both from the same run.
#[derive(Debug, Clone, Copy)]
pub struct Overhead {
    /// What is compared.
    pub label: &'static str,
    /// The criterion id of the bench that carries the cost (the guarded one,
    /// the pending formation).
    pub guarded_id: &'static str,
    /// The criterion id of the same bench without it.
    pub base_id: &'static str,
    /// The largest slowdown allowed, in percent of the base median.
    pub max_pct: f64,
}

/// The overheads the issues bound, read from criterion medians: the commit
/// guard's ("not measurable on the `add` and `remember_many` benches (<= 2
/// %), measured side by side"). Issue 20's pending formation (+50 % at most)
/// is judged only on the interleaved side by side ([`side_by_side_rows`]):
/// its criterion pair runs one bench after the other, and a 3-second median
/// of that write path moved by tens of percent between runs.
pub const OVERHEADS: &[Overhead] = &[
    Overhead {
        label: "commit guard: store add 500, trivial guard vs none",
        guarded_id: "store/add_batch_of_500_trivial_guard",
        base_id: "store/add_batch_of_500",
        max_pct: 2.0,
    },
    Overhead {
        label: "commit guard: remember_many 100, trivial guard vs none",
        guarded_id: "remember_many/sqlite_home_batch_100_trivial_guard",
        base_id: "remember_many/sqlite_home_batch_100",
        max_pct: 2.0,
    },
];

/// The guarded/unguarded pair of the LanceDB store's `add` (with `lance`).
pub const LANCE_OVERHEADS: &[Overhead] = &[Overhead {
    label: "commit guard: lance store add 500, trivial guard vs none",
    guarded_id: "lance_store/add_batch_of_500_trivial_guard",
    base_id: "lance_store/add_batch_of_500",
    max_pct: 2.0,
}];

/// The file `am-system`'s `guard_cost` bench writes its callgrind counts to.
pub const GUARD_COST_FILE: &str = "guard_cost.json";

/// The list of row objects a bench wrote to `path` during this run
/// (modified after `since`); `None` when the file is absent or older.
///
/// # Errors
/// When the file is present but not JSON (`what`) or not a list of objects
/// shaped `shape`.
fn this_runs_rows(
    path: &Path,
    since: Option<SystemTime>,
    what: &str,
    shape: &str,
) -> Result<Option<Vec<Value>>> {
    if !path.exists() {
        return Ok(None);
    }
    if let Some(since) = since
        && std::fs::metadata(path)?.modified()? < since
    {
        return Ok(None);
    }
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let v: Value =
        serde_json::from_str(&text).with_context(|| format!("{}: not {what}", path.display()))?;
    match v {
        Value::Array(rows) => Ok(Some(rows)),
        other => bail!(
            "{}: expected a list of {shape}, got {other}",
            path.display()
        ),
    }
}

/// The file the `sleep` bench writes 0.3.2's medians to (measured in the
/// same run by `crates/am-system/benches/sleep_oracle.py`).
pub const SLEEP_PYTHON_FILE: &str = "sleep_python.json";

/// A sleep figure measured beside AbstractMemory 0.3.2 in the same run, on
/// the home 0.3.2 built (criterion group `sleep_vs_0_3_2`).
#[derive(Debug, Clone, Copy)]
pub struct VsPython {
    /// What is measured (the home's size is appended).
    pub label: &'static str,
    /// 0.3.2's figure's name in the bench's JSON (its id is
    /// `sleep_vs_0_3_2/<call>_<N>k`).
    pub call: &'static str,
    /// Ours: the criterion id is `<group>/<ours>_<N>k` (the group: `sleep_vs_0_3_2`, `world_models_vs_0_3_2`).
    pub ours: &'static str,
    /// The target as the issue words it.
    pub target: &'static str,
    /// The smallest speed-up over 0.3.2 that meets it; `None`: shown, not judged.
    pub min_ratio: Option<f64>,
}

/// Sleep's figures beside 0.3.2, in table order (issue 38 "Proof": each of
/// `sleep_pass`'s phases on a 10,000-record home >= 20x faster than 0.3.2's;
/// the absolute targets are the 100k rows above).
pub const SLEEP_VS_PYTHON: &[VsPython] = &[
    VsPython {
        label: "sleep vs 0.3.2: structural_report",
        call: "structural_report",
        ours: "structural_report",
        target: "- (<= 1 s at 100k)",
        min_ratio: None,
    },
    VsPython {
        label: "sleep vs 0.3.2: maintenance_report",
        call: "maintenance_report",
        ours: "maintenance_report",
        target: "-",
        min_ratio: None,
    },
    VsPython {
        label: "sleep vs 0.3.2: maintenance_due, a first check",
        call: "maintenance_due",
        ours: "maintenance_due",
        target: "- (<= 1 s at 100k)",
        min_ratio: None,
    },
    VsPython {
        label: "sleep vs 0.3.2: resolve_dreams_pass, report_only",
        call: "resolve_dreams_pass_report_only",
        ours: "resolve_dreams_pass_report_only",
        target: "-",
        min_ratio: None,
    },
    VsPython {
        label: "sleep vs 0.3.2: resolution phase (resolve_dreams_pass, writing)",
        call: "resolve_dreams_pass",
        ours: "resolve_dreams_pass",
        target: ">= 20x 0.3.2",
        min_ratio: Some(20.0),
    },
    VsPython {
        label: "sleep vs 0.3.2: consolidation_pass, report_only",
        call: "consolidation_pass_report_only",
        ours: "consolidation_pass_report_only",
        target: "-",
        min_ratio: None,
    },
    VsPython {
        label: "sleep vs 0.3.2: maintenance phase (consolidation_pass, writing)",
        call: "consolidation_pass",
        ours: "consolidation_pass",
        target: ">= 20x 0.3.2",
        min_ratio: Some(20.0),
    },
    VsPython {
        label: "sleep vs 0.3.2: a night, its resolution phase",
        call: "night_resolution",
        ours: "night_resolution",
        target: ">= 20x 0.3.2",
        min_ratio: Some(20.0),
    },
    VsPython {
        label: "sleep vs 0.3.2: a night, its maintenance phase",
        call: "night_maintenance",
        ours: "night_maintenance",
        target: ">= 20x 0.3.2",
        min_ratio: Some(20.0),
    },
    VsPython {
        label: "sleep vs 0.3.2: a night, its world_models phase",
        call: "night_world_models",
        ours: "night_world_models",
        target: ">= 20x 0.3.2",
        min_ratio: Some(20.0),
    },
    VsPython {
        label: "sleep vs 0.3.2: a night, its dream phase (dream_pass, writing)",
        call: "night_dream",
        ours: "night_dream",
        target: ">= 20x 0.3.2",
        min_ratio: Some(20.0),
    },
    VsPython {
        label: "sleep vs 0.3.2: a night (sleep_pass) vs 0.3.2's same four phases",
        call: "night_four_phases",
        ours: "sleep_pass",
        target: "-",
        min_ratio: None,
    },
    VsPython {
        label: "sleep vs 0.3.2: a night (sleep_pass) vs 0.3.2's six (+ mining, identity)",
        call: "night_six_phases",
        ours: "sleep_pass",
        target: "-",
        min_ratio: None,
    },
];

/// The rows of sleep's figures beside 0.3.2 when this run's `sleep` bench
/// measured 0.3.2 (`<target>/`[`SLEEP_PYTHON_FILE`] modified after `since`):
/// each call's median beside 0.3.2's from the same run, with the ratio and,
/// for a phase, whether it met its 20x. Empty when 0.3.2 was not measured.
///
/// # Errors
/// When the file is present but not the bench's JSON.
pub fn sleep_vs_python_rows(
    path: &Path,
    since: Option<SystemTime>,
    estimates: &BTreeMap<String, Estimate>,
) -> Result<Vec<[String; 6]>> {
    vs_python_rows(
        path,
        since,
        estimates,
        ("sleep", "sleep_vs_0_3_2/", SLEEP_VS_PYTHON),
    )
}

/// The file the `world_models` bench writes 0.3.2's medians to (measured in
/// the same run by `crates/am-system/benches/world_models_oracle.py`).
pub const WORLD_MODELS_PYTHON_FILE: &str = "world_models_python.json";

/// World models' figures beside 0.3.2 (issue 39 "Proof", speed: shown
/// beside 0.3.2, not judged by a ratio; the absolute targets are the 100k
/// rows).
pub const WORLD_MODELS_VS_PYTHON: &[VsPython] = &[
    VsPython {
        label: "world models vs 0.3.2: world_model_update, one target, revising",
        call: "world_model_update_revising",
        ours: "world_model_update_revising",
        target: "- (<= 20 ms at 100k)",
        min_ratio: None,
    },
    VsPython {
        label: "world models vs 0.3.2: current_world_models",
        call: "current_world_models",
        ours: "current_world_models",
        target: "- (<= 5 ms at 100k)",
        min_ratio: None,
    },
];

/// The rows of world models' figures beside 0.3.2, as
/// [`sleep_vs_python_rows`].
///
/// # Errors
/// When the file is present but not the bench's JSON.
pub fn world_models_vs_python_rows(
    path: &Path,
    since: Option<SystemTime>,
    estimates: &BTreeMap<String, Estimate>,
) -> Result<Vec<[String; 6]>> {
    vs_python_rows(
        path,
        since,
        estimates,
        (
            "world_models",
            "world_models_vs_0_3_2/",
            WORLD_MODELS_VS_PYTHON,
        ),
    )
}

/// The file the `operator` bench writes 0.3.2's medians to (measured in the
/// same run by `crates/am-system/benches/operator_oracle.py`).
pub const OPERATOR_PYTHON_FILE: &str = "operator_python.json";

/// The operator's tools beside 0.3.2 (issue 43 "Proof", speed: shown beside
/// 0.3.2, not judged by a ratio; the absolute targets are the 100k rows).
/// 0.3.2's re-embed runs with a pure-Python hashing embedder (it ships no
/// offline model), ours with the offline model.
pub const OPERATOR_VS_PYTHON: &[VsPython] = &[
    VsPython {
        label: "operator vs 0.3.2: mind_mass_report",
        call: "mind_mass_report",
        ours: "mind_mass_report",
        target: "- (<= 1 s at 100k)",
        min_ratio: None,
    },
    VsPython {
        label: "operator vs 0.3.2: reembed_store (ours offline, 0.3.2 a Python hash embedder)",
        call: "reembed_store",
        ours: "reembed_store",
        target: "- (>= 20,000 rows/s at 100k)",
        min_ratio: None,
    },
];

/// The rows of the operator's figures beside 0.3.2, as
/// [`sleep_vs_python_rows`].
///
/// # Errors
/// When the file is present but not the bench's JSON.
pub fn operator_vs_python_rows(
    path: &Path,
    since: Option<SystemTime>,
    estimates: &BTreeMap<String, Estimate>,
) -> Result<Vec<[String; 6]>> {
    vs_python_rows(
        path,
        since,
        estimates,
        ("operator", "operator_vs_0_3_2/", OPERATOR_VS_PYTHON),
    )
}

/// A bench's figures beside 0.3.2's medians from the same run: `(bench,
/// criterion group prefix, the figures)`.
fn vs_python_rows(
    path: &Path,
    since: Option<SystemTime>,
    estimates: &BTreeMap<String, Estimate>,
    (bench, prefix, table): (&str, &str, &[VsPython]),
) -> Result<Vec<[String; 6]>> {
    let Some(rows) = this_runs_rows(
        path,
        since,
        &format!("the {bench} bench's 0.3.2 JSON"),
        "{id, python_ns, records}",
    )?
    else {
        return Ok(Vec::new());
    };
    let mut by_call: BTreeMap<String, (String, f64, u64)> = BTreeMap::new();
    for r in &rows {
        let (Some(id), Some(python_ns), Some(records)) = (
            r["id"].as_str(),
            r["python_ns"].as_f64(),
            r["records"].as_u64(),
        ) else {
            bail!(
                "{}: expected {{id, python_ns, records}}, got {r}",
                path.display()
            );
        };
        let call = id
            .strip_prefix(prefix)
            .and_then(|rest| rest.rsplit_once('_'))
            .map_or(id, |(call, _size)| call);
        by_call.insert(call.to_owned(), (id.to_owned(), python_ns, records));
    }
    let records = by_call.values().map(|(_, _, n)| *n).max().unwrap_or(0);
    let out: Vec<[String; 6]> = table
        .iter()
        .map(|f| {
            let label = format!("{}, {records} records (0.3.2's home)", f.label);
            let Some((id, python_ns, _)) = by_call.get(f.call) else {
                return [
                    label,
                    "not run".to_owned(),
                    f.target.to_owned(),
                    String::new(),
                    "not measured".to_owned(),
                    String::new(),
                ];
            };
            let python = format!("{} (same run)", fmt_ns(*python_ns));
            let size = id.rsplit_once('_').map_or("", |(_, size)| size);
            let ours = format!("{prefix}{}_{size}", f.ours);
            match estimates.get(&ours) {
                Some(e) if e.median_ns > 0.0 => {
                    let ratio = python_ns / e.median_ns;
                    [
                        label,
                        fmt_ns(e.median_ns),
                        f.target.to_owned(),
                        f.min_ratio.map_or(String::new(), |m| yes_no(ratio >= m)),
                        python,
                        ratio_text(ratio),
                    ]
                }
                _ => [
                    label,
                    "not run".to_owned(),
                    f.target.to_owned(),
                    String::new(),
                    python,
                    String::new(),
                ],
            }
        })
        .collect();
    Ok(out)
}

/// The file the `store`, `formation` and `tasks` benches write their
/// interleaved medians to (`am_conformance::side_by_side::FILE`).
pub const SIDE_BY_SIDE_FILE: &str = "side_by_side.json";

/// What each interleaved side-by-side workload times (its rows' labels).
fn side_by_side_label(workload: &str) -> String {
    match workload {
        "store_add_500" => {
            "commit guard, wall clock interleaved: store add 500, trivial guard vs none".to_owned()
        }
        "remember_many_100" => {
            "commit guard, wall clock interleaved: remember_many 100, trivial guard vs none"
                .to_owned()
        }
        "remember_many_pending_100" => {
            "tasks, wall clock interleaved: remember_many 100, pending titles vs plain".to_owned()
        }
        other => format!("wall clock interleaved: {other}"),
    }
}

/// The rows of the benches' interleaved side-by-side medians (`<target>/`
/// [`SIDE_BY_SIDE_FILE`]) when this run wrote it (modified after `since`):
/// each workload's costly median beside its base one, against the target
/// the bench recorded (a row without one is a guard's: 2 %, or within the
/// A/A spread). With `since`, only the rows written at or after it.
///
/// # Errors
/// When the file is present but not the benches' JSON.
pub fn side_by_side_rows(path: &Path, since: Option<SystemTime>) -> Result<Vec<[String; 6]>> {
    let Some(rows) = this_runs_rows(
        path,
        since,
        "the side-by-side JSON",
        "{workload, rounds, guarded_ns, unguarded_ns, change_pct}",
    )?
    else {
        return Ok(Vec::new());
    };
    // The file holds the rows of three benches: a row another run wrote
    // (`--only` another bench) is not this run's figure.
    let since_ms = since.map(|t| {
        t.duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis())
    });
    rows.iter()
        .filter(|r| {
            since_ms.is_none_or(|s| {
                r["written_at_unix_ms"]
                    .as_u64()
                    .is_some_and(|w| u128::from(w) >= s)
            })
        })
        .map(|r| {
            let (Some(workload), Some(rounds), Some(g), Some(b), Some(pct), Some(control)) = (
                r["workload"].as_str(),
                r["rounds"].as_u64(),
                r["guarded_ns"].as_f64(),
                r["unguarded_ns"].as_f64(),
                r["change_pct"].as_f64(),
                r["control_pct"].as_f64(),
            ) else {
                bail!(
                    "{}: expected {{workload, rounds, guarded_ns, unguarded_ns, change_pct, control_pct}}, got {r}",
                    path.display()
                );
            };
            let means = r["mean_change_pct"]
                .as_f64()
                .map_or(String::new(), |m| format!("; means {m:+.2} %"));
            Ok([
                side_by_side_label(workload),
                format!(
                    "{pct:+.2} % ({} vs {} medians, {rounds} rounds each{means}; A/A control {control:+.2} %)",
                    fmt_ns(g),
                    fmt_ns(b)
                ),
                r["target"]
                    .as_str()
                    .unwrap_or("<= +2 %, or within the A/A spread")
                    .to_owned(),
                yes_no(
                    r["met"]
                        .as_bool()
                        .or_else(|| r["not_measurable"].as_bool())
                        .unwrap_or(pct <= 2.0),
                ),
                String::new(),
                String::new(),
            ])
        })
        .collect()
}

/// What each `guard_cost` workload counts (its rows' labels).
fn guard_cost_label(workload: &str) -> String {
    match workload {
        "add" => "commit guard, instructions (callgrind): store add, 10 x 500 rows".to_owned(),
        "remember_many" => {
            "commit guard, instructions (callgrind): remember_many, 10 x 100 records".to_owned()
        }
        other => format!("commit guard, instructions (callgrind): {other}"),
    }
}

/// The rows of the `guard_cost` bench's instruction counts (`<target>/`
/// [`GUARD_COST_FILE`]), when this run wrote it (modified after `since`):
/// each workload's guarded count beside its unguarded one, against the 2 %
/// target.
///
/// # Errors
/// When the file is present but not the bench's JSON.
pub fn guard_cost_rows(path: &Path, since: Option<SystemTime>) -> Result<Vec<[String; 6]>> {
    let Some(rows) = this_runs_rows(
        path,
        since,
        "the guard_cost bench's JSON",
        "{workload, guarded, unguarded, overhead_pct}",
    )?
    else {
        return Ok(Vec::new());
    };
    rows.iter()
        .map(|r| {
            let (Some(workload), Some(guarded), Some(base), Some(pct)) = (
                r["workload"].as_str(),
                r["guarded"].as_u64(),
                r["unguarded"].as_u64(),
                r["overhead_pct"].as_f64(),
            ) else {
                bail!(
                    "{}: expected {{workload, guarded, unguarded, overhead_pct}}, got {r}",
                    path.display()
                );
            };
            let in_guard = r["in_guard"]
                .as_u64()
                .map_or(String::new(), |n| format!("; {n} in the guard calls"));
            Ok([
                guard_cost_label(workload),
                format!("{pct:+.3} % ({guarded} vs {base} instructions{in_guard})"),
                "<= +2 %".to_owned(),
                yes_no(pct <= 2.0),
                String::new(),
                String::new(),
            ])
        })
        .collect()
}

/// One overhead row: the guarded median's change against the unguarded one.
pub fn overhead_row(
    o: &Overhead,
    guarded: Option<&Estimate>,
    base: Option<&Estimate>,
) -> [String; 6] {
    let (ours, met) = match (guarded, base) {
        (Some(g), Some(b)) if b.median_ns > 0.0 => {
            let pct = (g.median_ns / b.median_ns - 1.0) * 100.0;
            (
                format!(
                    "{pct:+.1} % ({} vs {})",
                    fmt_ns(g.median_ns),
                    fmt_ns(b.median_ns)
                ),
                yes_no(pct <= o.max_pct),
            )
        }
        _ => ("not run".to_owned(), String::new()),
    };
    [
        o.label.to_owned(),
        ours,
        format!("<= +{:.0} %", o.max_pct),
        met,
        String::new(),
        String::new(),
    ]
}

/// Issue 45's recall target: one recall over HTTP on loopback costs at most
/// 0.3 ms more than the same recall over the exec pipe (criterion medians of
/// `serve/recall_http` and `serve/recall_pipe`); `None` when neither ran.
pub fn serve_margin_row(estimates: &BTreeMap<String, Estimate>) -> Option<[String; 6]> {
    let http = lookup(estimates, "serve/recall_http");
    let pipe = lookup(estimates, "serve/recall_pipe");
    if http.is_none() && pipe.is_none() {
        return None;
    }
    let (ours, met) = match (http, pipe) {
        (Some(h), Some(p)) => {
            let extra = h.median_ns - p.median_ns;
            (
                format!(
                    "{}{} ({} vs {})",
                    if extra < 0.0 { "-" } else { "+" },
                    fmt_ns(extra.abs()),
                    fmt_ns(h.median_ns),
                    fmt_ns(p.median_ns)
                ),
                yes_no(extra <= 0.3 * MS),
            )
        }
        _ => ("not run".to_owned(), String::new()),
    };
    Some([
        "am serve: recall over HTTP minus the exec pipe".to_owned(),
        ours,
        "<= +0.3 ms".to_owned(),
        met,
        String::new(),
        String::new(),
    ])
}

/// The figures of a run, in table order: with `lance`, the LanceDB store's rows
/// follow the SQLite store's.
pub fn figures(lance: bool) -> Vec<&'static Figure> {
    let mut out = Vec::new();
    for f in FIGURES {
        out.push(f);
        if lance && f.id == "store/json_to_blob_upgrade_50k" {
            out.extend(LANCE_FIGURES);
        }
    }
    out
}

/// The `(package, bench)` targets a run runs: every bench with targets, the
/// LanceDB store's with `lance`, narrowed to the names in `only` when any.
pub fn selected_benches(lance: bool, only: &[String]) -> Vec<(&'static str, &'static str)> {
    BENCHES
        .iter()
        .copied()
        .chain(lance.then_some(LANCE_BENCH))
        .filter(|(_, bench)| only.is_empty() || only.iter().any(|o| o == bench))
        .collect()
}

/// One benchmark's estimate as criterion wrote it.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// The median time per iteration, in nanoseconds.
    pub median_ns: f64,
    /// Elements per iteration (criterion's `Throughput::Elements`), if declared.
    pub elements: Option<f64>,
}

impl Estimate {
    /// Elements per second, when the bench declared a throughput.
    pub fn per_second(&self) -> Option<f64> {
        self.elements
            .filter(|_| self.median_ns > 0.0)
            .map(|n| n / (self.median_ns * 1e-9))
    }
}

/// Read every `new/estimates.json` under `criterion_dir` (with its sibling
/// `benchmark.json` naming the id and throughput), keyed by criterion's
/// `full_id`. Files modified before `since` (an earlier run's) are skipped.
///
/// # Errors
/// When a directory cannot be listed or a present file is not criterion's JSON.
pub fn read_estimates(
    criterion_dir: &Path,
    since: Option<SystemTime>,
) -> Result<BTreeMap<String, Estimate>> {
    let mut out = BTreeMap::new();
    if !criterion_dir.exists() {
        return Ok(out);
    }
    let mut stack = vec![criterion_dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in
            std::fs::read_dir(&dir).with_context(|| format!("listing {}", dir.display()))?
        {
            let path = entry?.path();
            if !path.is_dir() {
                continue;
            }
            if path.file_name().is_some_and(|n| n == "new") {
                if let Some((id, est)) = read_one(&path, since)? {
                    out.insert(id, est);
                }
            } else {
                stack.push(path);
            }
        }
    }
    Ok(out)
}

fn read_one(new_dir: &Path, since: Option<SystemTime>) -> Result<Option<(String, Estimate)>> {
    let est_path = new_dir.join("estimates.json");
    let bench_path = new_dir.join("benchmark.json");
    if !est_path.exists() || !bench_path.exists() {
        return Ok(None);
    }
    if let Some(since) = since {
        let modified = std::fs::metadata(&est_path)?.modified()?;
        if modified < since {
            return Ok(None);
        }
    }
    let read = |p: &Path| -> Result<Value> {
        let text =
            std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", p.display()))
    };
    let est = read(&est_path)?;
    let bench = read(&bench_path)?;
    let Some(median_ns) = est["median"]["point_estimate"].as_f64() else {
        bail!(
            "{}: expected median.point_estimate (a number), got {}",
            est_path.display(),
            est["median"]
        );
    };
    let Some(id) = bench["full_id"].as_str() else {
        bail!(
            "{}: expected full_id (a string), got {}",
            bench_path.display(),
            bench["full_id"]
        );
    };
    let elements = bench["throughput"]["Elements"].as_f64();
    Ok(Some((
        id.to_owned(),
        Estimate {
            median_ns,
            elements,
        },
    )))
}

/// The estimate a figure's id selects (a trailing `*` matches any suffix; the
/// first id in order wins).
pub fn lookup<'a>(estimates: &'a BTreeMap<String, Estimate>, id: &str) -> Option<&'a Estimate> {
    match id.strip_suffix('*') {
        Some(prefix) => estimates
            .iter()
            .find(|(k, _)| k.starts_with(prefix))
            .map(|(_, v)| v),
        None => estimates.get(id),
    }
}

/// A duration in nanoseconds, in the largest unit that keeps it >= 1.
pub fn fmt_ns(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.2} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.1} us", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

/// A rate with thousands separators.
pub fn fmt_rate(per_s: f64, unit: &str) -> String {
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "a display of a positive rate"
    )]
    let n = per_s.round().max(0.0) as u64;
    let digits = n.to_string();
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    format!("{grouped} {unit}/s")
}

/// One rendered row: figure, ours, target, met, Python, ratio.
pub fn row(f: &Figure, est: Option<&Estimate>) -> [String; 6] {
    let (ours, met, ratio) = match (f.kind, est) {
        (_, None) => ("not run".to_owned(), String::new(), String::new()),
        (Kind::Latency { max_ns }, Some(e)) => (
            fmt_ns(e.median_ns),
            max_ns.map_or(String::new(), |m| yes_no(e.median_ns <= m)),
            f.python
                .map_or(String::new(), |(p, _)| ratio_text(p / e.median_ns)),
        ),
        (Kind::Rate { min_per_s, unit }, Some(e)) => match e.per_second() {
            None => ("no throughput".to_owned(), String::new(), String::new()),
            Some(r) => (
                fmt_rate(r, unit),
                min_per_s.map_or(String::new(), |m| yes_no(r >= m)),
                f.python.map_or(String::new(), |(p, _)| ratio_text(r / p)),
            ),
        },
    };
    [
        f.label.to_owned(),
        ours,
        f.target.to_owned(),
        met,
        f.python.map_or(String::new(), |(_, note)| note.to_owned()),
        ratio,
    ]
}

fn yes_no(ok: bool) -> String {
    if ok { "yes" } else { "NO" }.to_owned()
}

fn ratio_text(x: f64) -> String {
    if x >= 10.0 {
        format!("{x:.0}x")
    } else {
        format!("{x:.1}x")
    }
}

/// The table as text, columns padded.
pub fn render(rows: &[[String; 6]]) -> String {
    let header = [
        "figure",
        "ours (median)",
        "target",
        "met",
        "Python 0.3.2",
        "vs Python",
    ]
    .map(str::to_owned);
    let all: Vec<&[String; 6]> = std::iter::once(&header).chain(rows.iter()).collect();
    let widths: Vec<usize> = (0..6)
        .map(|c| all.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for r in all {
        let cells: Vec<String> = r
            .iter()
            .zip(&widths)
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// The LoCoMo rows from `am --json eval locomo`'s report: recall@10 and the
/// median latency per question of each configuration, beside 0.3.2's.
///
/// # Errors
/// When the report lacks `configurations.<name>.10.categories_1_4`.
pub fn locomo_rows(report: &Value) -> Result<Vec<[String; 6]>> {
    let mut rows = Vec::new();
    for (name, py_ms, py_recall) in [("default", 62.0, 0.330), ("keyword_discovery", 89.0, 0.464)] {
        let t = &report["configurations"][name]["10"]["categories_1_4"];
        let (Some(median), Some(recall)) = (t["median_ms"].as_f64(), t["recall"].as_f64()) else {
            bail!(
                "the eval report lacks configurations.{name}.10.categories_1_4 \
                 median_ms and recall (numbers), got {t}"
            );
        };
        rows.push([
            format!("eval locomo {name}: median per question"),
            fmt_ns(median * MS),
            "< 1 ms".to_owned(),
            yes_no(median < 1.0),
            format!("{py_ms} ms"),
            if median > 0.0 {
                ratio_text(py_ms / median)
            } else {
                String::new()
            },
        ]);
        rows.push([
            format!("eval locomo {name}: recall@10 (cat. 1-4)"),
            format!("{recall:.3}"),
            format!(">= {py_recall:.3}"),
            // 0.3.2's figure is stated to three decimals: compare at that precision.
            yes_no(at_three_decimals(recall) >= at_three_decimals(py_recall)),
            format!("{py_recall:.3}"),
            String::new(),
        ]);
    }
    rows.extend(hybrid_rows(report));
    Ok(rows)
}

/// The hybrid profile's rows (issue 24's targets, categories 1-4): median
/// < 1 ms and p95 < 2 ms per question, recall@10 >= 0.63 and recall@5 >= 0.53;
/// none when the report has no `hybrid` configuration (an older `am`).
fn hybrid_rows(report: &Value) -> Vec<[String; 6]> {
    let mut rows = Vec::new();
    let hybrid = &report["configurations"]["hybrid"];
    for (k, min_recall) in [("10", 0.63), ("5", 0.53)] {
        let t = &hybrid[k]["categories_1_4"];
        let (Some(median), Some(p95), Some(recall)) = (
            t["median_ms"].as_f64(),
            t["p95_ms"].as_f64(),
            t["recall"].as_f64(),
        ) else {
            continue;
        };
        rows.push([
            format!("eval locomo hybrid k={k}: median per question"),
            fmt_ns(median * MS),
            "< 1 ms".to_owned(),
            yes_no(median < 1.0),
            String::new(),
            String::new(),
        ]);
        rows.push([
            format!("eval locomo hybrid k={k}: p95 per question"),
            fmt_ns(p95 * MS),
            "< 2 ms".to_owned(),
            yes_no(p95 < 2.0),
            String::new(),
            String::new(),
        ]);
        rows.push([
            format!("eval locomo hybrid: recall@{k} (cat. 1-4)"),
            format!("{recall:.3}"),
            format!(">= {min_recall:.2}"),
            yes_no(at_three_decimals(recall) >= at_three_decimals(min_recall)),
            String::new(),
            String::new(),
        ]);
    }
    rows
}

/// A recall in thousandths, rounded as it is printed (`{:.3}`).
fn at_three_decimals(x: f64) -> i64 {
    // A recall lies in [0, 1]: the product fits an i64 exactly.
    (x * 1000.0).round() as i64
}

/// Where cargo builds: `$CARGO_TARGET_DIR`, else cargo metadata's
/// `target_directory`.
fn target_dir() -> Result<PathBuf> {
    if let Some(d) = std::env::var_os("CARGO_TARGET_DIR") {
        return Ok(PathBuf::from(d));
    }
    let out = cargo()
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(crate::workspace::manifest_dir())
        .output()
        .context("running cargo metadata")?;
    let v: Value = serde_json::from_slice(&out.stdout).context("cargo metadata's JSON")?;
    v["target_directory"]
        .as_str()
        .map(PathBuf::from)
        .context("cargo metadata printed no target_directory")
}

/// `cargo xtask bench [--quick] [--no-lance] [--only BENCH]... [--profile NAME]`.
///
/// # Errors
/// For an unknown argument, an `--only` naming no bench, or when a bench fails.
pub fn run(args: &[String]) -> Result<()> {
    let mut quick = false;
    let mut lance = true;
    let mut only: Vec<String> = Vec::new();
    let mut profile: Option<String> = None;
    let mut args = args.iter();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--quick" => quick = true,
            "--no-lance" => lance = false,
            "--only" => match args.next() {
                Some(name) => only.push(name.clone()),
                None => bail!("--only expects a bench name (store, journal, ...), got nothing"),
            },
            "--profile" => match args.next() {
                Some(name) => profile = Some(name.clone()),
                None => {
                    bail!("--profile expects a cargo profile name (bench, test, ...), got nothing")
                }
            },
            other => bail!(
                "bench takes --quick, --no-lance, --only BENCH and --profile NAME, got {other:?}"
            ),
        }
    }
    let benches = selected_benches(lance, &only);
    if benches.is_empty() {
        bail!(
            "--only {only:?} names no bench; the benches: {}",
            selected_benches(true, &[])
                .iter()
                .map(|(p, b)| format!("{p}/{b}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let target = target_dir()?;
    let criterion_args = if quick { QUICK_ARGS } else { NORMAL_ARGS };
    // Criterion's files carry a one-second mtime granularity on some file
    // systems: step back a little so this run's files are never mistaken for old.
    let started = SystemTime::now() - std::time::Duration::from_secs(2);
    let mut failed = Vec::new();
    // The `sleep` bench measures 0.3.2 in the same run with the oracle venv's
    // python (`cargo xtask test` builds the venv); without one, it says so.
    let oracle_python = std::env::var_os("AM_ORACLE_PYTHON")
        .map(PathBuf::from)
        .or_else(|| {
            crate::oracle::venv_dir()
                .ok()
                .map(|v| v.join("bin").join("python"))
                .filter(|p| p.is_file())
        });
    for (package, bench) in &benches {
        eprintln!("== cargo bench -p {package} --bench {bench}");
        let mut cmd = cargo();
        if let Some(python) = &oracle_python {
            cmd.env("AM_ORACLE_PYTHON", python);
        }
        cmd.args(["bench", "-p", package, "--bench", bench]);
        if let Some(p) = &profile {
            cmd.args(["--profile", p]);
        }
        let status = cmd
            .arg("--")
            .args(criterion_args)
            .current_dir(crate::workspace::manifest_dir())
            .status()
            .with_context(|| format!("running the {package} {bench} bench"))?;
        if !status.success() {
            failed.push(format!("{package}/{bench}"));
        }
    }
    let estimates = read_estimates(&target.join("criterion"), Some(started))?;
    // With --only, the figures of benches not run are left out, not "not run".
    let mut rows: Vec<[String; 6]> = figures(lance)
        .into_iter()
        .filter(|f| only.is_empty() || lookup(&estimates, f.id).is_some())
        .map(|f| row(f, lookup(&estimates, f.id)))
        .collect();
    rows.extend(
        OVERHEADS
            .iter()
            .chain(if lance { LANCE_OVERHEADS } else { &[] })
            .filter(|o| only.is_empty() || lookup(&estimates, o.guarded_id).is_some())
            .map(|o| {
                overhead_row(
                    o,
                    lookup(&estimates, o.guarded_id),
                    lookup(&estimates, o.base_id),
                )
            }),
    );
    rows.extend(serve_margin_row(&estimates));
    rows.extend(guard_cost_rows(
        &target.join(GUARD_COST_FILE),
        Some(started),
    )?);
    rows.extend(side_by_side_rows(
        &target.join(SIDE_BY_SIDE_FILE),
        Some(started),
    )?);
    rows.extend(sleep_vs_python_rows(
        &target.join(SLEEP_PYTHON_FILE),
        Some(started),
        &estimates,
    )?);
    rows.extend(world_models_vs_python_rows(
        &target.join(WORLD_MODELS_PYTHON_FILE),
        Some(started),
        &estimates,
    )?);
    rows.extend(operator_vs_python_rows(
        &target.join(OPERATOR_PYTHON_FILE),
        Some(started),
        &estimates,
    )?);
    let am = target.join("release").join("am");
    let data =
        std::env::var_os("AM_LOCOMO").map_or_else(|| PathBuf::from(LOCOMO_DEV), PathBuf::from);
    if !only.is_empty() {
        eprintln!("(am eval locomo skipped: --only)");
    } else if am.exists() && data.exists() {
        eprintln!(
            "== {} --json eval locomo --data {} --k 5,10",
            am.display(),
            data.display()
        );
        let out = Command::new(&am)
            .args(["--json", "eval", "locomo", "--k", "5,10", "--data"])
            .arg(&data)
            .output()
            .with_context(|| format!("running {}", am.display()))?;
        if out.status.success() {
            let report: Value = serde_json::from_slice(&out.stdout)
                .context("am eval locomo --json printed something that is not JSON")?;
            rows.extend(locomo_rows(&report)?);
        } else {
            failed.push(format!(
                "am eval locomo ({})",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
    } else {
        eprintln!(
            "(am eval locomo skipped: needs {} (cargo build --release -p am-cli) and {})",
            am.display(),
            data.display()
        );
    }
    println!("\n{}", render(&rows));
    if !lance {
        println!(
            "(The LanceDB store's figures were skipped (--no-lance): cargo xtask bench prints them.)"
        );
    }
    println!(
        "Medians of this run ({}); the machine's load shapes them: compare runs under the same load.",
        if quick {
            "--quick"
        } else {
            "warm-up 1 s, measurement 3 s"
        }
    );
    if let Some(p) = &profile
        && p != "bench"
        && p != "release"
    {
        println!(
            "Built with the cargo profile {p:?}, not release: the figures are not comparable with the targets."
        );
    }
    if !failed.is_empty() {
        bail!("these benches failed: {}", failed.join(", "));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, id: &str, median_ns: f64, elements: Option<u64>) {
        let new_dir = dir.join(id).join("new");
        std::fs::create_dir_all(&new_dir).unwrap();
        let throughput = elements.map_or(Value::Null, |n| serde_json::json!({ "Elements": n }));
        std::fs::write(
            new_dir.join("benchmark.json"),
            serde_json::json!({ "full_id": id, "throughput": throughput }).to_string(),
        )
        .unwrap();
        std::fs::write(
            new_dir.join("estimates.json"),
            serde_json::json!({
                "mean": { "point_estimate": median_ns * 2.0 },
                "median": { "point_estimate": median_ns },
            })
            .to_string(),
        )
        .unwrap();
    }

    #[test]
    fn estimates_are_read_by_full_id_with_the_median_and_throughput() {
        let dir = std::env::temp_dir().join(format!("xtask-bench-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        write(&dir, "store/subject_read", 42_000.0, Some(1));
        write(&dir, "store/add_batch_of_500", 5_000_000.0, Some(500));
        write(&dir, "journal_read/selected_count/10000", 900.0, None);
        // A "base" directory (criterion's previous run) is not read.
        let base = dir.join("store/subject_read/base");
        std::fs::create_dir_all(&base).unwrap();
        std::fs::write(base.join("estimates.json"), "not json").unwrap();

        let est = read_estimates(&dir, None).unwrap();
        assert_eq!(est.len(), 3);
        assert_eq!(
            est["store/subject_read"],
            Estimate {
                median_ns: 42_000.0,
                elements: Some(1.0)
            }
        );
        assert_eq!(est["store/add_batch_of_500"].per_second(), Some(100_000.0));
        assert_eq!(est["journal_read/selected_count/10000"].per_second(), None);

        // Files older than the run's start are an earlier run's: skipped.
        let later = SystemTime::now() + std::time::Duration::from_secs(3600);
        assert!(read_estimates(&dir, Some(later)).unwrap().is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_malformed_estimate_names_the_file_and_what_was_expected() {
        let dir = std::env::temp_dir().join(format!("xtask-bench-bad-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        write(&dir, "store/subject_read", 1.0, None);
        std::fs::write(
            dir.join("store/subject_read/new/estimates.json"),
            r#"{"median": {}}"#,
        )
        .unwrap();
        let err = read_estimates(&dir, None).unwrap_err().to_string();
        assert!(
            err.contains("estimates.json") && err.contains("median.point_estimate"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn rows_compare_to_the_target_and_to_python() {
        let subject = FIGURES
            .iter()
            .find(|f| f.id == "store/subject_read")
            .unwrap();
        let r = row(
            subject,
            Some(&Estimate {
                median_ns: 26_000.0,
                elements: Some(1.0),
            }),
        );
        assert_eq!(r[1], "26.0 us");
        assert_eq!(r[3], "yes");
        assert_eq!(r[4], "0.26 ms");
        assert_eq!(r[5], "10x");

        let add = FIGURES
            .iter()
            .find(|f| f.id == "store/add_batch_of_500")
            .unwrap();
        let r = row(
            add,
            Some(&Estimate {
                median_ns: 10_000_000.0,
                elements: Some(500.0),
            }),
        );
        assert_eq!(r[1], "50,000 rows/s");
        assert_eq!(r[3], "NO");
        assert_eq!(r[5], "24x");

        assert_eq!(row(subject, None)[1], "not run");
    }

    #[test]
    fn the_sleep_rows_put_our_median_beside_0_3_2s_of_the_same_run_and_judge_the_phases_at_20x() {
        let dir = std::env::temp_dir().join(format!("xtask-sleep-python-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(SLEEP_PYTHON_FILE);
        let mut estimates = BTreeMap::new();
        assert!(
            sleep_vs_python_rows(&path, None, &estimates)
                .unwrap()
                .is_empty(),
            "0.3.2 not measured: no rows"
        );
        std::fs::write(
            &path,
            r#"[{"id": "sleep_vs_0_3_2/resolve_dreams_pass_10k", "python_ns": 400000000.0, "records": 10000},
                {"id": "sleep_vs_0_3_2/consolidation_pass_10k", "python_ns": 900000000.0, "records": 10000},
                {"id": "sleep_vs_0_3_2/structural_report_10k", "python_ns": 1000000000.0, "records": 10000},
                {"id": "sleep_vs_0_3_2/night_six_phases_10k", "python_ns": 6000000000.0, "records": 10000}]"#,
        )
        .unwrap();
        let est = |ns| Estimate {
            median_ns: ns,
            elements: None,
        };
        // 400 ms / 10 ms = 40x (met); 900 ms / 90 ms = 10x (not met);
        // structural_report: a ratio, no verdict.
        estimates.insert(
            "sleep_vs_0_3_2/resolve_dreams_pass_10k".to_owned(),
            est(10e6),
        );
        estimates.insert(
            "sleep_vs_0_3_2/consolidation_pass_10k".to_owned(),
            est(90e6),
        );
        estimates.insert("sleep_vs_0_3_2/structural_report_10k".to_owned(), est(50e6));
        estimates.insert("sleep_vs_0_3_2/sleep_pass_10k".to_owned(), est(200e6));
        let rows = sleep_vs_python_rows(&path, None, &estimates).unwrap();
        let find = |label: &str| {
            rows.iter()
                .find(|r| r[0].starts_with(label))
                .unwrap_or_else(|| panic!("no row {label}: {rows:?}"))
                .clone()
        };
        let r = find("sleep vs 0.3.2: resolution phase");
        assert_eq!(
            r[1..].to_vec(),
            [
                "10.00 ms",
                ">= 20x 0.3.2",
                "yes",
                "400.00 ms (same run)",
                "40x"
            ]
        );
        assert!(r[0].ends_with("10000 records (0.3.2's home)"), "{r:?}");
        let r = find("sleep vs 0.3.2: maintenance phase");
        assert_eq!((r[3].as_str(), r[5].as_str()), ("NO", "10x"));
        let r = find("sleep vs 0.3.2: structural_report");
        assert_eq!((r[3].as_str(), r[5].as_str()), ("", "20x"));
        let r = find("sleep vs 0.3.2: maintenance_report");
        assert_eq!((r[1].as_str(), r[4].as_str()), ("not run", "not measured"));
        // A row whose ours is another call: the whole night beside 0.3.2's
        // six phases (6 s / 200 ms = 30x).
        let r = find("sleep vs 0.3.2: a night (sleep_pass) vs 0.3.2's six");
        assert_eq!((r[1].as_str(), r[5].as_str()), ("200.00 ms", "30x"));
        let r = find("sleep vs 0.3.2: a night, its dream phase");
        assert_eq!((r[1].as_str(), r[4].as_str()), ("not run", "not measured"));
        assert_eq!(rows.len(), SLEEP_VS_PYTHON.len());
        let later = SystemTime::now() + std::time::Duration::from_secs(60);
        assert!(
            sleep_vs_python_rows(&path, Some(later), &estimates)
                .unwrap()
                .is_empty(),
            "another run's file is not this run's figure"
        );
        std::fs::write(&path, r#"[{"id": "x"}]"#).unwrap();
        assert!(sleep_vs_python_rows(&path, None, &estimates).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_overhead_row_compares_the_guarded_median_to_the_unguarded_one() {
        let o = &OVERHEADS[0];
        let est = |ns| Estimate {
            median_ns: ns,
            elements: Some(500.0),
        };
        let r = overhead_row(o, Some(&est(1_010_000.0)), Some(&est(1_000_000.0)));
        assert_eq!(r[0], o.label);
        assert!(r[1].starts_with("+1.0 %"), "{r:?}");
        assert_eq!(r[2], "<= +2 %");
        assert_eq!(r[3], "yes");
        let r = overhead_row(o, Some(&est(1_030_000.0)), Some(&est(1_000_000.0)));
        assert_eq!(r[3], "NO", "{r:?}");
        let r = overhead_row(o, None, Some(&est(1_000_000.0)));
        assert_eq!((r[1].as_str(), r[3].as_str()), ("not run", ""));
    }

    #[test]
    fn the_pending_formation_row_is_judged_on_the_interleaved_pair_against_fifty_percent() {
        assert!(
            OVERHEADS
                .iter()
                .all(|o| o.guarded_id != "tasks/remember_many_pending_batch_100"),
            "the criterion pair runs one bench after the other: no verdict"
        );
        let dir = std::env::temp_dir().join(format!("xtask-pending-pair-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(SIDE_BY_SIDE_FILE);
        std::fs::write(
            &path,
            r#"[{"workload": "remember_many_pending_100", "rounds": 300,
                 "guarded_ns": 14000000.0, "unguarded_ns": 10000000.0,
                 "change_pct": 40.0, "control_pct": 0.5, "mean_change_pct": 38.0,
                 "not_measurable": false, "target": "<= +50 % (medians and means)", "met": true},
                {"workload": "remember_many_pending_100", "rounds": 300,
                 "guarded_ns": 15100000.0, "unguarded_ns": 10000000.0,
                 "change_pct": 51.0, "control_pct": 0.5,
                 "not_measurable": false, "target": "<= +50 % (medians and means)", "met": false}]"#,
        )
        .unwrap();
        let rows = side_by_side_rows(&path, None).unwrap();
        assert!(rows[0][0].contains("pending titles vs plain"), "{rows:?}");
        assert_eq!(
            (rows[0][2].as_str(), rows[0][3].as_str()),
            ("<= +50 % (medians and means)", "yes")
        );
        assert!(rows[0][1].contains("; means +38.00 %;"), "{rows:?}");
        assert_eq!(
            (rows[1][2].as_str(), rows[1][3].as_str()),
            ("<= +50 % (medians and means)", "NO")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_guard_cost_rows_put_each_guarded_count_beside_the_unguarded_one() {
        let dir = std::env::temp_dir().join(format!("xtask-guard-cost-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(GUARD_COST_FILE);
        assert!(guard_cost_rows(&path, None).unwrap().is_empty(), "not run");
        std::fs::write(
            &path,
            r#"[{"workload": "add", "guarded": 1000100, "unguarded": 1000000, "overhead_pct": 0.01,
                 "in_guard": 380},
                {"workload": "remember_many", "guarded": 103, "unguarded": 100, "overhead_pct": 3.0}]"#,
        )
        .unwrap();
        let rows = guard_cost_rows(&path, None).unwrap();
        assert_eq!(rows.len(), 2);
        assert!(rows[0][0].contains("store add"), "{rows:?}");
        assert_eq!(
            rows[0][1],
            "+0.010 % (1000100 vs 1000000 instructions; 380 in the guard calls)"
        );
        assert_eq!(
            (rows[0][2].as_str(), rows[0][3].as_str()),
            ("<= +2 %", "yes")
        );
        assert_eq!(rows[1][3], "NO", "{rows:?}");
        let later = SystemTime::now() + std::time::Duration::from_secs(60);
        assert!(
            guard_cost_rows(&path, Some(later)).unwrap().is_empty(),
            "an earlier run's file is not this run's figure"
        );
        std::fs::write(&path, r#"[{"workload": "add"}]"#).unwrap();
        let err = guard_cost_rows(&path, None).unwrap_err().to_string();
        assert!(err.contains("expected {workload"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_side_by_side_rows_of_another_run_are_left_out_though_the_file_is_this_runs() {
        let dir =
            std::env::temp_dir().join(format!("xtask-side-by-side-run-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(SIDE_BY_SIDE_FILE);
        // Before the file's mtime, which the file system may round down.
        let started = SystemTime::now() - std::time::Duration::from_secs(2);
        let ms = |t: SystemTime| t.duration_since(std::time::UNIX_EPOCH).unwrap().as_millis();
        let row = |workload: &str, at: Option<u128>| {
            let at = at.map_or(String::new(), |a| format!(", \"written_at_unix_ms\": {a}"));
            format!(
                r#"{{"workload": "{workload}", "rounds": 300, "guarded_ns": 13.0,
                    "unguarded_ns": 10.0, "change_pct": 30.0, "control_pct": 0.0,
                    "not_measurable": false{at}}}"#
            )
        };
        std::fs::write(
            &path,
            format!(
                "[{}, {}, {}]",
                row("store_add_500", Some(ms(started) - 60_000)),
                row("remember_many_100", None),
                row("remember_many_pending_100", Some(ms(started) + 1_000)),
            ),
        )
        .unwrap();
        let rows = side_by_side_rows(&path, Some(started)).unwrap();
        assert_eq!(
            rows.len(),
            1,
            "an earlier run's rows and undated rows: {rows:?}"
        );
        assert!(rows[0][0].contains("pending titles vs plain"), "{rows:?}");
        assert_eq!(
            side_by_side_rows(&path, None).unwrap().len(),
            3,
            "no run to hold them to"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_side_by_side_rows_put_each_guarded_median_beside_the_unguarded_one() {
        let dir = std::env::temp_dir().join(format!("xtask-side-by-side-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(SIDE_BY_SIDE_FILE);
        assert!(
            side_by_side_rows(&path, None).unwrap().is_empty(),
            "not run"
        );
        std::fs::write(
            &path,
            r#"[{"workload": "store_add_500", "rounds": 100, "guarded_ns": 5050000.0,
                 "unguarded_ns": 5000000.0, "change_pct": 1.0, "control_pct": -0.5,
                 "not_measurable": true},
                {"workload": "remember_many_100", "rounds": 200, "guarded_ns": 3.0,
                 "unguarded_ns": 2.0, "change_pct": 50.0, "control_pct": 0.0,
                 "not_measurable": false}]"#,
        )
        .unwrap();
        let rows = side_by_side_rows(&path, None).unwrap();
        assert_eq!(rows.len(), 2);
        assert!(rows[0][0].contains("store add 500"), "{rows:?}");
        assert!(rows[0][1].starts_with("+1.00 % ("), "{rows:?}");
        assert!(
            rows[0][1].ends_with("100 rounds each; A/A control -0.50 %)"),
            "{rows:?}"
        );
        assert_eq!(
            (rows[0][2].as_str(), rows[0][3].as_str()),
            ("<= +2 %, or within the A/A spread", "yes")
        );
        assert_eq!(rows[1][3], "NO", "{rows:?}");
        let later = SystemTime::now() + std::time::Duration::from_secs(60);
        assert!(side_by_side_rows(&path, Some(later)).unwrap().is_empty());
        std::fs::write(&path, r#"[{"workload": "store_add_500"}]"#).unwrap();
        let err = side_by_side_rows(&path, None).unwrap_err().to_string();
        assert!(err.contains("expected {workload"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_starred_id_matches_a_data_dependent_suffix() {
        let mut est = BTreeMap::new();
        let e = Estimate {
            median_ns: 1e9,
            elements: Some(2960.0),
        };
        est.insert(
            "offline_potion_base_2m/locomo_dev_2960_turns".to_owned(),
            e.clone(),
        );
        assert_eq!(
            lookup(&est, "offline_potion_base_2m/locomo_dev_*"),
            Some(&e)
        );
        assert_eq!(lookup(&est, "offline_potion_base_2m/locomo_dev_"), None);
    }

    #[test]
    fn locomo_rows_read_the_eval_report() {
        let report = serde_json::json!({"configurations": {
            "default": {"10": {"categories_1_4": {"median_ms": 0.5, "recall": 0.41}}},
            "keyword_discovery": {"10": {"categories_1_4": {"median_ms": 0.8, "recall": 0.47}}},
        }});
        let rows = locomo_rows(&report).unwrap();
        assert_eq!(rows.len(), 4);
        assert_eq!(rows[0][1], "500.0 us");
        assert_eq!(rows[0][5], "124x");
        assert_eq!(rows[1][1], "0.410");
        assert_eq!(rows[1][3], "yes");
        assert!(locomo_rows(&serde_json::json!({})).is_err());
    }

    #[test]
    fn the_hybrid_profile_rows_carry_issue_24s_targets() {
        let report = serde_json::json!({"configurations": {
            "default": {"10": {"categories_1_4": {"median_ms": 0.5, "recall": 0.33}}},
            "keyword_discovery": {"10": {"categories_1_4": {"median_ms": 0.8, "recall": 0.47}}},
            "hybrid": {
                "10": {"categories_1_4": {"median_ms": 0.76, "p95_ms": 2.5, "recall": 0.653}},
                "5": {"categories_1_4": {"median_ms": 1.2, "p95_ms": 1.3, "recall": 0.529}},
            },
        }});
        let rows = locomo_rows(&report).unwrap();
        assert_eq!(rows.len(), 10);
        let verdict = |label: &str| {
            rows.iter()
                .find(|r| r[0] == label)
                .map(|r| r[3].clone())
                .unwrap_or_else(|| panic!("no row {label}"))
        };
        assert_eq!(
            verdict("eval locomo hybrid k=10: median per question"),
            "yes"
        );
        assert_eq!(verdict("eval locomo hybrid k=10: p95 per question"), "NO");
        assert_eq!(verdict("eval locomo hybrid: recall@10 (cat. 1-4)"), "yes");
        assert_eq!(verdict("eval locomo hybrid k=5: median per question"), "NO");
        assert_eq!(verdict("eval locomo hybrid: recall@5 (cat. 1-4)"), "NO");
    }

    #[test]
    fn a_recall_meets_the_python_figure_at_its_stated_three_decimals() {
        let report = |r: f64| {
            serde_json::json!({"configurations": {
                "default": {"10": {"categories_1_4": {"median_ms": 2.0, "recall": r}}},
                "keyword_discovery": {"10": {"categories_1_4": {"median_ms": 2.0, "recall": 0.5}}},
            }})
        };
        assert_eq!(locomo_rows(&report(0.3299)).unwrap()[1][3], "yes");
        assert_eq!(locomo_rows(&report(0.3294)).unwrap()[1][3], "NO");
    }

    #[test]
    fn the_table_pads_columns() {
        let t = render(&[[
            "a".into(),
            "1 ms".into(),
            "<= 2 ms".into(),
            "yes".into(),
            String::new(),
            String::new(),
        ]]);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].starts_with("figure  ours (median)"));
        assert!(lines[1].starts_with("a       1 ms"));
    }

    #[test]
    fn lance_rows_follow_the_sqlite_store_rows_unless_skipped() {
        let ids = |lance| figures(lance).iter().map(|f| f.id).collect::<Vec<_>>();
        assert!(!ids(false).iter().any(|id| id.starts_with("lance_")));
        let with = ids(true);
        assert_eq!(with.len(), FIGURES.len() + LANCE_FIGURES.len());
        let upgrade = with
            .iter()
            .position(|id| *id == "store/json_to_blob_upgrade_50k")
            .unwrap();
        assert_eq!(with[upgrade + 1], "lance_store/add_batch_of_500");
        // The same criterion function ids as the SQLite store bench's.
        for f in LANCE_FIGURES {
            let sqlite_id = f.id.replacen("lance_store/", "store/", 1);
            assert!(FIGURES.iter().any(|s| s.id == sqlite_id), "{}", f.id);
        }
    }

    #[test]
    fn the_lance_bench_runs_unless_skipped_and_only_narrows_by_name() {
        assert!(!selected_benches(false, &[]).contains(&LANCE_BENCH));
        assert!(selected_benches(true, &[]).contains(&LANCE_BENCH));
        assert_eq!(
            selected_benches(true, &["store".to_owned()]),
            [
                ("am-backend-sqlite", "store"),
                ("am-backend-lance", "store")
            ]
        );
        assert_eq!(
            selected_benches(false, &["store".to_owned()]),
            [("am-backend-sqlite", "store")]
        );
        assert!(selected_benches(false, &["nope".to_owned()]).is_empty());
    }

    #[test]
    fn a_lance_row_shows_the_sqlite_target_as_reference_and_judges_nothing() {
        let subject = LANCE_FIGURES
            .iter()
            .find(|f| f.id == "lance_store/subject_read")
            .unwrap();
        let r = row(
            subject,
            Some(&Estimate {
                median_ns: 900_000.0,
                elements: Some(1.0),
            }),
        );
        assert_eq!(r[1], "900.0 us");
        assert_eq!(r[2], "- (SQLite: <= 50 us)");
        assert_eq!(r[3], "");
        assert_eq!(r[4], "");
        assert_eq!(r[5], "");
        let add = LANCE_FIGURES
            .iter()
            .find(|f| f.id == "lance_store/add_batch_of_500")
            .unwrap();
        let r = row(
            add,
            Some(&Estimate {
                median_ns: 50_000_000.0,
                elements: Some(500.0),
            }),
        );
        assert_eq!(r[1], "10,000 rows/s");
        assert_eq!(r[3], "");
    }

    #[test]
    fn the_serve_row_judges_the_http_recall_against_the_pipe_plus_0_3_ms() {
        let est = |h: f64, p: f64| {
            BTreeMap::from([
                (
                    "serve/recall_http".to_owned(),
                    Estimate {
                        median_ns: h,
                        elements: None,
                    },
                ),
                (
                    "serve/recall_pipe".to_owned(),
                    Estimate {
                        median_ns: p,
                        elements: None,
                    },
                ),
            ])
        };
        let r = serve_margin_row(&est(1.2 * MS, 1.0 * MS)).unwrap();
        assert!(r[1].starts_with('+'), "{r:?}");
        assert_eq!(r[3], yes_no(true));
        let r = serve_margin_row(&est(1.4 * MS, 1.0 * MS)).unwrap();
        assert_eq!(r[3], yes_no(false));
        let r = serve_margin_row(&est(0.9 * MS, 1.0 * MS)).unwrap();
        assert!(r[1].starts_with('-'), "{r:?}");
        assert_eq!(r[3], yes_no(true));
        assert!(serve_margin_row(&BTreeMap::new()).is_none());
    }
}
