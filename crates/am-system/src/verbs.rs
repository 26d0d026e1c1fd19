//! What the arguments structs of two or more faculties share: the spec's
//! default values of their keywords and the owned-copy helpers of their
//! constructors. Each verb's arguments struct lives in its faculty's
//! `args.rs` (`formation`, `recall`, `understanding`, `tasks`, ...).
//!
//! The pattern (ARCHITECTURE.md "The verb pattern"): the spec's required
//! arguments come through `new(..)`, every optional keyword is a public field
//! holding the spec's default, so a caller writes
//! `Reconstruct { view: View::WorkingSet, ..Reconstruct::new(stimulus, &scopes) }`.
//! Each struct derives `Deserialize` with `deny_unknown_fields` and the spec's
//! keyword names, so `am exec` reads the very struct the engine takes (an
//! argument the verb does not take is refused, never ignored).

pub(crate) fn yes() -> bool {
    true
}

pub(crate) fn default_weight() -> f64 {
    8.0
}

pub(crate) fn operator() -> String {
    "operator".to_owned()
}

pub(crate) fn inactive() -> String {
    "inactive".to_owned()
}

pub(crate) fn none_label() -> String {
    "none".to_owned()
}

pub(crate) fn retract() -> String {
    "retract".to_owned()
}

pub(crate) fn owned_pairs(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(s, o)| ((*s).to_owned(), (*o).to_owned()))
        .collect()
}

pub(crate) fn owned<S: AsRef<str>>(ids: &[S]) -> Vec<String> {
    ids.iter().map(|s| s.as_ref().to_owned()).collect()
}
