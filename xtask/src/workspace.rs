//! The workspace as `cargo metadata` describes it: packages, their dependencies
//! (with kind), and their manifest directories; plus running cargo.

use anyhow::{Context, Result, bail};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One dependency edge on another workspace crate.
#[derive(Debug, Clone)]
pub struct Dep {
    /// The depended-on crate.
    pub name: String,
    /// `None` for a normal dependency, `Some("dev")` / `Some("build")` otherwise.
    pub kind: Option<String>,
}

/// One workspace package.
#[derive(Debug, Clone)]
pub struct Package {
    /// The package name (`am-triples`).
    pub name: String,
    /// The directory holding its `Cargo.toml`.
    pub dir: PathBuf,
    /// Its dependencies on other workspace crates.
    pub deps: Vec<Dep>,
    /// The names of its integration-test targets.
    pub tests: Vec<String>,
}

/// The workspace root and packages.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// The root directory.
    pub root: PathBuf,
    /// Every member package.
    pub packages: Vec<Package>,
}

/// The xtask package's directory, as `cargo run` sets `CARGO_MANIFEST_DIR` for this
/// process (the checkout being worked on); the compile-time value only as a
/// fallback. A binary built from another checkout sharing the target directory
/// would otherwise run cargo in that checkout (or in a directory since deleted).
pub fn manifest_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

/// A `cargo` command: the cargo that runs this xtask (`$CARGO`), else `cargo`,
/// without the variables `cargo run` sets for this xtask ([`RUN_ONLY_VARS`],
/// `CARGO_PKG_*`). Build scripts that watch them (`rerun-if-env-changed`: ring's
/// watches `CARGO_MANIFEST_DIR` and `CARGO_PKG_NAME`) would otherwise rerun
/// whenever a build alternates between a shell and an xtask, and everything
/// above them rebuild: with ring under reqwest and lancedb, most of the tree.
pub fn cargo() -> Command {
    tool(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
}

/// A command running `program` (a cargo, or a tool that runs cargo: maturin)
/// with the environment [`cargo`] gives.
pub fn tool(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut cmd = Command::new(program);
    for (name, _) in std::env::vars_os() {
        if name
            .to_str()
            .is_some_and(|n| n.starts_with("CARGO_PKG_") || RUN_ONLY_VARS.contains(&n))
        {
            cmd.env_remove(name);
        }
    }
    if let Some(protoc) = vendored_protoc() {
        cmd.env("PROTOC", protoc);
    }
    cmd
}

/// The protoc that lance's build scripts should use when the machine offers none:
/// `None` when `PROTOC` is already set or a `protoc` is on `PATH`, else the binary
/// shipped inside the `protoc-bin-vendored` crate (so a bare machine builds).
pub fn vendored_protoc() -> Option<PathBuf> {
    if std::env::var_os("PROTOC").is_some() || on_path("protoc") {
        return None;
    }
    protoc_bin_vendored::protoc_bin_path().ok()
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

/// Variables besides `CARGO_PKG_*` that `cargo run` sets for the program it runs
/// and a cargo started from a shell does not have.
const RUN_ONLY_VARS: &[&str] = &[
    "CARGO_MANIFEST_DIR",
    "CARGO_MANIFEST_PATH",
    "CARGO_MANIFEST_LINKS",
    "CARGO_CRATE_NAME",
    "CARGO_BIN_NAME",
    "CARGO_PRIMARY_PACKAGE",
];

impl Workspace {
    /// Read the workspace with `cargo metadata --no-deps`.
    ///
    /// # Errors
    /// When cargo fails or prints something that is not metadata.
    pub fn load() -> Result<Workspace> {
        let out = cargo()
            .args(["metadata", "--format-version", "1", "--no-deps"])
            .current_dir(manifest_dir())
            .output()
            .context("running cargo metadata")?;
        if !out.status.success() {
            bail!(
                "cargo metadata failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let meta: Value = serde_json::from_slice(&out.stdout).context("parsing cargo metadata")?;
        let root = PathBuf::from(
            meta["workspace_root"]
                .as_str()
                .context("metadata without workspace_root")?,
        );
        let mut packages = Vec::new();
        for p in meta["packages"]
            .as_array()
            .context("metadata without packages")?
        {
            let name = p["name"].as_str().unwrap_or_default().to_owned();
            let manifest = PathBuf::from(p["manifest_path"].as_str().unwrap_or_default());
            let dir = manifest.parent().map(Path::to_path_buf).unwrap_or_default();
            let deps = p["dependencies"]
                .as_array()
                .map(|ds| {
                    ds.iter()
                        .filter(|d| d["path"].is_string())
                        .map(|d| Dep {
                            name: d["name"].as_str().unwrap_or_default().to_owned(),
                            kind: d["kind"].as_str().map(str::to_owned),
                        })
                        .collect()
                })
                .unwrap_or_default();
            let tests = p["targets"]
                .as_array()
                .map(|ts| {
                    ts.iter()
                        .filter(|t| {
                            t["kind"]
                                .as_array()
                                .is_some_and(|k| k.iter().any(|k| k == "test"))
                        })
                        .filter_map(|t| t["name"].as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            packages.push(Package {
                name,
                dir,
                deps,
                tests,
            });
        }
        packages.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(Workspace { root, packages })
    }
}
