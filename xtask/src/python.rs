//! The Python package's suite (`crates/am-py`, docs/python.md): a venv of its
//! own under `~/.cache/abstractmemory-rs/py-venv` with the pinned build and
//! test tools from PyPI (maturin, pytest, mypy for the stub check), one
//! `maturin develop` build of the package into it in the dev profile (the
//! workspace's target directory, so the engine's crates are the ones `cargo
//! test` built), then `python -m pytest crates/am-py/tests`.

use crate::oracle::{make_venv, run};
use crate::workspace::tool;
use anyhow::{Result, bail};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The venv's pinned requirements.
const REQUIREMENTS: &[&str] = &["maturin==1.16.0", "pytest==9.2.0", "mypy==2.4.1"];

/// Where the venv lives (`$HOME/.cache/abstractmemory-rs/py-venv`).
fn venv_dir() -> Result<PathBuf> {
    Ok(crate::oracle::venv_dir()?.with_file_name("py-venv"))
}

fn works(python: &Path) -> bool {
    python.is_file()
        && Command::new(python)
            .args([
                "-c",
                "import importlib.metadata as m; assert (m.version('maturin'), m.version('pytest'), m.version('mypy')) == ('1.16.0', '9.2.0', '2.4.1')",
            ])
            .output()
            .is_ok_and(|o| o.status.success())
}

/// Create the venv unless a working one exists; returns it.
fn ensure() -> Result<PathBuf> {
    let venv = venv_dir()?;
    let python = venv.join("bin").join("python");
    if !works(&python) {
        println!(
            "xtask: creating the Python package's venv at {}",
            venv.display()
        );
        make_venv(&venv, REQUIREMENTS)?;
        if !works(&python) {
            bail!(
                "the venv at {} lacks maturin 1.16.0, pytest 9.2.0 or mypy 2.4.1",
                venv.display()
            );
        }
    }
    Ok(venv)
}

/// Build the package into the venv (`maturin develop`, dev profile) and run
/// its pytest suite from the workspace at `root`.
///
/// # Errors
/// When the venv cannot be made, the build fails or a test fails.
pub fn test(root: &Path) -> Result<()> {
    let venv = ensure()?;
    let bin = venv.join("bin");
    let path = std::env::var_os("PATH").unwrap_or_default();
    let path =
        std::env::join_paths(std::iter::once(bin.clone()).chain(std::env::split_paths(&path)))?;
    println!(
        "xtask: maturin develop (crates/am-py) into {}",
        venv.display()
    );
    run(tool(bin.join("maturin"))
        .args([
            "develop",
            "--quiet",
            "--manifest-path",
            "crates/am-py/Cargo.toml",
        ])
        .env("VIRTUAL_ENV", &venv)
        .env("PATH", &path)
        .current_dir(root))?;
    run(Command::new(bin.join("python"))
        .args(["-m", "pytest", "-q", "crates/am-py/tests"])
        .env("PATH", &path)
        .current_dir(root))
}
