//! The exec session over the verb table: the tests the op modules held
//! before the table (each drives `Session::answer` as a script line does).

mod ops_tests {
    use crate::exec::Session;
    use crate::home::{HomeSpec, PinnedClock};
    use serde_json::{Value, json};

    fn session() -> Session {
        let clock = PinnedClock::pinned_at("2026-01-01T00:00:00Z").unwrap();
        Session::open(HomeSpec::Memory, None, clock).unwrap()
    }

    fn answer(s: &mut Session, line: &Value) -> Value {
        s.answer(&line.to_string()).expect("an answer").0
    }

    fn assert_refused_naming(s: &mut Session, line: &Value, field: &str) {
        assert_refused_as(s, line, field, "InvalidInput");
    }

    fn assert_refused_as(s: &mut Session, line: &Value, field: &str, kind: &str) {
        let seq = answer(s, &json!({"op": "current_seq"}))["ok"].clone();
        let a = answer(s, line);
        assert_eq!(a["error"]["kind"], kind, "{line} -> {a}");
        let message = a["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(field),
            "{line}: {message} names no {field}"
        );
        assert_eq!(
            answer(s, &json!({"op": "current_seq"}))["ok"],
            seq,
            "{line} wrote"
        );
    }

    fn form(s: &mut Session) -> Vec<String> {
        let a = answer(
            s,
            &json!({"op": "remember_many", "records": [
                {"kind": "episode", "title": "Ada", "digest": "Ada signed the lease on plot 14."},
                {"kind": "episode", "title": "Bram", "digest": "Bram builds raised beds."}],
                "scope": "life", "owner_id": "demo", "idempotency_key": "k"}),
        );
        serde_json::from_value(a["ok"].clone()).unwrap()
    }

    #[test]
    fn docs_exec_md_lists_every_op() {
        let doc =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/exec.md"))
                .expect("docs/exec.md exists");
        for op in am_ops::op_names() {
            assert!(
                doc.contains(&format!("| `{op}` |")),
                "docs/exec.md lacks a row for {op}"
            );
        }
    }

    /// docs/exec.md's bold arguments are the ones the op's schema requires
    /// (an op with two rows, `versions`, is a union: none is required).
    #[test]
    fn docs_exec_md_marks_bold_exactly_the_arguments_each_schema_requires() {
        let doc =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/exec.md"))
                .expect("docs/exec.md exists");
        let mut rows: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        for l in doc.lines() {
            if let Some(rest) = l.strip_prefix("| `")
                && let Some((op, rest)) = rest.split_once("` |")
                && am_ops::find(op).is_some()
            {
                let args = rest.split(" | ").next().unwrap_or("");
                rows.entry(op.to_owned()).or_default().push(args.to_owned());
            }
        }
        let mut wrong = Vec::new();
        for verb in am_ops::table() {
            let Some(cells) = rows.get(verb.name) else {
                continue; // docs_exec_md_lists_every_op names it
            };
            let mut bold: Vec<String> = cells
                .iter()
                .flat_map(|c| c.split("**`").skip(1))
                .filter_map(|x| x.split_once("`**").map(|(n, _)| n.to_owned()))
                .collect();
            bold.sort();
            bold.dedup();
            let schema = verb.args_schema().to_value();
            let mut required: Vec<String> = schema["required"]
                .as_array()
                .map(|r| {
                    r.iter()
                        .filter_map(|x| x.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            required.sort();
            if cells.len() > 1 {
                continue;
            }
            if bold != required {
                wrong.push(format!(
                    "{}: docs bold {bold:?}, schema requires {required:?}",
                    verb.name
                ));
            }
        }
        assert!(
            wrong.is_empty(),
            "docs/exec.md disagrees with the schemas:\n{}",
            wrong.join("\n")
        );
    }

    /// docs/exec.md: without `--task-queue` the queue's ops answer
    /// `InvalidInput` naming the flag, before their arguments are read.
    #[test]
    fn a_queue_op_on_a_session_without_the_queue_is_refused_naming_the_flag() {
        let mut s = session();
        for verb in am_ops::table().iter().filter(|v| v.needs_queue) {
            let a = answer(&mut s, &json!({"op": verb.name, "colour": "red"}));
            assert_eq!(a["error"]["kind"], "InvalidInput", "{a}");
            let m = a["error"]["message"].as_str().unwrap();
            assert!(
                m.contains("--task-queue") && m.starts_with(verb.name),
                "{m}"
            );
            assert!(!m.contains("colour") && !m.contains("SystemOptions"), "{m}");
        }
    }

    #[test]
    fn add_refuses_an_unknown_field_inside_a_triple_assertion() {
        let mut s = session();
        assert_refused_naming(
            &mut s,
            &json!({"op": "add", "assertions": [{"subject": "a", "predicate": "b", "object": "c", "colour": "red"}]}),
            "colour",
        );
        let q = answer(&mut s, &json!({"op": "query", "q": {"subject": "a"}}));
        assert_eq!(q["ok"], json!([]), "nothing was stored");
    }

    #[test]
    fn every_dataclass_argument_refuses_an_unknown_field_by_name() {
        let mut s = session();
        form(&mut s);
        let cases = [
            json!({"op": "query", "q": {"subject": "a", "colour": "red"}}),
            json!({"op": "remember", "record": {"kind": "episode", "title": "t", "digest": "d", "colour": "red"},
                   "scope": "life", "owner_id": "demo", "idempotency_key": "k2"}),
            json!({"op": "remember_many", "records": [{"kind": "episode", "title": "t", "digest": "d", "colour": "red"}],
                   "scope": "life", "owner_id": "demo", "idempotency_key": "k2"}),
            json!({"op": "reconstruct", "stimulus": {"cue_text": "lease", "colour": "red"}, "scopes": [["life", "demo"]]}),
            json!({"op": "reconstruct", "stimulus": {"cue_text": "lease"}, "scopes": [["life", "demo"]],
                   "budget": {"shelf_size": 3, "colour": "red"}}),
            json!({"op": "names_ref", "ref": {"kind": "step", "run_id": "r", "seq": 1, "colour": "red"}, "owner_ids": [""]}),
            json!({"op": "apply_revision", "revision": {"revision_id": "r1", "scope": "global", "cause": "ingest",
                   "occurred_at": "2026-01-05T09:00:00Z", "colour": "red",
                   "ops": [{"op": "assert", "payload": {"subject": "ex:a", "predicate": "p", "object": "ex:b"}}],
                   "provenance": {"sources": [{"kind": "step", "run_id": "r", "seq": 1}], "actor": "x"}}}),
            json!({"op": "apply_revision", "revision": {"revision_id": "r1", "scope": "global", "cause": "ingest",
                   "occurred_at": "2026-01-05T09:00:00Z",
                   "ops": [{"op": "assert", "payload": {"subject": "ex:a", "predicate": "p", "object": "ex:b"}, "colour": "red"}],
                   "provenance": {"sources": [{"kind": "step", "run_id": "r", "seq": 1}], "actor": "x"}}}),
            json!({"op": "apply_revision", "revision": {"revision_id": "r1", "scope": "global", "cause": "ingest",
                   "occurred_at": "2026-01-05T09:00:00Z",
                   "ops": [{"op": "assert", "payload": {"subject": "ex:a", "predicate": "p", "object": "ex:b", "colour": "red"}}],
                   "provenance": {"sources": [{"kind": "step", "run_id": "r", "seq": 1}], "actor": "x"}}}),
        ];
        for line in &cases {
            assert_refused_naming(&mut s, line, "colour");
        }
        // The graph refuses a malformed Provenance with its own kind (an
        // unknown key is a provenance the revision cannot be held to).
        assert_refused_as(
            &mut s,
            &json!({"op": "apply_revision", "revision": {"revision_id": "r1", "scope": "global", "cause": "ingest",
                   "occurred_at": "2026-01-05T09:00:00Z",
                   "ops": [{"op": "assert", "payload": {"subject": "ex:a", "predicate": "p", "object": "ex:b"}}],
                   "provenance": {"sources": [{"kind": "step", "run_id": "r", "seq": 1}], "actor": "x", "colour": "red"}}}),
            "colour",
            "ProvenanceRequired",
        );
    }

    #[test]
    fn every_verb_refuses_an_argument_it_does_not_take_by_name() {
        let mut s = session();
        form(&mut s);
        for verb in am_ops::table().iter().filter(|v| !v.needs_queue) {
            let op = verb.name;
            if op == "reopen" {
                continue;
            }
            assert_refused_naming(&mut s, &json!({"op": op, "colour": "red"}), "colour");
        }
    }

    #[test]
    fn the_journal_counters_answer_as_of_until_seq() {
        let mut s = session();
        let ids = form(&mut s);
        let rows = answer(
            &mut s,
            &json!({"op": "query", "q": {"predicate": "dcterms:abstract", "order": "asc", "limit": 0}}),
        );
        let aid = |i: usize| rows["ok"][i]["assertion_id"].as_str().unwrap().to_owned();
        let (a, b) = (aid(0), aid(1));
        let before = answer(&mut s, &json!({"op": "current_seq"}))["ok"].clone();
        let c = answer(
            &mut s,
            &json!({"op": "commit_selection", "trace_id": "t1", "used_record_ids": ids}),
        );
        assert!(c.get("ok").is_some(), "{c}");
        assert_eq!(
            answer(&mut s, &json!({"op": "selected_count", "record_id": a}))["ok"],
            1
        );
        assert_eq!(
            answer(
                &mut s,
                &json!({"op": "selected_count", "record_id": a, "until_seq": before})
            )["ok"],
            0
        );
        assert_eq!(
            answer(
                &mut s,
                &json!({"op": "pair_selected_count", "pair": [b, a]})
            )["ok"],
            1
        );
        assert_eq!(
            answer(
                &mut s,
                &json!({"op": "pair_selected_count", "pair": [a, b], "until_seq": before})
            )["ok"],
            0
        );
        let e = answer(
            &mut s,
            &json!({"op": "selected_count", "record_id": a, "until_seq": 10_000}),
        );
        assert_eq!(e["error"]["kind"], "InvalidInput", "{e}");
        let e = answer(&mut s, &json!({"op": "pair_selected_count", "pair": [a]}));
        assert_eq!(e["error"]["kind"], "InvalidInput", "{e}");
    }

    #[test]
    fn an_answer_carries_the_warnings_its_verb_raised() {
        let mut s = session();
        let ids = form(&mut s);
        let shelf = answer(
            &mut s,
            &json!({"op": "reconstruct", "stimulus": {"cue_text": "lease raised beds"},
                    "scopes": [["life", "demo"]], "trace_id": "t1"}),
        );
        assert_eq!(
            shelf["ok"]["handles"].as_array().unwrap().len(),
            2,
            "{shelf}"
        );
        let first = answer(
            &mut s,
            &json!({"op": "commit_selection", "trace_id": "t1", "used_record_ids": ids}),
        );
        assert!(first.get("warnings").is_none(), "{first}");
        let replay = answer(
            &mut s,
            &json!({"op": "commit_selection", "trace_id": "t1", "used_record_ids": [ids[0]]}),
        );
        let w = replay["warnings"].as_array().expect("a warnings list");
        assert_eq!(w.len(), 1, "{replay}");
        assert!(w[0].as_str().unwrap().starts_with("#FALLBACK"), "{replay}");
        assert_eq!(
            replay["ok"], first["ok"],
            "the original snapshot, unchanged"
        );
        let next = answer(&mut s, &json!({"op": "current_seq"}));
        assert!(
            next.get("warnings").is_none(),
            "a warning travels once: {next}"
        );
    }

    /// Spec: a foreign trace's ids deposit unlabeled; this port says so,
    /// naming the trace, and names a used id its own trace never listed
    /// (the spec is silent there): a typo never strengthens memory unnoticed.
    #[test]
    fn commit_selection_deposits_a_foreign_trace_and_an_off_shelf_id_and_names_them() {
        let mut s = session();
        let ids = form(&mut s);
        let foreign = answer(
            &mut s,
            &json!({"op": "commit_selection", "trace_id": "elsewhere", "used_record_ids": [ids[0]]}),
        );
        assert!(foreign.get("ok").is_some(), "{foreign}");
        let w = foreign["warnings"].as_array().expect("a warning");
        assert!(
            w.iter().any(|x| x
                .as_str()
                .unwrap()
                .contains("\"elsewhere\" was never journaled")),
            "{foreign}"
        );
        let shelf = answer(
            &mut s,
            &json!({"op": "reconstruct", "stimulus": {"cue_text": "lease"},
                    "scopes": [["life", "demo"]], "trace_id": "t2", "budget": {"shelf_size": 1}}),
        );
        let on_shelf: Vec<&str> = shelf["ok"]["handles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["record_id"].as_str().unwrap())
            .collect();
        assert_eq!(on_shelf.len(), 1, "{shelf}");
        let off = answer(
            &mut s,
            &json!({"op": "commit_selection", "trace_id": "t2", "used_record_ids": ids}),
        );
        let w = off["warnings"].as_array().expect("a warning");
        assert_eq!(w.len(), 1, "{off}");
        let used: Vec<&str> = off["ok"]["used_record_ids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let stray = used
            .iter()
            .find(|r| !on_shelf.contains(r))
            .expect("the off-shelf id");
        assert!(
            w[0].as_str()
                .unwrap()
                .contains(&format!("{stray} was not on trace \"t2\"'s shelf")),
            "{off}"
        );
    }

    #[test]
    fn a_reconstruct_answer_lifts_its_fallback_warnings_beside_ok() {
        let mut s = session();
        form(&mut s);
        let a = answer(
            &mut s,
            &json!({"op": "reconstruct", "stimulus": {"cue_text": "lease", "embedding": [1.0, 2.0]},
                    "scopes": [["life", "demo"]]}),
        );
        let inner = a["ok"]["warnings"]
            .as_array()
            .expect("the result's warnings");
        assert!(
            inner
                .iter()
                .any(|w| w.as_str().unwrap().starts_with("#FALLBACK")),
            "{a}"
        );
        assert_eq!(a["warnings"].as_array(), Some(inner), "{a}");
    }

    #[test]
    fn a_null_argument_is_an_absent_one() {
        let mut s = session();
        let ids = form(&mut s);
        let a = answer(
            &mut s,
            &json!({"op": "payload", "record_id": ids[0], "tier": null}),
        );
        assert_eq!(a["ok"]["tier"], "digest", "{a}");
    }

    /// docs/exec.md: a `null` is absent at every depth of a dataclass
    /// argument, while free-form JSON (a record's `attributes`) keeps its
    /// nulls and a `null` under a name the dataclass lacks is still refused.
    #[test]
    fn a_null_field_inside_a_dataclass_is_absent_and_attributes_keep_theirs() {
        let mut s = session();
        form(&mut s);
        let a = answer(
            &mut s,
            &json!({"op": "reconstruct", "scopes": [["life", "demo"]],
                    "stimulus": {"cue_text": "lease", "patterns": null, "participants": null,
                                 "anchor_record_ids": null, "as_of": null},
                    "budget": {"shelf_size": null}}),
        );
        assert!(a.get("error").is_none(), "{a}");
        let formed = answer(
            &mut s,
            &json!({"op": "remember_many", "scope": "life", "owner_id": "demo",
                    "idempotency_key": "nulls", "records": [{"kind": "lesson", "title": "Spring",
                    "topic": null,
                    "digest": "Leases renew in spring.", "keywords": null,
                    "attributes": {"mood": null}}]}),
        );
        let ids: Vec<String> = serde_json::from_value(formed["ok"].clone())
            .unwrap_or_else(|e| panic!("{e}: {formed}"));
        let got = answer(&mut s, &json!({"op": "query", "q": {"subject": ids[0]}}));
        let rows = got["ok"].as_array().expect("rows");
        assert!(
            rows.iter().any(|r| r["attributes"]
                .as_object()
                .is_some_and(|m| m.contains_key("mood") && m["mood"].is_null())),
            "{got}"
        );
        let refused = answer(
            &mut s,
            &json!({"op": "reconstruct", "scopes": [["life", "demo"]],
                    "stimulus": {"cue_text": "lease", "colour": null}}),
        );
        assert_eq!(refused["error"]["kind"], "InvalidInput", "{refused}");
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .contains("colour"),
            "{refused}"
        );
    }
}

mod entity_tests {
    use crate::exec::Session;
    use crate::home::{HomeSpec, PinnedClock};
    use serde_json::{Value, json};

    fn session() -> Session {
        let clock = PinnedClock::pinned_at("2026-01-01T00:00:00Z").unwrap();
        Session::open(HomeSpec::Memory, None, clock).unwrap()
    }

    fn answer(s: &mut Session, line: &Value) -> Value {
        s.answer(&line.to_string()).expect("an answer").0
    }

    #[test]
    fn valence_ops_write_read_and_refuse_without_writing() {
        let mut s = session();
        let base = json!({"scope": "self", "owner_id": "entity:castor"});
        let with = |extra: Value| {
            let mut line = base.clone();
            line.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            line
        };
        let a = answer(
            &mut s,
            &with(
                json!({"op": "appraise", "target_id": "tool:x", "sign": -1, "magnitude": 9,
                         "reason": "lost work", "scar": true, "event_id": "w1", "actor": "operator"}),
            ),
        );
        assert_eq!(a["ok"], json!(["w1", "w1:scar"]), "{a}");
        let seq = answer(&mut s, &json!({"op": "current_seq"}))["ok"].clone();
        for bad in [
            json!({"op": "appraise", "target_id": "tool:x", "sign": -1, "magnitude": 5, "reason": "r"}),
            json!({"op": "appraise", "target_id": "tool:x", "sign": 1, "magnitude": 1, "reason": "r", "colour": 1}),
            json!({"op": "heal_scar", "scar_event_id": "w1", "reason": "r"}),
            json!({"op": "break_bond", "bond_event_id": "w1:scar", "reason": "r"}),
        ] {
            let a = answer(&mut s, &with(bad.clone()));
            assert!(a["error"]["kind"].is_string(), "{bad} -> {a}");
            assert_eq!(
                answer(&mut s, &json!({"op": "current_seq"}))["ok"],
                seq,
                "{bad} wrote"
            );
        }
        let g = answer(
            &mut s,
            &with(json!({"op": "gradation", "target_ids": ["tool:x"]})),
        );
        assert_eq!(g["ok"]["tool:x"]["scarred"], json!(true), "{g}");
        let h = answer(
            &mut s,
            &with(json!({"op": "heal_scar", "scar_event_id": "w1:scar", "reason": "r"})),
        );
        assert_eq!(h["ok"], json!("heal:w1:scar"), "{h}");
        let f = answer(
            &mut s,
            &json!({"op": "feelings_about", "target": "tool:x", "scope_pairs": [["self", "entity:castor"]]}),
        );
        assert_eq!(f["ok"]["total_events"], json!(3), "{f}");
        let sf = answer(
            &mut s,
            &json!({"op": "stimulus_feelings", "stimulus": {"cue_text": "the x tool"},
                    "scope_pairs": [["self", "entity:castor"]], "min_net": 0.0}),
        );
        assert!(sf["ok"].is_array(), "{sf}");
    }
}

mod identity_and_diary_tests {
    use crate::exec::Session;
    use crate::home::{HomeSpec, PinnedClock};
    use serde_json::{Value, json};

    fn answer(s: &mut Session, line: &Value) -> Value {
        s.answer(&line.to_string()).expect("an answer").0
    }

    #[test]
    fn identity_and_diary_ops_answer_and_refusals_write_nothing() {
        let clock = PinnedClock::pinned_at("2026-01-01T00:00:00Z").unwrap();
        let mut s = Session::open(HomeSpec::Memory, None, clock).unwrap();
        let spark = json!({"name": "Castor", "origin": "A quiet start.",
            "values": [{"name": "shared_vulnerability", "class": "core", "statement": "Protect the shared substrate."},
                       {"name": "curiosity", "class": "revisable", "statement": "Ask about what you do not know."}],
            "purposes": [{"name": "helper", "statement": "Help the gardeners."}],
            "traits": [], "honesty": []});
        let lint = answer(&mut s, &json!({"op": "lint_spark", "spark": spark}));
        assert_eq!(lint["ok"], json!([]), "{lint}");
        let h = answer(
            &mut s,
            &json!({"op": "canonical_spark_hash", "spark": spark}),
        );
        assert_eq!(h["ok"].as_str().unwrap().len(), 64);
        let e = answer(
            &mut s,
            &json!({"op": "engram", "spark": spark, "owner_id": "entity:castor"}),
        );
        assert_eq!(e["ok"]["created"], json!(true), "{e}");
        let core = answer(
            &mut s,
            &json!({"op": "self_records", "scope": "self", "owner_id": "entity:castor"}),
        );
        assert_eq!(core["ok"].as_array().unwrap().len(), 3, "{core}");
        let seq = answer(&mut s, &json!({"op": "current_seq"}))["ok"].clone();
        let mut unnamed = spark.clone();
        unnamed["purposes"] = json!([{"statement": "Help the gardeners."}]);
        for bad in [
            json!({"op": "engram", "spark": unnamed, "owner_id": "entity:castor"}),
            json!({"op": "engram", "spark": spark, "owner_id": "entity:castor", "author": "x"}),
        ] {
            let a = answer(&mut s, &bad);
            assert!(a["error"]["kind"].is_string(), "{a}");
            assert_eq!(
                answer(&mut s, &json!({"op": "current_seq"}))["ok"],
                seq,
                "{bad} wrote"
            );
        }
        let q = answer(
            &mut s,
            &json!({"op": "remember_many", "records": [{"kind": "diary", "title": "Q",
            "digest": "Why?", "attributes": {"diary_type": "question", "prev_entry_hash": ""},
            "provenance": {"source": "owner-direct"}}], "scope": "diary", "owner_id": "entity:castor",
            "idempotency_key": "q"}),
        );
        assert!(q["ok"].is_array(), "{q}");
        let open = answer(
            &mut s,
            &json!({"op": "open_questions", "scope": "diary", "owner_id": "entity:castor"}),
        );
        assert_eq!(open["ok"].as_array().unwrap().len(), 1, "{open}");
        let chain = answer(
            &mut s,
            &json!({"op": "verify_diary_chain", "scope": "diary", "owner_id": "entity:castor"}),
        );
        assert_eq!(
            chain["ok"],
            json!({"intact": true, "break_at": null, "entries": 1})
        );
        let t = answer(
            &mut s,
            &json!({"op": "triggered_commitments", "stimulus": {"cue_text": "x"},
            "scope": "diary", "owner_id": "entity:castor"}),
        );
        assert_eq!(t["ok"], json!([]), "{t}");
    }
}

mod graph_tests {
    use crate::exec::Session;
    use crate::home::{HomeSpec, PinnedClock};
    use serde_json::Value;

    fn answer(s: &mut Session, line: &str) -> Value {
        s.answer(line).expect("an answer").0
    }

    const REVISION: &str = r#"{"op": "apply_revision", "revision": {"revision_id": "r1", "scope": "global", "owner_id": "person:ada", "cause": "ingest", "occurred_at": "2026-01-05T09:00:00Z", "ops": [{"op": "assert", "payload": {"assertion_id": "c1", "subject": "ex:dana", "predicate": "schema:worksFor", "object": "ex:acme"}}], "provenance": {"sources": [{"kind": "step", "run_id": "run-42", "seq": 3}], "actor": "abstractnote"}}}"#;

    #[test]
    fn replay_into_a_new_home_applies_the_log_and_then_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let clock = PinnedClock::pinned_at("2026-01-01T00:00:00Z").unwrap();
        let mut s =
            Session::open(HomeSpec::Sqlite(dir.path().join("a.sqlite3")), None, clock).unwrap();
        assert_eq!(answer(&mut s, REVISION)["ok"]["applied"], true);
        let target = dir.path().join("b.sqlite3");
        let line = serde_json::json!({"op": "replay_into", "target_home": target}).to_string();
        assert_eq!(answer(&mut s, &line)["ok"], 1);
        assert_eq!(answer(&mut s, &line)["ok"], 0);
        let clock = PinnedClock::pinned_at("2027-01-01T00:00:00Z").unwrap();
        let mut t = Session::open(HomeSpec::Sqlite(target), None, clock).unwrap();
        let h = answer(&mut t, r#"{"op": "history", "memory_id": "c1"}"#);
        assert_eq!(h["ok"][0]["at"], "2026-01-01T00:00:00.000000+00:00");
    }

    #[test]
    fn the_graph_verbs_work_on_the_in_memory_home_across_ops() {
        let clock = PinnedClock::pinned_at("2026-01-01T00:00:00Z").unwrap();
        let mut s = Session::open(HomeSpec::Memory, None, clock).unwrap();
        assert_eq!(answer(&mut s, REVISION)["ok"]["applied"], true);
        assert_eq!(answer(&mut s, REVISION)["ok"]["applied"], false);
        let h = answer(&mut s, r#"{"op": "history", "memory_id": "c1"}"#);
        assert_eq!(h["ok"][0]["event"], "asserted");
        assert_eq!(h["ok"][0]["revision_id"], "r1");
    }
}

mod observe_tests {
    use crate::exec::Session;
    use crate::home::{HomeSpec, PinnedClock};
    use serde_json::{Value, json};

    fn answer(s: &mut Session, line: &Value) -> Value {
        s.answer(&line.to_string()).expect("an answer").0
    }

    /// Paging the replay stream with `limit` and the spec's own cursor
    /// (`since_seq` = the last envelope's seq) gives the whole stream, in
    /// order, each envelope once.
    #[test]
    fn export_replay_pages_by_limit_and_since_seq_add_up_to_the_whole_stream() {
        let clock = PinnedClock::pinned_at("2026-01-01T00:00:00Z").unwrap();
        let mut s = Session::open(HomeSpec::Memory, None, clock).unwrap();
        for k in 0..4 {
            let a = answer(
                &mut s,
                &json!({"op": "remember_many", "records": [
                    {"kind": "episode", "title": format!("t{k}"), "digest": format!("Ada planted row {k}.")}],
                    "scope": "life", "owner_id": "demo", "idempotency_key": format!("k{k}")}),
            );
            assert!(a.get("ok").is_some(), "{a}");
            let r = answer(
                &mut s,
                &json!({"op": "reconstruct", "stimulus": {"cue_text": "planted row"},
                        "scopes": [["life", "demo"]]}),
            );
            assert!(r.get("ok").is_some(), "{r}");
        }
        let whole = answer(&mut s, &json!({"op": "export_replay"}))["ok"].clone();
        let whole = whole.as_array().unwrap().clone();
        assert!(whole.len() > 6, "{}", whole.len());
        let mut paged = Vec::new();
        let mut since = 0;
        loop {
            let page = answer(
                &mut s,
                &json!({"op": "export_replay", "since_seq": since, "limit": 3}),
            )["ok"]
                .as_array()
                .unwrap()
                .clone();
            assert!(page.len() <= 3);
            let Some(last) = page.last() else { break };
            since = last["seq"].as_i64().unwrap();
            paged.extend(page);
        }
        assert_eq!(paged, whole);
    }

    #[test]
    fn the_observe_ops_answer_and_write_nothing() {
        let clock = PinnedClock::pinned_at("2026-01-01T00:00:00Z").unwrap();
        let mut s = Session::open(HomeSpec::Memory, None, clock).unwrap();
        let ids = answer(
            &mut s,
            &json!({"op": "remember_many", "records": [
                {"kind": "episode", "title": "Ada", "digest": "Ada signed the lease on plot 14."}],
                "scope": "life", "owner_id": "demo", "idempotency_key": "k"}),
        )["ok"]
            .clone();
        let rid = ids[0].as_str().unwrap();
        let r = answer(
            &mut s,
            &json!({"op": "reconstruct", "stimulus": {"cue_text": "lease plot"},
                    "scopes": [["life", "demo"]], "trace_id": "t1"}),
        );
        let handles = r["ok"]["handles"].clone();
        let seq = answer(&mut s, &json!({"op": "current_seq"}))["ok"].clone();
        let replay = answer(&mut s, &json!({"op": "export_replay", "since_seq": 0}));
        assert_eq!(
            replay["ok"][0]["stream"], "abstractmemory.replay",
            "{replay}"
        );
        let lines = [
            json!({"op": "recall_history", "record_id": rid, "scope": "life", "owner_id": "demo"}),
            json!({"op": "explain_recall", "record_id": rid, "trace_id": "t1"}),
            json!({"op": "absence_diagnosis", "record_id": rid, "scope": "life", "owner_id": "demo"}),
            json!({"op": "origin_diversity", "handles": handles, "min_counted": 1}),
            json!({"op": "stable_render_order", "handles": handles}),
            json!({"op": "recent_records", "scopes": [["life", "demo"]], "since": "2025-01-01T00:00:00Z"}),
            json!({"op": "entity_card", "scope_pairs": [["life", "demo"]], "owner_id": "demo"}),
        ];
        for line in &lines {
            let a = answer(&mut s, line);
            assert!(a.get("ok").is_some(), "{line} -> {a}");
        }
        assert_eq!(
            answer(&mut s, &json!({"op": "current_seq"}))["ok"],
            seq,
            "the reads wrote nothing"
        );
        let a = answer(
            &mut s,
            &json!({"op": "explain_recall", "record_id": rid, "trace_id": "nope"}),
        );
        assert_eq!(a["error"]["kind"], "NotFound", "{a}");
        let a = answer(
            &mut s,
            &json!({"op": "export_replay", "families": ["gossip"]}),
        );
        assert_eq!(a["error"]["kind"], "InvalidInput", "{a}");
    }
}
