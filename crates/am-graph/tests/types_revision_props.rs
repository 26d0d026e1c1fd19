//! Invariants of built revisions over many generated ones (a fixed-seed generator,
//! so a failure reproduces): every time is canonical UTC, the JSON form
//! round-trips, building again changes nothing (a logged revision replays
//! identically), and assertion ids are deterministic.
//!
//! Spec: api.md "The memory graph" / `Revision` ("validated and normalized at
//! construction", "derived deterministically ... so the logged revision replays
//! identically"); memory-system.md "Time axes".

use am_graph::{
    AssertOp, CloseKind, CloseOp, NarrowOp, Provenance, REVISION_CAUSES, Revision, RevisionDraft,
    RevisionOp, SourceRef,
};
use am_triples::timestamp::{format_utc, parse_timestamp};

/// xorshift64*: small, deterministic, good enough to vary shapes.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[usize::try_from(self.below(items.len() as u64)).unwrap_or(0)]
    }
    /// A timestamp in one of the spellings the parser accepts.
    fn time(&mut self) -> String {
        let (y, mo, d) = (2020 + self.below(8), 1 + self.below(12), 1 + self.below(28));
        let (h, mi, s) = (self.below(24), self.below(60), self.below(60));
        match self.below(6) {
            0 => format!("{y:04}-{mo:02}-{d:02}"),
            1 => format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z"),
            2 => format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}"),
            3 => format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}+05:30"),
            4 => format!(
                "{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{:06}-08:00",
                self.below(1_000_000)
            ),
            _ => format!(
                "{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{:03}",
                self.below(1000)
            ),
        }
    }
    fn provenance(&mut self) -> Provenance {
        let mut sources = Vec::new();
        for _ in 0..self.below(3) {
            sources.push(match self.below(4) {
                0 => {
                    SourceRef::step("run-1", i64::try_from(1 + self.below(3)).unwrap_or(1)).unwrap()
                }
                1 => SourceRef::artifact(self.pick(&["a1", "a2"])).unwrap(),
                2 => SourceRef::run("run-1").unwrap(),
                _ => SourceRef::diary_entry("d1").unwrap(),
            });
        }
        let derived = (0..self.below(2)).map(|i| format!("m{i}")).collect();
        let p = Provenance::new(sources, derived, self.pick(&["runtime", "abstractnote"])).unwrap();
        if self.below(2) == 0 {
            p.with_reason(Some("because"))
        } else {
            p
        }
    }
    fn op(&mut self) -> RevisionOp {
        match self.below(3) {
            0 => {
                let mut a = AssertOp::claim(
                    self.pick(&["Ex:Dana", " ex:bob "]),
                    self.pick(&["schema:worksFor", "KNOWS"]),
                    self.pick(&["ex:acme", "Ex:Zed"]),
                );
                if self.below(2) == 0 {
                    a.assertion.observed_at = self.time();
                }
                if self.below(2) == 0 {
                    a.assertion.valid_from = Some(self.time());
                }
                if self.below(3) == 0 {
                    a.assertion.valid_until = Some(self.time());
                }
                if self.below(3) == 0 {
                    a.assertion.assertion_id = Some(format!("c{}", self.below(100)));
                }
                if self.below(3) == 0 {
                    a.assertion.scope = self.pick(&["Session", "global"]).into();
                }
                if self.below(3) == 0 {
                    a = a.with_provenance(self.provenance());
                }
                if self.below(3) == 0 {
                    a.assertion.confidence = Some(0.25 * self.below(5) as f64);
                }
                if self.below(4) == 0 {
                    a.assertion.attributes.insert("literal".into(), true.into());
                }
                RevisionOp::Assert(a)
            }
            1 => {
                let kind = [
                    CloseKind::Retract,
                    CloseKind::Supersede,
                    CloseKind::Reinterpreted,
                    CloseKind::Merged,
                ][usize::try_from(self.below(4)).unwrap_or(0)];
                let mut c = CloseOp::new("c1", &self.time(), kind, "changed");
                if kind.requires_replacements() || self.below(2) == 0 {
                    c = c.with_replacements(vec!["c2".into()]);
                }
                if self.below(3) == 0 {
                    c = c.with_ripple("c0", i64::try_from(self.below(4)).unwrap_or(0));
                }
                RevisionOp::Close(c)
            }
            _ => {
                let n = NarrowOp::new("c1", &self.time());
                RevisionOp::Narrow(if self.below(2) == 0 {
                    n.with_reason("earlier")
                } else {
                    n
                })
            }
        }
    }
    fn draft(&mut self, i: u64) -> RevisionDraft {
        RevisionDraft {
            revision_id: format!("rev-{i}"),
            scope: self.pick(&["global", "Session", ""]).into(),
            owner_id: if self.below(2) == 0 {
                Some("person:ada".into())
            } else {
                None
            },
            cause: self.pick(&REVISION_CAUSES).into(),
            occurred_at: self.time(),
            ops: (0..self.below(6)).map(|_| self.op()).collect(),
            provenance: self.provenance(),
            recorded_at: if self.below(2) == 0 {
                Some(self.time())
            } else {
                None
            },
            summary: if self.below(2) == 0 {
                Some("s".into())
            } else {
                None
            },
        }
    }
}

fn assert_canonical(t: &str) {
    let again = format_utc(parse_timestamp(t).unwrap());
    assert_eq!(again, t, "not canonical UTC");
    assert!(t.ends_with("+00:00") && t.len() == 32, "{t}");
}

fn times(rev: &Revision) -> Vec<String> {
    let mut out = vec![rev.occurred_at().to_owned(), rev.recorded_at().to_owned()];
    for op in rev.ops() {
        match op {
            RevisionOp::Assert(a) => {
                out.push(a.assertion.observed_at.clone());
                out.extend(a.assertion.valid_from.clone());
                out.extend(a.assertion.valid_until.clone());
            }
            RevisionOp::Close(c) => out.push(c.valid_until.clone()),
            RevisionOp::Narrow(n) => out.push(n.valid_until.clone()),
        }
    }
    out
}

#[test]
fn built_revisions_are_canonical_round_trip_and_rebuild_identically() {
    let mut g = Gen(0x9e37_79b9_7f4a_7c15);
    for i in 0..400 {
        let draft = g.draft(i);
        let rev = Revision::new(draft.clone()).unwrap_or_else(|e| panic!("{draft:?}: {e}"));
        for t in times(&rev) {
            assert_canonical(&t);
        }
        for (j, op) in rev.ops().iter().enumerate() {
            assert!(op.assertion_id().is_some(), "op {j} of {i} has no id");
        }
        // An assert's payload is `TripleAssertion.to_dict()` (same keys, same
        // order), with `provenance` only when the memory has its own.
        for op in rev.ops() {
            if let RevisionOp::Assert(a) = op {
                let mut expected = a.assertion.to_dict();
                let m = expected.as_object_mut().unwrap();
                match &a.provenance {
                    Some(p) => {
                        m.insert("provenance".into(), p.to_dict());
                    }
                    None => {
                        m.shift_remove("provenance");
                    }
                }
                assert_eq!(
                    serde_json::to_string(&a.to_dict()).unwrap(),
                    serde_json::to_string(&expected).unwrap()
                );
            }
        }
        // The JSON form round-trips.
        let dict = rev.to_dict();
        let back = Revision::from_dict(&dict).unwrap_or_else(|e| panic!("{dict}: {e}"));
        assert_eq!(back, rev, "{dict}");
        // Building the same draft again gives the same ops (ids are deterministic).
        let mut again = draft.clone();
        again.recorded_at = Some(rev.recorded_at().into());
        assert_eq!(Revision::new(again).unwrap(), rev);
        // Building the built revision again changes nothing.
        let rebuilt = Revision::new(RevisionDraft {
            revision_id: rev.revision_id().into(),
            scope: rev.scope().into(),
            owner_id: rev.owner_id().map(str::to_owned),
            cause: rev.cause().as_str().into(),
            occurred_at: rev.occurred_at().into(),
            ops: rev.ops().to_vec(),
            provenance: rev.provenance().clone(),
            recorded_at: Some(rev.recorded_at().into()),
            summary: rev.summary().map(str::to_owned),
        })
        .unwrap();
        assert_eq!(rebuilt, rev);
    }
}

/// Messy wire spellings of a revision: mixed-case terms, `Z`, naive and offset
/// times, blank scope/owner/observed_at, literal objects, confidences.
fn messy_dict(g: &mut Gen, i: u64) -> serde_json::Value {
    let mut ops = Vec::new();
    for _ in 0..g.below(6) {
        let mut p = serde_json::json!({
            "subject": g.pick(&[" Ex:Dana ", "ex:bob"]),
            "predicate": g.pick(&["Schema:WorksFor", "knows "]),
            "object": g.pick(&["Ex:ACME", " zed "]),
        });
        for (key, value) in [
            (
                "scope",
                serde_json::json!(g.pick(&["", " Session ", "global"])),
            ),
            (
                "owner_id",
                serde_json::json!(g.pick(&["", " person:bob ", "person:ada"])),
            ),
            ("observed_at", serde_json::json!(g.time())),
            ("valid_from", serde_json::json!(g.time())),
            (
                "assertion_id",
                serde_json::json!(g.pick(&[" c1 ", "", "c2"])),
            ),
            ("confidence", serde_json::json!(0.5)),
            ("attributes", serde_json::json!({"literal": true})),
            (
                "provenance",
                serde_json::json!({"derived_from": ["m0"], "actor": "runtime"}),
            ),
        ] {
            if g.below(2) == 0 {
                p[key] = value;
            }
        }
        ops.push(serde_json::json!({"op": "assert", "payload": p}));
    }
    serde_json::json!({
        "revision_id": format!(" rev-{i} "),
        "scope": g.pick(&["Global", ""]),
        "owner_id": g.pick(&[" person:ada ", ""]),
        "cause": "ingest",
        "occurred_at": g.time(),
        "ops": ops,
        "provenance": {"sources": [{"kind": "run", "run_id": "run-1"}], "actor": "runtime"},
        "recorded_at": g.time(),
    })
}

#[test]
fn from_dict_builds_the_same_revision_as_new_from_the_same_ops() {
    let mut g = Gen(0x5851_f42d_4c95_7f2d);
    for i in 0..300 {
        let dict = messy_dict(&mut g, i);
        let via_dict = Revision::from_dict(&dict).unwrap_or_else(|e| panic!("{dict}: {e}"));
        let via_new = Revision::new(RevisionDraft {
            revision_id: dict["revision_id"].as_str().unwrap().into(),
            scope: dict["scope"].as_str().unwrap().into(),
            owner_id: Some(dict["owner_id"].as_str().unwrap().into()),
            cause: "ingest".into(),
            occurred_at: dict["occurred_at"].as_str().unwrap().into(),
            ops: RevisionOp::list_from_json(&dict["ops"]).unwrap(),
            provenance: Provenance::from_dict(&dict["provenance"]).unwrap(),
            recorded_at: Some(dict["recorded_at"].as_str().unwrap().into()),
            summary: None,
        })
        .unwrap();
        assert_eq!(via_dict, via_new, "{dict}");
        for t in times(&via_dict) {
            assert_canonical(&t);
        }
    }
}
