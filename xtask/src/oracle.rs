//! `cargo xtask test`: make sure the Python oracle (AbstractMemory 0.3.2 in a
//! virtual environment under `~/.cache/abstractmemory-rs/oracle-venv`) exists,
//! export `AM_ORACLE_PYTHON`, then run `cargo test --workspace --no-fail-fast`.
//!
//! The oracle belongs to tests and tools only; the library never calls Python.

use crate::workspace::{Workspace, cargo};
use anyhow::{Context, Result, bail};
use std::path::PathBuf;
use std::process::Command;

/// The oracle's pinned requirements.
const REQUIREMENTS: &[&str] = &["abstractmemory==0.3.2", "numpy"];

/// Where the oracle venv lives (`$HOME/.cache/abstractmemory-rs/oracle-venv`).
pub fn venv_dir() -> Result<PathBuf> {
    let home = std::env::var_os("HOME").context("HOME is not set")?;
    Ok(PathBuf::from(home).join(".cache/abstractmemory-rs/oracle-venv"))
}

fn oracle_works(python: &PathBuf) -> bool {
    python.is_file()
        && Command::new(python)
            .args([
                "-c",
                "import importlib.metadata as m, numpy; assert m.version('abstractmemory') == '0.3.2'",
            ])
            .output()
            .is_ok_and(|o| o.status.success())
}

fn run(cmd: &mut Command) -> Result<()> {
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
    if let Some(parent) = venv.parent() {
        std::fs::create_dir_all(parent)?;
    }
    run(Command::new("python3").arg("-m").arg("venv").arg(&venv))
        .context("python3 -m venv (on Debian/Ubuntu: apt-get install python3-venv)")?;
    run(Command::new(&python).args(["-m", "pip", "install", "--quiet", "--upgrade", "pip"]))?;
    run(Command::new(&python)
        .args(["-m", "pip", "install", "--quiet"])
        .args(REQUIREMENTS))?;
    if !oracle_works(&python) {
        bail!(
            "the oracle venv at {} does not import abstractmemory 0.3.2",
            venv.display()
        );
    }
    Ok(python)
}

/// Run the task: the oracle, then `cargo test --workspace` with `extra` args.
///
/// # Errors
/// When the oracle cannot be set up or a test fails.
pub fn test(extra: &[String]) -> Result<()> {
    let python = ensure_oracle()?;
    println!("xtask: AM_ORACLE_PYTHON={}", python.display());
    let ws = Workspace::load()?;
    run(cargo()
        // Every failing test binary is reported, not only the first.
        .args(["test", "--workspace", "--no-fail-fast"])
        .args(extra)
        .env("AM_ORACLE_PYTHON", &python)
        .current_dir(&ws.root))
}
