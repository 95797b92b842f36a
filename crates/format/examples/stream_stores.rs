//! `cargo run -p aesflow-format --release --example stream_stores -- [MiB]
//! [reps] [offset]`: Cobblestone's layout (16 KiB chunks, each followed
//! by its 16-byte tag) sealed and opened out of place with the output's
//! stores through the caches (`Prefetch::Always`, the chunks' default) and
//! past them (`Prefetch::Stream`), alternated call by call on one thread
//! and on all threads, beside `memcpy` of the same size. The outputs start
//! `offset` bytes past a cache line (default 16, as a large `malloc`
//! buffer does). Prints GB/s, best of `reps`.

use aesflow_engine::Pool;
use aesflow_modes::gcm::{Gcm, Prefetch};
use std::time::Instant;

const CHUNK: usize = 16384;
const ENC: usize = CHUNK + 16;
const PER_TASK: usize = 16;

fn nonce(k: usize) -> [u8; 12] {
    let mut n = [7u8; 12];
    n[4..].copy_from_slice(&(k as u64).to_be_bytes());
    n
}

fn seal(pool: &Pool, gcm: &Gcm, plain: &[u8], sealed: &mut [u8]) {
    pool.for_each_piece(sealed, ENC * PER_TASK, |g, dst| {
        for (j, c) in dst.chunks_mut(ENC).enumerate() {
            let k = g * PER_TASK + j;
            let (body, tag) = c.split_at_mut(CHUNK);
            let t = gcm.seal_into(&nonce(k), &[], &plain[k * CHUNK..(k + 1) * CHUNK], body);
            tag.copy_from_slice(&t.expect("a valid chunk"));
        }
    });
}

fn open(pool: &Pool, gcm: &Gcm, sealed: &[u8], opened: &mut [u8]) {
    pool.for_each_piece(opened, CHUNK * PER_TASK, |g, dst| {
        for (j, out) in dst.chunks_mut(CHUNK).enumerate() {
            let k = g * PER_TASK + j;
            let (body, tag) = sealed[k * ENC..(k + 1) * ENC].split_at(CHUNK);
            gcm.open_into(&nonce(k), &[], body, tag, out)
                .expect("authentic");
        }
    });
}

fn main() {
    let arg = |i: usize, d: usize| {
        std::env::args()
            .nth(i)
            .map_or(d, |s| s.parse().expect("a number"))
    };
    let (mib, reps, off) = (arg(1, 256), arg(2, 5), arg(3, 16));
    let n = (mib << 20) / CHUNK;
    let kernel = aesflow_cipher::detect_best();
    let pools = [Pool::new(1).unwrap(), Pool::new(0).unwrap()];
    let gcm = aesflow_engine::kernel::gcm(&[0x42; 32], kernel).unwrap();
    let cached = gcm.clone().with_prefetch(Prefetch::Always);
    let streamed = gcm.with_prefetch(Prefetch::Stream);
    let at = |v: &[u8]| (64 - v.as_ptr() as usize % 64) % 64 + off;
    let plain: Vec<u8> = (0..n * CHUNK).map(|i| (i * 7) as u8).collect();
    let (mut sb, mut ob) = (vec![0u8; n * ENC + 128], vec![0u8; n * CHUNK + 128]);
    let (so, oo) = (at(&sb), at(&ob));
    let sealed = &mut sb[so..so + n * ENC];
    let opened = &mut ob[oo..oo + n * CHUNK];
    let piece = aesflow_engine::pool::PIECE;
    // best[op][pool]: memcpy, seal cached, seal streamed, open cached,
    // open streamed.
    let mut best = [[f64::INFINITY; 2]; 5];
    let time = |slot: &mut f64, f: &mut dyn FnMut()| {
        let t = Instant::now();
        f();
        *slot = slot.min(t.elapsed().as_secs_f64());
    };
    for r in 0..=reps {
        for (p, pool) in pools.iter().enumerate() {
            let mut b = [f64::INFINITY; 5];
            time(&mut b[0], &mut || {
                pool.for_each_piece(opened, piece, |i, d| {
                    d.copy_from_slice(&plain[i * piece..i * piece + d.len()])
                })
            });
            for (s, g) in [(1, &cached), (2, &streamed)] {
                time(&mut b[s], &mut || seal(pool, g, &plain, sealed));
                time(&mut b[s + 2], &mut || open(pool, g, sealed, opened));
                assert!(opened == &plain[..]);
            }
            if r > 0 {
                for (op, t) in b.into_iter().enumerate() {
                    best[op][p] = best[op][p].min(t);
                }
            }
        }
    }
    let gbps = |s: f64| (n * CHUNK) as f64 / s / 1e9;
    println!(
        "{mib} MiB, outputs {off} bytes past a line, best of {reps}; GB/s on 1 / {} threads",
        pools[1].threads()
    );
    for (op, name) in [
        "memcpy",
        "seal cached",
        "seal streamed",
        "open cached",
        "open streamed",
    ]
    .into_iter()
    .enumerate()
    {
        let [a, b] = best[op];
        println!(
            "{name:14} {:6.2} {:6.2}   (x memcpy on all threads: {:.3})",
            gbps(a),
            gbps(b),
            best[0][1] / b
        );
    }
}
