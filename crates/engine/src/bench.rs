//! Where demo and benchmark files go. The benchmarks themselves live in
//! the `aesflow-bench` crate; this module stays only until the demo's file
//! round trip ([`crate::files::demo_round_trip`]) moves out of the library,
//! then it is deleted.

use std::path::{Path, PathBuf};

/// `/dev/shm` if it is a writable directory (tmpfs: measures the engine,
/// not a disk), else the system temporary directory.
pub fn default_dir() -> PathBuf {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() && tempfile::tempdir_in(shm).is_ok() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    }
}
