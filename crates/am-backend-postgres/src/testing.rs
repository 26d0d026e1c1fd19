//! A throwaway PostgreSQL server for tests and `cargo xtask`: `initdb` into a
//! temporary directory (as the `postgres` OS user when running as root, since
//! initdb refuses root), started on a unix socket in that directory (no TCP
//! port, so parallel servers never race for one), one database per check,
//! stopped and removed on drop.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU64, Ordering};

/// The port number in the socket's name (`.s.PGSQL.<port>`); nothing listens on TCP.
const SOCKET_PORT: u16 = 5432;

/// A running throwaway server, stopped (`pg_ctl stop -m immediate`) and its
/// directory removed when dropped.
pub struct TempServer {
    dir: tempfile::TempDir,
    bin: PathBuf,
    as_postgres: bool,
    next_db: AtomicU64,
}

impl std::fmt::Debug for TempServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TempServer")
            .field("dir", &self.dir.path())
            .finish_non_exhaustive()
    }
}

/// The directory of the server binaries: `$AM_PG_BIN`, else the newest
/// `/usr/lib/postgresql/<version>/bin` holding `initdb`.
///
/// # Errors
/// A message saying what a developer must install when none is found.
pub fn server_bin() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os("AM_PG_BIN") {
        return Ok(PathBuf::from(dir));
    }
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    found.sort();
    found.pop().map(|(_, bin)| bin).ok_or_else(|| {
        "no PostgreSQL server found: install Debian's `postgresql` package (it provides \
         /usr/lib/postgresql/<version>/bin/initdb), or set AM_PG_BIN to a directory holding \
         initdb and pg_ctl"
            .to_owned()
    })
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

fn checked(what: &str, out: std::io::Result<Output>) -> Result<(), String> {
    let out = out.map_err(|e| format!("{what}: cannot run: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    Err(format!(
        "{what} failed ({}): {}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    ))
}

impl TempServer {
    /// initdb and start a new server.
    ///
    /// # Errors
    /// A message naming the step that failed (no server binaries, initdb,
    /// start).
    pub fn start() -> Result<TempServer, String> {
        let bin = server_bin()?;
        let as_postgres = is_root();
        let dir = tempfile::Builder::new()
            .prefix("am-pg-")
            .tempdir()
            .map_err(|e| format!("cannot create a temporary directory: {e}"))?;
        if as_postgres {
            checked(
                "chown the server directory to postgres",
                Command::new("chown")
                    .arg("postgres:")
                    .arg(dir.path())
                    .output(),
            )?;
        }
        let server = TempServer {
            dir,
            bin,
            as_postgres,
            next_db: AtomicU64::new(0),
        };
        let data = server.data_dir();
        server.run(
            "initdb",
            &[
                "-D",
                path_str(&data)?,
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
                "--no-instructions",
            ],
        )?;
        let conf = format!(
            "\n# am-backend-postgres TempServer\nlisten_addresses = ''\nunix_socket_directories = '{}'\n\
             port = {SOCKET_PORT}\nfsync = off\nfull_page_writes = off\nsynchronous_commit = off\n\
             max_connections = 300\n",
            path_str(server.dir.path())?
        );
        std::fs::OpenOptions::new()
            .append(true)
            .open(data.join("postgresql.conf"))
            .and_then(|mut f| std::io::Write::write_all(&mut f, conf.as_bytes()))
            .map_err(|e| format!("cannot write postgresql.conf: {e}"))?;
        let log = server.dir.path().join("server.log");
        server.run(
            "pg_ctl",
            &[
                "-D",
                path_str(&data)?,
                "-l",
                path_str(&log)?,
                "-w",
                "-t",
                "60",
                "start",
            ],
        )?;
        Ok(server)
    }

    fn data_dir(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// Run one server binary, as `postgres` when we are root.
    fn run(&self, tool: &str, args: &[&str]) -> Result<(), String> {
        let exe = self.bin.join(tool);
        let out = if self.as_postgres {
            Command::new("runuser")
                .args(["-u", "postgres", "--"])
                .arg(&exe)
                .args(args)
                .current_dir(self.dir.path())
                .output()
        } else {
            Command::new(&exe)
                .args(args)
                .current_dir(self.dir.path())
                .output()
        };
        checked(tool, out)
    }

    /// The connection string of database `db` (a unix socket, user `postgres`).
    pub fn config_for(&self, db: &str) -> String {
        format!(
            "host={} port={SOCKET_PORT} user=postgres dbname={db}",
            self.dir.path().display()
        )
    }

    /// Create a new empty database and return its connection string.
    ///
    /// # Errors
    /// The server's refusal.
    pub fn create_database(&self) -> Result<String, String> {
        let n = self.next_db.fetch_add(1, Ordering::Relaxed);
        let name = format!("am_check_{n}");
        let mut admin = self
            .config_for("postgres")
            .parse::<postgres::Config>()
            .and_then(|c| c.connect(postgres::NoTls))
            .map_err(|e| format!("cannot connect to the throwaway server: {e}"))?;
        admin
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .map_err(|e| format!("CREATE DATABASE {name}: {e}"))?;
        Ok(self.config_for(&name))
    }
}

fn path_str(p: &Path) -> Result<&str, String> {
    p.to_str()
        .ok_or_else(|| format!("{} is not UTF-8", p.display()))
}

impl Drop for TempServer {
    fn drop(&mut self) {
        if let Ok(data) = path_str(&self.data_dir()).map(str::to_owned) {
            // Best effort: the directory is removed after this either way.
            let _ = self.run("pg_ctl", &["-D", &data, "-m", "immediate", "-w", "stop"]);
        }
    }
}
