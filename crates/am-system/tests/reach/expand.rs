//! `probe_expand` on both stacks.

use crate::common::{assert_refused, on_both, written};
use crate::support::{OWNER, garden, hit_ids};
use am_journal::{EventFilter, EventKind, SearchState, TraceFilter};
use am_system::Bind;
use am_system::lookup::resolve_digest_assertion;
use am_system::reach::ProbeExpand;
use am_triples::ErrorKind::InvalidInput;

fn quiet(ids: &[&str]) -> ProbeExpand {
    ProbeExpand {
        write_journal: false,
        ..ProbeExpand::new(ids, "what is connected")
    }
}

fn graph_id(s: &crate::common::Stack, rid: &str) -> String {
    resolve_digest_assertion(s.store.as_ref(), rid)
        .unwrap()
        .unwrap()
        .subject
}

#[test]
fn expansion_walks_record_edges_in_both_directions_with_why() {
    on_both(|s| {
        let g = garden(s);
        // Compost is pointed at by heap (derived_from), rent (mentions) and
        // fork (informed_by); it points at nothing.
        let r = s.system.probe_expand(&quiet(&[&g.compost])).unwrap();
        let mut ids = hit_ids(&r);
        ids.sort_unstable();
        let mut want = vec![g.heap.as_str(), g.rent.as_str(), g.fork.as_str()];
        want.sort_unstable();
        assert_eq!(ids, want, "[{}]", s.name);
        let root = graph_id(s, &g.compost);
        let heap = r.hits.iter().find(|h| h.record_id == g.heap).unwrap();
        assert_eq!(
            heap.cues,
            vec![format!("cited by derived_from from {root}")]
        );
        assert_eq!(heap.relevance.0, vec![("connections".to_owned(), 1.0)]);
        assert_eq!(r.channels, vec!["expand".to_owned()]);
        // From heap, outward: via derived_from to compost.
        let out = s.system.probe_expand(&quiet(&[&g.heap])).unwrap();
        assert_eq!(hit_ids(&out), vec![g.compost.as_str()]);
        assert_eq!(
            out.hits[0].cues,
            vec![format!("via derived_from from {}", graph_id(s, &g.heap))]
        );
    });
}

#[test]
fn a_root_resolves_through_both_id_namespaces_to_the_same_walk() {
    on_both(|s| {
        let g = garden(s);
        let by_row = s.system.probe_expand(&quiet(&[&g.compost])).unwrap();
        let gid = graph_id(s, &g.compost);
        let by_graph = s.system.probe_expand(&quiet(&[&gid])).unwrap();
        assert_eq!(by_row.hits, by_graph.hits, "[{}]", s.name);
    });
}

#[test]
fn depth_two_reaches_the_neighbours_of_neighbours() {
    on_both(|s| {
        let g = garden(s);
        let one = s.system.probe_expand(&quiet(&[&g.heap])).unwrap();
        assert!(!hit_ids(&one).contains(&g.rent.as_str()));
        let two = s
            .system
            .probe_expand(&ProbeExpand {
                depth: 2,
                ..quiet(&[&g.heap])
            })
            .unwrap();
        let ids = hit_ids(&two);
        for id in [&g.compost, &g.rent, &g.fork] {
            assert!(ids.contains(&id.as_str()), "[{}] {ids:?}", s.name);
        }
        assert_eq!(two.budget_spent["depth"], 2);
    });
}

#[test]
fn max_records_bounds_the_hits_and_drops_the_rest_with_why() {
    on_both(|s| {
        let g = garden(s);
        let r = s
            .system
            .probe_expand(&ProbeExpand {
                max_records: 1,
                ..quiet(&[&g.compost])
            })
            .unwrap();
        assert_eq!(r.hits.len(), 1);
        assert_eq!(r.dropped.len(), 2);
        assert!(r.dropped.iter().all(|d| d["reason"] == "over_max_records"
            && d["graph_id"].as_str().is_some_and(|x| x.starts_with("ex:"))));
    });
}

#[test]
fn a_hidden_neighbour_is_left_out_of_the_walk() {
    on_both(|s| {
        let g = garden(s);
        s.system
            .bind(&Bind::new(&g.fork, "life", OWNER, SearchState::Hidden))
            .unwrap();
        let r = s.system.probe_expand(&quiet(&[&g.compost])).unwrap();
        assert!(!hit_ids(&r).contains(&g.fork.as_str()), "[{}]", s.name);
    });
}

#[test]
fn an_unknown_root_a_blank_reason_and_depth_zero_are_refused_writing_nothing() {
    on_both(|s| {
        let g = garden(s);
        let before = written(s);
        let r = s
            .system
            .probe_expand(&ProbeExpand::new(&["nowhere"], "look"));
        assert_refused(s, &before, r, InvalidInput, &["nowhere", "namespace"]);
        let r = s.system.probe_expand(&ProbeExpand::new(&[&g.compost], " "));
        assert_refused(s, &before, r, InvalidInput, &["reason"]);
        let r = s.system.probe_expand(&ProbeExpand {
            depth: 0,
            ..ProbeExpand::new(&[&g.compost], "look")
        });
        assert_refused(s, &before, r, InvalidInput, &["depth"]);
        let r = s.system.probe_expand(&ProbeExpand::new(&[], "look"));
        assert_refused(s, &before, r, InvalidInput, &["record id"]);
    });
}

#[test]
fn a_journaled_expansion_appends_an_expand_trace_and_inert_expanded_events() {
    on_both(|s| {
        let g = garden(s);
        let before = written(s);
        let r = s
            .system
            .probe_expand(&ProbeExpand {
                parent_trace_id: Some("probe-1".into()),
                ..ProbeExpand::new(&[&g.compost], "what cites the turning")
            })
            .unwrap();
        assert_eq!(written(s).seq_delta(&before), 1 + r.hits.len() as i64);
        let t = &s
            .journal
            .traces(&TraceFilter {
                trace_id: Some(r.trace_id.clone()),
                ..TraceFilter::default()
            })
            .unwrap()[0];
        assert_eq!(t.trace_kind, "expand");
        assert_eq!(t.need["parent_trace_id"], "probe-1");
        assert_eq!(
            t.escalation_reason.as_deref(),
            Some("what cites the turning")
        );
        let mut f = EventFilter::new("life", OWNER);
        f.kinds = vec!["expanded".into()];
        let ev = s.journal.events(&f).unwrap();
        assert_eq!(ev.len(), r.hits.len());
        assert!(
            ev.iter()
                .all(|e| e.kind == EventKind::Expanded
                    && e.provenance["parent_trace_id"] == "probe-1")
        );
    });
}
