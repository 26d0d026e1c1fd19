//! `cargo xtask tidy`: repository rules checked as an ordinary test.
//!
//! - Dependencies point down only: am-triples <- am-journal <- am-graph <-
//!   am-system; backends and embedders never depend on am-system (or on each
//!   other); am-system and the verb table (am-ops) name no backend and no
//!   embedder; nothing but am-cli,
//!   xtask and tests (dev-dependencies) depends on every crate.
//! - Every crate opts into the workspace lints (`[lints] workspace = true`).
//! - Every `.rs` file starts with a `//!` doc line saying what it owns.
//! - No two sibling modules of a crate use each other's items (a module
//!   cycle): what both need moves down, or to a small module of its own.

use crate::workspace::{Package, Workspace};
use anyhow::{Result, bail};
use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

/// The layer of each library crate: a normal dependency must have a lower layer.
/// Backends and the conformance suite share one layer, so none depends on another.
const LAYERS: &[(&str, u8)] = &[
    ("am-triples", 0),
    ("am-journal", 1),
    ("am-embed", 1),
    ("am-graph", 2),
    ("am-backend-sqlite", 3),
    ("am-backend-lance", 3),
    ("am-conformance", 3),
    ("am-system", 4),
    ("am-ops", 5),
    ("am-cli", 6),
];

/// Crates `am-system` and the verb table (`am-ops`) must never name: they
/// take stores, journals and embedders as trait objects (a front end opens
/// the home).
const NOT_FOR_SYSTEM: &[&str] = &["am-backend-sqlite", "am-backend-lance", "am-embed"];

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

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let name = e.file_name();
        let name = name.to_string_lossy();
        if path.is_dir() {
            if !(name.starts_with('.') || name == "target") {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
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
/// `am-system/src/reconstruct/` may refer to the valence code or its family.
const RECALL_NEVER_NAMES: &[&str] = &["valence", "gradation", "feelings"];

/// Files of the recall pipeline that name the valence code.
pub fn valence_problems(ws: &Workspace) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(
        &ws.root.join("crates/am-system/src/reconstruct"),
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

/// A module's path inside its crate from its file under `src` (`a/mod.rs`
/// and `a.rs` are `a`; `lib.rs` and `main.rs` are the root, `[]`).
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap_or(file).with_extension("");
    let mut segs: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if segs.len() == 1 && (segs[0] == "lib" || segs[0] == "main")
        || segs.last().is_some_and(|l| l == "mod")
    {
        segs.pop();
    }
    segs
}

/// `a::{b, c::{d, e}}` as `[a::b, a::c::d, a::c::e]` (white space removed).
fn flatten_use(tree: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let (mut depth, mut cur) = (0usize, String::new());
    for ch in tree.chars() {
        match ch {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    parts.push(cur);
    let mut out = Vec::new();
    for part in parts.into_iter().filter(|p| !p.is_empty()) {
        match (part.find('{'), part.rfind('}')) {
            (Some(open), Some(close)) if open < close => {
                let head = &part[..open];
                for inner in flatten_use(&part[open + 1..close]) {
                    out.push(format!("{head}{inner}"));
                }
            }
            _ => out.push(part),
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Every `crate::` / `super::` / `self::` path a file names, outside its
/// comments and its `#[cfg(test)] mod tests`: the flattened `use` trees and
/// the paths written inline.
fn named_paths(text: &str) -> Vec<String> {
    let code: String = text
        .lines()
        .map(|l| l.find("//").map_or(l, |i| &l[..i]))
        .collect::<Vec<_>>()
        .join("\n");
    let code = match code.find("#[cfg(test)]") {
        Some(i) if code[i + 12..].trim_start().starts_with("mod tests") => &code[..i],
        _ => &code[..],
    };
    let starts = |i: usize| i == 0 || !code[..i].chars().next_back().is_some_and(is_ident);
    let mut out = Vec::new();
    for (i, _) in code.match_indices("use ").filter(|(i, _)| starts(*i)) {
        if let Some(end) = code[i..].find(';') {
            let tree: String = code[i + 4..i + end]
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            out.extend(flatten_use(&tree));
        }
    }
    for lead in ["crate::", "super::", "self::"] {
        for (i, _) in code.match_indices(lead).filter(|(i, _)| starts(*i)) {
            let len = code[i..]
                .find(|c: char| !(is_ident(c) || c == ':'))
                .unwrap_or(code.len() - i);
            out.push(code[i..i + len].trim_end_matches(':').to_owned());
        }
    }
    out
}

/// The module of `modules` a path named in module `m` reaches (the longest
/// module prefix of the path), when it is a module other than `m`.
fn target<'a>(
    m: &[String],
    path: &str,
    modules: &'a BTreeSet<Vec<String>>,
) -> Option<&'a Vec<String>> {
    let segs: Vec<&str> = path.split("::").collect();
    let (mut full, rest): (Vec<String>, &[&str]) = match segs.first() {
        Some(&"crate") => (Vec::new(), &segs[1..]),
        Some(&"self") => (m.to_vec(), &segs[1..]),
        Some(&"super") => {
            let n = segs.iter().take_while(|s| **s == "super").count();
            (m[..m.len().saturating_sub(n)].to_vec(), &segs[n..])
        }
        _ => return None,
    };
    full.extend(rest.iter().map(|s| (*s).to_owned()));
    (0..=full.len())
        .rev()
        .find_map(|n| modules.get(&full[..n]))
        .filter(|t| t.as_slice() != m)
}

/// Sibling modules (one parent, neither inside the other) of a crate that
/// each name an item of the other (none is excepted).
pub fn cycle_problems(ws: &Workspace) -> Vec<String> {
    let mut out = Vec::new();
    for p in &ws.packages {
        let src = p.dir.join("src");
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        files.sort();
        let modules: BTreeSet<Vec<String>> = files.iter().map(|f| module_path(&src, f)).collect();
        let mut edges: HashSet<(Vec<String>, Vec<String>)> = HashSet::new();
        for f in &files {
            let m = module_path(&src, f);
            let text = std::fs::read_to_string(f).unwrap_or_default();
            for path in named_paths(&text) {
                if let Some(t) = target(&m, &path, &modules) {
                    edges.insert((m.clone(), t.clone()));
                }
            }
        }
        let mut pairs: Vec<(String, String)> = edges
            .iter()
            .filter(|(a, b)| a < b && edges.contains(&(b.clone(), a.clone())))
            .filter(|(a, b)| !(b.starts_with(a) || a.starts_with(b)))
            .map(|(a, b)| (a.join("::"), b.join("::")))
            .collect();
        pairs.sort();
        for (a, b) in pairs {
            out.push(format!(
                "{}: modules {a} and {b} use each other's items (move what both need down, or to a module of its own)",
                p.name
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
        let dir = root.join("crates/am-system/src/reconstruct");
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
    fn two_modules_using_each_other_are_a_cycle_and_one_way_is_not() {
        let root = std::env::temp_dir().join(format!("am-tidy-cycle-{}", std::process::id()));
        let src = root.join("c/src");
        std::fs::create_dir_all(src.join("a")).unwrap();
        let write = |f: &str, text: &str| std::fs::write(src.join(f), text).unwrap();
        write("lib.rs", "//! Root.\nmod a;\nmod b;\n");
        write("a/mod.rs", "//! A.\nmod inner;\npub(crate) fn f() {}\n");
        write("a/inner.rs", "//! Inner.\nuse super::f;\n");
        write(
            "b.rs",
            "//! B.\nuse crate::a::{self, f};\npub(crate) fn g() {}\n",
        );
        let ws = Workspace {
            root: root.clone(),
            packages: vec![Package {
                dir: root.join("c"),
                ..pkg("c", &[])
            }],
        };
        // b uses a, a's child uses a: no cycle.
        let one_way = cycle_problems(&ws);
        // a's child names b's item inline: still one way (b never names
        // the child); a itself naming b (a comment does not count) is.
        write("a/inner.rs", "//! Inner.\nfn h() { crate::b::g() }\n");
        let through_a_child = cycle_problems(&ws);
        write(
            "a/mod.rs",
            "//! A.\nmod inner;\n// crate::b in a comment\npub(crate) fn f() { super::b::g() }\n",
        );
        let both_ways = cycle_problems(&ws);
        std::fs::remove_dir_all(&root).unwrap();
        assert!(one_way.is_empty(), "{one_way:?}");
        assert!(through_a_child.is_empty(), "{through_a_child:?}");
        assert_eq!(both_ways.len(), 1, "{both_ways:?}");
        assert!(
            both_ways[0].starts_with("c: modules a and b use"),
            "{both_ways:?}"
        );
    }

    #[test]
    fn use_trees_flatten_to_paths() {
        assert_eq!(
            flatten_use("super::{a,b::{c,d},e::f}"),
            ["super::a", "super::b::c", "super::b::d", "super::e::f"]
        );
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
