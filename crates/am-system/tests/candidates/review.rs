//! `identity_review_pass` on both stacks: a pure read, the evidence bar.

use crate::common::written as size;
use crate::home::{OWNER, SCOPE, form, on_both, rec};
use am_journal::ClosureKind;
use am_system::RecordKind;
use am_system::candidates::{EnactRealization, IdentityReview, RejectCandidate};
use am_system::recall::args::CloseRecord;

#[test]
fn identity_review_pass_reports_pending_proposals_with_their_evidence_bar_and_writes_nothing() {
    on_both(|s| {
        let mut alive = rec(RecordKind::Realization, "B alive", ("r", "e", "s"));
        alive.edges = vec![("derived_from".into(), "local:0".into())];
        let mut dying = rec(RecordKind::Realization, "A dying", ("r", "e", "s"));
        dying.edges = vec![("derived_from".into(), "local:1".into())];
        let bare = rec(RecordKind::Realization, "C bare", ("r", "e", "s"));
        let done = rec(RecordKind::Realization, "D done", ("r", "e", "s"));
        let ids = form(
            s,
            "review",
            vec![
                rec(RecordKind::Episode, "Evidence one", ("chat", "a", "s1")),
                rec(RecordKind::Episode, "Evidence two", ("chat", "a", "s1")),
                alive,
                dying,
                bare,
                done,
                rec(RecordKind::Value, "Mine", ("r", "e", "s")),
            ],
        );
        s.system
            .close_record(&CloseRecord::new(&ids[1], ClosureKind::Retract, "gone"))
            .unwrap();
        s.system
            .reject_candidate(&RejectCandidate::new(&ids[5], SCOPE, OWNER, "no"))
            .unwrap();
        let before = size(s);
        let report = s
            .system
            .identity_review_pass(&IdentityReview::new(&[(SCOPE, OWNER)], OWNER))
            .unwrap();
        assert_eq!(size(s), before, "[{}] a pure read", s.name);
        assert_eq!(report.counts.pending, 3);
        assert_eq!(report.counts.disposed, 1);
        assert_eq!(report.counts.bars_failing, 2);
        let mut sorted: Vec<String> = vec![ids[2].clone(), ids[3].clone(), ids[4].clone()];
        sorted.sort();
        let got: Vec<String> = report.pending.iter().map(|p| p.record_id.clone()).collect();
        assert_eq!(got, sorted, "[{}] by graph id", s.name);
        let by = |id: &str| report.pending.iter().find(|p| p.record_id == id).unwrap();
        assert_eq!(
            (by(&ids[2]).evidence.total, by(&ids[2]).evidence.alive),
            (1, 1)
        );
        assert!(by(&ids[2]).bar_failures.is_empty());
        assert_eq!(
            (by(&ids[3]).evidence.total, by(&ids[3]).evidence.alive),
            (1, 0)
        );
        assert!(by(&ids[3]).bar_failures[0].contains(&ids[1]));
        assert_eq!(by(&ids[4]).evidence.total, 0);
        assert_eq!(by(&ids[4]).bar_failures.len(), 1);

        s.system
            .enact_realization(&EnactRealization::new(&ids[2], &ids[6], "I adopt it"))
            .unwrap();
        let report = s
            .system
            .identity_review_pass(&IdentityReview::new(&[(SCOPE, OWNER)], OWNER))
            .unwrap();
        assert_eq!(
            (report.counts.pending, report.counts.disposed),
            (2, 2),
            "[{}] enacted is disposed",
            s.name
        );
    });
}
