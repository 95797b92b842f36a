//! Named temporary files (the fallback where `O_TMPFILE` is refused) and
//! the removal of those a killed process left behind.

use std::path::Path;

/// The prefix of named temporary files: `.aesflow-tmp-<pid>-<16 hex>`.
pub const TEMP_PREFIX: &str = ".aesflow-tmp-";

/// A fresh temporary name for this process.
pub(crate) fn temp_name() -> String {
    let mut r = [0u8; 8];
    if getrandom::fill(&mut r).is_err() {
        // Uniqueness only (create_new retries): the clock will do.
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        r = t.to_le_bytes();
    }
    format!(
        "{TEMP_PREFIX}{}-{:016x}",
        std::process::id(),
        u64::from_le_bytes(r)
    )
}

/// The process id in a name of exactly the form aesflow makes, else `None`.
fn owner_pid(name: &str) -> Option<i32> {
    let rest = name.strip_prefix(TEMP_PREFIX)?;
    let (pid, rand) = rest.split_once('-')?;
    let hex = rand.len() == 16 && rand.bytes().all(|b| b.is_ascii_hexdigit());
    let digits = !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit());
    (hex && digits).then(|| pid.parse().ok()).flatten()
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

/// Remove the named temporary files in `dir` whose process is gone (a
/// `kill -9` during a run on a file system without `O_TMPFILE`); only
/// regular files named exactly `.aesflow-tmp-<pid>-<16 hex digits>` are
/// touched. Returns how many were removed; errors are ignored (another
/// process may be cleaning up too).
pub fn remove_stale(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut n = 0;
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(owner_pid) else {
            continue;
        };
        let regular = e.file_type().is_ok_and(|t| t.is_file());
        if regular && !alive(pid) && std::fs::remove_file(e.path()).is_ok() {
            n += 1;
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_exact_names_are_ours() {
        assert_eq!(owner_pid(".aesflow-tmp-123-00112233aabbccdd"), Some(123));
        assert_eq!(owner_pid(".aesflow-tmp-123-00112233aabbccd"), None);
        assert_eq!(owner_pid(".aesflow-tmp-abc-00112233aabbccdd"), None);
        assert_eq!(owner_pid(".aesflow-tmp-Xh12ab"), None);
        assert_eq!(owner_pid("aesflow-tmp-1-00112233aabbccdd"), None);
        let n = temp_name();
        assert_eq!(owner_pid(&n), Some(std::process::id() as i32));
    }
}
