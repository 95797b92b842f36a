//! What the simulation tests share: a missing simulator skips, and (for
//! the processors) the CTR check across a key change mid-stream.

use aesflow_hw::verify::{Case, CtrReport, check_ctr};
use aesflow_hw::{Error, KeyMode, Variant};

/// `Some` of a result; `None` (the test skipped, saying why) when a tool is
/// missing; any other error fails the test.
pub fn skip_or<T>(r: Result<T, Error>) -> Option<T> {
    match r {
        Ok(t) => Some(t),
        Err(Error::ToolMissing(t)) => {
            aesflow_vectors::skip!("{t} is not installed");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

/// The CTR keystream of `v` against `aesflow-modes` under the last two
/// keys of `cases`, with a key change mid-stream, from a seed whose low 64
/// bits wrap during the run (the counter is 128-bit); the bubble the key
/// change leaves is the documented one: the `key_load` cycle with online
/// keys, at most the drain and the key schedule with offline keys.
#[allow(dead_code)] // not every test binary checks processors
pub fn key_change_mid_stream(v: &Variant, cases: &[Case]) -> Option<CtrReport> {
    let k = cases[cases.len() - 1].key.clone();
    let k2 = cases[cases.len() - 2].key.clone();
    let seed = [
        0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xfd,
    ];
    let c = skip_or(check_ctr(v, &k, &k2, &seed, 20, 12))?;
    match v.keys {
        KeyMode::Online => assert_eq!(c.key_change_bubble, 1),
        KeyMode::Offline => {
            assert!(c.key_change_bubble > v.key_schedule_cycles() as u64);
            assert!(c.key_change_bubble <= (1 + v.latency() + v.key_schedule_cycles()) as u64);
        }
    }
    Some(c)
}
