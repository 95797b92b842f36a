//! # aesflow-ctcheck: constant-time claims, checked
//!
//! aesflow's `ctime` kernel, its key schedule and its portable GHASH are
//! written to be constant-time: no branch and no memory address depends on
//! a key or on data. This crate checks that claim the way `ctgrind` does:
//! the secret inputs are marked *undefined* for Valgrind's memcheck
//! ([`valgrind::mark_secret`]), the code runs, and memcheck reports every
//! conditional jump and every load/store address computed from them. A
//! constant-time run reports nothing; the table-based `ttable` kernel,
//! whose S-box lookups are indexed by secret bytes, is the positive control
//! and must be reported.
//!
//! Each [`Case`] is one scenario; the `aesflow-ctcheck` binary runs one by
//! name, and the crate's test runs every case under
//! `valgrind --tool=memcheck` (skipping with a printed reason where Valgrind
//! is missing). Run natively, the client requests are no-ops and every case
//! also checks its own result against a second computation, so the binary is
//! a functional test too.
//!
//! The only secret-derived decision the cases allow is the one that is
//! public by design: whether GCM's tag verified ([`Case::declassified_in`]).

pub mod valgrind;

use aesflow_cipher::{Aes, Block, KeyExpansion, KeySchedule};
use aesflow_modes::gcm::ghash::{GhashImpl, GhashKey};
use aesflow_modes::gcm::{FusedChoice, Gcm, GcmOptions};
use valgrind::{mark_public, mark_secret};

/// One scenario of the check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Case {
    /// Offline and online key expansion of 128/192/256-bit keys.
    KeySchedule,
    /// `ctime`: key expansion, encryption and decryption (both styles).
    Ctime,
    /// The portable GHASH (`GhashImpl::Soft`): hash-key powers and hashing.
    SoftGhash,
    /// AES-GCM seal on `ctime` with the portable GHASH.
    GcmSealCtime,
    /// AES-GCM open on `ctime` with the portable GHASH (valid tag).
    GcmOpenCtime,
    /// Positive control: the `ttable` kernel, which is *not* constant-time.
    Ttable,
    /// CTR on the `aesni` kernel with the counter block secret too, from
    /// counters whose last byte carries within a call (no branch on the
    /// counter: the IV of a protocol may be one).
    CtrAesni,
}

impl Case {
    /// Every case.
    pub const ALL: [Case; 7] = [
        Case::KeySchedule,
        Case::Ctime,
        Case::SoftGhash,
        Case::GcmSealCtime,
        Case::GcmOpenCtime,
        Case::Ttable,
        Case::CtrAesni,
    ];

    /// The case's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Case::KeySchedule => "key-schedule",
            Case::Ctime => "ctime",
            Case::SoftGhash => "soft-ghash",
            Case::GcmSealCtime => "gcm-seal-ctime",
            Case::GcmOpenCtime => "gcm-open-ctime",
            Case::Ttable => "ttable",
            Case::CtrAesni => "ctr-aesni",
        }
    }

    /// The case called `name`.
    pub fn from_name(name: &str) -> Option<Case> {
        Case::ALL.into_iter().find(|c| c.name() == name)
    }

    /// Whether memcheck must find secret-dependent behaviour (the control).
    pub fn is_control(self) -> bool {
        self == Case::Ttable
    }

    /// The functions in which the case may branch on secret-derived data
    /// because the decision is public by design: GCM open decides, from the
    /// tag it computed under the secret key, whether the message verified;
    /// that accept/reject bit is its output. The tag itself is compared in
    /// constant time before.
    pub fn declassified_in(self) -> &'static [&'static str] {
        match self {
            // Optimised, the decision is inlined into `open_with_tag_len`;
            // at lower optimisation it stays in `tag_matches` (subtle's
            // `Choice` to `bool`) and `open_from` (the branch on it).
            Case::GcmOpenCtime => &["open_with_tag_len", "open_from", "tag_matches"],
            _ => &[],
        }
    }

    /// Runs the case; an error if a result is wrong.
    pub fn run(self) -> Result<(), String> {
        match self {
            Case::KeySchedule => key_schedule(),
            Case::Ctime => block_cipher("ctime"),
            Case::SoftGhash => soft_ghash(),
            Case::GcmSealCtime => gcm(false),
            Case::GcmOpenCtime => gcm(true),
            Case::Ttable => block_cipher("ttable"),
            Case::CtrAesni => ctr("aesni"),
        }
    }
}

/// Deterministic test bytes (no secret in them; they become secret when
/// marked).
fn bytes(seed: u8, n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| {
            (i as u8)
                .wrapping_mul(151)
                .wrapping_add(seed)
                .rotate_left(3)
        })
        .collect()
}

fn check(what: &str, ok: bool) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(format!("{what}: wrong result"))
    }
}

fn key_schedule() -> Result<(), String> {
    for len in [16, 24, 32] {
        let key = bytes(len as u8, len);
        mark_secret(&key);
        for style in [KeyExpansion::Offline, KeyExpansion::Online] {
            let ks = KeySchedule::new(&key, style).map_err(|e| e.to_string())?;
            let mut words: Vec<u8> = ks.enc_keys().flat_map(|k| k.to_vec()).collect();
            mark_public(&words);
            words.truncate(len);
            mark_public(&key);
            check("key schedule", words == key)?;
            mark_secret(&key);
        }
    }
    Ok(())
}

fn blocks_of(data: &[u8]) -> Vec<Block> {
    data.chunks_exact(16)
        .map(|c| c.try_into().expect("16-byte chunk"))
        .collect()
}

fn block_cipher(kernel: &str) -> Result<(), String> {
    for len in [16, 24, 32] {
        for style in [KeyExpansion::Offline, KeyExpansion::Online] {
            let key = bytes(len as u8 ^ 0x5a, len);
            let plain = blocks_of(&bytes(7, 16 * 19));
            let mut data = plain.clone();
            mark_secret(&key);
            mark_secret(data.as_flattened());
            let aes = Aes::with_kernel_name(&key, kernel, style).map_err(|e| e.to_string())?;
            aes.encrypt_blocks(&mut data);
            let mut one = data[3];
            aes.decrypt_block(&mut one);
            aes.decrypt_blocks(&mut data);
            mark_public(data.as_flattened());
            mark_public(&one);
            check(kernel, data == plain && one == plain[3])?;
        }
    }
    Ok(())
}

/// CTR on `kernel` with the key, the counter block and the data secret,
/// from counters just below a carry out of their last byte (and out of 32
/// and 64 bits), against the `reference` kernel. A kernel this CPU lacks
/// is skipped with a printed reason.
fn ctr(kernel: &str) -> Result<(), String> {
    for (len, low) in [(16, 0xf5u64), (32, 0xffff_fffe), (16, u64::MAX - 3)] {
        let key = bytes(len as u8 ^ 0x33, len);
        let reference = Aes::with_kernel_name(&key, "reference", KeyExpansion::Offline)
            .map_err(|e| e.to_string())?;
        let mut start = [0x6cu8; 16];
        start[8..].copy_from_slice(&low.to_be_bytes());
        let plain = bytes(9, 16 * 23 + 5);
        let (mut want, mut wctr) = (plain.clone(), start);
        reference.ctr_xor(&mut wctr, &mut want);
        let (mut data, mut c) = (plain, start);
        mark_secret(&key);
        mark_secret(&c);
        mark_secret(&data);
        let aes = match Aes::with_kernel_name(&key, kernel, KeyExpansion::Offline) {
            Ok(a) => a,
            Err(e) => {
                eprintln!("skipped: {kernel}: {e}");
                return Ok(());
            }
        };
        aes.ctr_xor(&mut c, &mut data);
        mark_public(&data);
        mark_public(&c);
        mark_public(&key);
        check(kernel, data == want && c == wctr)?;
    }
    Ok(())
}

fn soft_ghash() -> Result<(), String> {
    let h: [u8; 16] = bytes(3, 16).try_into().expect("16 bytes");
    let data = bytes(9, 16 * 21 + 5);
    mark_secret(&h);
    mark_secret(&data);
    let key = GhashKey::new(&h, GhashImpl::Soft);
    let mut x = 0u128;
    key.update_padded(&mut x, &data);
    let mut got = x.to_be_bytes();
    mark_public(&got);
    // The same hash, block by block: Horner's rule with the one-block update.
    let mut y = 0u128;
    for block in data.chunks(16) {
        key.update_padded(&mut y, block);
    }
    let want = y.to_be_bytes();
    mark_public(&want);
    // Read both back from the memory just declassified: with optimisation
    // the compiler would otherwise compare the registers they were built
    // in, whose values are still marked secret.
    let (got_mem, want_mem) = (std::hint::black_box(&got), std::hint::black_box(&want));
    check("soft GHASH", got_mem == want_mem)?;
    got.fill(0);
    Ok(())
}

fn gcm(open: bool) -> Result<(), String> {
    let options = GcmOptions {
        ghash: Some(GhashImpl::Soft),
        fused: FusedChoice::Off,
    };
    for len in [16, 32] {
        let key = bytes(len as u8, len);
        // A second, public copy of the key for checking the results.
        let public_key = key.clone();
        let nonce = bytes(1, 12);
        let aad = bytes(2, 20);
        let plain = bytes(5, 16 * 9 + 7);
        mark_secret(&key);
        let aes = Aes::with_kernel_name(&key, "ctime", KeyExpansion::Offline)
            .map_err(|e| e.to_string())?;
        let gcm = Gcm::with_options(aes, options).map_err(|e| e.to_string())?;
        if open {
            // The sealed message is public (it travels); the key and the
            // plaintext that comes out are secret.
            let mut sealed = gcm.seal(&nonce, &aad, &plain).map_err(|e| e.to_string())?;
            mark_public(&sealed);
            let opened = gcm.open(&nonce, &aad, &sealed);
            let opened = opened.map_err(|e| e.to_string())?;
            mark_public(&opened);
            check("GCM open", opened == plain)?;
            sealed[0] ^= 1;
            check(
                "GCM open (forged)",
                gcm.open(&nonce, &aad, &sealed).is_err(),
            )?;
        } else {
            let mut msg = plain.clone();
            mark_secret(&msg);
            let tag = gcm
                .seal_in_place_detached(&nonce, &aad, &mut msg)
                .map_err(|e| e.to_string())?;
            mark_public(&msg);
            mark_public(&tag);
            let mut round = msg.clone();
            round.extend_from_slice(&tag);
            let checker = Gcm::new(&public_key).map_err(|e| e.to_string())?;
            let opened = checker.open(&nonce, &aad, &round);
            check("GCM seal", opened.as_deref() == Ok(&plain[..]))?;
        }
    }
    Ok(())
}
