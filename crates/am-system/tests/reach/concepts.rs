//! Concept anchoring: `concept_terms` and `expand_by_concepts`.

use crate::common::on_both;
use crate::support::{LIFE, garden};
use am_system::{ConceptAnchorTuning, concept_terms, expand_by_concepts};
use am_triples::{TripleAssertion, TripleQuery};
use std::collections::{BTreeMap, BTreeSet};

#[test]
fn identifier_variants_collapse_to_the_same_concepts() {
    for v in ["auto-memory", "auto memory", "autoMemory", "auto_memory"] {
        assert_eq!(
            concept_terms(v, true),
            ["auto", "memory", "auto_memory"],
            "{v}"
        );
    }
    assert_eq!(concept_terms("auto-memory", false), ["auto", "memory"]);
}

#[test]
fn concept_words_are_folded_three_or_more_characters_unique_in_first_order() {
    assert_eq!(
        concept_terms("The GPU tax on AWS, the gpu", true),
        [
            "the", "gpu", "tax", "aws", "the_gpu", "gpu_tax", "tax_aws", "aws_the"
        ]
    );
    assert_eq!(concept_terms("Café déjà", false), ["cafe", "deja"]);
    assert!(concept_terms("a an of", true).is_empty());
}

fn row(s: &crate::common::Stack, rid: &str) -> TripleAssertion {
    s.store
        .query(&TripleQuery {
            assertion_ids: Some(vec![rid.to_owned()]),
            limit: 1,
            ..TripleQuery::default()
        })
        .unwrap()
        .remove(0)
}

fn pairs() -> Vec<(String, String)> {
    LIFE.iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

#[test]
fn a_record_sharing_a_discriminative_concept_with_a_seed_is_admitted_and_seeds_never_are() {
    on_both(|s| {
        let g = garden(s);
        let seeds: BTreeMap<String, TripleAssertion> =
            [(g.beds.clone(), row(s, &g.beds))].into_iter().collect();
        let (adm, _) = expand_by_concepts(
            s.store.as_ref(),
            &seeds,
            &pairs(),
            &BTreeSet::new(),
            &ConceptAnchorTuning::default(),
        )
        .unwrap();
        let compost = adm
            .iter()
            .find(|a| a.record_id == g.compost)
            .expect("compost");
        assert!(
            compost.concepts.contains(&"plot".to_owned()),
            "{:?}",
            compost.concepts
        );
        assert!(compost.score > 0.0 && compost.score <= 1.0);
        assert!(adm.iter().all(|a| a.record_id != g.beds));
        let mut sorted = adm.clone();
        sorted.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then(a.record_id.cmp(&b.record_id))
        });
        assert_eq!(sorted, adm, "strongest first, ties on id");
        // An excluded id is never admitted.
        let (without, _) = expand_by_concepts(
            s.store.as_ref(),
            &seeds,
            &pairs(),
            &[g.compost.clone()].into_iter().collect(),
            &ConceptAnchorTuning::default(),
        )
        .unwrap();
        assert!(without.iter().all(|a| a.record_id != g.compost));
    });
}

#[test]
fn max_admissions_bounds_the_pass_and_says_what_it_cut() {
    on_both(|s| {
        let g = garden(s);
        let seeds: BTreeMap<String, TripleAssertion> = [(g.compost.clone(), row(s, &g.compost))]
            .into_iter()
            .collect();
        let tuning = ConceptAnchorTuning {
            max_admissions: 1,
            ..ConceptAnchorTuning::default()
        };
        let (adm, notes) = expand_by_concepts(
            s.store.as_ref(),
            &seeds,
            &pairs(),
            &BTreeSet::new(),
            &tuning,
        )
        .unwrap();
        assert_eq!(adm.len(), 1);
        assert!(
            notes
                .iter()
                .any(|n| n.contains("admitting the strongest 1")),
            "{notes:?}"
        );
    });
}

#[test]
fn a_tuning_that_cannot_associate_is_refused() {
    on_both(|s| {
        garden(s);
        for bad in [
            ConceptAnchorTuning {
                min_sources: 1,
                ..ConceptAnchorTuning::default()
            },
            ConceptAnchorTuning {
                min_sources: 5,
                max_sources: 4,
                ..ConceptAnchorTuning::default()
            },
        ] {
            let seeds: BTreeMap<String, TripleAssertion> = BTreeMap::new();
            let e = expand_by_concepts(s.store.as_ref(), &seeds, &pairs(), &BTreeSet::new(), &bad)
                .unwrap_err();
            assert_eq!(e.kind(), am_triples::ErrorKind::InvalidInput);
        }
    });
}
