//! The reads: `communities`, `community_of`, `community_keys_of`,
//! `community_memberships_of`.

use crate::support::*;
use am_system::communities::{Communities, CommunityKeysOf, CommunityOf};

fn payload(s: &crate::common::Stack) -> am_system::communities::CommunitiesPayload {
    s.system
        .communities(&Communities::new(&[(SCOPE, OWNER)], OWNER))
        .unwrap()
}

#[test]
fn before_the_first_sleep_the_reads_answer_first_sleep_pending() {
    on_both(|s| {
        let (garden, _) = two_topics(s);
        let p = payload(s);
        assert!(p.first_sleep_pending && p.communities.is_empty() && p.version_seq.is_none());
        assert_eq!(p.version, 2);
        let one = s
            .system
            .community_of(&CommunityOf::new(&garden[0]))
            .unwrap();
        assert!(one.first_sleep_pending, "[{}]", s.name);
        assert_eq!(one.community_key, None);
        let keys = s
            .system
            .community_keys_of(&CommunityKeysOf::new(
                &[garden[0].as_str()],
                &[(SCOPE, OWNER)],
                OWNER,
            ))
            .unwrap();
        assert_eq!(keys[garden[0].as_str()], None);
    });
}

#[test]
fn the_payload_is_version_2_largest_first_with_pending_fields_none() {
    on_both(|s| {
        two_topics(s);
        let r = pass(s);
        let p = payload(s);
        assert!(!p.first_sleep_pending);
        assert_eq!(p.version_seq, r.version_seq);
        assert_eq!(p.communities.len(), 2);
        assert_eq!(p.communities[0].size, 6, "[{}] largest first", s.name);
        assert_eq!(p.communities[1].size, 4);
        for c in &p.communities {
            assert_eq!(c.title, None);
            assert_eq!(c.summary, None);
            assert_eq!(c.pending, ["title", "summary"]);
            assert_eq!(c.members.len(), c.size);
            assert_eq!(c.kinds["episode"], c.size);
            assert!(
                c.layout.get("xy").is_some()
                    && c.layout.get("radius").is_some()
                    && c.layout.get("seats").is_some()
            );
            assert!(!c.centroid_stale);
            assert_eq!(c.facts.changed_since_last_sleep.added, c.size);
            assert!(c.facts.span.first.is_some());
            assert_eq!(c.facts.hub, None, "never used");
        }
        let v = serde_json::to_value(&p).unwrap();
        for k in [
            "version",
            "version_seq",
            "first_sleep_pending",
            "algorithm",
            "communities",
            "links",
        ] {
            assert!(v.get(k).is_some(), "{k}");
        }
        for k in [
            "id",
            "key",
            "title",
            "summary",
            "pending",
            "verdict",
            "size",
            "kinds",
            "members",
            "provisional_ids",
            "cohesion",
            "layout",
            "centroid_stale",
            "facts",
        ] {
            assert!(v["communities"][0].get(k).is_some(), "{k}");
        }
    });
}

#[test]
fn an_authored_topic_serves_its_title_and_summary() {
    on_both(|s| {
        two_topics(s);
        s.system
            .communities_pass(&pass_args(), Some(&namer), &never)
            .unwrap();
        let p = payload(s);
        assert_eq!(
            p.communities[0].title.as_deref(),
            Some("Topic: A topic of 6 memories.")
        );
        assert_eq!(
            p.communities[0].summary.as_deref(),
            Some("About A topic of 6 memories.")
        );
        assert!(p.communities[0].pending.is_empty());
    });
}

#[test]
fn version_reads_an_earlier_version_and_a_seq_older_than_the_first_is_refused() {
    on_both(|s| {
        two_topics(s);
        let first = pass(s);
        about(s, "garden", 2, "g2");
        let second = pass(s);
        let v1 = first.version_seq.unwrap();
        let old = s
            .system
            .communities(&Communities {
                version: Some(v1),
                ..Communities::new(&[(SCOPE, OWNER)], OWNER)
            })
            .unwrap();
        assert_eq!(old.version_seq, Some(v1));
        assert_eq!(
            old.communities[0].size, 6,
            "[{}] the first version's garden",
            s.name
        );
        let now = payload(s);
        assert_eq!(now.version_seq, second.version_seq);
        assert_eq!(now.communities[0].size, 8);
        assert_eq!(now.communities[0].facts.changed_since_last_sleep.added, 2);
        assert_eq!(now.communities[0].key, old.communities[0].key);
        let err = s
            .system
            .communities(&Communities {
                version: Some(v1 - 1),
                ..Communities::new(&[(SCOPE, OWNER)], OWNER)
            })
            .unwrap_err();
        assert_eq!(err.kind(), am_triples::ErrorKind::InvalidInput);
    });
}

#[test]
fn community_of_names_a_members_topic_and_refuses_an_unknown_or_a_community_record() {
    on_both(|s| {
        let (garden, _) = two_topics(s);
        let r = pass(s);
        let a = s
            .system
            .community_of(&CommunityOf::new(&garden[0]))
            .unwrap();
        assert!(!a.provisional && !a.first_sleep_pending);
        assert_eq!(a.via.as_deref(), Some("detected"));
        assert_eq!(a.version_seq, r.version_seq);
        assert!(a.community_key.is_some() && a.community_id.is_some());
        let lone = live(s, "plain", vec![episode("plain", "nothing")]);
        let b = s.system.community_of(&CommunityOf::new(&lone[0])).unwrap();
        assert_eq!(b.community_key, None, "[{}] no community", s.name);
        for bad in ["ex:episode-unknown", r.written[0].as_str()] {
            let e = s.system.community_of(&CommunityOf::new(bad)).unwrap_err();
            assert_eq!(e.kind(), am_triples::ErrorKind::InvalidInput, "{bad}");
        }
    });
}

#[test]
fn community_keys_of_answers_each_asked_id_once_in_the_order_asked_as_a_dict_does() {
    on_both(|s| {
        let (garden, music) = two_topics(s);
        pass(s);
        let asked = [
            music[0].as_str(),
            "ex:episode-unknown",
            garden[0].as_str(),
            music[0].as_str(),
        ];
        let k = s
            .system
            .community_keys_of(&CommunityKeysOf::new(&asked, &[(SCOPE, OWNER)], OWNER))
            .unwrap();
        let order: Vec<&str> = k.keys().map(|k| &**k).collect();
        assert_eq!(
            order,
            [music[0].as_str(), "ex:episode-unknown", garden[0].as_str()],
            "[{}] first-asked order, a repeated id once",
            s.name
        );
        let json = serde_json::to_string(&k).unwrap();
        let at = |id: &str| json.find(&format!("\"{id}\"")).unwrap();
        assert!(
            at(&music[0]) < at("ex:episode-unknown") && at("ex:episode-unknown") < at(&garden[0]),
            "[{}] the JSON object keeps that order: {json}",
            s.name
        );
        let m = s
            .system
            .community_memberships_of(&CommunityKeysOf::new(&asked, &[(SCOPE, OWNER)], OWNER))
            .unwrap();
        assert_eq!(m.keys().collect::<Vec<_>>(), k.keys().collect::<Vec<_>>());
    });
}

#[test]
fn community_keys_of_answers_each_record_as_the_payload_does_and_catches_up_with_a_new_version() {
    on_both(|s| {
        let (garden, music) = two_topics(s);
        pass(s);
        let p = payload(s);
        let ask = |ids: &[&str]| {
            s.system
                .community_keys_of(&CommunityKeysOf::new(ids, &[(SCOPE, OWNER)], OWNER))
                .unwrap()
        };
        let k = ask(&[&garden[0], &music[0], "ex:episode-unknown"]);
        assert_eq!(
            k[garden[0].as_str()].as_deref(),
            Some(p.communities[0].key.as_str())
        );
        assert_eq!(
            k[music[0].as_str()].as_deref(),
            Some(p.communities[1].key.as_str())
        );
        assert_eq!(k["ex:episode-unknown"], None);
        let other = s
            .system
            .community_keys_of(&CommunityKeysOf::new(
                &[garden[0].as_str()],
                &[(SCOPE, "entity:pollux")],
                "entity:pollux",
            ))
            .unwrap();
        assert_eq!(
            other[garden[0].as_str()],
            None,
            "[{}] another owner's topics",
            s.name
        );
        let more = about(s, "garden", 2, "g2");
        let provisional = s
            .system
            .community_memberships_of(&CommunityKeysOf::new(
                &[more[0].as_str()],
                &[(SCOPE, OWNER)],
                OWNER,
            ))
            .unwrap();
        assert_eq!(
            provisional[more[0].as_str()]
                .clone()
                .map(|m| (m.key.to_string(), m.provisional)),
            Some((p.communities[0].key.clone(), true)),
            "placed at formation, not a member before the next sleep"
        );
        pass(s);
        assert_eq!(
            ask(&[more[0].as_str()])[more[0].as_str()].as_deref(),
            Some(p.communities[0].key.as_str())
        );
        let m = s
            .system
            .community_memberships_of(&CommunityKeysOf::new(
                &[garden[0].as_str()],
                &[(SCOPE, OWNER)],
                OWNER,
            ))
            .unwrap();
        let one = m[garden[0].as_str()].clone().unwrap();
        assert!(!one.provisional);
    });
}
