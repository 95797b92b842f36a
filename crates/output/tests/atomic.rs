//! The output rules of `aesflow-output`, on the unnamed (`O_TMPFILE`) path
//! and on the named-temporary-file fallback.

use aesflow_output::{AtomicFile, Error, TEMP_PREFIX, remove_stale};
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Run `test(how, dir, dest)` on both creation paths, each in a new
/// temporary directory `dir` with `dest` = `dir/out`.
fn on_both_paths(test: impl Fn(AtomicFile2, &Path, &Path)) {
    for how in [AtomicFile2(true), AtomicFile2(false)] {
        let dir = tempfile::tempdir().unwrap();
        test(how, dir.path(), &dir.path().join("out"));
    }
}

/// Creation on one of the two paths.
#[derive(Clone, Copy)]
struct AtomicFile2(bool);

impl AtomicFile2 {
    fn create(self, dest: &Path, force: bool) -> aesflow_output::Result<AtomicFile> {
        AtomicFile::builder()
            .force(force)
            .unnamed(self.0)
            .create(dest)
    }
}

#[test]
fn appears_only_on_commit() {
    on_both_paths(|how, dir, dest| {
        let mut f = how.create(dest, false).unwrap();
        f.file_mut().write_all(b"data").unwrap();
        assert!(!dest.exists());
        assert_eq!(f.is_unnamed(), how.0, "this file system has O_TMPFILE");
        f.commit(true).unwrap();
        assert_eq!(std::fs::read(dest).unwrap(), b"data");
        assert_eq!(names(dir), ["out"]);
    });
}

#[test]
fn dropped_leaves_nothing() {
    on_both_paths(|how, dir, dest| {
        let mut f = how.create(dest, false).unwrap();
        f.file_mut().write_all(&[1u8; 100_000]).unwrap();
        drop(f);
        assert!(names(dir).is_empty());
    });
}

#[test]
fn existing_file_needs_force_and_late_arrival_is_kept() {
    on_both_paths(|how, dir, dest| {
        std::fs::write(dest, b"old").unwrap();
        assert!(matches!(how.create(dest, false), Err(Error::Exists(_))));
        let mut f = how.create(dest, true).unwrap();
        f.file_mut().write_all(b"new").unwrap();
        f.commit(false).unwrap();
        assert_eq!(std::fs::read(dest).unwrap(), b"new");
        assert_eq!(names(dir), ["out"]);

        // A file that appears between create and commit is not replaced.
        let late = dir.join("late");
        let mut f = how.create(&late, false).unwrap();
        f.file_mut().write_all(b"mine").unwrap();
        std::fs::write(&late, b"theirs").unwrap();
        assert!(matches!(f.commit(false), Err(Error::Exists(_))));
        assert_eq!(std::fs::read(&late).unwrap(), b"theirs");
        assert_eq!(names(dir), ["late", "out"]);
    });
}

#[test]
fn directory_is_named_as_such_even_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let e = AtomicFile::create(dir.path(), false).unwrap_err();
    assert!(matches!(e, Error::IsDirectory(_)), "{e}");
    assert!(!e.to_string().contains("exists"), "{e}");
}

#[test]
fn special_files_are_never_replaced() {
    let e = AtomicFile::create(Path::new("/dev/null"), true).unwrap_err();
    assert!(matches!(e, Error::Special { .. }), "{e}");
    assert!(e.to_string().contains("character device"), "{e}");
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    let ok = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        aesflow_vectors::skip!("mkfifo is not available; the FIFO case is not checked");
        return;
    }
    for force in [false, true] {
        let e = AtomicFile::create(&fifo, force).unwrap_err();
        assert!(e.to_string().contains("a FIFO"), "{e}");
    }
    use std::os::unix::fs::FileTypeExt;
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
}

#[test]
fn a_link_counts_as_what_it_points_to() {
    on_both_paths(|how, dir, _| {
        // A link to a FIFO (as /dev/stdout is a link to a pipe): refused
        // like the FIFO, even with force, at creation and at commit.
        let fifo = dir.join("fifo");
        let ok = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            aesflow_vectors::skip!("mkfifo is not available; links to FIFOs not checked");
            return;
        }
        let link = dir.join("link");
        std::os::unix::fs::symlink(&fifo, &link).unwrap();
        for force in [false, true] {
            let e = how.create(&link, force).unwrap_err();
            assert!(matches!(e, Error::Special { kind: "a FIFO", .. }), "{e}");
        }
        // A link made while the output was written: refused at commit.
        let late = dir.join("late");
        let f = how.create(&late, true).unwrap();
        std::os::unix::fs::symlink(&fifo, &late).unwrap();
        let e = f.commit(false).unwrap_err();
        assert!(matches!(e, Error::Special { .. }), "{e}");
        for l in [&link, &late] {
            assert!(std::fs::symlink_metadata(l).unwrap().is_symlink());
        }
        // A link to a directory is the directory.
        let to_dir = dir.join("to-dir");
        std::os::unix::fs::symlink(dir, &to_dir).unwrap();
        let e = how.create(&to_dir, true).unwrap_err();
        assert!(matches!(e, Error::IsDirectory(_)), "{e}");
    });
}

#[test]
fn names_that_cannot_be_files_are_refused_at_creation() {
    on_both_paths(|how, dir, _| {
        let long = dir.join("n".repeat(300));
        let sub = dir.join("sub");
        std::fs::create_dir(&sub).unwrap();
        let slash = std::path::PathBuf::from(format!("{}/", sub.display()));
        let missing = std::path::PathBuf::from(format!("{}/", dir.join("missing").display()));
        let dots = dir.join("..");
        for bad in [&long, &slash, &missing, &dots] {
            let e = how.create(bad, true).unwrap_err();
            assert!(
                matches!(e, Error::BadName { .. } | Error::IsDirectory(_)),
                "{}: {e}",
                bad.display()
            );
        }
        // The longest name the file system takes is fine.
        let max = dir.join("m".repeat(255));
        how.create(&max, false).unwrap().commit(false).unwrap();
        assert!(max.exists());
        assert_eq!(names(&sub), Vec::<String>::new());
    });
}

#[test]
fn mode_follows_umask_and_request() {
    let old = rustix::process::umask(rustix::fs::Mode::from_raw_mode(0o027));
    on_both_paths(|how, dir, _| {
        for (name, mode, want) in [
            ("a", None, 0o640),
            ("b", Some(0o600), 0o600),
            ("c", Some(0o755), 0o750),
        ] {
            let dest = dir.join(name);
            let mut b = AtomicFile::builder().unnamed(how.0);
            if let Some(m) = mode {
                b = b.mode(m);
            }
            b.create(&dest).unwrap().commit(false).unwrap();
            let got = std::fs::metadata(&dest).unwrap().permissions().mode() & 0o777;
            assert_eq!(got, want, "{name} (unnamed: {})", how.0);
        }
    });
    rustix::process::umask(old);
}

#[test]
fn stale_temporaries_of_dead_processes_are_removed() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let stale = format!("{TEMP_PREFIX}{dead}-0123456789abcdef");
    let live = format!("{TEMP_PREFIX}{}-0123456789abcdef", std::process::id());
    for n in [
        stale.as_str(),
        live.as_str(),
        ".aesflow-tmp-notours",
        "keep",
    ] {
        std::fs::write(dir.path().join(n), b"x").unwrap();
    }
    // The fallback path cleans up before creating.
    let f = AtomicFile::builder()
        .unnamed(false)
        .create(&dir.path().join("out"))
        .unwrap();
    let left = names(dir.path());
    assert!(!left.contains(&stale), "{left:?}");
    assert!(left.contains(&live) && left.contains(&"keep".to_string()));
    assert!(left.contains(&".aesflow-tmp-notours".to_string()));
    drop(f);
    assert!(remove_stale(dir.path()).is_empty());
}

/// The Dask driver's temporaries: on this host removed once their process
/// is gone (by the first creation in the directory, unnamed or not), from
/// another host once their lock can be taken; a live or locked one stays.
#[test]
fn stale_dask_temporaries_are_removed() {
    use aesflow_output::{DASK_TEMP_PREFIX, dask_temp_name, host_label};
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let host = host_label();
    let stale = format!("{DASK_TEMP_PREFIX}{host}-{dead}-0123456789abcdef");
    let live = dask_temp_name();
    let other_free = format!("{DASK_TEMP_PREFIX}elsewhere-1-0123456789abcdef");
    let other_locked = format!("{DASK_TEMP_PREFIX}elsewhere-2-0123456789abcdef");
    for n in [&stale, &live, &other_free, &other_locked] {
        std::fs::write(dir.path().join(n), b"x").unwrap();
    }
    let held = std::fs::File::open(dir.path().join(&other_locked)).unwrap();
    rustix::fs::flock(&held, rustix::fs::FlockOperation::LockExclusive).unwrap();
    let f = AtomicFile::builder()
        .create(&dir.path().join("out"))
        .unwrap();
    let left = names(dir.path());
    assert!(
        !left.contains(&stale) && !left.contains(&other_free),
        "{left:?}"
    );
    assert!(
        left.contains(&live) && left.contains(&other_locked),
        "{left:?}"
    );
    drop(f);
    drop(held);
    let removed = remove_stale(dir.path());
    assert_eq!(removed, vec![dir.path().join(&other_locked)]);
}
