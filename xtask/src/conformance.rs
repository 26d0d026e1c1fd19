//! `cargo xtask conformance [--backend NAME]`: run every conformance binary of the
//! workspace (the test targets named `conformance` or `*_conformance`, each a
//! libtest-mimic binary calling `am_conformance` that tags its trials with its
//! backend) and print one line per check and backend:
//! `memory  stores::limit_zero_is_unbounded  ok`, then one line per backend
//! (`lance  51  0`: checks, failed). The binaries are built in one workspace-wide
//! `cargo test --no-run`, then run one by one from their crate's directory;
//! `--backend NAME` (`memory`, `sqlite`, `lance`, `postgres`) runs only that backend's.

use crate::workspace::{Workspace, cargo};
use anyhow::{Context, Result, bail};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The backend each crate's conformance binaries test (the `[kind]` their trials
/// carry); any other crate with a conformance binary is listed under its name.
const BACKENDS: &[(&str, &str)] = &[
    ("am-triples", "memory"),
    ("am-journal", "memory"),
    ("am-graph", "memory"),
    ("am-backend-sqlite", "sqlite"),
    ("am-backend-lance", "lance"),
    ("am-backend-postgres", "postgres"),
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

/// One built conformance binary: its crate, backend and executable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binary {
    /// The crate it belongs to (`am-backend-lance`).
    pub krate: String,
    /// The backend its trials are tagged with (`lance`).
    pub backend: String,
    /// The test target's name (`conformance`, `graph_conformance`).
    pub target: String,
    /// The built executable.
    pub executable: PathBuf,
    /// The crate's directory (the binary runs there, as `cargo test` runs it).
    pub dir: PathBuf,
}

/// The conformance binaries a `cargo test --no-run --message-format=json` run
/// reported (`compiler-artifact` messages of test targets with an executable),
/// matched to the workspace's crates by manifest directory.
pub fn binaries_from_messages(stdout: &str, ws: &Workspace) -> Vec<Binary> {
    let mut out = Vec::new();
    for line in stdout.lines() {
        let Ok(msg) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if msg["reason"] != "compiler-artifact" {
            continue;
        }
        let (Some(target), Some(exe), Some(manifest)) = (
            msg["target"]["name"].as_str(),
            msg["executable"].as_str(),
            msg["manifest_path"].as_str(),
        ) else {
            continue;
        };
        let is_test_target = msg["target"]["kind"]
            .as_array()
            .is_some_and(|k| k.iter().any(|k| k == "test"));
        if !is_test_target || !is_conformance(target) {
            continue;
        }
        let manifest_dir = Path::new(manifest).parent().unwrap_or(Path::new(""));
        let Some(p) = ws.packages.iter().find(|p| p.dir == manifest_dir) else {
            continue;
        };
        out.push(Binary {
            krate: p.name.clone(),
            backend: backend_name(&p.name),
            target: target.to_owned(),
            executable: PathBuf::from(exe),
            dir: p.dir.clone(),
        });
    }
    out.sort_by(|a, b| (&a.krate, &a.target).cmp(&(&b.krate, &b.target)));
    out.dedup();
    out
}

/// Checks and failures per backend, in first-seen order.
pub fn per_backend(lines: &[Line]) -> Vec<(String, usize, usize)> {
    let mut out: Vec<(String, usize, usize)> = Vec::new();
    for l in lines {
        let kind = l.kind.clone().unwrap_or_else(|| "?".to_owned());
        let failed = usize::from(l.outcome != "ok");
        match out.iter_mut().find(|(k, _, _)| *k == kind) {
            Some(entry) => {
                entry.1 += 1;
                entry.2 += failed;
            }
            None => out.push((kind, 1, failed)),
        }
    }
    out
}

/// Run the task.
///
/// Every backend with a conformance binary in the workspace runs by default
/// (memory, sqlite and, on a branch that has it, lance: `cargo test --workspace`
/// builds the LanceDB binary anyway, and its 51 checks run in about 2 s).
/// `--backend NAME` runs only that backend's binaries.
///
/// # Errors
/// Bad arguments, an unknown backend, a failed build, or any failing check.
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
    // One workspace-wide build: the binaries build with the same selection and
    // features as `cargo xtask test` (nothing recompiles after it); then only
    // the wanted backend's binaries run.
    let mut cmd = cargo();
    cmd.args([
        "test",
        "--workspace",
        "--features",
        crate::oracle::TEST_FEATURES,
        "--no-run",
        "--message-format",
        "json-render-diagnostics",
    ]);
    for t in &targets {
        cmd.args(["--test", t]);
    }
    let built = cmd
        .current_dir(&ws.root)
        .stderr(Stdio::inherit())
        .output()
        .context("building the conformance binaries")?;
    if !built.status.success() {
        bail!(
            "building the conformance binaries failed ({})",
            built.status
        );
    }
    let binaries: Vec<Binary> =
        binaries_from_messages(&String::from_utf8_lossy(&built.stdout), &ws)
            .into_iter()
            .filter(|b| wanted.as_ref().is_none_or(|w| &b.backend == w))
            .collect();
    if binaries.is_empty() {
        bail!("cargo built no conformance binary for {wanted:?}");
    }
    let mut lines: Vec<Line> = Vec::new();
    let mut transcripts = String::new();
    let mut crashed = Vec::new();
    for b in &binaries {
        eprintln!("== {} {} ({})", b.krate, b.target, b.backend);
        let out = Command::new(&b.executable)
            .args(["--color", "never", "--test-threads", "2"])
            .current_dir(&b.dir)
            .env("CARGO_MANIFEST_DIR", &b.dir)
            .env("CARGO_PKG_NAME", &b.krate)
            .stderr(Stdio::inherit())
            .output()
            .with_context(|| format!("running {}", b.executable.display()))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let mine: Vec<Line> = stdout
            .lines()
            .filter_map(parse_line)
            .filter(|l| {
                wanted
                    .as_ref()
                    .is_none_or(|w| l.kind.as_deref() == Some(w.as_str()))
            })
            .collect();
        if !out.status.success() || mine.iter().any(|l| l.outcome != "ok") {
            transcripts.push_str(&stdout);
        }
        if !out.status.success() {
            crashed.push(format!("{} {} ({})", b.krate, b.target, out.status));
        }
        lines.extend(mine);
    }
    for l in &lines {
        let kind = l.kind.as_deref().unwrap_or("?");
        println!("{kind:<10} {:<80} {}", l.name, l.outcome);
    }
    println!();
    println!("{:<10} {:>6} {:>6}", "backend", "checks", "failed");
    for (backend, checks, failed) in per_backend(&lines) {
        println!("{backend:<10} {checks:>6} {failed:>6}");
    }
    let failed = lines.iter().filter(|l| l.outcome != "ok").count();
    println!("conformance: {} checks, {failed} failed", lines.len());
    if failed > 0 || lines.is_empty() || !crashed.is_empty() {
        // The failures' details, as libtest-mimic reported them.
        println!("{transcripts}");
        if lines.is_empty() {
            bail!("no conformance check ran");
        }
        if failed > 0 {
            bail!("{failed} conformance checks failed");
        }
        bail!("a conformance binary failed: {}", crashed.join(", "));
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

    fn ws() -> Workspace {
        let pkg = |name: &str, dir: &str| crate::workspace::Package {
            name: name.into(),
            dir: PathBuf::from(dir),
            deps: Vec::new(),
            tests: vec!["conformance".into()],
        };
        Workspace {
            root: PathBuf::from("/ws"),
            packages: vec![
                pkg("am-backend-lance", "/ws/crates/am-backend-lance"),
                pkg("am-backend-sqlite", "/ws/crates/am-backend-sqlite"),
            ],
        }
    }

    fn artifact(manifest: &str, target: &str, kind: &str, exe: Option<&str>) -> String {
        serde_json::json!({
            "reason": "compiler-artifact",
            "manifest_path": manifest,
            "target": { "name": target, "kind": [kind] },
            "executable": exe,
        })
        .to_string()
    }

    #[test]
    fn built_conformance_binaries_are_matched_to_their_crate_and_backend() {
        let stdout = [
            artifact(
                "/ws/crates/am-backend-lance/Cargo.toml",
                "conformance",
                "test",
                Some("/t/debug/deps/conformance-1"),
            ),
            artifact(
                "/ws/crates/am-backend-sqlite/Cargo.toml",
                "graph_conformance",
                "test",
                Some("/t/debug/deps/graph_conformance-2"),
            ),
            // Not conformance binaries: a library, another test, no executable.
            artifact(
                "/ws/crates/am-backend-sqlite/Cargo.toml",
                "am_backend_sqlite",
                "lib",
                None,
            ),
            artifact(
                "/ws/crates/am-backend-lance/Cargo.toml",
                "store",
                "test",
                Some("/t/x"),
            ),
            artifact(
                "/ws/crates/am-backend-lance/Cargo.toml",
                "conformance",
                "test",
                None,
            ),
            // A dependency outside the workspace, a build message, noise.
            artifact("/reg/other/Cargo.toml", "conformance", "test", Some("/t/y")),
            r#"{"reason":"build-finished","success":true}"#.to_owned(),
            "not json".to_owned(),
        ]
        .join("\n");
        let got = binaries_from_messages(&stdout, &ws());
        assert_eq!(
            got.iter()
                .map(|b| (b.krate.as_str(), b.backend.as_str(), b.target.as_str()))
                .collect::<Vec<_>>(),
            [
                ("am-backend-lance", "lance", "conformance"),
                ("am-backend-sqlite", "sqlite", "graph_conformance"),
            ]
        );
        assert_eq!(
            got[0].executable,
            PathBuf::from("/t/debug/deps/conformance-1")
        );
        assert_eq!(got[0].dir, PathBuf::from("/ws/crates/am-backend-lance"));
    }

    #[test]
    fn the_summary_counts_checks_and_failures_per_backend() {
        let lines: Vec<Line> = [
            "test [sqlite] stores::a ... ok",
            "test [lance] stores::a ... ok",
            "test [lance] stores::b ... FAILED",
            "test [sqlite] vectors::c ... ok",
            "test untagged ... ok",
        ]
        .iter()
        .filter_map(|l| parse_line(l))
        .collect();
        assert_eq!(
            per_backend(&lines),
            [
                ("sqlite".to_owned(), 2, 0),
                ("lance".to_owned(), 2, 1),
                ("?".to_owned(), 1, 0),
            ]
        );
    }
}
