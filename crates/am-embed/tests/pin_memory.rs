//! The embedding-space pin against real embedders, on `InMemoryTripleStore`.
//! Spec: stores.md "Embedding-space pin".

mod support;

use am_triples::{EmbeddingPin, InMemoryTripleStore, TextEmbedder, TripleStore};
use std::sync::Arc;
use support::pin_checks as checks;

fn open(
    embedder: Option<Arc<dyn TextEmbedder>>,
    pin: EmbeddingPin,
) -> am_triples::Result<Box<dyn TripleStore>> {
    Ok(Box::new(InMemoryTripleStore::with_pin(embedder, pin)?))
}

macro_rules! pin_tests {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                checks::$name(&open);
            }
        )*
    };
}

pin_tests!(
    an_embedder_whose_model_contradicts_the_pin_is_refused_at_open,
    an_embedder_whose_declared_dimension_contradicts_the_pin_is_refused_at_open,
    the_offline_embedder_is_refused_under_another_models_pin,
    a_matching_http_embedder_stores_its_vectors_and_ranks_by_them,
    a_wrong_dimension_reply_is_refused_and_nothing_is_stored,
    a_wrong_dimension_query_vector_is_refused_at_read,
    an_http_failure_during_add_names_the_pin_and_stores_nothing,
    a_timeout_during_add_stores_nothing,
    a_wrong_vector_count_during_add_stores_nothing,
    a_mixed_dimension_reply_during_add_stores_nothing,
    the_offline_embedder_under_its_own_pin_ranks_related_text_first,
);
