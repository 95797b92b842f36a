//! One thread against all threads on one buffer in memory: `memcpy`, CTR,
//! GCM seal and open, Cobblestone seal and open, and multi-stream CBC
//! encryption spread over the cores. Each operation alternates one thread
//! and all threads repetition by repetition, so both see the same load.

use crate::measure::{best_seconds, fill};
use crate::row::{Row, Section};
use aesflow_cipher::{Aes, RoundKeys};
use aesflow_engine::par::{self, ParGcm};
use aesflow_engine::{Pool, streams};
use aesflow_format::Result;
use aesflow_format::cobblestone::{ChunkKeys, Suite};
use aesflow_multistream::{Backend, Job, Mode, MultiStream};
use std::time::Instant;

/// Streams of the multi-core multi-stream rows.
pub const ENGINE_STREAMS: usize = 64;

/// Best seconds of `f(one)` and `f(all)` over `reps` alternating runs,
/// after one warm-up of each (`f` returns the seconds it measured).
fn pair(
    one: &Pool,
    all: &Pool,
    reps: usize,
    mut f: impl FnMut(&Pool) -> Result<f64>,
) -> Result<(f64, f64)> {
    f(one)?;
    f(all)?;
    let (mut a, mut b) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..reps.max(1) {
        a = a.min(f(one)?);
        b = b.min(f(all)?);
    }
    Ok((a, b))
}

/// The seconds `f` takes (an error of `f` passed on).
fn secs<T, E>(f: impl FnOnce() -> std::result::Result<T, E>) -> Result<f64>
where
    aesflow_format::Error: From<E>,
{
    let t = Instant::now();
    f()?;
    Ok(t.elapsed().as_secs_f64())
}

/// Collects the rows: every all-threads row is compared with its
/// one-thread row.
struct Rows {
    rows: Vec<Row>,
    size: u64,
    clock: f64,
    one: Pool,
    all: Pool,
    reps: usize,
}

impl Rows {
    fn push(&mut self, op: &str, imp: &str, streams: usize, threads: usize, seconds: f64) {
        let per = self.size / streams as u64;
        let mut r = Row::new(
            Section::Engine,
            op,
            imp,
            (op != "memcpy").then_some(if op.starts_with("cbc") { 128 } else { 256 }),
            streams,
            threads,
            per,
            seconds,
            self.clock,
        );
        if let Some(base) = self.rows.iter().find(|b| b.op == op && b.threads == 1) {
            r.compare(base);
        }
        self.rows.push(r);
    }

    /// The one-thread row and, if there are more threads, the all-threads
    /// row of `s` = (one thread's seconds, all threads').
    fn push_pair(&mut self, op: &str, imp: &str, streams: usize, s: (f64, f64)) {
        self.push(op, imp, streams, 1, s.0);
        let threads = self.all.threads();
        if threads > 1 {
            self.push(op, imp, streams, threads, s.1);
        }
    }

    /// [`pair`] on both pools, then its rows (one stream).
    fn measure(&mut self, op: &str, imp: &str, f: impl FnMut(&Pool) -> Result<f64>) -> Result<()> {
        let s = pair(&self.one, &self.all, self.reps, f)?;
        self.push_pair(op, imp, 1, s);
        Ok(())
    }
}

/// The in-memory rows on `size` bytes with one thread and with `threads`
/// (0: all cores); best of `reps`.
pub fn bench_threads(size: usize, reps: usize, threads: usize, clock: f64) -> Result<Vec<Row>> {
    let key = [0x42u8; 32];
    let aes = Aes::new(&key)?;
    let gcm = ParGcm::new(&key)?;
    let mut buf = vec![0x5au8; size];
    fill(&mut buf);
    let mut out = Rows {
        rows: Vec::new(),
        size: size as u64,
        clock,
        one: Pool::new(1)?,
        all: Pool::new(threads)?,
        reps,
    };
    let mut dst = vec![0u8; size];
    let piece = aesflow_engine::pool::PIECE;
    let s1 = best_seconds(reps, || {
        dst.copy_from_slice(&buf);
        std::hint::black_box(&mut dst);
    });
    let s2 = best_seconds(reps, || {
        out.all.for_each_piece(&mut dst, piece, |i, d| {
            d.copy_from_slice(&buf[i * piece..i * piece + d.len()]);
        });
        std::hint::black_box(&mut dst);
    });
    out.push_pair("memcpy", "std", 1, (s1, s2));
    drop(dst);
    out.measure("ctr", "engine/par", |pool| {
        let mut c = [0u8; 16];
        secs(|| -> Result<()> {
            par::ctr_xor(pool, &aes, &mut c, &mut buf);
            Ok(())
        })
    })?;
    out.measure("gcm-seal", "engine/par", |pool| {
        secs(|| gcm.seal_in_place(pool, &[1; 12], b"", &mut buf))
    })?;
    // Each open decrypts the buffer, so the next one needs the tag of the
    // new contents: a seal (untimed) before every open.
    out.measure("gcm-open", "engine/par", |pool| {
        let tag = gcm.seal_in_place(pool, &[2; 12], b"", &mut buf)?;
        secs(|| gcm.open_in_place(pool, &[2; 12], b"", &mut buf, &tag))
    })?;
    let keys = ChunkKeys::for_encryption(Suite::Cobblestone256, &key, b"")?;
    let (mut sealed, mut opened) = (Vec::new(), Vec::new());
    out.measure("cobblestone-seal", "engine (out of place)", |pool| {
        secs(|| keys.seal_chunks(pool, 0, &buf, true, &mut sealed))
    })?;
    out.measure("cobblestone-open", "engine (out of place)", |pool| {
        secs(|| keys.open_chunks(pool, 0, &sealed, true, &mut opened))
    })?;
    drop((sealed, opened));
    let s = multistream_pair(&out.one, &out.all, &buf, reps)?;
    let name = format!("engine/streams+{}", multistream()?.backend());
    out.push_pair("cbc-enc", &name, ENGINE_STREAMS, s);
    Ok(out.rows)
}

fn multistream() -> Result<MultiStream> {
    MultiStream::new(Backend::Auto).map_err(|e| aesflow_format::Error::InvalidInput(e.to_string()))
}

/// CBC encryption of [`ENGINE_STREAMS`] streams (distinct AES-128 keys)
/// that share `buf` equally, through [`streams::process`].
fn multistream_pair(one: &Pool, all: &Pool, buf: &[u8], reps: usize) -> Result<(f64, f64)> {
    let engine = multistream()?;
    let per = (buf.len() / ENGINE_STREAMS / 16).max(1) * 16;
    let keys: Vec<RoundKeys> = (0..ENGINE_STREAMS)
        .map(|i| RoundKeys::from_bytes(&[i as u8 ^ 0x3c; 16]).expect("16-byte key"))
        .collect();
    let mut outs = vec![vec![0u8; per]; ENGINE_STREAMS];
    pair(one, all, reps, |pool| {
        let mut jobs: Vec<Job<'_>> = keys
            .iter()
            .zip(buf.chunks(per))
            .zip(outs.iter_mut())
            .enumerate()
            .map(|(i, ((k, inp), o))| Job::new(Mode::CbcEncrypt, k, [i as u8; 16], inp, o))
            .collect();
        let t = Instant::now();
        streams::process(pool, &engine, &mut jobs)?;
        Ok(t.elapsed().as_secs_f64())
    })
}
