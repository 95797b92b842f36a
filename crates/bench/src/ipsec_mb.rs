//! Intel ipsec-mb (the multi-buffer library IPsec gateways use) as a peer,
//! linked from the system's static `libIPSec_MB.a` (Debian package
//! `libipsec-mb-dev`, version 1.3) with the `ipsec-mb` feature. Minimal
//! hand-written bindings of its job API: a manager (`alloc_mb_mgr`,
//! `init_mb_mgr_auto` or `init_mb_mgr_sse`), whose function table gives
//! `get_next_job` / `submit_job` / `get_completed_job` / `flush_job` and
//! the key expansions. CBC encryption of N streams submits N jobs and then
//! flushes — N lanes in flight, the multi-buffer idea; the other modes are
//! one job per message. ipsec-mb 1.3 has no XTS.
//!
//! Only the fields the benchmark sets are declared: `Job` is a prefix of
//! `IMB_JOB` and `MgrPrefix` of `IMB_MGR` (offsets from the 1.3 header,
//! checked at compile time below); jobs are always the manager's own.

use crate::ModeOp;
use crate::measure::{Contender, fill, test_key};
use crate::rustcrypto::AEAD_AAD;
use aesflow_cipher::KeySize;
use std::ffi::{CStr, c_char, c_void};
use std::ptr::NonNull;
use std::time::Instant;

/// Opaque `IMB_MGR`.
#[repr(C)]
struct ImbMgr {
    _opaque: [u8; 0],
}

/// The first fields of `IMB_JOB` (ipsec-mb 1.3).
#[repr(C)]
struct Job {
    enc_keys: *const c_void,
    dec_keys: *const c_void,
    key_len_in_bytes: u64,
    src: *const u8,
    dst: *mut u8,
    cipher_start_src_offset_in_bytes: u64,
    msg_len_to_cipher_in_bytes: u64,
    hash_start_src_offset_in_bytes: u64,
    msg_len_to_hash_in_bytes: u64,
    iv: *const u8,
    iv_len_in_bytes: u64,
    auth_tag_output: *mut u8,
    auth_tag_output_len_in_bytes: u64,
    /// The hash-specific union; GCM: `aad`, `aad_len_in_bytes`, `ctx`.
    u: [u64; 3],
    status: i32,
    cipher_mode: i32,
    cipher_direction: i32,
    hash_alg: i32,
    chain_order: i32,
}

type JobFn = unsafe extern "C" fn(*mut ImbMgr) -> *mut Job;
type KeyExpFn = unsafe extern "C" fn(*const c_void, *mut c_void, *mut c_void);
type GcmPreFn = unsafe extern "C" fn(*const c_void, *mut c_void);

/// The first fields of `IMB_MGR` (ipsec-mb 1.3).
#[repr(C)]
struct MgrPrefix {
    flags: u64,
    features: u64,
    reserved: [u64; 5],
    used_arch: u32,
    imb_errno: i32,
    get_next_job: JobFn,
    submit_job: JobFn,
    submit_job_nocheck: JobFn,
    get_completed_job: JobFn,
    flush_job: JobFn,
    queue_size: *const c_void,
    keyexp: [KeyExpFn; 3],
}

/// Offset of `gcm128_pre` (then `gcm192_pre`, `gcm256_pre`) in `IMB_MGR`.
const GCM_PRE_OFFSET: usize = 448;

const _: () = {
    assert!(std::mem::offset_of!(Job, iv) == 72);
    assert!(std::mem::offset_of!(Job, u) == 104);
    assert!(std::mem::offset_of!(Job, status) == 128);
    assert!(std::mem::offset_of!(Job, chain_order) == 144);
    assert!(std::mem::offset_of!(MgrPrefix, get_next_job) == 64);
    assert!(std::mem::offset_of!(MgrPrefix, flush_job) == 96);
    assert!(std::mem::offset_of!(MgrPrefix, keyexp) == 112);
};

const CIPHER_CBC: i32 = 1;
const CIPHER_CNTR: i32 = 2;
const CIPHER_GCM: i32 = 5;
const DIR_ENCRYPT: i32 = 1;
const DIR_DECRYPT: i32 = 2;
const AUTH_NULL: i32 = 8;
const AUTH_AES_GMAC: i32 = 9;
const ORDER_CIPHER_HASH: i32 = 1;
const ORDER_HASH_CIPHER: i32 = 2;
const STATUS_COMPLETED: i32 = 3;

#[link(name = "IPSec_MB", kind = "static")]
unsafe extern "C" {
    fn alloc_mb_mgr(flags: u64) -> *mut ImbMgr;
    fn free_mb_mgr(mgr: *mut ImbMgr);
    fn init_mb_mgr_auto(mgr: *mut ImbMgr, arch: *mut u32);
    fn init_mb_mgr_sse(mgr: *mut ImbMgr);
    fn imb_get_version_str() -> *const c_char;
    fn imb_get_errno(mgr: *mut ImbMgr) -> i32;
    fn imb_get_strerror(errnum: i32) -> *const c_char;
}

/// The library's version string.
pub fn version() -> String {
    // SAFETY: imb_get_version_str returns a pointer to a static
    // NUL-terminated string (or NULL, checked).
    unsafe {
        let p = imb_get_version_str();
        if p.is_null() {
            return "unknown".into();
        }
        CStr::from_ptr(p).to_string_lossy().into_owned()
    }
}

/// Which manager: the best the CPU runs, or the SSE one (AES-NI only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arch {
    /// `init_mb_mgr_auto`.
    Auto,
    /// `init_mb_mgr_sse`: the AES-NI-only comparison.
    Sse,
}

impl Arch {
    /// The manager to compare with aesflow on `kernel`: `Sse` for the
    /// `aesni` kernel (the AES-NI-only paths on both sides), else `Auto`.
    pub fn for_kernel(kernel: &dyn aesflow_cipher::Kernel) -> Arch {
        if kernel.name() == "aesni" {
            Arch::Sse
        } else {
            Arch::Auto
        }
    }
}

/// Expanded AES keys (`keyexp_*`: encryption and decryption schedules).
#[repr(C, align(64))]
struct Schedule([u8; 256]);

/// `struct gcm_key_data` (1008 bytes in 1.3), 64-byte aligned.
#[repr(C, align(64))]
struct GcmKey([u8; 1024]);

/// One key's expansions for ipsec-mb: the AES schedules (CBC, CTR) and
/// the GCM key data (round keys and hash powers) — what a gateway keeps
/// per security association.
pub struct SaKeys {
    key_len: u64,
    enc: Box<Schedule>,
    dec: Box<Schedule>,
    gcm: Box<GcmKey>,
}

/// An ipsec-mb manager and the keys of one key size.
pub struct Manager {
    mgr: NonNull<ImbMgr>,
    keys: SaKeys,
}

impl Drop for Manager {
    fn drop(&mut self) {
        // SAFETY: `mgr` came from alloc_mb_mgr and is freed once, here.
        unsafe { free_mb_mgr(self.mgr.as_ptr()) }
    }
}

/// One job to submit: `src` into `dst` (the same pointer: in place), with
/// the manager's keys or `keys`, and `aad` for GCM.
#[derive(Clone, Copy)]
pub struct Spec<'a> {
    /// The operation.
    pub op: ModeOp,
    /// The input: `len` readable bytes.
    pub src: *const u8,
    /// The input's length.
    pub len: usize,
    /// Where the output goes: `len` writable bytes (may be `src`).
    pub dst: *mut u8,
    /// The IV (16 bytes) or GCM nonce (12 bytes).
    pub iv: &'a [u8],
    /// Where a GCM tag goes (16 writable bytes).
    pub tag: *mut u8,
    /// The keys (`None`: the manager's own).
    pub keys: Option<&'a SaKeys>,
    /// The GCM additional authenticated data.
    pub aad: &'a [u8],
}

impl Manager {
    /// A manager of `arch` with the keys of `key` (16, 24 or 32 bytes).
    pub fn new(arch: Arch, key: &[u8]) -> Result<Manager, String> {
        // SAFETY: alloc_mb_mgr(0) allocates a manager or returns NULL
        // (checked); it is initialised before any other use.
        let mgr =
            NonNull::new(unsafe { alloc_mb_mgr(0) }).ok_or("ipsec-mb: alloc_mb_mgr failed")?;
        // SAFETY: `mgr` is a freshly allocated manager; init fills its
        // function table (auto: for the best architecture the CPU runs).
        unsafe {
            match arch {
                Arch::Auto => init_mb_mgr_auto(mgr.as_ptr(), std::ptr::null_mut()),
                Arch::Sse => init_mb_mgr_sse(mgr.as_ptr()),
            }
        }
        let mut m = Manager {
            mgr,
            keys: SaKeys {
                key_len: 16,
                enc: Box::new(Schedule([0; 256])),
                dec: Box::new(Schedule([0; 256])),
                gcm: Box::new(GcmKey([0; 1024])),
            },
        };
        m.check()?;
        m.keys = m.expand(key)?;
        Ok(m)
    }

    /// Expand `key` (16, 24 or 32 bytes) with this manager's functions.
    pub fn expand(&self, key: &[u8]) -> Result<SaKeys, String> {
        let which = match key.len() {
            16 => 0,
            24 => 1,
            32 => 2,
            n => return Err(format!("ipsec-mb: no {n}-byte AES key")),
        };
        let mut k = SaKeys {
            key_len: key.len() as u64,
            enc: Box::new(Schedule([0; 256])),
            dec: Box::new(Schedule([0; 256])),
            gcm: Box::new(GcmKey([0; 1024])),
        };
        let p = self.prefix();
        // SAFETY: the function table was filled by init; the GCM pre-compute
        // pointers sit at GCM_PRE_OFFSET + 8·which of IMB_MGR (1.3 layout).
        // The key expansion writes at most 240 bytes into each schedule, the
        // GCM pre-compute 1008 bytes into `gcm`; `key` has the length the
        // functions expect for `which`.
        unsafe {
            (p.keyexp[which])(
                key.as_ptr().cast(),
                k.enc.0.as_mut_ptr().cast(),
                k.dec.0.as_mut_ptr().cast(),
            );
            let pre = *(self.mgr.as_ptr() as *const u8)
                .add(GCM_PRE_OFFSET + 8 * which)
                .cast::<GcmPreFn>();
            pre(key.as_ptr().cast(), k.gcm.0.as_mut_ptr().cast());
        }
        self.check()?;
        Ok(k)
    }

    fn prefix(&self) -> &MgrPrefix {
        // SAFETY: IMB_MGR begins with the fields of MgrPrefix (checked
        // offsets above), and the manager lives as long as `self`.
        unsafe { &*(self.mgr.as_ptr() as *const MgrPrefix) }
    }

    fn check(&self) -> Result<(), String> {
        // SAFETY: `mgr` is a live manager; imb_get_strerror returns a static
        // string for any error number.
        unsafe {
            let e = imb_get_errno(self.mgr.as_ptr());
            if e == 0 {
                return Ok(());
            }
            let s = imb_get_strerror(e);
            let msg = if s.is_null() {
                format!("error {e}")
            } else {
                CStr::from_ptr(s).to_string_lossy().into_owned()
            };
            Err(format!("ipsec-mb: {msg}"))
        }
    }

    /// Fill the manager's next job from `s`.
    ///
    /// # Safety
    ///
    /// `job` is the manager's next job; `s.src` points to `s.len` readable
    /// and `s.dst` to `s.len` writable bytes and `s.tag` (GCM) to 16, valid until the job is
    /// returned completed; `s.keys` were expanded by a manager of the same
    /// library.
    unsafe fn fill_job(&self, job: *mut Job, s: &Spec<'_>) {
        // SAFETY: the caller guarantees `job` is a job of this manager.
        let j = unsafe { &mut *job };
        let n = s.len as u64;
        let keys = s.keys.unwrap_or(&self.keys);
        j.key_len_in_bytes = keys.key_len;
        j.src = s.src;
        j.dst = s.dst;
        j.cipher_start_src_offset_in_bytes = 0;
        j.msg_len_to_cipher_in_bytes = n;
        j.hash_start_src_offset_in_bytes = 0;
        j.msg_len_to_hash_in_bytes = n;
        j.iv = s.iv.as_ptr();
        j.iv_len_in_bytes = s.iv.len() as u64;
        let decrypt = matches!(s.op, ModeOp::CbcDec | ModeOp::GcmOpen);
        j.cipher_direction = if decrypt { DIR_DECRYPT } else { DIR_ENCRYPT };
        j.chain_order = if decrypt {
            ORDER_HASH_CIPHER
        } else {
            ORDER_CIPHER_HASH
        };
        if matches!(s.op, ModeOp::GcmSeal | ModeOp::GcmOpen) {
            let k: *const c_void = keys.gcm.0.as_ptr().cast();
            j.enc_keys = k;
            j.dec_keys = k;
            j.cipher_mode = CIPHER_GCM;
            j.hash_alg = AUTH_AES_GMAC;
            j.auth_tag_output = s.tag;
            j.auth_tag_output_len_in_bytes = 16;
            j.u = [s.aad.as_ptr() as u64, s.aad.len() as u64, 0];
        } else {
            j.enc_keys = keys.enc.0.as_ptr().cast();
            j.dec_keys = keys.dec.0.as_ptr().cast();
            j.cipher_mode = if s.op == ModeOp::Ctr {
                CIPHER_CNTR
            } else {
                CIPHER_CBC
            };
            j.hash_alg = AUTH_NULL;
            j.auth_tag_output = std::ptr::null_mut();
            j.auth_tag_output_len_in_bytes = 0;
        }
    }

    /// Submit every job, then flush: all complete before this returns.
    ///
    /// # Safety
    ///
    /// Every spec's `src` points to `len` readable bytes, its `dst` to `len`
    /// writable bytes and its `tag` (GCM) to 16, valid for the call; no
    /// `dst` overlaps another job's buffers (it may be its own `src`).
    pub unsafe fn run<'s>(
        &mut self,
        specs: impl IntoIterator<Item = Spec<'s>>,
    ) -> Result<(), String> {
        let p = self.prefix();
        let (next, submit, completed, flush) = (
            p.get_next_job,
            p.submit_job,
            p.get_completed_job,
            p.flush_job,
        );
        let mgr = self.mgr.as_ptr();
        let mut bad = 0usize;
        let mut done = |job: *mut Job| {
            // SAFETY: a non-NULL job returned by the manager is one of its
            // jobs, readable until the next call on the manager.
            if unsafe { (*job).status } != STATUS_COMPLETED {
                bad += 1;
            }
        };
        for s in specs {
            // SAFETY: `mgr` is initialised; get_next_job returns a job slot
            // that fill_job fills completely for this mode before submit;
            // the caller guarantees the buffers until this function
            // returns, and the flush below completes every job before that.
            unsafe {
                let job = next(mgr);
                self.fill_job(job, &s);
                let mut j = submit(mgr);
                while !j.is_null() {
                    done(j);
                    j = completed(mgr);
                }
            }
        }
        // SAFETY: flush returns the remaining jobs one by one, then NULL.
        unsafe {
            let mut j = flush(mgr);
            while !j.is_null() {
                done(j);
                j = flush(mgr);
            }
        }
        self.check()?;
        if bad > 0 {
            return Err(format!("ipsec-mb: {bad} job(s) did not complete"));
        }
        Ok(())
    }
}

/// `lanes` messages of `n` bytes for `op`, as one submit-then-flush call.
struct Batch {
    inputs: Vec<Vec<u8>>,
    outputs: Vec<Vec<u8>>,
    tags: Vec<[u8; 16]>,
    ivs: Vec<Vec<u8>>,
    /// Each job's keys (empty: the manager's own for every job).
    keys: Vec<SaKeys>,
}

impl Batch {
    fn new(op: ModeOp, lanes: usize, n: usize) -> Batch {
        Batch::with_slack(op, lanes, n, 0)
    }

    /// [`Batch::new`] with every input and output allocated `slack` bytes
    /// longer.
    fn with_slack(op: ModeOp, lanes: usize, n: usize, slack: usize) -> Batch {
        let iv_len = if matches!(op, ModeOp::GcmSeal | ModeOp::GcmOpen) {
            12
        } else {
            16
        };
        Batch {
            inputs: (0..lanes)
                .map(|i| {
                    let mut v = crate::measure::buffer(n, slack);
                    fill(&mut v);
                    v[0] = i as u8;
                    v
                })
                .collect(),
            outputs: (0..lanes)
                .map(|_| crate::measure::buffer(n, slack))
                .collect(),
            tags: vec![[0u8; 16]; lanes],
            ivs: (0..lanes).map(|i| vec![i as u8; iv_len]).collect(),
            keys: Vec::new(),
        }
    }

    fn specs(&mut self, op: ModeOp) -> Vec<Spec<'_>> {
        let keys = &self.keys;
        self.inputs
            .iter()
            .zip(self.outputs.iter_mut())
            .zip(self.tags.iter_mut())
            .zip(&self.ivs)
            .enumerate()
            .map(|(i, (((src, dst), tag), iv))| Spec {
                op,
                src: src.as_ptr(),
                len: src.len(),
                dst: dst.as_mut_ptr(),
                iv,
                tag: tag.as_mut_ptr(),
                keys: keys.get(i),
                aad: &AEAD_AAD,
            })
            .collect()
    }

    /// Run the batch's jobs for `op` on `m`.
    fn run(&mut self, m: &mut Manager, op: ModeOp) -> Result<(), String> {
        let specs = self.specs(op);
        // SAFETY: every `src`, `dst` and `tag` points into this batch's
        // own input, output and tag buffers (one each per job, outputs of
        // the input's length), borrowed for the call.
        unsafe { m.run(specs) }
    }
}

/// A contender: `lanes` messages of `n` bytes (`n` whole blocks for CBC)
/// for `op` with the benchmark key of `size`, submitted, then flushed;
/// each buffer allocated `slack` bytes longer ([`crate::measure::buffer`]).
/// CBC encryption of several streams gives each job its own key, the
/// multi-stream rows' keys (expanded once, before timing), as aesflow's
/// engine gets them.
pub fn contender(
    op: ModeOp,
    size: KeySize,
    lanes: usize,
    n: usize,
    slack: usize,
    arch: Arch,
) -> Result<Contender<'static>, String> {
    if matches!(op, ModeOp::XtsEnc | ModeOp::XtsDec) {
        return Err("peer skipped: ipsec-mb 1.3 has no XTS".into());
    }
    let mut m = Manager::new(arch, &test_key(size))?;
    let mut batch = Batch::with_slack(op, lanes, n, slack);
    if op == ModeOp::CbcEnc && lanes > 1 {
        batch.keys = stream_keys(&m, size, lanes)?;
    }
    // One run up front: errors surface here, not inside the timing loop.
    batch.run(&mut m, op)?;
    Ok(Box::new(move || {
        batch.run(&mut m, op).expect("ipsec-mb jobs complete");
        std::hint::black_box(&batch.outputs);
    }))
}

/// The multi-stream rows' keys of `lanes` streams (distinct, see
/// `modes::aesflow::stream_key`), expanded by `m`.
fn stream_keys(m: &Manager, size: KeySize, lanes: usize) -> Result<Vec<SaKeys>, String> {
    (0..lanes)
        .map(|i| m.expand(&crate::modes::aesflow::stream_key(size, i)))
        .collect()
}

/// The engine rows' peer: `op` (`ctr`, `gcm-seal`, `gcm-open`) on `bytes`
/// bytes split between `threads` threads, each with its own manager and
/// one job; GB/s, best of two runs after a warm-up. `None` for other ops.
pub fn engine_gbps(
    op: &str,
    bytes: usize,
    threads: usize,
    arch: Arch,
) -> Option<Result<f64, String>> {
    let op = match op {
        "ctr" => ModeOp::Ctr,
        "gcm-seal" => ModeOp::GcmSeal,
        "gcm-open" => ModeOp::GcmOpen,
        _ => return None,
    };
    let threads = threads.max(1);
    let per = bytes / threads;
    let run = || -> Result<f64, String> {
        std::thread::scope(|sc| {
            let hs: Vec<_> = (0..threads)
                .map(|_| {
                    sc.spawn(move || -> Result<f64, String> {
                        let mut m = Manager::new(arch, &[0x42u8; 32])?;
                        let mut b = Batch::new(op, 1, per);
                        b.run(&mut m, op)?;
                        let mut t = f64::INFINITY;
                        for _ in 0..2 {
                            let s = Instant::now();
                            b.run(&mut m, op)?;
                            t = t.min(s.elapsed().as_secs_f64());
                        }
                        Ok(t)
                    })
                })
                .collect();
            // The slowest thread bounds the call.
            let mut slowest = 0f64;
            for h in hs {
                let t = h
                    .join()
                    .map_err(|_| "ipsec-mb thread panicked".to_string())??;
                slowest = slowest.max(t);
            }
            Ok((per * threads) as f64 / slowest / 1e9)
        })
    };
    Some(run())
}

#[cfg(test)]
mod tests {
    use super::*;
    use aesflow_cipher::Aes;

    /// ipsec-mb computes what aesflow computes: CBC both ways over several
    /// lanes, CTR, and GCM tags (so its figures are for the same work).
    #[test]
    fn agrees_with_aesflow() {
        for size in KeySize::ALL {
            let key = test_key(size);
            let aes = Aes::new(&key).unwrap();
            let mut m = Manager::new(Arch::Auto, &key).unwrap();
            let mut b = Batch::new(ModeOp::CbcEnc, 5, 4096);
            b.run(&mut m, ModeOp::CbcEnc).unwrap();
            for i in 0..5 {
                let mut want = b.inputs[i].clone();
                aesflow_modes::cbc::encrypt_in_place(&aes, &b.ivs[i], &mut want).unwrap();
                assert_eq!(b.outputs[i], want, "cbc-enc lane {i}");
            }
            b.inputs = b.outputs.clone();
            b.run(&mut m, ModeOp::CbcDec).unwrap();
            let mut again = Batch::new(ModeOp::CbcEnc, 5, 4096);
            assert_eq!(b.outputs, std::mem::take(&mut again.inputs), "cbc-dec");
            let mut b = Batch::new(ModeOp::Ctr, 1, 1000);
            b.run(&mut m, ModeOp::Ctr).unwrap();
            let mut want = b.inputs[0].clone();
            aesflow_modes::ctr::apply_in_place(&aes, &b.ivs[0], &mut want).unwrap();
            assert_eq!(b.outputs[0], want, "ctr");
            let gcm = aesflow_modes::Gcm::new(&key).unwrap();
            let mut b = Batch::new(ModeOp::GcmSeal, 2, 1000);
            b.run(&mut m, ModeOp::GcmSeal).unwrap();
            let mut want = b.inputs[1].clone();
            let tag = gcm
                .seal_in_place_detached(&b.ivs[1], &AEAD_AAD, &mut want)
                .unwrap();
            assert_eq!((b.outputs[1].clone(), b.tags[1]), (want, tag), "gcm-seal");
        }
    }

    /// The multi-stream CBC peer encrypts each stream under its own key,
    /// the one aesflow's engine gets for that stream.
    #[test]
    fn streams_have_their_own_keys() {
        for size in KeySize::ALL {
            let mut m = Manager::new(Arch::Auto, &test_key(size)).unwrap();
            let mut b = Batch::new(ModeOp::CbcEnc, 5, 4096);
            b.keys = stream_keys(&m, size, 5).unwrap();
            b.run(&mut m, ModeOp::CbcEnc).unwrap();
            for i in 0..5 {
                let aes = Aes::new(&crate::modes::aesflow::stream_key(size, i)).unwrap();
                let mut want = b.inputs[i].clone();
                aesflow_modes::cbc::encrypt_in_place(&aes, &b.ivs[i], &mut want).unwrap();
                assert_eq!(b.outputs[i], want, "{size:?} stream {i}");
            }
        }
    }

    #[test]
    fn contenders_and_engine_peer_run() {
        for op in ModeOp::ALL {
            match contender(op, KeySize::Aes256, 3, 256, 48, Arch::Auto) {
                Ok(mut f) => f(),
                Err(e) => {
                    assert!(e.contains("XTS") && matches!(op, ModeOp::XtsEnc | ModeOp::XtsDec))
                }
            }
        }
        let g = engine_gbps("gcm-open", 1 << 20, 2, Arch::Auto)
            .unwrap()
            .unwrap();
        assert!(g > 0.0);
        assert!(engine_gbps("memcpy", 1 << 20, 1, Arch::Auto).is_none());
        assert!(version().starts_with('1'));
    }
}
