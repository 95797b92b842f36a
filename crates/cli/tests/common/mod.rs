//! Helpers shared by the command-line test files.
#![allow(dead_code)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_aesflow");

/// A path as `&str` (the tests' paths are UTF-8).
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// What a command wrote to stderr.
pub fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The names in `dir`, sorted.
pub fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// chmod 600 (a group- or world-readable key file draws a warning).
pub fn private(p: &Path) {
    fs::set_permissions(p, fs::Permissions::from_mode(0o600)).unwrap();
}

/// Whether the `openssl` binary runs; prints why a test is skipped if not.
pub fn openssl() -> bool {
    let ok = Command::new("openssl")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        aesflow_vectors::skip!("openssl not found; interop not checked (.ci/run installs it)");
    }
    ok
}

/// A temporary directory with a private 32-byte key file `k.key`.
pub struct TestDir {
    _t: tempfile::TempDir,
    /// The directory.
    pub p: PathBuf,
    /// The key file.
    pub key: PathBuf,
}

/// A [`TestDir`] whose key is 32 bytes of `byte`.
pub fn test_dir(byte: u8) -> TestDir {
    let t = tempfile::tempdir().unwrap();
    let p = t.path().to_path_buf();
    let key = p.join("k.key");
    fs::write(&key, [byte; 32]).unwrap();
    private(&key);
    TestDir { _t: t, p, key }
}

/// Cheap Argon2id parameters for tests.
pub const KDF: &[&str] = &[
    "--kdf-memory-kib",
    "64",
    "--kdf-iterations",
    "1",
    "--kdf-parallelism",
    "1",
];

/// Run a shell command line in a pseudo-terminal (`script`, with `$BIN`
/// the binary): what it printed and its exit code; `None` (and a printed
/// reason) when `script` is missing.
pub fn in_pty(line: &str) -> Option<(String, Option<i32>)> {
    if Command::new("script").arg("--version").output().is_err() {
        aesflow_vectors::skip!("`script` (util-linux) not found; terminal cases not checked");
        return None;
    }
    let o = Command::new("script")
        .args(["-qec", line, "/dev/null"])
        .env("BIN", BIN)
        .env_remove("AESFLOW_KERNEL")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    Some((
        String::from_utf8_lossy(&o.stdout).into_owned(),
        o.status.code(),
    ))
}
