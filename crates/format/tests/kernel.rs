//! The AES kernel travels as a value: every operation runs on the kernel of
//! the pool it is given (or the one its keys were set up on), never on a
//! kernel chosen elsewhere in the process. A counting kernel makes that
//! visible.

use aesflow_cipher::{Block, Kernel, KeySchedule, kernel_by_name};
use aesflow_format::Pool;
use aesflow_format::cobblestone::{self, ChunkKeys, RandomAccess, Suite};
use aesflow_format::files::{Job, KeyMaterial, Operation, run_job};
use aesflow_format::raw::{RawMode, RawParams, raw_stream};
use std::io::Cursor;
use std::sync::atomic::{AtomicUsize, Ordering};
use zeroize::Zeroizing;

/// The portable constant-time kernel, counting the blocks it encrypts.
struct Counting(AtomicUsize);

impl Counting {
    fn inner() -> &'static dyn Kernel {
        kernel_by_name("ctime").expect("the portable kernel runs everywhere")
    }

    /// Blocks encrypted by `f` on this kernel.
    fn blocks_in(&'static self, f: impl FnOnce()) -> usize {
        let before = self.0.load(Ordering::SeqCst);
        f();
        self.0.load(Ordering::SeqCst) - before
    }
}

impl Kernel for Counting {
    fn name(&self) -> &'static str {
        "counting"
    }
    fn description(&self) -> &'static str {
        "ctime, counting blocks (test)"
    }
    fn is_available(&self) -> bool {
        true
    }
    fn is_constant_time(&self) -> bool {
        true
    }
    fn rank(&self) -> u32 {
        0
    }
    fn encrypt_blocks(&self, keys: &KeySchedule, blocks: &mut [Block]) {
        self.0.fetch_add(blocks.len(), Ordering::SeqCst);
        Self::inner().encrypt_blocks(keys, blocks);
    }
    fn decrypt_blocks(&self, keys: &KeySchedule, blocks: &mut [Block]) {
        self.0.fetch_add(blocks.len(), Ordering::SeqCst);
        Self::inner().decrypt_blocks(keys, blocks);
    }
}

static COUNTING: Counting = Counting(AtomicUsize::new(0));

fn data(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 13 + i / 97) as u8).collect()
}

#[test]
fn operations_run_on_the_pool_kernel() {
    let (key, ctx, p) = ([3u8; 32], b"k", data(2 * 16384 + 100));
    let default = Pool::new(2).unwrap();
    let counting = default.clone().with_kernel(&COUNTING);
    let s = Suite::Cobblestone256;

    // In memory: a pool without a chosen kernel never touches this one.
    let ct = cobblestone::encrypt(&default, s, &key, ctx, &p).unwrap();
    assert_eq!(
        COUNTING.blocks_in(|| {
            cobblestone::decrypt(&default, s, &key, ctx, &ct).unwrap();
        }),
        0
    );
    assert!(
        COUNTING.blocks_in(|| {
            let c2 = cobblestone::encrypt(&counting, s, &key, ctx, &p).unwrap();
            assert!(cobblestone::decrypt(&default, s, &key, ctx, &c2).unwrap() == p);
        }) > 0
    );
    assert!(
        COUNTING.blocks_in(|| {
            assert!(cobblestone::decrypt(&counting, s, &key, ctx, &ct).unwrap() == p);
        }) > 0
    );

    // Streams, random access.
    assert!(
        COUNTING.blocks_in(|| {
            let mut out = Vec::new();
            let n = cobblestone::decrypt_stream(
                &counting,
                s,
                &key,
                ctx,
                &mut &ct[..],
                &mut out,
                &|_| {},
            );
            assert_eq!(n.unwrap(), p.len() as u64);
            assert!(out == p);
        }) > 0
    );
    assert!(
        COUNTING.blocks_in(|| {
            let r =
                cobblestone::decrypt_range(&counting, Cursor::new(&ct), s, &key, ctx, 5..30_000);
            assert!(r.unwrap() == p[5..30_000]);
        }) > 0
    );
    assert!(
        COUNTING.blocks_in(|| {
            let ra = RandomAccess::open(&counting, Cursor::new(&ct), s, &key, ctx).unwrap();
            assert_eq!(ra.len(), p.len() as u64);
        }) > 0
    );
    assert!(
        COUNTING.blocks_in(|| {
            let keys = ChunkKeys::for_encryption(&COUNTING as &dyn Kernel, s, &key, ctx).unwrap();
            assert_eq!(keys.kernel().name(), "counting");
            cobblestone::encrypt_with_keys(&default, &keys, &p).unwrap();
        }) > 0
    );

    // The raw modes.
    let params =
        RawParams::new(RawMode::Cbc, &"11".repeat(16), Some(&"22".repeat(16)), true).unwrap();
    let mut want = Vec::new();
    raw_stream(&default, &params, true, &mut &p[..], &mut want, &|_| {}).unwrap();
    assert!(
        COUNTING.blocks_in(|| {
            let mut got = Vec::new();
            raw_stream(&counting, &params, true, &mut &p[..], &mut got, &|_| {}).unwrap();
            assert!(got == want);
        }) > 0
    );

    // Whole file jobs.
    let dir = tempfile::tempdir().unwrap();
    let (input, sealed, back) = (
        dir.path().join("in"),
        dir.path().join("in.cob"),
        dir.path().join("back"),
    );
    std::fs::write(&input, &p).unwrap();
    let op = Operation::Cobblestone {
        suite: s,
        context: ctx.to_vec(),
        key: KeyMaterial::Key(Zeroizing::new(key.to_vec())),
    };
    let job = |i: &std::path::Path, o: &std::path::Path| Job {
        input: Some(i.into()),
        output: Some(o.into()),
    };
    assert!(
        COUNTING.blocks_in(|| {
            run_job(&counting, &op, &job(&input, &sealed), true, false).unwrap();
        }) > 0
    );
    assert_eq!(
        COUNTING.blocks_in(|| {
            run_job(&default, &op, &job(&sealed, &back), false, false).unwrap();
        }),
        0
    );
    assert!(std::fs::read(&back).unwrap() == p);
}

/// Keys set up from a pool follow its plan (e.g. one `aesflow tune` wrote),
/// not only the table of measured CPUs; the chunks open either way.
#[test]
fn chunk_keys_follow_the_pools_plan() {
    use aesflow_plan::{Plan, Variant};
    let Some(vaes) = kernel_by_name("vaes").ok().filter(|k| k.is_available()) else {
        aesflow_vectors::skip!("the 512-bit VAES kernel needs AVX-512 VAES on this CPU");
        return;
    };
    let key = [0x5au8; 32];
    let plain: Vec<u8> = (0..200_000u32).map(|i| i as u8).collect();
    let mut sealed = Vec::new();
    for (variant, fused) in [
        (Variant::Groups16, "vaes+vpclmul"),
        (Variant::Groups32, "vaes+vpclmul/32"),
    ] {
        let pool = Pool::new(2)
            .unwrap()
            .with_kernel(vaes)
            .with_plan(Plan::for_this_cpu().with(variant));
        let keys = ChunkKeys::for_encryption(&pool, Suite::Cobblestone256, &key, b"p").unwrap();
        assert_eq!(keys.gcm_kernel(), Some(fused), "{variant:?}");
        let ct = cobblestone::encrypt_with_keys(&pool, &keys, &plain).unwrap();
        let back = cobblestone::decrypt(&pool, Suite::Cobblestone256, &key, b"p", &ct).unwrap();
        assert!(back == plain);
        sealed.push(ct);
    }
    // Each sealing drew its own salt; across plans both open the other's.
    let other = Pool::new(1).unwrap().with_kernel(vaes);
    for ct in &sealed {
        let back = cobblestone::decrypt(&other, Suite::Cobblestone256, &key, b"p", ct).unwrap();
        assert!(back == plain);
    }
}
