//! The submit/flush queue.

mod common;

use aesflow_multistream::{Backend, Error, Mode, MultiStream, MultiStreamQueue};
use common::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::HashMap;

#[test]
fn gateway_traffic_matches_references() {
    let mut rng = StdRng::seed_from_u64(42);
    for b in Backend::available() {
        let engine = MultiStream::new(b).unwrap();
        let capacity = 2 * engine.lanes().max(4);
        let mut q = MultiStreamQueue::with_engine(capacity, engine);
        let mut tunnels = HashMap::new();
        for id in 0..20u64 {
            let key = random_key(&mut rng);
            let mode = random_mode(&mut rng);
            q.add_tunnel(id, &key, mode).unwrap();
            tunnels.insert(id, (key, mode));
        }
        let packets = if b == Backend::Portable { 40 } else { 500 };
        let mut expected = Vec::new();
        let mut got = Vec::new();
        for i in 0..packets {
            let id = rng.random_range(0..20u64);
            let (key, mode) = &tunnels[&id];
            let len = random_len(&mut rng, *mode).min(1500);
            let len = if mode.needs_whole_blocks() {
                len / 16 * 16
            } else {
                len
            };
            let data = random_bytes(&mut rng, len);
            let iv: [u8; 16] = rng.random();
            let before = q.pending();
            let t = q.submit(id, iv, data.clone()).unwrap();
            assert_eq!(t, i as u64);
            if before + 1 == capacity {
                assert_eq!(q.pending(), 0, "a full queue is processed automatically");
            } else {
                assert_eq!(q.pending(), before + 1);
            }
            expected.push((t, id, reference(*mode, key, &iv, &data)));
            if rng.random_bool(0.02) {
                got.extend(q.flush().unwrap());
            } else if rng.random_bool(0.02) {
                got.extend(q.take_completed());
            }
        }
        got.extend(q.flush().unwrap());
        assert_eq!(q.pending(), 0);
        assert_eq!(q.completed(), 0);
        assert_eq!(got.len(), expected.len());
        for (c, (t, id, want)) in got.iter().zip(&expected) {
            assert_eq!(c.ticket, *t, "ticket order");
            assert_eq!(c.tunnel, *id);
            assert!(c.data == *want, "backend {b}: ticket {t} differs");
        }
    }
}

#[test]
fn queue_errors_and_rekeying() {
    let mut q = MultiStreamQueue::new(4);
    assert_eq!(
        q.submit(9, [0; 16], vec![0; 16]),
        Err(Error::UnknownTunnel(9))
    );
    assert!(matches!(
        q.add_tunnel(1, &[0u8; 15], Mode::Ofb),
        Err(Error::Key { .. })
    ));
    let k1 = [1u8; 16];
    let k2 = [2u8; 24];
    q.add_tunnel(1, &k1, Mode::CbcEncrypt).unwrap();
    assert!(matches!(
        q.submit(1, [0; 16], vec![0; 17]),
        Err(Error::NotBlockAligned { len: 17, .. })
    ));
    let data = vec![5u8; 64];
    let t0 = q.submit(1, [3; 16], data.clone()).unwrap();
    // Re-key: the pending packet keeps the old key.
    q.add_tunnel(1, &k2, Mode::CbcEncrypt).unwrap();
    let t1 = q.submit(1, [3; 16], data.clone()).unwrap();
    assert!(q.remove_tunnel(1));
    assert!(!q.remove_tunnel(1));
    assert_eq!(q.pending(), 2);
    let done = q.flush().unwrap();
    assert_eq!(done.len(), 2);
    assert_eq!(done[0].ticket, t0);
    assert_eq!(
        done[0].data,
        reference(Mode::CbcEncrypt, &k1, &[3; 16], &data)
    );
    assert_eq!(done[0].iv[..], done[0].data[48..]);
    assert_eq!(done[1].ticket, t1);
    assert_eq!(
        done[1].data,
        reference(Mode::CbcEncrypt, &k2, &[3; 16], &data)
    );
    assert!(q.flush().unwrap().is_empty());
}
