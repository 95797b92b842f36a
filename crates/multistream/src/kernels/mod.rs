//! The lane scheduler and the SIMD kernels — the only `unsafe` code of the
//! crate.
//!
//! [`run`] takes the streams of one *class* (same key size, same mode), turns
//! their slices into raw lane pointers, and drives a kernel step by step:
//!
//! 1. fill the lanes with the longest pending streams (LPT order);
//! 2. run `n = min(remaining blocks of the active lanes)` blocks on every lane
//!    (one kernel call; the chaining values stay in registers);
//! 3. retire every lane whose stream ended (its chaining value is written
//!    back), refill it with the next pending stream (pointers, chaining value
//!    and round keys are copied into the lane), or — when nothing is pending —
//!    move the last active lane into the hole so the active lanes stay dense
//!    and the kernel runs on fewer registers.
//!
//! Soundness: every lane pointer is derived from a slice that the
//! [`Stream`] borrows (mutably for the output) for the whole call, and a lane
//! is only stepped `n <= remaining` blocks, so every load and store is in
//! bounds of the slice its pointer came from. Idle lanes point at a
//! 16-byte scratch block with a stride of zero.

// Index loops over parallel per-lane arrays read better than zips here.
#![allow(clippy::needless_range_loop)]

use aesflow_cipher::{KeyError, KeySize, RoundKeys};
use zeroize::Zeroize;

#[cfg(target_arch = "x86_64")]
mod aesni;
#[cfg(target_arch = "x86_64")]
mod vaes;

/// Mode codes, used as const generic parameters of the kernels.
pub(crate) const CBC_ENC: u8 = 0;
/// CFB128 encryption.
pub(crate) const CFB_ENC: u8 = 1;
/// CFB128 decryption.
pub(crate) const CFB_DEC: u8 = 2;
/// OFB (both directions).
pub(crate) const OFB: u8 = 3;

/// Maximum number of round keys (AES-256).
const MAX_RK: usize = 15;
/// Maximum number of lanes (VAES: 8 zmm registers × 4 streams).
pub(crate) const MAX_LANES: usize = 32;
/// Maximum number of 4-lane groups.
const MAX_GROUPS: usize = MAX_LANES / 4;
/// Lanes of the AES-NI kernel (8 xmm registers in flight).
pub(crate) const AESNI_LANES: usize = 8;
/// Lanes of the VAES kernel.
pub(crate) const VAES_LANES: usize = MAX_LANES;

/// The SIMD engine to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Simd {
    /// 128-bit AES-NI, one stream per xmm register.
    Aesni,
    /// 512-bit VAES, four streams per zmm register.
    Vaes,
    /// Test double of `Vaes` on AES-NI: 32 lanes, and every step runs the
    /// lanes of whole 4-lane groups (idle lanes included) exactly as the VAES
    /// kernel does, 8 lanes per AES-NI call. It exercises the scheduler's
    /// 32-lane paths (groups, idle lanes, compaction) on CPUs without VAES.
    #[cfg_attr(not(test), allow(dead_code))]
    AesniAsVaes,
}

impl Simd {
    /// Lanes the engine keeps in flight.
    pub(crate) fn lanes(self) -> usize {
        match self {
            Simd::Aesni => AESNI_LANES,
            Simd::Vaes | Simd::AesniAsVaes => VAES_LANES,
        }
    }
}

/// Whether this CPU has AES-NI (and SSE2).
pub(crate) fn has_aesni() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("aes") && std::arch::is_x86_feature_detected!("sse2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether this CPU has 512-bit VAES (VAES + AVX-512F, and AES-NI for the
/// single-block tail path).
pub(crate) fn has_vaes() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        has_aesni()
            && std::arch::is_x86_feature_detected!("vaes")
            && std::arch::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// A stream's data: the whole-block part only.
pub(crate) enum StreamData<'a> {
    /// Separate input and output of equal length.
    Split {
        /// Input bytes.
        input: &'a [u8],
        /// Output bytes.
        output: &'a mut [u8],
    },
    /// Processed in place.
    InPlace(&'a mut [u8]),
}

impl<'a> StreamData<'a> {
    /// Length in bytes.
    pub(crate) fn len(&self) -> usize {
        match self {
            StreamData::Split { input, .. } => input.len(),
            StreamData::InPlace(d) => d.len(),
        }
    }

    /// Split at byte `mid` into a head and a tail.
    pub(crate) fn split_at(self, mid: usize) -> (StreamData<'a>, StreamData<'a>) {
        match self {
            StreamData::Split { input, output } => {
                let (i0, i1) = input.split_at(mid);
                let (o0, o1) = output.split_at_mut(mid);
                (
                    StreamData::Split {
                        input: i0,
                        output: o0,
                    },
                    StreamData::Split {
                        input: i1,
                        output: o1,
                    },
                )
            }
            StreamData::InPlace(d) => {
                let (a, b) = d.split_at_mut(mid);
                (StreamData::InPlace(a), StreamData::InPlace(b))
            }
        }
    }

    /// Raw (input, output) pointers; equal for in-place data.
    fn raw(&mut self) -> (*const u8, *mut u8) {
        match self {
            StreamData::Split { input, output } => {
                assert_eq!(input.len(), output.len(), "input/output length mismatch");
                (input.as_ptr(), output.as_mut_ptr())
            }
            StreamData::InPlace(d) => {
                let p = d.as_mut_ptr();
                (p as *const u8, p)
            }
        }
    }
}

/// Encryption round keys as the SIMD kernels read them. Zeroized on drop.
pub(crate) struct Sched {
    rk: [[u8; 16]; MAX_RK],
    nr: usize,
}

impl Drop for Sched {
    fn drop(&mut self) {
        self.rk.zeroize();
    }
}

impl Sched {
    /// Copy of already-expanded keys.
    pub(crate) fn from_round_keys(keys: &RoundKeys) -> Self {
        let mut rk = [[0u8; 16]; MAX_RK];
        for (d, s) in rk.iter_mut().zip(keys.enc()) {
            *d = *s;
        }
        Sched { rk, nr: keys.nr() }
    }

    /// FIPS-197 key expansion with the CPU's AES instructions doing SubWord
    /// (constant-time, ~100× faster than the portable expansion).
    ///
    /// # Panics
    /// If the CPU lacks AES-NI.
    pub(crate) fn expand(key: &[u8]) -> Result<Self, KeyError> {
        let size = KeySize::from_len(key.len())?;
        assert!(has_aesni(), "AES-NI key expansion on a CPU without AES-NI");
        let (nk, nr) = (size.nk(), size.nr());
        let mut w = [0u32; 4 * MAX_RK];
        for (i, c) in key.chunks_exact(4).enumerate() {
            w[i] = u32::from_le_bytes(c.try_into().expect("4 bytes"));
        }
        let mut rcon = 1u32;
        for i in nk..4 * (nr + 1) {
            let mut t = w[i - 1];
            if i % nk == 0 {
                t = sub_word(t.rotate_right(8)) ^ rcon;
                rcon = (rcon << 1) ^ (0x11b & 0u32.wrapping_sub(rcon >> 7));
            } else if nk > 6 && i % nk == 4 {
                t = sub_word(t);
            }
            w[i] = w[i - nk] ^ t;
        }
        let mut rk = [[0u8; 16]; MAX_RK];
        for (r, k) in rk.iter_mut().enumerate().take(nr + 1) {
            for c in 0..4 {
                k[4 * c..4 * c + 4].copy_from_slice(&w[4 * r + c].to_le_bytes());
            }
        }
        w.zeroize();
        Ok(Sched { rk, nr })
    }

    /// Number of rounds.
    pub(crate) fn nr(&self) -> usize {
        self.nr
    }

    /// Round keys 0..=Nr.
    pub(crate) fn enc(&self) -> &[[u8; 16]] {
        &self.rk[..=self.nr]
    }
}

/// SubWord via `AESENCLAST` with a zero round key.
fn sub_word(w: u32) -> u32 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: only reached from `Sched::expand`, which checked AES-NI.
    unsafe {
        aesni::sub_word(w)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = w;
        unreachable!("no SIMD kernels on this architecture");
    }
}

/// One stream of a class: whole blocks, its key, its chaining value.
pub(crate) struct Stream<'a, K> {
    /// Data (a multiple of 16 bytes).
    pub(crate) data: StreamData<'a>,
    /// Expanded key.
    pub(crate) keys: &'a K,
    /// Chaining value: the IV on entry, the value to continue with on return.
    pub(crate) state: [u8; 16],
    /// Index of the job this stream belongs to.
    pub(crate) job: usize,
}

/// 64 bytes, aligned for one zmm load.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub(crate) struct Z([u8; 64]);

/// Everything a kernel needs about its lanes. Lane `l` lives in group
/// `l / 4` at byte offset `16 * (l % 4)` of that group's 64-byte rows, so a
/// group's round key `r` and chaining values are one aligned zmm each; the
/// AES-NI kernel reads the same rows 16 bytes at a time.
pub(crate) struct LaneCtx {
    /// Round keys: `keys[group][round]`.
    pub(crate) keys: [[Z; MAX_RK]; MAX_GROUPS],
    /// Chaining values: `state[group]`.
    pub(crate) state: [Z; MAX_GROUPS],
    /// Next input block of each lane.
    pub(crate) src: [*const u8; MAX_LANES],
    /// Next output block of each lane.
    pub(crate) dst: [*mut u8; MAX_LANES],
    /// Pointer advance per block: 16, or 0 for an idle lane.
    pub(crate) step: [usize; MAX_LANES],
    /// Round-key rows in use (`Nr + 1`).
    rows: usize,
    /// Groups that ever held a stream (what `drop` must wipe).
    used_groups: usize,
}

impl LaneCtx {
    fn new(nr: usize, scratch_in: *const u8, scratch_out: *mut u8) -> Box<Self> {
        Box::new(LaneCtx {
            keys: [[Z([0; 64]); MAX_RK]; MAX_GROUPS],
            state: [Z([0; 64]); MAX_GROUPS],
            src: [scratch_in; MAX_LANES],
            dst: [scratch_out; MAX_LANES],
            step: [0; MAX_LANES],
            rows: nr + 1,
            used_groups: 0,
        })
    }

    fn lane_state(&self, l: usize) -> [u8; 16] {
        let o = 16 * (l % 4);
        self.state[l / 4].0[o..o + 16].try_into().expect("16 bytes")
    }

    fn set_lane_state(&mut self, l: usize, s: &[u8; 16]) {
        let o = 16 * (l % 4);
        self.state[l / 4].0[o..o + 16].copy_from_slice(s);
    }

    fn set_lane_keys(&mut self, l: usize, rk: &Sched) {
        let o = 16 * (l % 4);
        self.used_groups = self.used_groups.max(l / 4 + 1);
        for (row, k) in self.keys[l / 4].iter_mut().zip(rk.enc()) {
            row.0[o..o + 16].copy_from_slice(k);
        }
    }

    fn copy_lane(&mut self, from: usize, to: usize) {
        let (fo, to_o) = (16 * (from % 4), 16 * (to % 4));
        for r in 0..self.rows {
            let mut k = [0u8; 16];
            k.copy_from_slice(&self.keys[from / 4][r].0[fo..fo + 16]);
            self.keys[to / 4][r].0[to_o..to_o + 16].copy_from_slice(&k);
            k.zeroize();
        }
        let s = self.lane_state(from);
        self.set_lane_state(to, &s);
        self.src[to] = self.src[from];
        self.dst[to] = self.dst[from];
        self.step[to] = self.step[from];
    }

    fn set_idle(&mut self, l: usize, scratch_in: *const u8, scratch_out: *mut u8) {
        self.src[l] = scratch_in;
        self.dst[l] = scratch_out;
        self.step[l] = 0;
        let o = 16 * (l % 4);
        for row in self.keys[l / 4][..self.rows].iter_mut() {
            row.0[o..o + 16].zeroize();
        }
        self.state[l / 4].0[o..o + 16].zeroize();
    }
}

impl Drop for LaneCtx {
    fn drop(&mut self) {
        let (groups, rows) = (self.used_groups, self.rows);
        for g in self.keys[..groups].iter_mut() {
            for z in g[..rows].iter_mut() {
                z.0.zeroize();
            }
        }
        for z in self.state[..groups].iter_mut() {
            z.0.zeroize();
        }
    }
}

/// Run all streams of one class (same key size `nr`, same `mode` code)
/// through the SIMD engine. On return each stream's `state` is its new
/// chaining value.
///
/// # Panics
/// If the CPU lacks the engine's features (callers check first), if a
/// stream's length is not a multiple of 16, its input and output lengths
/// differ, or its key size is not `nr`.
pub(crate) fn run(simd: Simd, mode: u8, nr: usize, streams: &mut [Stream<'_, Sched>]) {
    match simd {
        Simd::Aesni | Simd::AesniAsVaes => {
            assert!(has_aesni(), "AES-NI kernel on a CPU without AES-NI")
        }
        Simd::Vaes => assert!(has_vaes(), "VAES kernel on a CPU without VAES/AVX-512F"),
    }
    assert!(mode <= OFB, "unknown mode code");
    for s in streams.iter() {
        assert_eq!(s.data.len() % 16, 0, "stream not a whole number of blocks");
        assert_eq!(s.keys.nr(), nr, "stream of another key size in this class");
    }
    let lanes_max = simd.lanes();

    // Longest first: the streams that finish last start first, so lanes stay
    // busy until the end (LPT scheduling).
    let mut order: Vec<usize> = (0..streams.len())
        .filter(|&i| streams[i].data.len() > 0)
        .collect();
    order.sort_by_key(|&i| std::cmp::Reverse(streams[i].data.len()));
    // Raw views, taken once; `streams` is not touched again until the lanes
    // are done (then only to write back `state`).
    let src: Vec<Source<'_>> = streams
        .iter_mut()
        .map(|s| {
            let (input, output) = s.data.raw();
            Source {
                input,
                output,
                blocks: s.data.len() / 16,
                state: s.state,
                keys: s.keys,
            }
        })
        .collect();

    let scratch_in = [0u8; 16];
    let mut scratch_out = [0u8; 16];
    let (sin, sout) = (scratch_in.as_ptr(), scratch_out.as_mut_ptr());
    let mut ctx = LaneCtx::new(nr, sin, sout);
    let mut lane_stream = [usize::MAX; MAX_LANES];
    let mut rem = [0usize; MAX_LANES];
    let mut pending = order.into_iter();
    let mut active = 0;

    let load = |ctx: &mut LaneCtx, l: usize, i: usize, rem: &mut [usize], ls: &mut [usize]| {
        let s = &src[i];
        ctx.src[l] = s.input;
        ctx.dst[l] = s.output;
        ctx.step[l] = 16;
        ctx.set_lane_state(l, &s.state);
        ctx.set_lane_keys(l, s.keys);
        rem[l] = s.blocks;
        ls[l] = i;
    };
    while active < lanes_max {
        match pending.next() {
            Some(i) => {
                load(&mut ctx, active, i, &mut rem, &mut lane_stream);
                active += 1;
            }
            None => break,
        }
    }
    let mut finished: Vec<(usize, [u8; 16])> = Vec::with_capacity(streams.len());
    while active > 0 {
        let n = rem[..active].iter().copied().min().expect("active lanes");
        step(simd, mode, nr, active, &mut ctx, n);
        for r in rem[..active].iter_mut() {
            *r -= n;
        }
        let mut l = 0;
        while l < active {
            if rem[l] != 0 {
                l += 1;
                continue;
            }
            finished.push((lane_stream[l], ctx.lane_state(l)));
            if let Some(i) = pending.next() {
                load(&mut ctx, l, i, &mut rem, &mut lane_stream);
                l += 1;
            } else {
                active -= 1;
                if l != active {
                    ctx.copy_lane(active, l);
                    rem[l] = rem[active];
                    lane_stream[l] = lane_stream[active];
                    // Re-examine lane `l`: the moved stream may be done too.
                }
                ctx.set_idle(active, sin, sout);
                rem[active] = 0;
            }
        }
    }
    drop(ctx);
    drop(src);
    for (i, mut st) in finished {
        streams[i].state = st;
        st.zeroize();
    }
}

/// A stream as the scheduler sees it.
struct Source<'k> {
    input: *const u8,
    output: *mut u8,
    blocks: usize,
    state: [u8; 16],
    keys: &'k Sched,
}

/// One kernel call: `n` blocks on lanes `0..active`.
fn step(simd: Simd, mode: u8, nr: usize, active: usize, ctx: &mut LaneCtx, n: usize) {
    #[cfg(target_arch = "x86_64")]
    match simd {
        Simd::Aesni => {
            assert!(active <= AESNI_LANES);
            // SAFETY: `run` checked AES-NI support; lanes 0..active hold
            // pointers with at least `n` blocks left (n = min remaining),
            // the other lanes are not touched by the kernel.
            unsafe { aesni::step(mode, nr, 0, active, ctx, n) }
        }
        Simd::AesniAsVaes => {
            let lanes = 4 * active.div_ceil(4);
            for base in (0..lanes).step_by(AESNI_LANES) {
                // SAFETY: `run` checked AES-NI support; lanes 0..active hold
                // pointers with at least `n` blocks left, lanes
                // active..lanes are idle (scratch, stride 0), and
                // base + count <= lanes <= MAX_LANES.
                unsafe { aesni::step(mode, nr, base, (lanes - base).min(AESNI_LANES), ctx, n) }
            }
        }
        Simd::Vaes => {
            // SAFETY: `run` checked VAES/AVX-512F support; lanes 0..active
            // hold pointers with at least `n` blocks left, and lanes
            // active..4*ceil(active/4) are idle (scratch, stride 0).
            unsafe { vaes::step(mode, nr, active.div_ceil(4), ctx, n) }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (simd, mode, nr, active, ctx, n);
        unreachable!("no SIMD kernels on this architecture");
    }
}

/// Encrypt one block with the CPU's AES instructions (tails of CFB/OFB
/// streams on the SIMD backends).
///
/// # Panics
/// If the CPU lacks AES-NI.
pub(crate) fn encrypt_block(keys: &Sched, block: &mut [u8; 16]) {
    assert!(
        has_aesni(),
        "AES-NI single-block path on a CPU without AES-NI"
    );
    #[cfg(target_arch = "x86_64")]
    // SAFETY: AES-NI support checked just above.
    unsafe {
        aesni::encrypt_block(keys, block)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (keys, block);
        unreachable!("no SIMD kernels on this architecture");
    }
}
