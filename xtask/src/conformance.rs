//! `cargo xtask conformance [--backend NAME]`: run every conformance binary of the
//! workspace (the test targets named `conformance` or `*_conformance`, each a
//! libtest-mimic binary calling `am_conformance` that tags its trials with its
//! backend) and print one line per check and backend:
//! `memory  stores::limit_zero_is_unbounded  ok`. `--backend` keeps one backend's
//! lines (and failures).

use crate::workspace::{Workspace, cargo};
use anyhow::{Context, Result, bail};
use std::process::Stdio;

/// The backend each crate's conformance binaries test (the `[kind]` their trials
/// carry); any other crate with a conformance binary is listed under its name.
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
    let mut targets: Vec<String> = Vec::new();
    let mut known: Vec<String> = Vec::new();
    for p in &ws.packages {
        for t in p.tests.iter().filter(|t| is_conformance(t)) {
            targets.push(t.clone());
            known.push(backend_name(&p.name));
        }
    }
    targets.sort_unstable();
    targets.dedup();
    known.sort_unstable();
    known.dedup();
    if let Some(w) = &wanted
        && !known.contains(w)
    {
        bail!(
            "no conformance suite for backend {w:?}; backends with one: {}",
            known.join(", ")
        );
    }
    // One workspace-wide invocation: the binaries build with the same features as
    // `cargo test --workspace` (nothing recompiles after `cargo xtask test`), and
    // each binary tags its trials with its backend, which selects the lines.
    let mut cmd = cargo();
    cmd.args(["test", "--workspace", "--no-fail-fast"]);
    for t in &targets {
        cmd.args(["--test", t]);
    }
    let out = cmd
        .args(["--", "--color", "never", "--test-threads", "2"])
        .current_dir(&ws.root)
        .stderr(Stdio::inherit())
        .output()
        .context("running the conformance binaries")?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<Line> = stdout
        .lines()
        .filter_map(parse_line)
        .filter(|l| {
            wanted
                .as_ref()
                .is_none_or(|w| l.kind.as_deref() == Some(w.as_str()))
        })
        .collect();
    for l in &lines {
        let kind = l.kind.as_deref().unwrap_or("?");
        println!("{kind:<10} {:<80} {}", l.name, l.outcome);
    }
    let failed = lines.iter().filter(|l| l.outcome != "ok").count();
    println!("conformance: {} checks, {failed} failed", lines.len());
    if failed > 0 || lines.is_empty() {
        // The failures' details, as libtest-mimic reported them.
        println!("{stdout}");
        if lines.is_empty() {
            bail!("no conformance check ran ({})", out.status);
        }
        bail!("{failed} conformance checks failed");
    }
    if !out.status.success() && wanted.is_none() {
        println!("{stdout}");
        bail!("a conformance binary failed ({})", out.status);
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
