//! # aesflow-fuzzing: what the fuzzers check
//!
//! Each function here takes arbitrary bytes, feeds them to one of aesflow's
//! readers of untrusted input, and panics only if a *property* is broken —
//! never because the input is bad (bad input must come back as an error).
//! The `cargo fuzz` targets in the repository's `fuzz/` folder call these
//! functions under libFuzzer (nightly Rust); the `replay` test calls them on
//! every file of the seed corpus and of the crashes found so far
//! (`fuzz/corpus/<target>/`, `fuzz/regressions/<target>/`), on stable Rust,
//! in every test run.
//!
//! | target | reader | property beyond "no panic" |
//! |---|---|---|
//! | `cobblestone` | Cobblestone decryption, in memory and streaming | both agree; what opens re-seals to the same bytes |
//! | `passphrase_header` | the `AESFLOWP` header | what parses writes back the same |
//! | `raw_padding` | `openssl enc`-style raw CBC/ECB with PKCS#7 | what decrypts re-encrypts to the input |
//! | `sdf3` | SDF3 XML graphs | what parses writes and re-reads to the same XML |
//! | `engine_description` | `.aesflow` engine description files | what parses writes and re-reads to the same text |

use aesflow_format::Pool;
use aesflow_format::cobblestone::{self, ChunkKeys, Suite};
use aesflow_format::passphrase::{HEADER_SIZE, Header};
use aesflow_format::raw::{RawMode, RawParams, raw_stream};
use std::sync::OnceLock;

/// A fuzz target: its name (the folder under `fuzz/corpus/`) and property.
pub type Target = (&'static str, fn(&[u8]));

/// The fuzz targets.
pub const TARGETS: [Target; 5] = [
    ("cobblestone", cobblestone),
    ("passphrase_header", passphrase_header),
    ("raw_padding", raw_padding),
    ("sdf3", sdf3),
    ("engine_description", engine_description),
];

/// The fixed key the Cobblestone target decrypts with (the seed corpus was
/// sealed under it, so the fuzzer starts from messages that open).
pub const COBBLESTONE_KEY: [u8; 32] = [0x42; 32];
/// The fixed context of the Cobblestone target.
pub const COBBLESTONE_CONTEXT: &[u8] = b"aesflow fuzz";
/// The raw-mode key (AES-128, hex) and IV of the raw target.
pub const RAW_KEY_HEX: &str = "000102030405060708090a0b0c0d0e0f";
/// The raw-mode IV (hex).
pub const RAW_IV_HEX: &str = "0f0e0d0c0b0a09080706050403020100";

fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| Pool::new(2).expect("thread pool"))
}

fn suite_of(b: u8) -> Suite {
    if b & 1 == 0 {
        Suite::Cobblestone256
    } else {
        Suite::Cobblestone128
    }
}

/// The key for `suite`: the first `key_len` bytes of [`COBBLESTONE_KEY`].
pub fn cobblestone_key(suite: Suite) -> &'static [u8] {
    &COBBLESTONE_KEY[..suite.key_len()]
}

/// Byte 0 picks the suite (even: Cobblestone-256), the rest is the message.
pub fn cobblestone(data: &[u8]) {
    let Some((&sel, msg)) = data.split_first() else {
        return;
    };
    let suite = suite_of(sel);
    let key = cobblestone_key(suite);
    let in_memory = cobblestone::decrypt(pool(), suite, key, COBBLESTONE_CONTEXT, msg);
    let mut streamed = Vec::new();
    let mut reader = msg;
    let stream = cobblestone::decrypt_stream(
        pool(),
        suite,
        key,
        COBBLESTONE_CONTEXT,
        &mut reader,
        &mut streamed,
        &|_| {},
    );
    match (&in_memory, &stream) {
        (Ok(plain), Ok(n)) => {
            assert_eq!(
                plain, &streamed,
                "in-memory and streaming plaintexts differ"
            );
            assert_eq!(*n, plain.len() as u64, "streaming length is wrong");
            // Authentic: sealing the plaintext again under the same prefix
            // (salt) reproduces the message bit for bit.
            let keys = ChunkKeys::from_prefix(pool(), suite, key, COBBLESTONE_CONTEXT, msg)
                .expect("the prefix opened once");
            let again = cobblestone::encrypt_with_keys(pool(), &keys, plain).expect("re-seal");
            assert_eq!(again, msg, "an accepted message does not re-seal to itself");
        }
        (Err(_), Err(_)) => {}
        _ => panic!(
            "in-memory and streaming decryption disagree: {:?} vs {:?}",
            in_memory.as_ref().map(|p| p.len()),
            stream
        ),
    }
}

/// The bytes as a passphrase header.
pub fn passphrase_header(data: &[u8]) {
    if let Ok(h) = Header::parse(data) {
        assert_eq!(
            &h.to_bytes()[..],
            &data[..HEADER_SIZE],
            "a parsed header writes back differently"
        );
    }
}

/// Byte 0 picks ECB or CBC; the rest is ciphertext with PKCS#7 padding.
pub fn raw_padding(data: &[u8]) {
    let Some((&sel, ct)) = data.split_first() else {
        return;
    };
    let mode = if sel & 1 == 0 {
        RawMode::Cbc
    } else {
        RawMode::Ecb
    };
    let iv = (mode == RawMode::Cbc).then_some(RAW_IV_HEX);
    let p = RawParams::new(mode, RAW_KEY_HEX, iv, true).expect("fixed parameters");
    let mut plain = Vec::new();
    let mut reader = ct;
    if raw_stream(pool(), &p, false, &mut reader, &mut plain, &|_| {}).is_ok() {
        let mut again = Vec::new();
        let mut reader = &plain[..];
        raw_stream(pool(), &p, true, &mut reader, &mut again, &|_| {}).expect("re-encrypt");
        assert_eq!(
            again, ct,
            "accepted padding does not re-encrypt to the input"
        );
    }
}

/// The bytes as SDF3 XML.
pub fn sdf3(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(graph) = aesflow_dataflow::sdf3::from_xml(text) else {
        return;
    };
    let Ok(xml) = aesflow_dataflow::sdf3::to_xml(&graph) else {
        return;
    };
    let again = aesflow_dataflow::sdf3::from_xml(&xml).expect("re-read what was written");
    let xml2 = aesflow_dataflow::sdf3::to_xml(&again).expect("write again");
    assert_eq!(xml, xml2, "SDF3 write/read is not stable");
}

/// The bytes as an engine description file.
pub fn engine_description(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(design) = aesflow_designs::describe::parse(text) else {
        return;
    };
    let written = aesflow_designs::describe::write(&design);
    let again = aesflow_designs::describe::parse(&written).expect("re-read what was written");
    assert_eq!(
        written,
        aesflow_designs::describe::write(&again),
        "description write/read is not stable"
    );
}
