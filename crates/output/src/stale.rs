//! Named temporary files and the removal of those a killed process left
//! behind: the command's own (`.aesflow-tmp-<pid>-<16 hex>`, the fallback
//! where `O_TMPFILE` is refused) and the Python package's Dask driver's
//! (`.aesflow-dask-tmp-<host>-<pid>-<16 hex>`, made by [`dask_temp_name`]).
//! One parser and one owner test serve both, whichever program cleans up.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// The prefix of named temporary files: `.aesflow-tmp-<pid>-<16 hex>`.
pub const TEMP_PREFIX: &str = ".aesflow-tmp-";

/// The prefix of the Dask driver's temporary files:
/// `.aesflow-dask-tmp-<host>-<pid>-<16 hex>`, locked (`flock`) by their
/// driver while its job runs.
pub const DASK_TEMP_PREFIX: &str = ".aesflow-dask-tmp-";

/// 16 random hex digits (the clock if the system has no randomness:
/// uniqueness is all that matters, and creation retries on a clash).
fn random_hex() -> String {
    let mut r = [0u8; 8];
    if getrandom::fill(&mut r).is_err() {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        r = t.to_le_bytes();
    }
    format!("{:016x}", u64::from_le_bytes(r))
}

/// A fresh temporary name for this process.
pub(crate) fn temp_name() -> String {
    format!("{TEMP_PREFIX}{}-{}", std::process::id(), random_hex())
}

/// This host's name as it appears in Dask temporary names: every
/// character but ASCII letters, digits and `.` replaced by `_`
/// (`localhost` if the name is empty).
pub fn host_label() -> String {
    let n = rustix::system::uname();
    let name = n.nodename().to_string_lossy();
    let label: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if label.is_empty() {
        "localhost".into()
    } else {
        label
    }
}

/// A fresh name for a Dask driver's temporary file in this process:
/// `.aesflow-dask-tmp-<host>-<pid>-<16 hex>`.
pub fn dask_temp_name() -> String {
    format!(
        "{DASK_TEMP_PREFIX}{}-{}-{}",
        host_label(),
        std::process::id(),
        random_hex()
    )
}

/// Who made a temporary file, read from its name.
#[derive(Debug, PartialEq, Eq)]
enum Owner<'a> {
    /// The command's: process `pid` on this host.
    Command(i32),
    /// A Dask driver: process `pid` on `host`.
    Dask { host: &'a str, pid: i32 },
}

/// `<pid>-<16 hex>` exactly: the pid.
fn pid_and_random(rest: &str) -> Option<i32> {
    let (pid, rand) = rest.split_once('-')?;
    let hex = rand.len() == 16 && rand.bytes().all(|b| b.is_ascii_hexdigit());
    let digits = !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit());
    (hex && digits).then(|| pid.parse().ok()).flatten()
}

/// The owner in a name of exactly one of the forms aesflow makes, else
/// `None`.
fn owner(name: &str) -> Option<Owner<'_>> {
    if let Some(rest) = name.strip_prefix(TEMP_PREFIX) {
        return pid_and_random(rest).map(Owner::Command);
    }
    let rest = name.strip_prefix(DASK_TEMP_PREFIX)?;
    // The host may hold '-'-free labels only (see `host_label`); the pid and
    // the random part are the last two fields.
    let (head, rand) = rest.rsplit_once('-')?;
    let (host, pid) = head.rsplit_once('-')?;
    let host_ok = !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_');
    let pid = pid_and_random(&format!("{pid}-{rand}"))?;
    host_ok.then_some(Owner::Dask { host, pid })
}

/// Whether process `pid` exists (a process we may not signal exists too).
fn alive(pid: i32) -> bool {
    match rustix::process::Pid::from_raw(pid) {
        None => false,
        Some(p) => !matches!(
            rustix::process::test_kill_process(p),
            Err(rustix::io::Errno::SRCH)
        ),
    }
}

/// Whether nobody holds the `flock` of `path` (it is taken and released
/// again): a Dask driver on another host holds it while its job runs.
fn unlocked(path: &Path) -> bool {
    use rustix::fs::{FlockOperation, Mode, OFlags};
    let Ok(fd) = rustix::fs::open(path, OFlags::WRONLY | OFlags::NOFOLLOW, Mode::empty()) else {
        return false;
    };
    rustix::fs::flock(&fd, FlockOperation::NonBlockingLockExclusive).is_ok()
}

/// Whether the owner of the temporary file at `path` is gone.
fn gone(owner: &Owner<'_>, path: &Path) -> bool {
    let me = std::process::id() as i32;
    match *owner {
        Owner::Command(pid) => pid != me && !alive(pid),
        Owner::Dask { host, pid } if host == host_label() => pid != me && !alive(pid),
        Owner::Dask { .. } => unlocked(path),
    }
}

/// Remove the temporary files in `dir` whose owner is gone — a `kill -9`
/// of the command on a file system without `O_TMPFILE`, or of a Dask
/// driver. Only regular files named exactly
/// `.aesflow-tmp-<pid>-<16 hex digits>` or
/// `.aesflow-dask-tmp-<host>-<pid>-<16 hex digits>` are touched; a
/// command's file is gone with its process, a Dask driver's with its
/// process on this host, and from another host when its lock can be
/// taken. Returns the paths removed; errors are ignored (another process
/// may be cleaning up too).
pub fn remove_stale(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(owner) = name.to_str().and_then(owner) else {
            continue;
        };
        let path = e.path();
        let regular = e.file_type().is_ok_and(|t| t.is_file());
        if regular && gone(&owner, &path) && std::fs::remove_file(&path).is_ok() {
            removed.push(path);
        }
    }
    removed
}

/// [`remove_stale`] on `dir` the first time this process creates a file
/// there (a directory is read once, not once per file written into it).
pub(crate) fn remove_stale_once(dir: &Path) {
    static SEEN: OnceLock<Mutex<HashSet<PathBuf>>> = OnceLock::new();
    let first = SEEN
        .get_or_init(Default::default)
        .lock()
        .map_or(true, |mut s| s.insert(dir.to_path_buf()));
    if first {
        remove_stale(dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_exact_names_are_ours() {
        let c = |n| {
            owner(n).and_then(|o| match o {
                Owner::Command(p) => Some(p),
                Owner::Dask { .. } => None,
            })
        };
        assert_eq!(c(".aesflow-tmp-123-00112233aabbccdd"), Some(123));
        assert_eq!(c(".aesflow-tmp-123-00112233aabbccd"), None);
        assert_eq!(c(".aesflow-tmp-abc-00112233aabbccdd"), None);
        assert_eq!(c(".aesflow-tmp-Xh12ab"), None);
        assert_eq!(c("aesflow-tmp-1-00112233aabbccdd"), None);
        assert_eq!(c(&temp_name()), Some(std::process::id() as i32));
    }

    #[test]
    fn dask_names() {
        assert_eq!(
            owner(".aesflow-dask-tmp-node_1.lan-42-00112233aabbccdd"),
            Some(Owner::Dask {
                host: "node_1.lan",
                pid: 42
            })
        );
        for bad in [
            ".aesflow-dask-tmp--42-00112233aabbccdd",
            ".aesflow-dask-tmp-h-42-00112233aabbccd",
            ".aesflow-dask-tmp-h-4x-00112233aabbccdd",
            ".aesflow-dask-tmp-h/x-42-00112233aabbccdd",
            ".aesflow-dask-tmp-h-42",
            "aesflow-dask-tmp-h-42-00112233aabbccdd",
        ] {
            assert_eq!(owner(bad), None, "{bad}");
        }
        let mine = dask_temp_name();
        assert_eq!(
            owner(&mine),
            Some(Owner::Dask {
                host: &host_label(),
                pid: std::process::id() as i32
            })
        );
        assert!(!host_label().contains('-'));
    }
}
