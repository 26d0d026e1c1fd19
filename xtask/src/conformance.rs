//! `cargo xtask conformance [--backend NAME]`: run every conformance binary of the
//! workspace (the test targets named `conformance` or `*_conformance`, each a
//! libtest-mimic binary calling `am_conformance`) and print one line per check and
//! backend: `memory  stores::limit_zero_is_unbounded  ok`.

use crate::workspace::{Workspace, cargo};
use anyhow::{Context, Result, bail};
use std::process::Stdio;

/// The backend each crate's conformance binaries test; any other crate with a
/// conformance binary is listed under its crate name.
const BACKENDS: &[(&str, &str)] = &[
    ("am-triples", "memory"),
    ("am-journal", "memory"),
    ("am-graph", "memory"),
    ("am-backend-sqlite", "sqlite"),
    ("am-backend-lance", "lance"),
];

fn backend_name(krate: &str) -> String {
    BACKENDS
        .iter()
        .find(|(c, _)| *c == krate)
        .map_or_else(|| krate.to_owned(), |(_, b)| (*b).to_owned())
}

/// Whether a test target is a conformance binary (`conformance`, `*_conformance`).
fn is_conformance(target: &str) -> bool {
    target == "conformance" || target.ends_with("_conformance")
}

/// One parsed result line of a libtest-mimic run.
#[derive(Debug, PartialEq, Eq)]
pub struct Line {
    /// The `[kind]` tag, the backend the binary tests.
    pub kind: Option<String>,
    /// `group::check`.
    pub name: String,
    /// `ok`, `FAILED` or `ignored`.
    pub outcome: String,
}

/// Parse `test [memory] stores::x ... ok` (the kind is optional).
pub fn parse_line(line: &str) -> Option<Line> {
    let rest = line.strip_prefix("test ")?;
    let (head, outcome) = rest.rsplit_once(" ... ")?;
    let head = head.trim();
    let (kind, name) = match head.strip_prefix('[') {
        Some(tagged) => {
            let (kind, name) = tagged.split_once(']')?;
            (Some(kind.to_owned()), name.trim().to_owned())
        }
        None => (None, head.to_owned()),
    };
    Some(Line {
        kind,
        name,
        outcome: outcome.trim().to_owned(),
    })
}

/// Run the task.
///
/// # Errors
/// Bad arguments, an unknown backend, or any failing check.
pub fn run(args: &[String]) -> Result<()> {
    let wanted = match args {
        [] => None,
        [flag, name] if flag == "--backend" => Some(name.clone()),
        [flag] if flag.starts_with("--backend=") => {
            Some(flag.trim_start_matches("--backend=").to_owned())
        }
        other => bail!("expected [--backend NAME], got {other:?}"),
    };
    let ws = Workspace::load()?;
    // (backend, crate, test target)
    let runnable: Vec<(String, String, String)> = ws
        .packages
        .iter()
        .flat_map(|p| {
            p.tests
                .iter()
                .filter(|t| is_conformance(t))
                .map(|t| (backend_name(&p.name), p.name.clone(), t.clone()))
        })
        .collect();
    let selected: Vec<&(String, String, String)> = runnable
        .iter()
        .filter(|(b, c, _)| wanted.as_ref().is_none_or(|w| w == b || w == c))
        .collect();
    if selected.is_empty() {
        let mut known: Vec<&str> = runnable.iter().map(|(b, _, _)| b.as_str()).collect();
        known.sort_unstable();
        known.dedup();
        bail!(
            "no conformance suite for backend {:?}; backends with one: {}",
            wanted.unwrap_or_default(),
            known.join(", ")
        );
    }
    let mut failed = 0usize;
    let mut total = 0usize;
    for (backend, krate, target) in selected {
        let out = cargo()
            .args(["test", "-p", krate, "--test", target, "--"])
            .args(["--color", "never", "--test-threads", "2"])
            .current_dir(&ws.root)
            .stderr(Stdio::inherit())
            .output()
            .with_context(|| format!("running {krate}'s {target}"))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let lines: Vec<Line> = stdout.lines().filter_map(parse_line).collect();
        for l in &lines {
            let kind = l.kind.as_deref().unwrap_or(backend);
            println!("{kind:<10} {:<80} {}", l.name, l.outcome);
        }
        total += lines.len();
        failed += lines.iter().filter(|l| l.outcome != "ok").count();
        if !out.status.success() {
            // Print the failures' details as libtest-mimic reported them.
            println!("{stdout}");
            if lines.iter().all(|l| l.outcome == "ok") {
                failed += 1;
                println!(
                    "{backend}: the conformance binary of {krate} failed ({})",
                    out.status
                );
            }
        }
    }
    println!("conformance: {total} checks, {failed} failed");
    if failed > 0 {
        bail!("{failed} conformance checks failed");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_tagged_and_untagged_lines() {
        assert_eq!(
            parse_line("test [memory] stores::limit_zero_is_unbounded          ... ok"),
            Some(Line {
                kind: Some("memory".into()),
                name: "stores::limit_zero_is_unbounded".into(),
                outcome: "ok".into()
            })
        );
        assert_eq!(
            parse_line("test vectors::x ... FAILED").map(|l| (l.kind, l.outcome)),
            Some((None, "FAILED".into()))
        );
        assert_eq!(parse_line("running 58 tests"), None);
    }
}
