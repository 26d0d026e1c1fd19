//! `cargo xtask tidy`: repository rules checked as an ordinary test.
//!
//! - Dependencies point down only: am-triples <- am-journal <- am-graph <-
//!   am-system; backends and embedders never depend on am-system (or on each
//!   other); am-system and the verb table (am-ops) name no backend and no
//!   embedder; nothing but am-cli,
//!   xtask and tests (dev-dependencies) depends on every crate.
//! - Every crate opts into the workspace lints (`[lints] workspace = true`).
//! - Every `.rs` file starts with a `//!` doc line saying what it owns.
//! - No module cycle of any length in any crate, and am-system's faculties
//!   keep their declared DAG (`tidy/modules.rs`).

mod modules;

use crate::workspace::{Package, Workspace};
use anyhow::{Result, bail};
use modules::rust_files;
pub use modules::{cycle_problems, faculty_problems};

/// The layer of each library crate: a normal dependency must have a lower layer.
/// Backends and the conformance suite share one layer, so none depends on another.
const LAYERS: &[(&str, u8)] = &[
    ("am-triples", 0),
    ("am-journal", 1),
    ("am-embed", 1),
    ("am-graph", 2),
    ("am-backend-sqlite", 3),
    ("am-backend-lance", 3),
    ("am-backend-postgres", 3),
    ("am-conformance", 3),
    ("am-system", 4),
    ("am-ops", 5),
    ("am-cli", 6),
    // The Python package: a front end beside am-cli (it opens homes itself).
    ("am-py", 6),
];

/// Crates `am-system` and the verb table (`am-ops`) must never name: they
/// take stores, journals and embedders as trait objects (a front end opens
/// the home).
const NOT_FOR_SYSTEM: &[&str] = &[
    "am-backend-sqlite",
    "am-backend-lance",
    "am-backend-postgres",
    "am-embed",
];

/// Crates allowed to depend on every other library crate.
const MAY_DEPEND_ON_ALL: &[&str] = &["am-cli", "xtask"];

fn layer(name: &str) -> Option<u8> {
    LAYERS.iter().find(|(n, _)| *n == name).map(|(_, l)| *l)
}

/// Layering violations among the packages' normal dependencies.
pub fn layering_problems(packages: &[Package]) -> Vec<String> {
    let mut problems = Vec::new();
    let libraries: Vec<&str> = packages
        .iter()
        .map(|p| p.name.as_str())
        .filter(|n| layer(n).is_some() && *n != "am-cli")
        .collect();
    for p in packages {
        let normal: Vec<&str> = p
            .deps
            .iter()
            .filter(|d| d.kind.is_none())
            .map(|d| d.name.as_str())
            .collect();
        if let Some(own) = layer(&p.name) {
            for d in &normal {
                match layer(d) {
                    Some(l) if l >= own => problems.push(format!(
                        "{} (layer {own}) depends on {d} (layer {l}): dependencies must point down",
                        p.name
                    )),
                    None => problems.push(format!(
                        "{} depends on {d}, which has no layer in xtask/src/tidy.rs",
                        p.name
                    )),
                    _ => {}
                }
            }
        } else if p.name != "xtask" {
            problems.push(format!(
                "{} has no layer: add it to LAYERS in xtask/src/tidy.rs",
                p.name
            ));
        }
        if p.name == "am-system" || p.name == "am-ops" {
            for d in normal.iter().filter(|d| NOT_FOR_SYSTEM.contains(d)) {
                problems.push(format!(
                    "{} depends on {d}: it must name no backend or embedder",
                    p.name
                ));
            }
        }
        let others: Vec<&&str> = libraries.iter().filter(|l| **l != p.name).collect();
        if !MAY_DEPEND_ON_ALL.contains(&p.name.as_str())
            && others.len() > 1
            && others.iter().all(|l| normal.contains(l))
        {
            problems.push(format!(
                "{} depends on every library crate: only am-cli, xtask and tests may",
                p.name
            ));
        }
    }
    problems
}

/// Packages whose `Cargo.toml` does not opt into the workspace lints.
pub fn lint_problems(packages: &[Package]) -> Vec<String> {
    packages
        .iter()
        .filter_map(|p| {
            let manifest = std::fs::read_to_string(p.dir.join("Cargo.toml")).unwrap_or_default();
            let opted = manifest
                .split("[lints]")
                .nth(1)
                .is_some_and(|rest| rest.trim_start().starts_with("workspace = true"));
            (!opted).then(|| format!("{}: Cargo.toml lacks `[lints] workspace = true`", p.name))
        })
        .collect()
}

/// `.rs` files under the packages' directories whose first line is not a `//!` doc.
pub fn doc_problems(ws: &Workspace) -> Vec<String> {
    let mut files = Vec::new();
    for p in &ws.packages {
        rust_files(&p.dir, &mut files);
    }
    files.sort();
    files.dedup();
    files
        .into_iter()
        .filter(|f| {
            let text = std::fs::read_to_string(f).unwrap_or_default();
            !text.trim_start_matches('\u{feff}').starts_with("//!")
        })
        .map(|f| {
            let shown = f.strip_prefix(&ws.root).unwrap_or(&f).display().to_string();
            format!("{shown}: does not start with a `//!` doc line")
        })
        .collect()
}

/// The words the recall pipeline never names: valence never touches
/// retrieval (memory-system.md "Valence: how experience felt"), so no file of
/// `am-system/src/recall/reconstruct/` may refer to the valence code or its family.
const RECALL_NEVER_NAMES: &[&str] = &["valence", "gradation", "feelings"];

/// Files of the recall pipeline that name the valence code.
pub fn valence_problems(ws: &Workspace) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(
        &ws.root.join("crates/am-system/src/recall/reconstruct"),
        &mut files,
    );
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f)
            .unwrap_or_default()
            .to_lowercase();
        for word in RECALL_NEVER_NAMES.iter().filter(|w| text.contains(**w)) {
            let shown = f.strip_prefix(&ws.root).unwrap_or(&f).display().to_string();
            out.push(format!(
                "{shown}: the recall pipeline names {word:?}; valence never touches retrieval"
            ));
        }
    }
    out
}

/// Every tidy problem of the workspace.
///
/// # Errors
/// When the workspace cannot be read.
pub fn problems() -> Result<Vec<String>> {
    let ws = Workspace::load()?;
    let mut all = layering_problems(&ws.packages);
    all.extend(lint_problems(&ws.packages));
    all.extend(doc_problems(&ws));
    all.extend(valence_problems(&ws));
    all.extend(cycle_problems(&ws));
    all.extend(faculty_problems(&ws));
    Ok(all)
}

/// Run the task: print every problem, fail when there is one.
///
/// # Errors
/// When there is a problem.
pub fn run() -> Result<()> {
    let problems = problems()?;
    for p in &problems {
        println!("tidy: {p}");
    }
    if !problems.is_empty() {
        bail!("tidy found {} problems", problems.len());
    }
    println!("tidy: ok");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::Dep;
    use std::path::PathBuf;

    fn pkg(name: &str, deps: &[(&str, Option<&str>)]) -> Package {
        Package {
            name: name.into(),
            dir: PathBuf::new(),
            deps: deps
                .iter()
                .map(|(n, k)| Dep {
                    name: (*n).into(),
                    kind: k.map(str::to_owned),
                })
                .collect(),
            tests: Vec::new(),
        }
    }

    #[test]
    fn tidy() {
        let problems = problems().unwrap();
        assert!(
            problems.is_empty(),
            "tidy problems:\n{}",
            problems.join("\n")
        );
    }

    #[test]
    fn a_recall_module_naming_valence_is_a_problem() {
        let root = std::env::temp_dir().join(format!("am-tidy-valence-{}", std::process::id()));
        let dir = root.join("crates/am-system/src/recall/reconstruct");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("clean.rs"), "//! Clean.\nfn f() {}\n").unwrap();
        let ws = Workspace {
            root: root.clone(),
            packages: Vec::new(),
        };
        assert!(valence_problems(&ws).is_empty());
        std::fs::write(
            dir.join("leak.rs"),
            "//! Leak.\nuse crate::valence::Gradation;\n",
        )
        .unwrap();
        let found = valence_problems(&ws);
        std::fs::remove_dir_all(&root).unwrap();
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].contains("leak.rs"), "{found:?}");
    }

    #[test]
    fn upward_dependencies_are_reported_and_dev_dependencies_are_not() {
        let ps = [
            pkg("am-triples", &[("am-conformance", Some("dev"))]),
            pkg("am-journal", &[("am-graph", None)]),
            pkg("am-graph", &[]),
            pkg("am-backend-sqlite", &[("am-system", None)]),
            pkg("am-system", &[("am-backend-sqlite", None)]),
            pkg("am-ops", &[("am-embed", None)]),
        ];
        let p = layering_problems(&ps);
        assert!(
            p.iter()
                .any(|m| m.starts_with("am-journal (layer 1) depends on am-graph")),
            "{p:?}"
        );
        assert!(
            p.iter()
                .any(|m| m.starts_with("am-backend-sqlite (layer 3) depends on am-system")),
            "{p:?}"
        );
        assert!(
            p.iter()
                .any(|m| m.starts_with("am-system depends on am-backend-sqlite")),
            "{p:?}"
        );
        assert!(
            p.iter()
                .any(|m| m.starts_with("am-ops depends on am-embed")),
            "the verb table names no embedder: {p:?}"
        );
        assert!(!p.iter().any(|m| m.starts_with("am-triples")), "{p:?}");
    }

    #[test]
    fn only_the_cli_may_depend_on_every_crate() {
        let libs = ["am-triples", "am-journal", "am-graph"];
        let all: Vec<(&str, Option<&str>)> = libs.iter().map(|l| (*l, None)).collect();
        let mut ps: Vec<Package> = libs.iter().map(|l| pkg(l, &[])).collect();
        ps.push(pkg("am-cli", &all));
        ps.push(pkg("am-system", &all));
        let p = layering_problems(&ps);
        assert!(
            p.iter()
                .any(|m| m.starts_with("am-system depends on every library crate")),
            "{p:?}"
        );
        assert!(!p.iter().any(|m| m.starts_with("am-cli")), "{p:?}");
    }
}
