//! The `examples/` programs, built and run here so they cannot rot:
//! `drainer.rs` (a host's drainer loop over a SQLite home with its task
//! queue) drains every pending record it formed, and a second run over the
//! same home finds nothing left to do; its second part drains a ripple end
//! to end (issue 41: `cargo run -p am-system --example drainer`).
//!
//! Spec: api.md "The memory task queue"; docs/tasks.md.

#[allow(dead_code)]
#[path = "../examples/drainer.rs"]
mod drainer;

#[test]
fn the_drainer_example_settles_every_task_it_forms_and_leaves_nothing_pending() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home.sqlite3");
    let d = drainer::run(&home).unwrap();
    assert!(d.windows >= 1, "{d:?}");
    assert_eq!((d.settled, d.released, d.still_pending), (4, 0, 0), "{d:?}");
    // Formation is idempotent by key: a second run over the same home has
    // nothing to drain.
    let again = drainer::run(&home).unwrap();
    assert_eq!(
        (again.windows, again.settled, again.still_pending),
        (0, 0, 0)
    );
}

#[test]
fn the_drainer_example_also_drains_a_ripple_end_to_end_and_consolidates_it_at_night() {
    let dir = tempfile::tempdir().unwrap();
    let d = drainer::drain_a_ripple(&dir.path().join("ripple.sqlite3")).unwrap();
    assert_eq!((d.rewritten, d.kept, d.consolidated), (2, 1, 1), "{d:?}");
    assert!(d.windows >= 1, "{d:?}");
    assert_eq!(
        d.status,
        Some(am_system::ripple::RippleStatus::Consolidated)
    );
}
