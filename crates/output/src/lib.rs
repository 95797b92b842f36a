//! # aesflow-output: output files that appear whole or not at all
//!
//! An encryption or decryption tool must never leave a partial output
//! behind: a truncated ciphertext is useless, and a partial plaintext is
//! unauthenticated data. [`AtomicFile`] gives that guarantee under every
//! fault, including `kill -9`, `SIGQUIT` and a file-size limit (`SIGXFSZ`):
//!
//! 1. **Create** — on Linux the output is an *unnamed* file in the target
//!    directory (`open(dir, O_TMPFILE)`): it has no name, so if the process
//!    dies for any reason the kernel frees it and nothing is left. Where the
//!    file system refuses `O_TMPFILE`, a named temporary file
//!    `.aesflow-tmp-<pid>-<random>` is used instead, and every later
//!    creation in that directory first removes such files whose process is
//!    gone ([`remove_stale`]; only names of exactly that form are touched).
//!    The first creation in a directory also removes the temporary files
//!    of the Python package's Dask driver (`.aesflow-dask-tmp-<host>-<pid>-
//!    <random>`, named by [`dask_temp_name`]) whose driver is gone: one
//!    piece of code cleans up after both, from either program.
//! 2. **Write** through [`AtomicFile::file`] (positional I/O from several
//!    threads is fine).
//! 3. **Commit** — [`AtomicFile::commit`] `fsync`s the file, gives it its
//!    name (`linkat` of the unnamed file; `rename` of a named one) and
//!    `fsync`s the directory, so after success the output survives a power
//!    failure (`sync = false` skips both syncs). Without `force` an
//!    existing destination is never replaced, even one created meanwhile
//!    (`linkat` and `renameat2(RENAME_NOREPLACE)` fail instead).
//! 4. **Drop** without commit (any error) removes everything.
//!
//! Rules checked at creation (and again at commit): a directory is refused
//! as such; a special file (character or block device, FIFO, socket) is
//! never replaced, even with `force` (as root, replacing `/dev/null` with a
//! regular file would break the system), and a symbolic link counts as
//! what it points to (`/dev/stdout`, `/dev/fd/1`: a pipe or a terminal);
//! an existing file is replaced only with `force`. At creation, before any
//! work, the name must end in a file name (not `dir/`) that fits the file
//! system (`NAME_MAX`). New files get mode `0o666` (or the mode given with
//! [`Builder::mode`], e.g. the input's mode when decrypting) minus the
//! process umask, as `open(2)` applies it.
//!
//! **Signals.** A handler for `SIGINT`/`SIGTERM`/`SIGHUP` calls
//! [`abort_all`]: it waits for a commit in progress to finish, stops every
//! later commit, removes the named temporary files, and returns the outputs
//! already committed, so the handler can report the truth ("`a.cob`
//! written; nothing else") before exiting.
//!
//! ```
//! use std::io::Write;
//! let dir = tempfile::tempdir().unwrap();
//! let dest = dir.path().join("out.bin");
//! let mut out = aesflow_output::AtomicFile::create(&dest, false).unwrap();
//! out.file_mut().write_all(b"all or nothing").unwrap();
//! assert!(!dest.exists()); // not there until committed
//! out.commit(true).unwrap();
//! assert_eq!(std::fs::read(&dest).unwrap(), b"all or nothing");
//! ```

#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod error;
mod registry;
mod stale;

pub use error::{Error, Result};
pub use registry::abort_all;
pub use stale::{DASK_TEMP_PREFIX, TEMP_PREFIX, dask_temp_name, host_label, remove_stale};

use rustix::fs::{AtFlags, CWD, Mode, OFlags, RenameFlags};
use rustix::io::Errno;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// Options for [`AtomicFile`]: `AtomicFile::builder().force(true).create(p)`.
#[derive(Clone, Copy, Debug)]
pub struct Builder {
    force: bool,
    mode: u32,
    unnamed: bool,
}

impl Default for Builder {
    fn default() -> Self {
        Builder {
            force: false,
            mode: 0o666,
            unnamed: true,
        }
    }
}

impl Builder {
    /// Replace an existing regular file (never a directory or special file).
    pub fn force(mut self, force: bool) -> Self {
        self.force = force;
        self
    }

    /// Permission bits of the new file before the umask (default `0o666`;
    /// e.g. `0o600` for a key file, the input's mode for a decryption).
    pub fn mode(mut self, mode: u32) -> Self {
        self.mode = mode & 0o7777;
        self
    }

    /// Whether to try an unnamed (`O_TMPFILE`) file first (default true);
    /// `false` forces the named-temporary-file fallback (for tests).
    pub fn unnamed(mut self, unnamed: bool) -> Self {
        self.unnamed = unnamed;
        self
    }

    /// Start writing `dest`.
    pub fn create(self, dest: &Path) -> Result<AtomicFile> {
        check_dest(dest, self.force)?;
        let dir = parent_dir(dest);
        check_name(dest, &dir)?;
        stale::remove_stale_once(&dir);
        let (file, temp) = match self.unnamed.then(|| {
            let flags = OFlags::RDWR | OFlags::TMPFILE | OFlags::CLOEXEC;
            rustix::fs::openat(CWD, &dir, flags, Mode::from_raw_mode(self.mode))
        }) {
            Some(Ok(fd)) => (File::from(fd), None),
            Some(Err(e))
                if !matches!(
                    e,
                    Errno::OPNOTSUPP | Errno::ISDIR | Errno::INVAL | Errno::NOSYS
                ) =>
            {
                return Err(Error::io("creating a file in", &dir, e.into()));
            }
            // Not asked for, or no O_TMPFILE on this file system (or
            // kernel): a named temporary file.
            _ => {
                stale::remove_stale(&dir);
                let (file, temp) = create_named(&dir, self.mode)?;
                registry::register(&temp);
                (file, Some(temp))
            }
        };
        Ok(AtomicFile {
            file: Some(file),
            dest: dest.to_path_buf(),
            dir,
            temp,
            force: self.force,
        })
    }
}

/// An output file under construction; see the crate docs.
#[derive(Debug)]
pub struct AtomicFile {
    file: Option<File>,
    dest: PathBuf,
    dir: PathBuf,
    /// The named temporary file (fallback), if any.
    temp: Option<PathBuf>,
    force: bool,
}

impl AtomicFile {
    /// Options: force, mode, unnamed.
    pub fn builder() -> Builder {
        Builder::default()
    }

    /// Start writing `dest` (mode `0o666` minus umask); an existing `dest`
    /// is refused unless `force`.
    pub fn create(dest: &Path, force: bool) -> Result<Self> {
        Builder::default().force(force).create(dest)
    }

    /// The file to write to.
    pub fn file(&self) -> &File {
        self.file
            .as_ref()
            .expect("an AtomicFile holds its file until commit")
    }

    /// The file, mutably (for `Write`).
    pub fn file_mut(&mut self) -> &mut File {
        self.file
            .as_mut()
            .expect("an AtomicFile holds its file until commit")
    }

    /// The destination path.
    pub fn dest(&self) -> &Path {
        &self.dest
    }

    /// Whether this output is an unnamed (`O_TMPFILE`) file, which nothing
    /// can leave behind; `false`: a named temporary file (fallback).
    pub fn is_unnamed(&self) -> bool {
        self.temp.is_none()
    }

    /// Sync (if `sync`), name the file `dest`, sync the directory (if
    /// `sync`). Without `force`, fails with [`Error::Exists`] if `dest`
    /// appeared meanwhile; after [`abort_all`], fails with
    /// [`Error::Aborted`]. On any error nothing is left.
    pub fn commit(mut self, sync: bool) -> Result<()> {
        let file = self.file.take().expect("commit once");
        if sync {
            file.sync_all()
                .map_err(|e| Error::io("syncing", &self.dest, e))?;
        }
        {
            let mut state = registry::lock();
            if state.aborted {
                return Err(Error::Aborted);
            }
            check_dest(&self.dest, self.force)?;
            self.name_it(&file, &mut state)?;
            state.committed.push(self.dest.clone());
        }
        if sync {
            File::open(&self.dir)
                .and_then(|d| d.sync_all())
                .map_err(|e| Error::io("syncing the directory", &self.dir, e))?;
        }
        Ok(())
    }

    /// Give the data its name (the caller holds the registry lock).
    fn name_it(&mut self, file: &File, state: &mut registry::State) -> Result<()> {
        let temp = match &self.temp {
            Some(t) => t.clone(),
            None if !self.force => return link_unnamed(file, &self.dest),
            None => {
                // linkat cannot replace: link under a temporary name, then
                // rename over the destination.
                let t = self.dir.join(stale::temp_name());
                link_unnamed(file, &t)?;
                state.live.push(t.clone());
                self.temp = Some(t.clone());
                t
            }
        };
        let r = if self.force {
            std::fs::rename(&temp, &self.dest)
        } else {
            rename_noreplace(&temp, &self.dest)
        };
        match r {
            Ok(()) => {
                state.live.retain(|p| p != &temp);
                self.temp = None;
                Ok(())
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                Err(Error::Exists(self.dest.clone()))
            }
            Err(e) => Err(Error::io("writing", &self.dest, e)),
        }
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if let Some(t) = self.temp.take() {
            let _ = std::fs::remove_file(&t);
            registry::unregister(&t);
        }
    }
}

/// `linkat` an unnamed file to `dest` (fails if `dest` exists).
fn link_unnamed(file: &File, dest: &Path) -> Result<()> {
    let proc_path = format!("/proc/self/fd/{}", file.as_raw_fd());
    let r = match rustix::fs::linkat(CWD, proc_path.as_str(), CWD, dest, AtFlags::SYMLINK_FOLLOW) {
        // No /proc: AT_EMPTY_PATH (needs CAP_DAC_READ_SEARCH).
        Err(Errno::NOENT) if !Path::new("/proc/self/fd").exists() => {
            rustix::fs::linkat(file, "", CWD, dest, AtFlags::EMPTY_PATH)
        }
        r => r,
    };
    match r {
        Ok(()) => Ok(()),
        Err(Errno::EXIST) => Err(Error::Exists(dest.to_path_buf())),
        Err(e) => Err(Error::io("writing", dest, e.into())),
    }
}

/// `rename` that fails if `to` exists.
fn rename_noreplace(from: &Path, to: &Path) -> std::io::Result<()> {
    match rustix::fs::renameat_with(CWD, from, CWD, to, RenameFlags::NOREPLACE) {
        Ok(()) => Ok(()),
        // File systems without RENAME_NOREPLACE: link (fails if `to`
        // exists), then remove the temporary name.
        Err(Errno::INVAL | Errno::NOSYS) => {
            std::fs::hard_link(from, to)?;
            std::fs::remove_file(from)
        }
        Err(e) => Err(e.into()),
    }
}

fn create_named(dir: &Path, mode: u32) -> Result<(File, PathBuf)> {
    let mut last = None;
    for _ in 0..16 {
        let path = dir.join(stale::temp_name());
        match std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&path)
        {
            Ok(f) => return Ok((f, path)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(Error::io("creating a file in", dir, e)),
        }
    }
    Err(Error::io(
        "creating a file in",
        dir,
        last.unwrap_or_else(|| std::io::Error::other("no free temporary name")),
    ))
}

/// The directory a destination lives in (`.` for a bare name).
fn parent_dir(dest: &Path) -> PathBuf {
    match dest.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// What a special file is, for messages; `None` for files, dirs, symlinks.
fn special_kind(ft: &std::fs::FileType) -> Option<&'static str> {
    if ft.is_char_device() {
        Some("a character device")
    } else if ft.is_block_device() {
        Some("a block device")
    } else if ft.is_fifo() {
        Some("a FIFO")
    } else if ft.is_socket() {
        Some("a socket")
    } else {
        None
    }
}

/// The destination rules: directory, special file, existing file. A
/// symbolic link counts as what it points to (`/dev/stdout` is a link to a
/// pipe, a terminal or a file): a link to a device or FIFO is never
/// replaced, even with `force`.
fn check_dest(dest: &Path, force: bool) -> Result<()> {
    let Ok(lmeta) = std::fs::symlink_metadata(dest) else {
        return Ok(());
    };
    let target = std::fs::metadata(dest).ok();
    if target.as_ref().is_some_and(|m| m.is_dir()) {
        return Err(Error::IsDirectory(dest.to_path_buf()));
    }
    let ft = target.map_or(lmeta.file_type(), |m| m.file_type());
    if let Some(kind) = special_kind(&ft) {
        return Err(Error::Special {
            path: dest.to_path_buf(),
            kind,
        });
    }
    if !force {
        return Err(Error::Exists(dest.to_path_buf()));
    }
    Ok(())
}

/// The name rules, checked before any work: `dest` ends in a file name
/// (not `/`, `.` or `..`), and that name fits the file system of `dir`
/// (`NAME_MAX`, usually 255 bytes).
fn check_name(dest: &Path, dir: &Path) -> Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let bad = |reason: String| Error::BadName {
        path: dest.to_path_buf(),
        reason,
    };
    let ends_in_dir = dest.as_os_str().as_bytes().ends_with(b"/");
    let Some(name) = dest.file_name().filter(|_| !ends_in_dir) else {
        return Err(bad("it names a directory, not a file".into()));
    };
    let max = rustix::fs::statvfs(dir).map_or(255, |v| v.f_namemax);
    let len = name.as_bytes().len() as u64;
    if len > max {
        return Err(bad(format!(
            "its last component is {len} bytes long, above the file system's limit of {max}"
        )));
    }
    Ok(())
}

/// Whether two paths name the same existing file (same device and inode).
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}
