//! The module graph of each crate, and the two rules read from it:
//!
//! - **No module cycle of any length.** A module names another when its code
//!   (outside comments and its `#[cfg(test)] mod tests`) writes a
//!   `crate::` / `super::` / `self::` path into it, or `use`s one; a path
//!   through a re-export (`pub use plan::build_formation_plan` in
//!   `formation/mod.rs`, or the crate root's) counts as naming the module
//!   the item comes from. The strongly connected components of that graph
//!   (Tarjan) with more than one module are the cycles. A module naming its
//!   own descendants (a parent calling its children) is containment, not a
//!   dependency, and is left out.
//! - **am-system's faculties form the declared DAG** ([`FACULTIES`], the same
//!   table as ARCHITECTURE.md "Faculties"): a module of one faculty names
//!   another faculty's modules only when the table lets it; the core modules
//!   ([`CORE`]) name no faculty (the state a faculty keeps sits in the core's
//!   `locks::FacultyState`, keyed by the faculty's own type); every top-level
//!   module is core or a faculty.

use crate::workspace::Workspace;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// am-system's core modules: what every faculty shares. They name no faculty.
pub const CORE: &[&str] = &[
    "concepts",
    "config",
    "error",
    "feed",
    "hooks",
    "ids",
    "kinds",
    "locks",
    "lookup",
    "outcome",
    "pair_folds",
    "record",
    "seam",
    "system",
];

/// am-system's faculties in their declared order, each with the faculties
/// its modules may name (each one earlier in the list: the order is a
/// topological order of the DAG).
pub const FACULTIES: &[(&str, &[&str])] = &[
    ("tasks", &[]),
    ("formation", &["tasks"]),
    ("recall", &[]),
    ("understanding", &["formation", "tasks"]),
    ("identity", &["formation", "tasks"]),
    ("valence", &[]),
    ("observe", &["formation", "identity", "recall", "valence"]),
    ("reach", &["recall", "valence"]),
    (
        "world_models",
        &["formation", "recall", "tasks", "understanding", "valence"],
    ),
    (
        "communities",
        &["formation", "recall", "tasks", "understanding"],
    ),
    (
        "sleep",
        &[
            "formation",
            "observe",
            "recall",
            "tasks",
            "understanding",
            "valence",
            "world_models",
        ],
    ),
    ("drives", &["observe", "recall", "sleep"]),
    ("situate", &["identity", "recall"]),
    ("ripple", &["formation", "tasks", "understanding"]),
    (
        "candidates",
        &[
            "drives",
            "formation",
            "reach",
            "recall",
            "ripple",
            "sleep",
            "tasks",
            "valence",
            "world_models",
        ],
    ),
    (
        "operator",
        &["drives", "formation", "recall", "sleep", "tasks"],
    ),
];

pub(crate) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
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
pub(crate) fn flatten_use(tree: &str) -> Vec<String> {
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

/// A file's code: comments and its `#[cfg(test)] mod tests` cut away.
fn code_of(text: &str) -> String {
    let code: String = text
        .lines()
        .map(|l| l.find("//").map_or(l, |i| &l[..i]))
        .collect::<Vec<_>>()
        .join("\n");
    match code.find("#[cfg(test)]") {
        Some(i) if code[i + 12..].trim_start().starts_with("mod tests") => code[..i].to_owned(),
        _ => code,
    }
}

/// Every `use` tree of the code, flattened, with whether it is a re-export
/// (`pub use`, `pub(crate) use`).
fn use_trees(code: &str) -> Vec<(String, bool)> {
    let starts = |i: usize| i == 0 || !code[..i].chars().next_back().is_some_and(is_ident);
    let mut out = Vec::new();
    for (i, _) in code.match_indices("use ").filter(|(i, _)| starts(*i)) {
        let before = code[..i].trim_end();
        let public = before.ends_with("pub") || before.ends_with("pub(crate)");
        if let Some(end) = code[i..].find(';') {
            let tree: String = code[i + 4..i + end]
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            out.extend(flatten_use(&tree).into_iter().map(|p| (p, public)));
        }
    }
    out
}

/// Every `crate::` / `super::` / `self::` path a file's code names: the
/// flattened `use` trees and the paths written inline.
pub(crate) fn named_paths(text: &str) -> Vec<String> {
    let code = code_of(text);
    let starts = |i: usize| i == 0 || !code[..i].chars().next_back().is_some_and(is_ident);
    let mut out: Vec<String> = use_trees(&code).into_iter().map(|(p, _)| p).collect();
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

/// A path as absolute segments from the crate root, read in module `m`
/// (`None` for a path that is not `crate::` / `super::` / `self::`).
fn absolute(m: &[String], path: &str) -> Option<Vec<String>> {
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
    Some(full)
}

/// One crate's modules and the edges between them.
#[derive(Debug, Default)]
pub struct ModuleGraph {
    /// Every module (the root is `[]`).
    pub modules: BTreeSet<Vec<String>>,
    /// `a` names `b` (never a module naming itself or a descendant).
    pub edges: BTreeSet<(Vec<String>, Vec<String>)>,
}

impl ModuleGraph {
    /// The graph of the crate whose sources are under `src`.
    pub fn of(src: &Path) -> ModuleGraph {
        let mut files = Vec::new();
        rust_files(src, &mut files);
        files.sort();
        let modules: BTreeSet<Vec<String>> = files.iter().map(|f| module_path(src, f)).collect();
        let texts: Vec<(Vec<String>, String)> = files
            .iter()
            .map(|f| {
                (
                    module_path(src, f),
                    std::fs::read_to_string(f).unwrap_or_default(),
                )
            })
            .collect();
        // `pub use child::Item` in module `m`: the item `m::Item` is
        // `m::child::Item` (the path a re-export names, resolved in `m`).
        let mut reexports: HashMap<Vec<String>, Vec<String>> = HashMap::new();
        for (m, text) in &texts {
            for (tree, public) in use_trees(&code_of(text)) {
                if !public {
                    continue;
                }
                let segs: Vec<String> = tree.split("::").map(str::to_owned).collect();
                let full = absolute(m, &tree).or_else(|| {
                    // A relative path: a child module of `m`.
                    let mut f = m.clone();
                    f.extend(segs.iter().cloned());
                    modules
                        .iter()
                        .any(|x| f.starts_with(x) && x.len() > m.len())
                        .then_some(f)
                });
                let (Some(full), Some(last)) = (full, segs.last()) else {
                    continue;
                };
                let name = last.split(" as ").last().unwrap_or(last).to_owned();
                let mut key = m.clone();
                key.push(name);
                reexports.insert(key, full);
            }
        }
        let mut edges = BTreeSet::new();
        for (m, text) in &texts {
            for path in named_paths(text) {
                let Some(full) = absolute(m, &path) else {
                    continue;
                };
                let t = resolve(&full, &modules, &reexports);
                if let Some(t) = t
                    && t != *m
                    && !t.starts_with(m)
                {
                    edges.insert((m.clone(), t));
                }
            }
        }
        ModuleGraph { modules, edges }
    }

    /// The cycles: strongly connected components of more than one module,
    /// each sorted, in order.
    pub fn cycles(&self) -> Vec<Vec<Vec<String>>> {
        let index: BTreeMap<&Vec<String>, usize> = self
            .modules
            .iter()
            .enumerate()
            .map(|(i, m)| (m, i))
            .collect();
        let names: Vec<&Vec<String>> = self.modules.iter().collect();
        let mut next = vec![Vec::new(); names.len()];
        for (a, b) in &self.edges {
            if let (Some(&i), Some(&j)) = (index.get(a), index.get(b)) {
                next[i].push(j);
            }
        }
        let mut out: Vec<Vec<Vec<String>>> = tarjan(&next)
            .into_iter()
            .filter(|c| c.len() > 1)
            .map(|c| {
                let mut c: Vec<Vec<String>> = c.into_iter().map(|i| names[i].clone()).collect();
                c.sort();
                c
            })
            .collect();
        out.sort();
        out
    }
}

/// The longest prefix of `path` that is a module.
fn longest_module<'a>(
    path: &[String],
    modules: &'a BTreeSet<Vec<String>>,
) -> Option<&'a Vec<String>> {
    (0..=path.len()).rev().find_map(|n| modules.get(&path[..n]))
}

/// The module an absolute path reaches: its longest module prefix, or,
/// when the next segment is an item that module re-exports, where the
/// re-export leads (a chain of them, at most 8 deep).
fn resolve(
    path: &[String],
    modules: &BTreeSet<Vec<String>>,
    reexports: &HashMap<Vec<String>, Vec<String>>,
) -> Option<Vec<String>> {
    let mut path = path.to_vec();
    for _ in 0..8 {
        let m = longest_module(&path, modules)?;
        let Some(item) = path.get(m.len()) else {
            return Some(m.clone());
        };
        let mut key = m.clone();
        key.push(item.clone());
        match reexports.get(&key) {
            Some(target) if *target != key => {
                let mut next = target.clone();
                next.extend(path[m.len() + 1..].iter().cloned());
                path = next;
            }
            _ => return Some(m.clone()),
        }
    }
    longest_module(&path, modules).cloned()
}

/// Tarjan's strongly connected components of a graph given as successor
/// lists (iterative, so deep module graphs cannot overflow the stack).
fn tarjan(next: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = next.len();
    let (mut index, mut low, mut on) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut out, mut counter) = (Vec::new(), Vec::new(), 0);
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        while let Some(&mut (v, ref mut pos)) = work.last_mut() {
            if *pos == 0 && index[v] == usize::MAX {
                index[v] = counter;
                low[v] = counter;
                counter += 1;
                stack.push(v);
                on[v] = true;
            }
            if let Some(&w) = next[v].get(*pos) {
                *pos += 1;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(u, _)) = work.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on[w] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                out.push(comp);
            }
        }
    }
    out
}

/// Module cycles of any length in every crate of the workspace.
pub fn cycle_problems(ws: &Workspace) -> Vec<String> {
    let mut out = Vec::new();
    for p in &ws.packages {
        for c in ModuleGraph::of(&p.dir.join("src")).cycles() {
            let shown: Vec<String> = c
                .iter()
                .map(|m| {
                    if m.is_empty() {
                        "crate".into()
                    } else {
                        m.join("::")
                    }
                })
                .collect();
            out.push(format!(
                "{}: modules {} name each other in a cycle (move what they share down, or to a module of its own)",
                p.name,
                shown.join(", ")
            ));
        }
    }
    out
}

fn faculty_of(m: &[String]) -> Option<&'static str> {
    let top = m.first()?;
    FACULTIES.iter().map(|(f, _)| *f).find(|f| f == top)
}

/// am-system's faculty rules on its module graph (see the module docs).
pub fn faculty_problems_in(graph: &ModuleGraph) -> Vec<String> {
    let mut out = Vec::new();
    for (i, (f, deps)) in FACULTIES.iter().enumerate() {
        for d in *deps {
            if !FACULTIES[..i].iter().any(|(e, _)| e == d) {
                out.push(format!(
                    "xtask/src/tidy/modules.rs FACULTIES: {f} may name {d}, which is not declared before it (the order must be a topological order)"
                ));
            }
        }
    }
    let tops: BTreeSet<&String> = graph.modules.iter().filter_map(|m| m.first()).collect();
    for t in tops {
        if !CORE.contains(&t.as_str()) && faculty_of(std::slice::from_ref(t)).is_none() {
            out.push(format!(
                "am-system: module {t} is neither core nor a faculty (add it to CORE or FACULTIES in xtask/src/tidy/modules.rs)"
            ));
        }
    }
    for (a, b) in &graph.edges {
        let (Some(fa), Some(fb)) = (a.first(), b.first()) else {
            continue;
        };
        if fa == fb {
            continue;
        }
        let from = faculty_of(a);
        let to = faculty_of(b);
        let allowed = match (from, to) {
            (_, None) => true,
            (Some(f), Some(g)) => FACULTIES
                .iter()
                .any(|(x, deps)| *x == f && deps.contains(&g)),
            (None, Some(_)) => false,
        };
        if !allowed {
            out.push(format!(
                "am-system: {} names {}, against the faculty DAG (xtask/src/tidy/modules.rs FACULTIES)",
                a.join("::"),
                b.join("::")
            ));
        }
    }
    out
}

/// The faculty rules on am-system, and ARCHITECTURE.md's copy of the DAG.
pub fn faculty_problems(ws: &Workspace) -> Vec<String> {
    let mut out = Vec::new();
    let src = ws.root.join("crates/am-system/src");
    if src.is_dir() {
        out.extend(faculty_problems_in(&ModuleGraph::of(&src)));
    }
    let arch = std::fs::read_to_string(ws.root.join("ARCHITECTURE.md")).unwrap_or_default();
    if !arch.is_empty() {
        for line in dag_lines() {
            if !arch.contains(&line) {
                out.push(format!(
                    "ARCHITECTURE.md \"Faculties\" lacks the DAG line {line:?} (it must match xtask/src/tidy/modules.rs FACULTIES)"
                ));
            }
        }
    }
    out
}

/// The DAG as ARCHITECTURE.md writes it: one line per faculty,
/// `` `formation` → `tasks` `` (`` `recall` → (core only) ``).
pub fn dag_lines() -> Vec<String> {
    FACULTIES
        .iter()
        .map(|(f, deps)| {
            if deps.is_empty() {
                format!("`{f}` → (core only)")
            } else {
                let d: Vec<String> = deps.iter().map(|d| format!("`{d}`")).collect();
                format!("`{f}` → {}", d.join(", "))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::Package;

    /// A throwaway crate `c` under a temporary root, written file by file.
    struct Scratch {
        root: PathBuf,
    }

    impl Scratch {
        fn new(tag: &str) -> Scratch {
            let root = std::env::temp_dir().join(format!("am-tidy-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&root);
            std::fs::create_dir_all(root.join("c/src")).unwrap();
            Scratch { root }
        }
        fn write(&self, f: &str, text: &str) {
            let p = self.root.join("c/src").join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        fn ws(&self) -> Workspace {
            Workspace {
                root: self.root.clone(),
                packages: vec![Package {
                    name: "c".into(),
                    dir: self.root.join("c"),
                    deps: Vec::new(),
                    tests: Vec::new(),
                }],
            }
        }
        fn graph(&self) -> ModuleGraph {
            ModuleGraph::of(&self.root.join("c/src"))
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.root);
        }
    }

    fn m(path: &str) -> Vec<String> {
        path.split("::").map(str::to_owned).collect()
    }

    #[test]
    fn two_modules_using_each_other_are_a_cycle_and_one_way_is_not() {
        let s = Scratch::new("cycle");
        s.write("lib.rs", "//! Root.\nmod a;\nmod b;\n");
        s.write("a/mod.rs", "//! A.\nmod inner;\npub(crate) fn f() {}\n");
        s.write("a/inner.rs", "//! Inner.\nuse super::f;\n");
        s.write(
            "b.rs",
            "//! B.\nuse crate::a::{self, f};\npub(crate) fn g() {}\n",
        );
        // b uses a, a's child uses a: no cycle.
        let one_way = cycle_problems(&s.ws());
        // a's child names b's item inline: still one way (b never names
        // the child); a itself naming b (a comment does not count) is.
        s.write("a/inner.rs", "//! Inner.\nfn h() { crate::b::g() }\n");
        let through_a_child = cycle_problems(&s.ws());
        s.write(
            "a/mod.rs",
            "//! A.\nmod inner;\n// crate::b in a comment\npub(crate) fn f() { super::b::g() }\n",
        );
        let both_ways = cycle_problems(&s.ws());
        assert!(one_way.is_empty(), "{one_way:?}");
        assert!(through_a_child.is_empty(), "{through_a_child:?}");
        assert_eq!(both_ways.len(), 1, "{both_ways:?}");
        assert!(
            both_ways[0].starts_with("c: modules a, b name each other"),
            "{both_ways:?}"
        );
    }

    #[test]
    fn a_cycle_of_three_modules_in_different_folders_is_one_cycle() {
        // The shape of the card::mirror -> identity -> system -> card::mirror
        // cycle the sibling-pair rule missed.
        let s = Scratch::new("cycle3");
        s.write(
            "lib.rs",
            "//! Root.\nmod card;\nmod identity;\nmod system;\n",
        );
        s.write("card/mod.rs", "//! Card.\nmod mirror;\n");
        s.write(
            "card/mirror.rs",
            "//! Mirror.\nuse crate::identity::active;\npub struct Mirror;\n",
        );
        s.write(
            "identity.rs",
            "//! Identity.\npub fn active() { crate::system::now() }\n",
        );
        s.write(
            "system.rs",
            "//! System.\npub fn now() {}\nstruct S(crate::card::mirror::Mirror);\n",
        );
        let found = s.graph().cycles();
        assert_eq!(
            found,
            vec![vec![m("card::mirror"), m("identity"), m("system")]]
        );
        // Break one edge: no cycle.
        s.write("identity.rs", "//! Identity.\npub fn active() {}\n");
        assert!(s.graph().cycles().is_empty());
    }

    #[test]
    fn a_path_through_a_reexport_names_the_module_the_item_comes_from() {
        let s = Scratch::new("reexport");
        s.write("lib.rs", "//! Root.\nmod a;\nmod b;\npub use a::Item;\n");
        s.write("a/mod.rs", "//! A.\nmod plan;\npub use plan::Item;\n");
        s.write("a/plan.rs", "//! Plan.\npub struct Item;\n");
        s.write(
            "b.rs",
            "//! B.\nfn f(_: crate::a::Item, _: crate::Item) {}\n",
        );
        let g = s.graph();
        assert!(g.edges.contains(&(m("b"), m("a::plan"))), "{:?}", g.edges);
        assert!(!g.edges.contains(&(m("b"), m("a"))), "{:?}", g.edges);
    }

    #[test]
    fn tarjan_finds_each_component_once() {
        // 0 <-> 1, 2 -> 3 -> 4 -> 2, 5 alone.
        let next = vec![vec![1], vec![0], vec![3], vec![4], vec![2], vec![]];
        let mut comps: Vec<Vec<usize>> = tarjan(&next)
            .into_iter()
            .map(|mut c| {
                c.sort_unstable();
                c
            })
            .collect();
        comps.sort();
        assert_eq!(comps, vec![vec![0, 1], vec![2, 3, 4], vec![5]]);
    }

    #[test]
    fn use_trees_flatten_to_paths() {
        assert_eq!(
            flatten_use("super::{a,b::{c,d},e::f}"),
            ["super::a", "super::b::c", "super::b::d", "super::e::f"]
        );
    }

    /// A minimal am-system: core `system` and `error`, faculties `tasks`,
    /// `formation`, `recall`, `observe`.
    fn faculties(s: &Scratch) {
        s.write(
            "lib.rs",
            "//! Root.\nmod error;\nmod system;\nmod tasks;\nmod formation;\nmod recall;\nmod observe;\n",
        );
        s.write("error.rs", "//! E.\npub struct Error;\n");
        s.write(
            "system.rs",
            "//! S.\npub struct Sys(crate::error::Error);\n",
        );
        s.write("tasks/mod.rs", "//! T.\nuse crate::error::Error;\n");
        s.write(
            "formation/mod.rs",
            "//! F.\nuse crate::tasks;\nuse crate::system::Sys;\n",
        );
        s.write("recall/mod.rs", "//! R.\npub mod reconstruct;\n");
        s.write("recall/reconstruct/mod.rs", "//! RR.\npub mod index;\n");
        s.write("recall/reconstruct/index.rs", "//! I.\npub struct Index;\n");
        s.write(
            "observe/mod.rs",
            "//! O.\nuse crate::formation;\nuse crate::recall;\n",
        );
    }

    #[test]
    fn the_declared_faculty_order_is_kept() {
        let s = Scratch::new("faculties");
        faculties(&s);
        assert!(
            faculty_problems_in(&s.graph()).is_empty(),
            "{:?}",
            faculty_problems_in(&s.graph())
        );
        // A faculty naming one it may not (tasks comes before formation).
        s.write("tasks/mod.rs", "//! T.\nuse crate::formation::Plan;\n");
        let p = faculty_problems_in(&s.graph());
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].contains("tasks names formation"), "{p:?}");
    }

    #[test]
    fn the_core_names_no_faculty_not_even_system_for_the_state_it_holds() {
        let s = Scratch::new("core");
        faculties(&s);
        s.write("error.rs", "//! E.\npub struct Error(crate::tasks::Row);\n");
        s.write(
            "system.rs",
            "//! S.\npub struct Sys(crate::recall::Plan);\n",
        );
        let p = faculty_problems_in(&s.graph());
        assert_eq!(p.len(), 2, "{p:?}");
        assert!(p.iter().any(|x| x.contains("error names tasks")), "{p:?}");
        assert!(p.iter().any(|x| x.contains("system names recall")), "{p:?}");
    }

    #[test]
    fn a_top_level_module_is_core_or_a_faculty() {
        let s = Scratch::new("stray");
        faculties(&s);
        s.write("dreams.rs", "//! D.\n");
        let p = faculty_problems_in(&s.graph());
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(
            p[0].contains("module dreams is neither core nor a faculty"),
            "{p:?}"
        );
    }

    #[test]
    fn architecture_md_carries_the_dag() {
        let s = Scratch::new("arch");
        std::fs::write(s.root.join("ARCHITECTURE.md"), "# Map\n").unwrap();
        let p = faculty_problems(&s.ws());
        assert_eq!(p.len(), FACULTIES.len(), "{p:?}");
        std::fs::write(s.root.join("ARCHITECTURE.md"), dag_lines().join("\n")).unwrap();
        assert!(faculty_problems(&s.ws()).is_empty());
    }
}
