//! Safe output files: written to a temporary file in the target directory,
//! synced, and renamed over the target only on [`AtomicFile::commit`];
//! dropped without commit (an error) or on an interrupt, the temporary file
//! is removed, so a failed run leaves no output behind.

use crate::error::{Error, Result};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn register(p: &Path) {
    LIVE.lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(p.to_path_buf());
}

fn unregister(p: &Path) {
    let mut l = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = l.iter().position(|x| x == p) {
        l.swap_remove(i);
    }
}

/// Install a SIGINT/SIGTERM/SIGHUP handler that removes every temporary
/// output file still open, prints `aesflow: interrupted; no output
/// written`, and exits with status 130. Call once, early; later calls are
/// no-ops.
pub fn install_interrupt_handler() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = ctrlc::set_handler(|| {
            let l = LIVE.lock().unwrap_or_else(|e| e.into_inner());
            for p in l.iter() {
                let _ = std::fs::remove_file(p);
            }
            eprintln!("aesflow: interrupted; no output written");
            std::process::exit(130);
        });
    });
}

/// Whether two paths name the same existing file (same device and inode).
pub fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

/// An output file under construction.
#[derive(Debug)]
pub struct AtomicFile {
    tmp: Option<tempfile::NamedTempFile>,
    target: PathBuf,
    force: bool,
}

impl AtomicFile {
    /// Start writing `target`: refuses an existing target unless `force`.
    pub fn create(target: &Path, force: bool) -> Result<Self> {
        if !force && std::fs::symlink_metadata(target).is_ok() {
            return Err(Error::InvalidInput(format!(
                "{} already exists (use --force to overwrite it)",
                target.display()
            )));
        }
        if std::fs::metadata(target).is_ok_and(|m| m.is_dir()) {
            return Err(Error::InvalidInput(format!(
                "{} is a directory",
                target.display()
            )));
        }
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let tmp = tempfile::Builder::new()
            .prefix(".aesflow-tmp-")
            .tempfile_in(dir)
            .map_err(|e| Error::io(format!("creating a temporary file in {}", dir.display()), e))?;
        register(tmp.path());
        Ok(AtomicFile {
            tmp: Some(tmp),
            target: target.to_path_buf(),
            force,
        })
    }

    /// The temporary file to write to.
    pub fn file(&self) -> &File {
        self.tmp.as_ref().expect("not committed").as_file()
    }

    /// The temporary file, mutably (for `Write`).
    pub fn file_mut(&mut self) -> &mut File {
        self.tmp.as_mut().expect("not committed").as_file_mut()
    }

    /// The final path.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Sync the data and rename it to the target (without `force`, fails if
    /// the target appeared meanwhile).
    pub fn commit(mut self) -> Result<()> {
        let tmp = self.tmp.take().expect("commit once");
        let tpath = tmp.path().to_path_buf();
        tmp.as_file()
            .sync_all()
            .map_err(|e| Error::io(format!("syncing {}", self.target.display()), e))?;
        let r = if self.force {
            tmp.persist(&self.target)
        } else {
            tmp.persist_noclobber(&self.target)
        };
        unregister(&tpath);
        r.map_err(|e| {
            let exists = e.error.kind() == std::io::ErrorKind::AlreadyExists;
            // Dropping e.file removes the temporary file.
            if exists {
                Error::InvalidInput(format!(
                    "{} already exists (use --force to overwrite it)",
                    self.target.display()
                ))
            } else {
                Error::io(format!("renaming to {}", self.target.display()), e.error)
            }
        })?;
        if let Some(dir) = self.target.parent() {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            if let Ok(d) = File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(())
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if let Some(t) = self.tmp.take() {
            let p = t.path().to_path_buf();
            drop(t); // removes the file
            unregister(&p);
        }
    }
}
