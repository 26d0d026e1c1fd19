//! The bounded-read rule of api.md "The memory graph" / `MemoryGraph` reads, and
//! the graph's bound constants.

use am_graph::{
    DEFAULT_READ_LIMIT, DEFAULT_REVISION_PAGE, MAX_LINEAGE_VISITS, MAX_READ_LIMIT,
    check_read_limit, check_read_limit_json,
};
use am_triples::ErrorKind;
use serde_json::json;

#[test]
fn the_bound_constants_are_the_spec_values() {
    assert_eq!(DEFAULT_READ_LIMIT, 200);
    assert_eq!(DEFAULT_REVISION_PAGE, 100);
    assert_eq!(MAX_READ_LIMIT, 1000);
    assert_eq!(MAX_LINEAGE_VISITS, 1000);
}

#[test]
fn a_limit_must_be_a_positive_int() {
    assert_eq!(check_read_limit(1).unwrap(), 1);
    assert_eq!(check_read_limit(200).unwrap(), 200);
    for bad in [0, -1, i64::MIN] {
        let e = check_read_limit(bad).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
        assert!(e.to_string().contains(&format!("got {bad}")), "{e}");
    }
}

#[test]
fn a_limit_is_clamped_to_max_read_limit() {
    assert_eq!(check_read_limit(1000).unwrap(), 1000);
    assert_eq!(check_read_limit(1001).unwrap(), MAX_READ_LIMIT);
    assert_eq!(check_read_limit(i64::MAX).unwrap(), MAX_READ_LIMIT);
    assert_eq!(check_read_limit_json(&json!(5000)).unwrap(), MAX_READ_LIMIT);
    assert_eq!(
        check_read_limit_json(&json!(u64::MAX)).unwrap(),
        MAX_READ_LIMIT
    );
}

#[test]
fn zero_a_negative_a_bool_or_a_float_limit_is_refused() {
    assert_eq!(check_read_limit_json(&json!(7)).unwrap(), 7);
    for bad in [
        json!(0),
        json!(-3),
        json!(true),
        json!(false),
        json!(5.0),
        json!(2.5),
        json!("5"),
        json!(null),
    ] {
        let e = check_read_limit_json(&bad).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput, "{bad}");
        assert!(
            e.to_string().contains("limit must be a positive int"),
            "{bad}: {e}"
        );
    }
}
