//! The graph's errors map onto the shared `am_triples::ErrorKind` (api.md:
//! `ProvenanceRequired`; `InvalidSourceRef` is a `ValueError`).

use am_graph::Error;
use am_triples::ErrorKind;

#[test]
fn provenance_required_has_its_own_kind() {
    assert_eq!(
        Error::provenance_required("x").kind(),
        ErrorKind::ProvenanceRequired
    );
}

#[test]
fn invalid_source_ref_is_a_value_error() {
    let e = Error::invalid_ref("x");
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert!(e.is_invalid_source_ref());
    assert!(!Error::invalid("x").is_invalid_source_ref());
    assert!(e.to_string().starts_with("invalid source reference"), "{e}");
}

#[test]
fn display_texts_name_no_python_exception_class() {
    for e in [
        Error::invalid_ref("x"),
        Error::provenance_required("x"),
        Error::invalid("x"),
        Error::unsupported("x"),
    ] {
        let text = e.to_string();
        for class in [
            "InvalidSourceRef",
            "ProvenanceRequired",
            "ValueError",
            "NotImplementedError",
            "RuntimeError",
        ] {
            assert!(!text.contains(class), "{text}");
        }
    }
}

#[test]
fn errors_of_the_store_and_journal_keep_their_kind() {
    let t: Error = am_triples::Error::dimension_mismatch("d");
    assert_eq!(t.kind(), ErrorKind::DimensionMismatch);
    let j: Error = am_journal::Error::storage("s");
    assert_eq!(j.kind(), ErrorKind::Storage);
}

#[test]
fn a_prefix_names_the_field_and_keeps_the_variant() {
    let e = Error::invalid_ref("seq must be an int >= 1, got 0").with_prefix("sources[1]");
    assert!(e.is_invalid_source_ref());
    assert!(e.to_string().contains("sources[1]: seq"), "{e}");
    let e = Error::provenance_required("p").with_prefix("ops[0]");
    assert_eq!(e.kind(), ErrorKind::ProvenanceRequired);
}
