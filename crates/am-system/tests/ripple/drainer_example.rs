//! The ripple drainer example (`examples/ripple_drainer.rs`), run here so
//! it cannot rot: a whole ripple from a host, seed → reconsider tasks →
//! rewrites → consolidation in a night window → consolidated.

use crate::ripple_drainer::{Reading, run, scripted_reader};
use am_system::ripple::RippleStatus;
use serde_json::Value;

#[test]
fn a_host_drains_a_ripple_end_to_end_and_consolidates_it_at_night() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home.sqlite3");
    let d = run(&home, &scripted_reader).unwrap();
    // The two summaries of the seed are rewritten, the plan kept.
    assert_eq!((d.rewritten, d.kept), (2, 1), "{d:?}");
    assert!(d.windows >= 1);
    assert_eq!(d.consolidated, 1, "{d:?}");
    assert_eq!(d.status, Some(RippleStatus::Consolidated));
    // A second run over the same home finds the ripple done.
    let again = run(&home, &scripted_reader).unwrap();
    assert_eq!(
        (
            again.windows,
            again.rewritten,
            again.kept,
            again.consolidated
        ),
        (0, 0, 0, 0),
        "{again:?}"
    );
    assert_eq!(again.status, Some(RippleStatus::Consolidated));
}

#[test]
fn a_reader_that_keeps_everything_ends_the_ripple_settled_without_a_consolidation() {
    let dir = tempfile::tempdir().unwrap();
    let keep = |_: &Value| Reading::Keep;
    let d = run(&dir.path().join("home.sqlite3"), &keep).unwrap();
    assert_eq!((d.rewritten, d.kept, d.consolidated), (0, 3, 0), "{d:?}");
    assert_eq!(d.status, Some(RippleStatus::Settled));
}
