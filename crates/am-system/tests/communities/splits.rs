//! `changed_since_last_sleep.split_from`: the community a topic was split
//! from, when its version is the newest; `None` (and zeros) otherwise. The
//! rule (docs/communities.md "Splits"): a previous topic is split when two
//! or more of tonight's topics each took at least `COMMUNITY_SPLIT_SHARE`
//! of its members and together more than half; each piece born tonight
//! names it.

use crate::common::Stack;
use crate::support::*;
use am_system::communities::{Communities, CommunitiesPayload, CommunityView};
use am_system::{AuthorKind, AuthorRef, RewriteDigest};
use serde_json::json;

fn payload(s: &Stack, version: Option<i64>) -> CommunitiesPayload {
    s.system
        .communities(&Communities {
            version,
            ..Communities::new(&[(SCOPE, OWNER)], OWNER)
        })
        .unwrap()
}

fn by_key<'a>(p: &'a CommunitiesPayload, key: &str) -> &'a CommunityView {
    p.communities.iter().find(|c| c.key == key).unwrap()
}

/// Six records about the garden (no topic word in their titles), one topic.
fn one_garden_topic(s: &Stack) -> Vec<String> {
    live(
        s,
        "g",
        (0..6)
            .map(|i| {
                episode(
                    &format!("Note {i}"),
                    &format!("A day of garden work, part {i}."),
                )
            })
            .collect(),
    )
}

/// Rewrite `ids`' digests to be about `topic` (their vectors follow).
fn rewrite_about(s: &Stack, ids: &[String], topic: &str) {
    for (i, id) in ids.iter().enumerate() {
        s.system
            .rewrite_digest(&RewriteDigest::new(
                id,
                &format!("A day of {topic}, part {i}."),
                AuthorRef::new(AuthorKind::Operator, "ada"),
                json!("operator"),
                0,
            ))
            .unwrap();
    }
}

#[test]
fn a_topic_born_from_half_of_a_previous_topic_names_it_in_split_from() {
    on_both(|s| {
        let ids = one_garden_topic(s);
        let first = pass(s);
        assert_eq!(first.new.len(), 1, "[{}] {first:?}", s.name);
        let garden = first.new[0].clone();
        rewrite_about(s, &ids[3..], "cooking");
        let second = pass(s);
        assert_eq!(second.new.len(), 1, "[{}] {second:?}", s.name);
        let piece = second.new[0].clone();
        let p = payload(s, None);
        assert_eq!(
            by_key(&p, &piece).facts.changed_since_last_sleep.split_from,
            Some(garden.clone()),
            "[{}] the piece names the topic it was split from",
            s.name
        );
        // The piece that kept the key is the topic itself, not a split.
        assert_eq!(
            by_key(&p, &garden)
                .facts
                .changed_since_last_sleep
                .split_from,
            None
        );
        assert_eq!(by_key(&p, &garden).facts.changed_since_last_sleep.moved, 3);
    });
}

#[test]
fn split_from_is_served_only_while_the_topics_version_is_the_newest() {
    on_both(|s| {
        let ids = one_garden_topic(s);
        pass(s);
        rewrite_about(s, &ids[3..], "cooking");
        let second = pass(s);
        let piece = second.new[0].clone();
        let v2 = second.version_seq.unwrap();
        // A third night that changes another topic: the piece's record is
        // no longer the newest version's.
        about(s, "music", 3, "m1");
        let third = pass(s);
        assert!(third.unchanged.contains(&piece), "[{}] {third:?}", s.name);
        let now = payload(s, None);
        let c = by_key(&now, &piece);
        assert_eq!(c.facts.changed_since_last_sleep.split_from, None);
        assert_eq!(
            (
                c.facts.changed_since_last_sleep.added,
                c.facts.changed_since_last_sleep.moved
            ),
            (0, 0),
            "[{}] zeros otherwise",
            s.name
        );
        // Read at its own version, it is the newest no more either.
        let then = payload(s, Some(v2));
        assert_eq!(
            by_key(&then, &piece)
                .facts
                .changed_since_last_sleep
                .split_from,
            None
        );
    });
}

#[test]
fn a_topic_that_only_grows_or_is_born_apart_has_no_split_from() {
    on_both(|s| {
        two_topics(s);
        pass(s);
        about(s, "garden", 2, "g2");
        about(s, "cooking", 3, "c1");
        pass(s);
        for c in &payload(s, None).communities {
            assert_eq!(
                c.facts.changed_since_last_sleep.split_from, None,
                "[{}] {}",
                s.name, c.key
            );
        }
    });
}
