//! The process-wide list of named temporary files and committed outputs,
//! for signal handlers ([`abort_all`]).

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// What the registry holds.
#[derive(Debug, Default)]
pub(crate) struct State {
    /// Named temporary files not yet committed or removed.
    pub(crate) live: Vec<PathBuf>,
    /// Outputs committed by this process.
    pub(crate) committed: Vec<PathBuf>,
    /// [`abort_all`] ran: no more commits.
    pub(crate) aborted: bool,
}

static STATE: Mutex<State> = Mutex::new(State {
    live: Vec::new(),
    committed: Vec::new(),
    aborted: false,
});

pub(crate) fn lock() -> MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

pub(crate) fn register(p: &Path) {
    lock().live.push(p.to_path_buf());
}

pub(crate) fn unregister(p: &Path) {
    lock().live.retain(|x| x != p);
}

/// For a signal handler about to exit the process: wait for a commit in
/// progress to finish, refuse every later commit ([`crate::Error::Aborted`]),
/// remove every named temporary file, and return the outputs this process
/// has committed (so the handler can say which exist). Unnamed outputs
/// need nothing: the kernel frees them when the process exits.
pub fn abort_all() -> Vec<PathBuf> {
    let mut s = lock();
    s.aborted = true;
    for p in s.live.drain(..) {
        let _ = std::fs::remove_file(p);
    }
    s.committed.clone()
}
