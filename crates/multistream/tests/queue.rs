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

/// `drain_completed` and `flush_into` hand back what `take_completed` and
/// `flush` would: the same packets, in ticket order, nothing twice.
#[test]
fn draining_matches_taking() {
    let mut rng = StdRng::seed_from_u64(7);
    let key = random_key(&mut rng);
    let mut a = MultiStreamQueue::new(5);
    let mut b = MultiStreamQueue::new(5);
    a.add_tunnel(3, &key, Mode::CbcEncrypt).unwrap();
    b.add_tunnel(3, &key, Mode::CbcEncrypt).unwrap();
    let (mut got_a, mut got_b) = (Vec::new(), Vec::new());
    for i in 0..23 {
        let data = random_bytes(&mut rng, 16 * (1 + i % 4));
        let iv: [u8; 16] = rng.random();
        a.submit(3, iv, data.clone()).unwrap();
        b.submit(3, iv, data).unwrap();
        if i % 7 == 6 {
            got_a.extend(a.take_completed());
            got_b.extend(b.drain_completed());
            assert_eq!(b.completed(), 0);
        }
    }
    got_a.extend(a.flush().unwrap());
    b.flush_into(&mut got_b).unwrap();
    assert_eq!((b.pending(), b.completed()), (0, 0));
    assert_eq!(got_a.len(), 23);
    assert_eq!(got_a, got_b);
    b.flush_into(&mut got_b).unwrap();
    assert_eq!(got_b.len(), 23, "nothing handed back twice");
}

/// Tunnels registered, re-keyed and removed at random between submissions:
/// each packet is encrypted with the key its tunnel had when it was
/// submitted, unknown tunnels are refused, and freed key slots are reused.
#[test]
fn rekeying_and_removal_under_traffic() {
    let mut rng = StdRng::seed_from_u64(11);
    let mut q = MultiStreamQueue::new(6);
    let mut live: HashMap<u64, (Vec<u8>, Mode)> = HashMap::new();
    let mut expected = Vec::new();
    let mut got = Vec::new();
    for _ in 0..600 {
        let id = rng.random_range(0..12u64) * 0x1_0000_0001;
        match rng.random_range(0..10) {
            0 => {
                let key = random_key(&mut rng);
                let mode = random_mode(&mut rng);
                q.add_tunnel(id, &key, mode).unwrap();
                live.insert(id, (key, mode));
            }
            1 => assert_eq!(q.remove_tunnel(id), live.remove(&id).is_some()),
            _ => {
                let iv: [u8; 16] = rng.random();
                let Some((key, mode)) = live.get(&id) else {
                    assert_eq!(q.submit(id, iv, vec![0; 16]), Err(Error::UnknownTunnel(id)));
                    continue;
                };
                let blocks = rng.random_range(0..6);
                let data = random_bytes(&mut rng, 16 * blocks);
                let t = q.submit(id, iv, data.clone()).unwrap();
                expected.push((t, id, reference(*mode, key, &iv, &data)));
            }
        }
        if rng.random_bool(0.05) {
            got.extend(q.drain_completed());
        }
    }
    q.flush_into(&mut got).unwrap();
    assert_eq!(got.len(), expected.len());
    for (c, (t, id, want)) in got.iter().zip(&expected) {
        assert_eq!((c.ticket, c.tunnel), (*t, *id));
        assert!(c.data == *want, "ticket {t} differs");
    }
    let dbg = format!("{q:?}");
    assert!(dbg.contains(&format!("tunnels: {}", live.len())), "{dbg}");
}

/// Many tunnel ids, spaced so that a weak hash would pile them up, are all
/// found again.
#[test]
fn many_tunnel_ids() {
    let mut q = MultiStreamQueue::new(64);
    let ids: Vec<u64> = (0..5000u64).map(|i| i << 40 | i << 12).collect();
    for &id in &ids {
        q.add_tunnel(id, &[id as u8; 16], Mode::Ofb).unwrap();
    }
    for &id in &ids {
        q.submit(id, [0; 16], vec![0; 16]).unwrap();
    }
    let done = q.flush().unwrap();
    for (c, &id) in done.iter().zip(&ids) {
        assert_eq!(c.tunnel, id);
        assert_eq!(
            c.data,
            reference(Mode::Ofb, &[id as u8; 16], &[0; 16], &[0; 16])
        );
    }
    assert_eq!(done.len(), ids.len());
    assert_eq!(q.submit(1, [0; 16], vec![]), Err(Error::UnknownTunnel(1)));
}

/// Packets submitted through handles equal those submitted by id; a handle
/// goes stale when its tunnel is re-keyed (even while packets under the old
/// key are pending, which keep that key) or removed, and a new handle
/// carries the new key.
#[test]
fn handles_submit_as_ids_do_and_go_stale_on_rekey_or_removal() {
    let mut rng = StdRng::seed_from_u64(7);
    let (k1, k2) = (random_key(&mut rng), random_key(&mut rng));
    let mut q = MultiStreamQueue::new(64);
    q.add_tunnel(5, &k1, Mode::CbcEncrypt).unwrap();
    q.add_tunnel(6, &k2, Mode::CbcEncrypt).unwrap();
    assert_eq!(q.handle(9), None);
    let h5 = q.handle(5).unwrap();
    assert_eq!(h5.tunnel(), 5);
    let data = random_bytes(&mut rng, 96);
    let iv: [u8; 16] = rng.random();
    let by_handle = q.submit_to(h5, iv, data.clone()).unwrap();
    let by_id = q.submit(5, iv, data.clone()).unwrap();
    // Re-keyed while two packets under the old key are pending.
    q.add_tunnel(5, &k2, Mode::CbcEncrypt).unwrap();
    assert_eq!(
        q.submit_to(h5, iv, data.clone()),
        Err(Error::StaleHandle(5))
    );
    let new = q.submit_to(q.handle(5).unwrap(), iv, data.clone()).unwrap();
    // Removed, and its slot taken by another tunnel's key.
    let h6 = q.handle(6).unwrap();
    assert!(q.remove_tunnel(6));
    q.add_tunnel(7, &k1, Mode::CbcEncrypt).unwrap();
    assert_eq!(
        q.submit_to(h6, iv, data.clone()),
        Err(Error::StaleHandle(6))
    );
    let done = q.flush().unwrap();
    let find = |t| &done.iter().find(|c| c.ticket == t).unwrap().data;
    let old = reference(Mode::CbcEncrypt, &k1, &iv, &data);
    assert_eq!(find(by_handle), &old);
    assert_eq!(find(by_id), &old);
    assert_eq!(find(new), &reference(Mode::CbcEncrypt, &k2, &iv, &data));
    // A processed batch frees the retired slot; the re-keyed tunnel's
    // current handle stays valid, the old one stale.
    assert_eq!(
        q.submit_to(h5, iv, data.clone()),
        Err(Error::StaleHandle(5))
    );
    assert!(q.submit_to(q.handle(5).unwrap(), iv, data).is_ok());
}
