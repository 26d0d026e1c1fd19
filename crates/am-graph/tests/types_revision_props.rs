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
            cause: rev.cause().into(),
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
