//! `cbc_encrypt_many` and `cbc_encrypt_many_into`: many independent CBC
//! encryptions in one call on the multi-stream engine, spread over all
//! cores.
//!
//! A call runs in rounds: round `k` covers bytes `k·S − d .. (k+1)·S − d`
//! of a stream (`S` = [`segment`], `d` its [`shift`], 0 for a stream of
//! one segment), each stream's chaining value carried from one round to
//! the next. A round's segments are dealt into one group per
//! thread of about [`BATCH_PER_THREAD`] bytes, and each group runs on one
//! core as one call to the engine, which interleaves its streams across the
//! SIMD lanes. So however many streams there are and however long, a core
//! works on a few hundred KiB at a time with enough streams to fill its
//! lanes, and every output byte is written (for a new `bytes`: first
//! initialised, on the core that writes it) while it is in that core's
//! cache.

use crate::buffer::{Uninit, View, new_bytes_many_lazy};
use crate::errors;
use aesflow_multistream::{InPlaceJob, Job, Key, Mode, MultiStream, RoundKeys};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::ops::Range;
use std::sync::Mutex;

/// The multi-stream engine of the kernel [`crate::kernel`] resolves
/// (`AESFLOW_KERNEL`, else the best constant-time one), through
/// [`MultiStream::with_kernel`]: `vaes` runs the 512-bit VAES engine,
/// `vaes256` the 256-bit one, `aesni` the 128-bit AES-NI one, a portable
/// kernel each stream alone on that kernel; its lanes for streams with keys
/// of their own follow [`crate::plan`].
fn engine() -> PyResult<MultiStream> {
    MultiStream::with_kernel(crate::kernel()?)
        .map(|e| e.with_plan(&crate::plan()))
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The name of the multi-stream backend :func:`cbc_encrypt_many` runs on
/// (``"vaes"``, ``"vaes256"``, ``"aesni"`` or ``"portable"``), which follows
/// the kernel :func:`default_kernel` names.
#[pyfunction]
pub fn multistream_backend() -> PyResult<&'static str> {
    Ok(engine()?.backend().name())
}

/// The keys, IVs and inputs of a call, read and checked (pyca's errors:
/// `ValueError` for a size, `TypeError` for a non-buffer).
struct Inputs {
    keys: Vec<View>,
    ivs: Vec<[u8; 16]>,
    buffers: Vec<View>,
}

impl Inputs {
    fn read(
        keys: &[Bound<'_, PyAny>],
        ivs: &[Bound<'_, PyAny>],
        buffers: &[Bound<'_, PyAny>],
    ) -> PyResult<Self> {
        if keys.len() != ivs.len() || keys.len() != buffers.len() {
            return Err(PyValueError::new_err(format!(
                "keys, ivs and buffers must have the same length (got {}, {}, {})",
                keys.len(),
                ivs.len(),
                buffers.len()
            )));
        }
        let kv: Vec<View> = keys
            .iter()
            .map(|k| View::read(k, "keys[i]"))
            .collect::<PyResult<_>>()?;
        let bv: Vec<View> = buffers
            .iter()
            .map(|b| View::read(b, "buffers[i]"))
            .collect::<PyResult<_>>()?;
        let mut iv_arr = Vec::with_capacity(ivs.len());
        for (i, v) in ivs.iter().enumerate() {
            let v = View::read(v, "ivs[i]")?;
            let a: [u8; 16] = v.bytes().try_into().map_err(|_| {
                PyValueError::new_err(format!("ivs[{i}] must be 16 bytes, got {}", v.len()))
            })?;
            iv_arr.push(a);
        }
        for (i, (k, b)) in kv.iter().zip(&bv).enumerate() {
            if ![16, 24, 32].contains(&k.len()) {
                return Err(PyValueError::new_err(format!(
                    "keys[{i}] must be 16, 24 or 32 bytes, got {}",
                    k.len()
                )));
            }
            if b.len() % 16 != 0 {
                return Err(PyValueError::new_err(format!(
                    "buffers[{i}] must be a multiple of 16 bytes (no padding), got {}",
                    b.len()
                )));
            }
        }
        Ok(Inputs {
            keys: kv,
            ivs: iv_arr,
            buffers: bv,
        })
    }
}

/// CBC-encrypt many independent streams at once: ``buffers[i]`` under
/// ``keys[i]`` (16, 24 or 32 bytes each; keys may differ) and ``ivs[i]``
/// (16 bytes). No padding: every buffer must be a multiple of 16 bytes
/// (pad first, e.g. with ``aesflow.encrypt("cbc", …)`` for one stream).
/// Returns ``[ciphertext_i]``, each equal to ``encrypt("cbc", keys[i],
/// ivs[i], buffers[i], padding=False)``. The streams are interleaved
/// across the AES units' SIMD lanes and all cores, which is where CBC
/// encryption, serial within one stream, gets its throughput. Each call
/// allocates its outputs (their first touch is part of its time); to
/// encrypt into buffers that are reused, see :func:`cbc_encrypt_many_into`.
#[pyfunction]
pub fn cbc_encrypt_many<'py>(
    py: Python<'py>,
    keys: Vec<Bound<'py, PyAny>>,
    ivs: Vec<Bound<'py, PyAny>>,
    buffers: Vec<Bound<'py, PyAny>>,
) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let a = Inputs::read(&keys, &ivs, &buffers)?;
    let engine = engine()?;
    let lens: Vec<usize> = a.buffers.iter().map(View::len).collect();
    let keys: Vec<&[u8]> = a.keys.iter().map(View::bytes).collect();
    let ins: Vec<&[u8]> = a.buffers.iter().map(View::bytes).collect();
    let ivs = &a.ivs;
    new_bytes_many_lazy(py, &lens, |outs| {
        let mut streams: Vec<Stream<'_>> = (keys.iter().zip(ivs).zip(&ins))
            .zip(outs.iter_mut())
            .map(|(((k, iv), b), out)| Stream {
                key: k,
                iv: *iv,
                input: Some(b),
                out: Out::Fresh(out),
            })
            .collect();
        run(&engine, &mut streams)
    })
}

/// :func:`cbc_encrypt_many` into caller buffers: ``outputs[i]`` (writable,
/// at least ``len(buffers[i])`` bytes; its first ``len(buffers[i])`` bytes
/// are written) receives the ciphertext of ``buffers[i]``. Nothing is
/// allocated, so buffers reused from call to call keep the throughput flat
/// as the streams grow in number and length. ``outputs[i]`` may be
/// ``buffers[i]`` itself (encrypted in place, no copy); any other input
/// (a buffer, a key, an IV) that shares memory with an output is read
/// before anything is written, as if it were separate. The outputs must
/// not share memory with one another (``ValueError``), nor may an output
/// be too short (``ValueError``) or read-only (``TypeError``). Checks run
/// before anything is written. Returns the bytes written, in total.
#[pyfunction]
pub fn cbc_encrypt_many_into(
    py: Python<'_>,
    keys: Vec<Bound<'_, PyAny>>,
    ivs: Vec<Bound<'_, PyAny>>,
    buffers: Vec<Bound<'_, PyAny>>,
    outputs: Vec<Bound<'_, PyAny>>,
) -> PyResult<usize> {
    let a = Inputs::read(&keys, &ivs, &buffers)?;
    if outputs.len() != buffers.len() {
        return Err(PyValueError::new_err(format!(
            "outputs and buffers must have the same length (got {}, {})",
            outputs.len(),
            buffers.len()
        )));
    }
    let mut ov: Vec<View> = outputs
        .iter()
        .map(|o| View::write(o, "outputs[i]"))
        .collect::<PyResult<_>>()?;
    for (i, (o, b)) in ov.iter().zip(&a.buffers).enumerate() {
        if o.len() < b.len() {
            return Err(PyValueError::new_err(format!(
                "outputs[{i}] must be at least {} bytes, got {}",
                b.len(),
                o.len()
            )));
        }
    }
    // The bytes each output receives, as address ranges.
    let written: Vec<Range<usize>> = (ov.iter().zip(&a.buffers))
        .map(|(o, b)| o.addr()..o.addr() + b.len())
        .collect();
    let overlaps = Overlaps::new(&written)?;
    // Inputs that share memory with an output are copied first (a buffer
    // that begins where its own output begins is encrypted in place).
    let copy = |r: Range<usize>, own: Option<usize>| overlaps.hits(r, own);
    let key_copies: Vec<zeroize::Zeroizing<Vec<u8>>> = (a.keys.iter())
        .map(|k| zeroize::Zeroizing::new(copied(k, copy(k.range(), None))))
        .collect();
    let in_place: Vec<bool> = (a.buffers.iter().zip(&ov))
        .map(|(b, o)| b.len() > 0 && b.starts_at(o))
        .collect();
    let buf_copies: Vec<zeroize::Zeroizing<Vec<u8>>> = (a.buffers.iter().enumerate())
        .map(|(i, b)| {
            let own = in_place[i].then_some(i);
            zeroize::Zeroizing::new(copied(b, copy(b.range(), own)))
        })
        .collect();
    let engine = engine()?;
    let lens: Vec<usize> = a.buffers.iter().map(View::len).collect();
    let outs = ov.iter_mut().zip(&lens).map(|(o, &n)| o.prefix_mut(n));
    let mut streams: Vec<Stream<'_>> = (0..lens.len())
        .zip(outs)
        .map(|(i, out)| Stream {
            key: pick(&key_copies[i], &a.keys[i]),
            iv: a.ivs[i],
            input: (!in_place[i]).then(|| pick(&buf_copies[i], &a.buffers[i])),
            out: Out::Caller(out),
        })
        .collect();
    py.detach(|| run(&engine, &mut streams))?;
    Ok(lens.iter().sum())
}

/// A copy of `v`'s bytes if `copy`, else nothing (the bytes are read in
/// place).
fn copied(v: &View, copy: bool) -> Vec<u8> {
    if copy { v.bytes().to_vec() } else { Vec::new() }
}

/// The copy made of `v` (by [`copied`]), or `v`'s own bytes.
fn pick<'a>(copy: &'a [u8], v: &'a View) -> &'a [u8] {
    if copy.is_empty() && v.len() > 0 {
        v.bytes()
    } else {
        copy
    }
}

/// The outputs' address ranges, sorted, checked to be disjoint, for
/// overlap queries in `O(log n)` each.
struct Overlaps {
    /// (start, end, output index), by start; empty ranges left out.
    sorted: Vec<(usize, usize, usize)>,
}

impl Overlaps {
    /// `ValueError` if two outputs share memory.
    fn new(ranges: &[Range<usize>]) -> PyResult<Self> {
        let mut sorted: Vec<(usize, usize, usize)> = (ranges.iter().enumerate())
            .filter(|(_, r)| !r.is_empty())
            .map(|(i, r)| (r.start, r.end, i))
            .collect();
        sorted.sort_unstable();
        for w in sorted.windows(2) {
            if w[1].0 < w[0].1 {
                let (i, j) = (w[0].2.min(w[1].2), w[0].2.max(w[1].2));
                return Err(PyValueError::new_err(format!(
                    "outputs[{i}] and outputs[{j}] share memory: each stream needs its own output"
                )));
            }
        }
        Ok(Overlaps { sorted })
    }

    /// Whether `r` overlaps an output other than `own`, or overlaps `own`'s
    /// output other than exactly at its start (`own`: the output `r` is
    /// transformed in place into).
    fn hits(&self, r: Range<usize>, own: Option<usize>) -> bool {
        if r.is_empty() {
            return false;
        }
        // Outputs are disjoint and sorted: those that can overlap `r` start
        // before `r.end`, and only the last few of them can reach `r.start`.
        let n = self.sorted.partition_point(|&(s, _, _)| s < r.end);
        self.sorted[..n]
            .iter()
            .rev()
            .take_while(|&&(_, e, _)| e > r.start)
            .any(|&(s, _, i)| Some(i) != own || s != r.start)
    }
}

/// Where a stream's ciphertext goes.
enum Out<'a> {
    /// A new `bytes`, initialised range by range where it is written.
    Fresh(&'a mut Uninit),
    /// A caller's buffer.
    Caller(&'a mut [u8]),
}

/// One stream of a call: its key, its chaining value (the IV, then the
/// last ciphertext block so far), its input (`None`: the output, in place)
/// and its output.
struct Stream<'a> {
    key: &'a [u8],
    iv: [u8; 16],
    input: Option<&'a [u8]>,
    out: Out<'a>,
}

/// One stream's part of one round.
struct Segment<'s> {
    key: Key<'s>,
    iv: &'s mut [u8; 16],
    input: Option<&'s [u8]>,
    out: SegmentOut<'s>,
}

/// A segment's output bytes, or the new `bytes` and the range to
/// initialise (on the thread that writes them).
enum SegmentOut<'s> {
    Ready(&'s mut [u8]),
    Fresh(&'s mut Uninit, Range<usize>),
}

/// Bytes per thread in one call to the multi-stream engine: a round's
/// segments go to the engine in groups of about this size, so that each
/// group's outputs are written (and, new, initialised) while they are in
/// the core's cache. One pass over many streams at once (all their bytes
/// before the first is done) makes the throughput fall as the streams grow:
/// outputs initialised long before they are written, and more concurrent
/// memory streams than the prefetchers follow.
const BATCH_PER_THREAD: usize = 512 * 1024;

/// Bytes of each stream one round covers: a group of [`BATCH_PER_THREAD`]
/// bytes then holds as many streams as the engine has lanes (so long
/// streams fill the lanes too), and at least 4 KiB.
fn segment(engine: &MultiStream) -> usize {
    (BATCH_PER_THREAD / engine.lanes().max(1)).max(4096) / 16 * 16
}

/// How far a long stream's rounds are shifted from the others', per stream
/// of a group: stream `i`'s first round is `shift(i)` bytes shorter. Each
/// lane of the engine walks its stream in step with the others, so streams
/// whose buffers begin at the same offset in a page (separately allocated
/// buffers of a MiB or more all do) would hit the same cache sets at every
/// step: more lines than a set has ways, evicted before they are used (on
/// Zen 5, 64 streams of 1 MiB: half the throughput of the same streams
/// shifted). Shifts of `i·128` bytes spread 32 lanes over a 4 KiB page.
fn shift(i: usize, len: usize, seg: usize) -> usize {
    if len <= seg {
        0
    } else {
        (i * 128) % 4096 % seg
    }
}

/// Encrypt every stream, round by round, on all the pool's threads.
fn run(engine: &MultiStream, streams: &mut [Stream<'_>]) -> PyResult<()> {
    let pool = crate::pool();
    let threads = pool.threads();
    let seg = segment(engine);
    let shifts: Vec<usize> = (streams.iter().enumerate())
        .map(|(i, s)| shift(i, s.len(), seg))
        .collect();
    // The keys of streams that span several rounds, expanded once (each
    // round would expand them again: on Zen 5, 3 % of the time of 64
    // streams of 1 MiB). A key that does not expand stays bytes, for the
    // engine to report. Boxed: a word per stream of one round. Wiped when
    // dropped.
    let expanded: Vec<Option<Box<RoundKeys>>> = streams
        .iter()
        .map(|s| {
            (s.len() > seg)
                .then(|| RoundKeys::from_bytes(s.key).ok().map(Box::new))
                .flatten()
        })
        .collect();
    let end = (streams.iter().zip(&shifts))
        .map(|(s, d)| s.len() + d)
        .max()
        .unwrap_or(0);
    let failure = Mutex::new(None);
    for start in (0..end).step_by(seg) {
        // Stream i's bytes in this round: start − d .. start − d + seg.
        let round = |s: &Stream<'_>, d: usize| {
            let a = start.saturating_sub(d);
            a..s.len().min((start + seg).saturating_sub(d)).max(a)
        };
        let total: usize = (streams.iter().zip(&shifts))
            .map(|(s, &d)| round(s, d).len())
            .sum();
        // At most BATCH_PER_THREAD a group, and every thread busy when the
        // round is small.
        let target = total.div_ceil(threads).clamp(16, BATCH_PER_THREAD);
        let mut groups: Vec<Vec<Segment<'_>>> = Vec::new();
        let mut bytes = 0;
        for ((s, &d), e) in streams.iter_mut().zip(&shifts).zip(&expanded) {
            let r = round(s, d);
            if r.is_empty() {
                continue;
            }
            if groups.is_empty() || bytes >= target {
                if groups.len() == threads {
                    run_groups(engine, &mut groups, &failure);
                    groups.clear();
                }
                groups.push(Vec::new());
                bytes = 0;
            }
            bytes += r.len();
            groups
                .last_mut()
                .expect("a group")
                .push(s.segment(r, e.as_deref()));
        }
        run_groups(engine, &mut groups, &failure);
    }
    match failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        Some(e) => Err(errors::engine(aesflow_engine::Error::InvalidInput(
            e.to_string(),
        ))),
        None => Ok(()),
    }
}

impl Stream<'_> {
    fn len(&self) -> usize {
        match &self.out {
            Out::Fresh(u) => u.len(),
            Out::Caller(b) => b.len(),
        }
    }

    /// Bytes `r` of this stream, as a segment of the round (`expanded`:
    /// its key, expanded).
    fn segment<'s>(&'s mut self, r: Range<usize>, expanded: Option<&'s RoundKeys>) -> Segment<'s> {
        let input = self.input.map(|i| &i[r.clone()]);
        let out = match &mut self.out {
            Out::Fresh(u) => SegmentOut::Fresh(u, r),
            Out::Caller(b) => SegmentOut::Ready(&mut b[r]),
        };
        Segment {
            key: expanded.map_or(Key::Bytes(self.key), Key::Expanded),
            iv: &mut self.iv,
            input,
            out,
        }
    }
}

/// Each group on one of the pool's threads, as one call to the engine (its
/// in-place segments as a second); the first error is kept in `failure`.
fn run_groups(
    engine: &MultiStream,
    groups: &mut [Vec<Segment<'_>>],
    failure: &Mutex<Option<aesflow_multistream::Error>>,
) {
    crate::pool().for_each_mut(groups, |group| {
        if let Err(e) = run_group(engine, group) {
            failure
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get_or_insert(e);
        }
    });
}

fn run_group(
    engine: &MultiStream,
    group: &mut [Segment<'_>],
) -> Result<(), aesflow_multistream::Error> {
    let (mut jobs, mut jobs_ivs) = (Vec::new(), Vec::new());
    let (mut in_place, mut in_place_ivs) = (Vec::new(), Vec::new());
    for s in group.iter_mut() {
        let out: &mut [u8] = match &mut s.out {
            SegmentOut::Ready(b) => b,
            SegmentOut::Fresh(u, r) => u.zeroed(r.clone()),
        };
        match s.input {
            Some(i) => {
                jobs.push(Job::new(Mode::CbcEncrypt, s.key, *s.iv, i, out));
                jobs_ivs.push(&mut *s.iv);
            }
            None => {
                in_place.push(InPlaceJob::new(Mode::CbcEncrypt, s.key, *s.iv, out));
                in_place_ivs.push(&mut *s.iv);
            }
        }
    }
    if !jobs.is_empty() {
        engine.process(&mut jobs)?;
    }
    if !in_place.is_empty() {
        engine.process_in_place(&mut in_place)?;
    }
    for (iv, j) in jobs_ivs.into_iter().zip(&jobs) {
        *iv = j.iv;
    }
    for (iv, j) in in_place_ivs.into_iter().zip(&in_place) {
        *iv = j.iv;
    }
    Ok(())
}
