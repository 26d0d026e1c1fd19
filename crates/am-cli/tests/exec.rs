//! `am exec` scripts under `tests/exec/*.jsonl` with their expected output
//! checked in as insta snapshots. Every script runs with the clock pinned at
//! 2026-01-01T00:00:00Z; a `# exec-args:` header adds arguments (`{home}` is a
//! fresh SQLite path), `# exec-exit:` names the expected exit code (default 0);
//! `{dir}` in a line is the script's own fresh directory (and reads `{dir}`
//! again where an answer names it). One script per family
//! of the verb table; every op of the table has a line in one of them, and
//! every answer fits the JSON Schema its op publishes.

mod common;

use std::path::Path;

fn redact_uuids(text: &str) -> String {
    let re =
        regex::Regex::new(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}").unwrap();
    let text = re.replace_all(text, "[uuid]");
    // The unknown-op message lists every op of the table; the list is pinned
    // here (`run_script` checks it names every op of the table), so the
    // snapshot keeps only its head and does not change with every new verb.
    let ops = regex::Regex::new(r"known ops: [a-z_., ]+").unwrap();
    let text = ops.replace_all(&text, "known ops: [the table's ops]");
    // The engine manifest's `ops` list is the table itself (the manifest's
    // own test pins it), so a new verb does not change the snapshot.
    let manifest_ops = regex::Regex::new(r#""ops":\[\{"name":[^\]]*\]"#).unwrap();
    let text = manifest_ops.replace_all(&text, r#""ops":"[the table's ops]""#);
    // A file's bytes (the cold cut's report) are SQLite's page layout of
    // the moment, WAL included: the snapshot keeps that they were counted.
    let bytes = regex::Regex::new(r#""bytes_(before|after)":[0-9]+"#).unwrap();
    let text = bytes.replace_all(&text, r#""bytes_$1":"[bytes]""#);
    // A pass's per-step wall times (`communities_pass`'s `timings_ms`) vary
    // run to run: the snapshot keeps the steps, not the milliseconds.
    let times = regex::Regex::new(r#""([a-z_]+)":[0-9.]+(e-?[0-9]+)?([,}])"#).unwrap();
    let timings = regex::Regex::new(r#""timings_ms":\{[^}]*\}"#).unwrap();
    timings
        .replace_all(&text, |c: &regex::Captures<'_>| {
            times.replace_all(&c[0], "\"$1\":\"[ms]\"$3").into_owned()
        })
        .into_owned()
}

fn header<'a>(script: &'a str, key: &str) -> Option<&'a str> {
    script
        .lines()
        .find_map(|l| l.strip_prefix(&format!("# {key}:")))
        .map(str::trim)
}

fn run_script(path: &Path) {
    let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
    let dir = tempfile::tempdir().unwrap();
    let script = std::fs::read_to_string(path)
        .unwrap()
        .replace("{dir}", dir.path().to_str().unwrap());
    let home = dir.path().join("home.sqlite3");
    let extra = header(&script, "exec-args")
        .unwrap_or("--memory")
        .replace("{home}", home.to_str().unwrap());
    let expected_exit: i32 = header(&script, "exec-exit").map_or(0, |c| c.parse().unwrap());
    let mut args = vec!["exec", "--clock", "2026-01-01T00:00:00Z"];
    args.extend(extra.split_whitespace());
    args.push("-");
    let out = common::am_with_input(&args, &script);
    assert_eq!(out.code, expected_exit, "{name}: stderr {}", out.stderr);
    assert!(!out.stderr.contains("panicked"), "{name}: {}", out.stderr);
    // One answer per operation line, each one JSON object.
    let ops = script
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim().starts_with('#'))
        .count();
    assert_eq!(
        out.stdout.lines().count(),
        ops,
        "{name}: one answer per line"
    );
    for line in out.stdout.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(v.get("ok").is_some() ^ v.get("error").is_some(), "{line}");
        if let (Some(ok), Some(op)) = (v.get("ok"), v["op"].as_str().and_then(am_ops::find)) {
            let schema = op.answer_schema().to_value();
            if let Err(why) = fits(ok, &schema, &schema, "ok") {
                panic!(
                    "{name}: {} answered outside its schema: {why}\n{line}",
                    op.name
                );
            }
        }
    }
    for line in out.stdout.lines().filter(|l| l.contains("known ops: ")) {
        let listed = line.split("known ops: ").nth(1).unwrap_or_default();
        let listed: Vec<&str> = listed
            .split(|c: char| !(c.is_ascii_lowercase() || c == '_' || c == '.'))
            .filter(|w| !w.is_empty())
            .collect();
        for op in am_ops::op_names() {
            assert!(
                listed.contains(&op),
                "{name}: the unknown-op message omits {op}"
            );
        }
    }
    // A path in an answer (a cold cut's refusal names its file) reads as
    // the script wrote it.
    let stdout = out.stdout.replace(dir.path().to_str().unwrap(), "{dir}");
    insta::assert_snapshot!(name, redact_uuids(&stdout));
}

#[test]
fn every_exec_script_answers_its_checked_in_output() {
    let scripts = scripts();
    assert!(scripts.len() >= 12, "the exec scripts are present");
    for s in &scripts {
        run_script(s);
    }
}

fn scripts() -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/exec");
    let mut scripts: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    scripts.sort();
    scripts
}

/// The data-driven tests cover the whole table: a verb without a script
/// line has no pinned answer.
#[test]
fn every_op_of_the_verb_table_has_a_line_in_an_exec_script() {
    let mut named = std::collections::BTreeSet::new();
    for s in scripts() {
        for line in std::fs::read_to_string(&s).unwrap().lines() {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(line)
                && let Some(op) = v["op"].as_str()
            {
                named.insert(op.to_owned());
            }
        }
    }
    let missing: Vec<&str> = am_ops::op_names()
        .filter(|op| !named.contains(*op))
        .collect();
    assert!(
        missing.is_empty(),
        "ops with no line in tests/exec/*.jsonl: {missing:?}"
    );
}

/// Whether `v` fits `schema` (the subset of JSON Schema schemars writes:
/// `$ref`, `type`, `enum`, `const`, `properties` / `required` /
/// `additionalProperties`, `items`, `prefixItems`, `anyOf` / `oneOf` /
/// `allOf`); `root` holds the `$defs`. The error names the path.
fn fits(
    v: &serde_json::Value,
    schema: &serde_json::Value,
    root: &serde_json::Value,
    at: &str,
) -> Result<(), String> {
    use serde_json::Value;
    let Value::Object(s) = schema else {
        return if schema == &Value::Bool(false) {
            Err(format!("{at}: nothing fits"))
        } else {
            Ok(())
        };
    };
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        let name = r.trim_start_matches("#/$defs/");
        let target = root["$defs"]
            .get(name)
            .ok_or_else(|| format!("{at}: no $defs/{name}"))?;
        fits(v, target, root, at)?;
    }
    if let Some(t) = s.get("type") {
        let names: Vec<&str> = match t {
            Value::String(x) => vec![x.as_str()],
            Value::Array(xs) => xs.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        let is = |n: &str| match n {
            "null" => v.is_null(),
            "boolean" => v.is_boolean(),
            "object" => v.is_object(),
            "array" => v.is_array(),
            "string" => v.is_string(),
            "integer" => v.is_i64() || v.is_u64(),
            "number" => v.is_number(),
            _ => true,
        };
        if !names.iter().any(|n| is(n)) {
            return Err(format!("{at}: {v} is not {names:?}"));
        }
    }
    if let Some(Value::Array(e)) = s.get("enum")
        && !e.contains(v)
    {
        return Err(format!("{at}: {v} is not one of {e:?}"));
    }
    if let Some(c) = s.get("const")
        && c != v
    {
        return Err(format!("{at}: {v} is not {c}"));
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(alts)) = s.get(key) {
            let errs: Vec<String> = alts
                .iter()
                .filter_map(|a| fits(v, a, root, at).err())
                .collect();
            if errs.len() == alts.len() {
                return Err(format!(
                    "{at}: no alternative of {key} fits ({})",
                    errs.join("; ")
                ));
            }
        }
    }
    if let Some(Value::Array(all)) = s.get("allOf") {
        for a in all {
            fits(v, a, root, at)?;
        }
    }
    if let Value::Object(m) = v {
        let props = s.get("properties").and_then(Value::as_object);
        if let Some(Value::Array(req)) = s.get("required") {
            for r in req.iter().filter_map(Value::as_str) {
                if !m.contains_key(r) {
                    return Err(format!("{at}: required {r:?} is missing"));
                }
            }
        }
        for (k, x) in m {
            match props.and_then(|p| p.get(k)) {
                Some(ps) => fits(x, ps, root, &format!("{at}.{k}"))?,
                None => match s.get("additionalProperties") {
                    Some(Value::Bool(false)) => {
                        return Err(format!("{at}: {k:?} is not a property of the schema"));
                    }
                    Some(extra @ Value::Object(_)) => fits(x, extra, root, &format!("{at}.{k}"))?,
                    _ => {}
                },
            }
        }
    }
    if let Value::Array(items) = v {
        let prefix = s.get("prefixItems").and_then(Value::as_array);
        for (i, x) in items.iter().enumerate() {
            let at = format!("{at}[{i}]");
            match prefix.and_then(|p| p.get(i)) {
                Some(ps) => fits(x, ps, root, &at)?,
                None => {
                    if let Some(is) = s.get("items") {
                        fits(x, is, root, &at)?;
                    }
                }
            }
        }
    }
    Ok(())
}

#[test]
fn the_schema_check_refuses_an_answer_outside_its_schema() {
    let schema = am_ops::find("tasks.counts")
        .unwrap()
        .answer_schema()
        .to_value();
    let good =
        serde_json::json!({"total": 1, "live": 1, "by_status": {"pending": 1}, "by_kind": {}});
    assert_eq!(fits(&good, &schema, &schema, "ok"), Ok(()));
    let bad = serde_json::json!({"total": "one", "live": 1, "by_status": {}, "by_kind": {}});
    assert!(fits(&bad, &schema, &schema, "ok").is_err());
    let schema = am_ops::find("remember_many")
        .unwrap()
        .answer_schema()
        .to_value();
    assert!(fits(&serde_json::json!([1]), &schema, &schema, "ok").is_err());
}

/// Issue 37: a host driving `am exec` finds what `am recall` finds when it
/// asks for the same profile, per line (`"profile": "hybrid"`) or for the
/// session (`--profile hybrid`); the op's default stays the spec's.
#[test]
fn a_reconstruct_line_naming_the_hybrid_profile_finds_what_am_recall_finds() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("chat.sqlite3");
    let h = home.to_str().unwrap();
    let conv = common::demo_conversation();
    let out = common::am(&[
        "ingest",
        "--home",
        h,
        "--format",
        "jsonl",
        "--scope",
        "life:me",
        conv.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let cue = "when is the first planting due?";
    let recall = common::am(&["--json", "recall", "--home", h, "--scope", "life:me", cue]);
    assert_eq!(recall.code, 0, "{}", recall.stderr);
    let ids = |v: &serde_json::Value| -> Vec<String> {
        v["handles"]
            .as_array()
            .expect("handles")
            .iter()
            .map(|x| x["record_id"].as_str().unwrap().to_owned())
            .collect()
    };
    let recalled =
        ids(&serde_json::from_str::<serde_json::Value>(&recall.stdout).unwrap()["reconstruction"]);
    assert!(recalled.len() >= 5, "{}", recall.stdout);
    let line = |profile: Option<&str>| {
        let mut l = serde_json::json!({"op": "reconstruct", "stimulus": {"cue_text": cue},
                                       "scopes": [["life", "me"]], "journal": false});
        if let Some(p) = profile {
            l["profile"] = serde_json::json!(p);
        }
        l.to_string() + "\n"
    };
    let run = |extra: &[&str], script: &str| -> Vec<Vec<String>> {
        let mut args = vec!["exec", "--home", h];
        args.extend_from_slice(extra);
        args.push("-");
        let out = common::am_with_input(&args, script);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stdout
            .lines()
            .map(|l| ids(&serde_json::from_str::<serde_json::Value>(l).unwrap()["ok"]))
            .collect()
    };
    let per_line = run(
        &[],
        &(line(Some("hybrid")) + &line(None) + &line(Some("spec"))),
    );
    assert_eq!(
        per_line[0], recalled,
        "a hybrid line finds what am recall finds"
    );
    assert_ne!(
        per_line[1], recalled,
        "the op's default is the spec's profile"
    );
    assert_eq!(per_line[2], per_line[1], "profile spec is the default");
    let session = run(
        &["--profile", "hybrid"],
        &(line(None) + &line(Some("spec"))),
    );
    assert_eq!(
        session[0], recalled,
        "--profile hybrid is the session's profile"
    );
    assert_eq!(session[1], per_line[1], "a line's own profile wins");
}

#[test]
fn exec_answers_each_line_before_reading_the_next() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_am"))
        .args(["exec", "--memory", "--clock", "2026-01-01T00:00:00Z"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    // The host waits for the first answer before deciding the second line.
    writeln!(stdin, r#"{{"id": 1, "op": "clock", "advance_s": 1}}"#).unwrap();
    stdin.flush().unwrap();
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    let now = serde_json::from_str::<serde_json::Value>(&first).unwrap()["ok"]["now"].clone();
    assert_eq!(now, "2026-01-01T00:00:01.000000+00:00");
    writeln!(stdin, r#"{{"id": 2, "op": "seq_at", "iso_ts": {now}}}"#).unwrap();
    drop(stdin);
    let mut second = String::new();
    stdout.read_line(&mut second).unwrap();
    assert_eq!(second.trim(), r#"{"id":2,"op":"seq_at","ok":0}"#);
    assert!(child.wait().unwrap().success());
}

#[test]
fn the_pending_loop_answers_alike_on_the_in_memory_pair_and_the_sqlite_home() {
    let script = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/exec/pending.jsonl"),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home.sqlite3");
    let run = |stack: &[&str]| {
        // Both stacks without an embedder (a SQLite home defaults to the
        // offline one; the in-memory pair to none).
        let mut args = vec![
            "exec",
            "--clock",
            "2026-01-01T00:00:00Z",
            "--task-queue",
            "--embedder",
            "none",
        ];
        args.extend_from_slice(stack);
        args.push("-");
        let out = common::am_with_input(&args, &script);
        assert_eq!(out.code, 0, "{stack:?}: {}", out.stderr);
        out.stdout
    };
    let memory = run(&["--memory"]);
    let sqlite = run(&["--home", home.to_str().unwrap()]);
    assert!(
        memory.contains(r#""op":"declare_pending","ok":{"applied":true"#),
        "{memory}"
    );
    assert_eq!(
        memory, sqlite,
        "the two stacks answer alike through am exec"
    );
}
