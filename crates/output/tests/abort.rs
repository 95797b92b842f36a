//! `abort_all` (what a signal handler calls): later commits fail, named
//! temporary files go, committed outputs are reported. Its own test binary:
//! the abort is process-wide.

use aesflow_output::{AtomicFile, Error, abort_all};

#[test]
fn abort_stops_commits_and_reports_the_committed() {
    let dir = tempfile::tempdir().unwrap();
    let done = dir.path().join("done");
    AtomicFile::create(&done, false)
        .unwrap()
        .commit(false)
        .unwrap();
    let named = AtomicFile::builder()
        .unnamed(false)
        .create(&dir.path().join("named"))
        .unwrap();
    let unnamed = AtomicFile::create(&dir.path().join("unnamed"), false).unwrap();
    assert_eq!(abort_all(), vec![done.clone()]);
    // The named temporary file is gone already, before the drop.
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(left.len(), 1);
    assert!(matches!(named.commit(false), Err(Error::Aborted)));
    assert!(matches!(unnamed.commit(false), Err(Error::Aborted)));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}
