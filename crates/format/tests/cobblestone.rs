//! Cobblestone: interop vectors from Python `cryptography` 50, spec facts,
//! round trips, every tampering, and random access.

use aesflow_format::cobblestone::{self, ChunkKeys, RandomAccess, Suite};
use aesflow_format::{Error, Pool};
use std::io::Cursor;

const SIZES: &[usize] = &[0, 1, 16383, 16384, 16385, (1 << 20) + 7];

fn plaintext(n: usize) -> Vec<u8> {
    (0..n).map(|j| ((j * 31 + 7) % 251) as u8).collect()
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn pools() -> Vec<Pool> {
    vec![Pool::new(1).unwrap(), Pool::new(3).unwrap()]
}

struct Vector {
    name: String,
    suite: Suite,
    key: Vec<u8>,
    context: Vec<u8>,
    plain: Vec<u8>,
    ct: Vec<u8>,
}

fn vectors() -> Vec<Vector> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/cobblestone");
    let manifest = std::fs::read_to_string(format!("{dir}/manifest.txt")).unwrap();
    let v: Vec<Vector> = manifest
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            Vector {
                name: f[0].into(),
                suite: if f[1] == "256" {
                    Suite::Cobblestone256
                } else {
                    Suite::Cobblestone128
                },
                key: hex(f[2]),
                context: if f[3] == "-" { vec![] } else { hex(f[3]) },
                plain: plaintext(f[4].parse().unwrap()),
                ct: std::fs::read(format!("{dir}/{}", f[5])).unwrap(),
            }
        })
        .collect();
    assert_eq!(v.len(), 9);
    v
}

#[test]
fn python_cryptography_vectors_decrypt() {
    for pool in pools() {
        for v in vectors() {
            let pt = cobblestone::decrypt(&pool, v.suite, &v.key, &v.context, &v.ct)
                .unwrap_or_else(|e| panic!("{}: {e}", v.name));
            assert_eq!(pt, v.plain, "{}", v.name);
            assert_eq!(
                cobblestone::ciphertext_len(v.plain.len() as u64),
                v.ct.len() as u64
            );
        }
    }
}

#[test]
fn python_cryptography_vectors_reencrypt_identically() {
    // Same salt ⇒ same derivation ⇒ byte-identical ciphertext.
    for pool in pools() {
        for v in vectors() {
            let salt: [u8; 24] = v.ct[..24].try_into().unwrap();
            let keys = ChunkKeys::derive(v.suite, &v.key, &salt, &v.context).unwrap();
            let ct = cobblestone::encrypt_with_keys(&pool, &keys, &v.plain).unwrap();
            assert_eq!(ct, v.ct, "{}", v.name);
        }
    }
}

#[test]
fn spec_facts_lengths() {
    assert_eq!(cobblestone::ciphertext_len(0), 72);
    assert_eq!(cobblestone::ciphertext_len(16383), 56 + 16383 + 16);
    // A 16 KiB message is a full chunk followed by an empty one.
    assert_eq!(cobblestone::ciphertext_len(16384), 56 + 16400 + 16);
    for n in [0u64, 1, 16383, 16384, 16385, 1 << 20] {
        assert_eq!(
            cobblestone::plaintext_len(cobblestone::ciphertext_len(n)).unwrap(),
            n
        );
    }
    for bad in [0u64, 71, 56 + 16400, 56 + 16400 + 15, 56 + 16400 + 1] {
        assert!(cobblestone::plaintext_len(bad).is_err(), "{bad}");
    }
}

#[test]
fn round_trips_all_sizes_both_suites() {
    for pool in pools() {
        for suite in [Suite::Cobblestone128, Suite::Cobblestone256] {
            let key = vec![9u8; suite.key_len()];
            for &n in SIZES {
                let p = plaintext(n);
                let ct = cobblestone::encrypt(&pool, suite, &key, b"c", &p).unwrap();
                assert_eq!(ct.len() as u64, cobblestone::ciphertext_len(n as u64));
                assert_eq!(
                    cobblestone::decrypt(&pool, suite, &key, b"c", &ct).unwrap(),
                    p
                );
                // Streams, read in odd pieces.
                let keys = ChunkKeys::for_encryption(suite, &key, b"c").unwrap();
                let mut out = Vec::new();
                cobblestone::encrypt_stream(&pool, &keys, &mut Cursor::new(&p), &mut out, &|_| {})
                    .unwrap();
                let mut back = Vec::new();
                cobblestone::decrypt_stream(
                    &pool,
                    suite,
                    &key,
                    b"c",
                    &mut Cursor::new(&out),
                    &mut back,
                    &|_| {},
                )
                .unwrap();
                assert_eq!(back, p);
            }
        }
    }
}

fn all_decrypts_fail(ct: &[u8], key: &[u8], what: &str) -> Error {
    let pool = Pool::new(2).unwrap();
    let s = Suite::Cobblestone256;
    let e = cobblestone::decrypt(&pool, s, key, b"", ct).expect_err(what);
    let mut out = Vec::new();
    let e2 =
        cobblestone::decrypt_stream(&pool, s, key, b"", &mut Cursor::new(ct), &mut out, &|_| {})
            .expect_err(what);
    assert_eq!(e.to_string(), e2.to_string(), "{what}");
    // Random access: opening checks the commitment and the final chunk; a
    // read of everything checks the rest.
    if let Ok(mut ra) = RandomAccess::open(Cursor::new(ct), s, key, b"") {
        let len = ra.len();
        assert!(ra.read_range(0..len, &pool).is_err(), "{what}");
    }
    e
}

#[test]
fn tampering_is_detected() {
    let key = [3u8; 32];
    let p = plaintext(3 * 16384 + 100);
    let ct = cobblestone::encrypt(Pool::global(), Suite::Cobblestone256, &key, b"", &p).unwrap();
    let chunk = |k: usize| 56 + k * 16400;
    // Wrong key / context.
    assert!(matches!(
        all_decrypts_fail(&ct, &[4u8; 32], "wrong key"),
        Error::WrongKey
    ));
    assert!(matches!(
        cobblestone::decrypt(Pool::global(), Suite::Cobblestone256, &key, b"x", &ct),
        Err(Error::WrongKey)
    ));
    // A flipped bit in salt, commitment, chunk body, tag, last chunk.
    for (pos, want_key) in [
        (0, true),
        (23, true),
        (24, true),
        (55, true),
        (chunk(0), false),
        (chunk(1) + 100, false),
        (chunk(1) - 1, false),
        (chunk(3) + 50, false),
        (ct.len() - 1, false),
    ] {
        let mut t = ct.clone();
        t[pos] ^= 0x10;
        let e = all_decrypts_fail(&t, &key, &format!("flip at {pos}"));
        if want_key {
            assert!(matches!(e, Error::WrongKey), "{pos}: {e}");
        } else {
            assert!(matches!(e, Error::ChunkAuthentication(_)), "{pos}: {e}");
        }
    }
    // Truncation at and inside a chunk boundary, appended data.
    for len in [
        0,
        55,
        56,
        71,
        chunk(1),
        chunk(3),
        chunk(1) + 10,
        chunk(3) + 16,
        ct.len() - 1,
    ] {
        all_decrypts_fail(&ct[..len], &key, &format!("truncated to {len}"));
    }
    for extra in [1usize, 16, 100, 16400] {
        let mut t = ct.clone();
        t.extend(std::iter::repeat_n(0u8, extra));
        all_decrypts_fail(&t, &key, &format!("{extra} bytes appended"));
    }
    // Swapped chunks.
    let mut t = ct.clone();
    let (a, b) = (chunk(0), chunk(1));
    let c0 = t[a..b].to_vec();
    let c1 = t[b..b + 16400].to_vec();
    t[a..b].copy_from_slice(&c1);
    t[b..b + 16400].copy_from_slice(&c0);
    assert!(matches!(
        all_decrypts_fail(&t, &key, "swapped"),
        Error::ChunkAuthentication(0)
    ));
    // Dropping a whole full chunk in the middle.
    let mut t = ct.clone();
    t.drain(chunk(1)..chunk(2));
    all_decrypts_fail(&t, &key, "chunk removed");
}

#[test]
fn stream_decrypt_releases_only_authenticated_batches() {
    let key = [5u8; 32];
    let n = 300 * 16384; // more than one 256-chunk batch
    let p = plaintext(n);
    // Corrupt one byte of the message; what the stream decryption wrote.
    let corrupted = |at: usize| {
        let mut ct =
            cobblestone::encrypt(Pool::global(), Suite::Cobblestone256, &key, b"", &p).unwrap();
        ct[at] ^= 1;
        let mut out = Vec::new();
        let e = cobblestone::decrypt_stream(
            Pool::global(),
            Suite::Cobblestone256,
            &key,
            b"",
            &mut Cursor::new(&ct),
            &mut out,
            &|_| {},
        )
        .unwrap_err();
        (e, out)
    };
    // Corrupt chunk 10: the first batch must not be released at all.
    let (e, out) = corrupted(56 + 10 * 16400 + 3);
    assert!(matches!(e, Error::ChunkAuthentication(10)));
    assert!(out.is_empty());
    // Corrupt chunk 290 (second batch): only the first batch was written.
    let (e, out) = corrupted(56 + 290 * 16400);
    assert!(matches!(e, Error::ChunkAuthentication(290)), "{e}");
    assert_eq!(out, &p[..256 * 16384]);
}

#[test]
fn random_access_ranges() {
    let key = [1u8; 16];
    let s = Suite::Cobblestone128;
    for n in [0usize, 1, 16384, 16385, 5 * 16384 + 77] {
        let p = plaintext(n);
        let ct = cobblestone::encrypt(Pool::global(), s, &key, b"ra", &p).unwrap();
        let mut ra = RandomAccess::open(Cursor::new(&ct), s, &key, b"ra").unwrap();
        assert_eq!(ra.len(), n as u64);
        let n64 = n as u64;
        let mut ranges = vec![0..0, 0..n64, n64..n64];
        if n > 2 {
            ranges.extend([1..n64 - 1, n64 / 2..n64 / 2 + 1]);
        }
        if n > 16390 {
            ranges.extend([16383..16385, 16384..n64, 100..16384 * 2.min(n64)]);
        }
        for r in ranges {
            let got = ra.read_range(r.clone(), Pool::global()).unwrap();
            assert_eq!(got, &p[r.start as usize..r.end as usize], "{n} {r:?}");
            let got2 = cobblestone::decrypt_range(
                Pool::global(),
                Cursor::new(&ct),
                s,
                &key,
                b"ra",
                r.clone(),
            )
            .unwrap();
            assert_eq!(got, got2);
        }
        assert!(ra.read_range(0..n64 + 1, Pool::global()).is_err());
    }
    // A range in an intact chunk still works when another chunk is
    // corrupted; a range over the corrupted one fails.
    let p = plaintext(4 * 16384 + 5);
    let mut ct = cobblestone::encrypt(Pool::global(), s, &key, b"", &p).unwrap();
    ct[56 + 2 * 16400 + 9] ^= 4;
    let mut ra = RandomAccess::open(Cursor::new(&ct), s, &key, b"").unwrap();
    assert_eq!(ra.read_range(10..20, Pool::global()).unwrap(), &p[10..20]);
    assert!(matches!(
        ra.read_range(2 * 16384..2 * 16384 + 1, Pool::global()),
        Err(Error::ChunkAuthentication(2))
    ));
    // A truncated message cannot be opened (final chunk authenticated).
    let ct = cobblestone::encrypt(Pool::global(), s, &key, b"", &p).unwrap();
    assert!(RandomAccess::open(Cursor::new(&ct[..56 + 2 * 16400 + 16]), s, &key, b"").is_err());
}

#[test]
fn files_positional_io() {
    let dir = tempfile::tempdir().unwrap();
    let key = [8u8; 32];
    for pool in pools() {
        let step = cobblestone::CHUNKS_PER_STEP * 16384;
        for n in [
            0usize,
            1,
            16384,
            step - 1,
            step,
            2 * step,
            2 * step + 16383,
            300 * 16384 + 3,
        ] {
            let p = plaintext(n);
            let ip = dir.path().join("in");
            std::fs::write(&ip, &p).unwrap();
            let keys = ChunkKeys::for_encryption(Suite::Cobblestone256, &key, b"f").unwrap();
            let inf = std::fs::File::open(&ip).unwrap();
            let op = dir.path().join("out");
            let of = std::fs::File::create(&op).unwrap();
            cobblestone::encrypt_file(&pool, &keys, &inf, n as u64, &of, 5, &|_| {}).unwrap();
            let ct = std::fs::read(&op).unwrap();
            assert_eq!(ct.len() as u64, 5 + cobblestone::ciphertext_len(n as u64));
            assert_eq!(
                cobblestone::decrypt(&pool, Suite::Cobblestone256, &key, b"f", &ct[5..]).unwrap(),
                p
            );
            let of = std::fs::File::open(&op).unwrap();
            let bp = dir.path().join("back");
            let bf = std::fs::File::create(&bp).unwrap();
            let len = ct.len() as u64 - 5;
            cobblestone::decrypt_file(
                &pool,
                Suite::Cobblestone256,
                &key,
                b"f",
                &of,
                5,
                len,
                &bf,
                &|_| {},
            )
            .unwrap();
            assert_eq!(std::fs::read(&bp).unwrap(), p);
        }
    }
}

/// The file path matches the in-memory encryption byte for byte (same
/// salt), rejects a tampered chunk in any step, and writes nothing for the
/// step that failed.
#[test]
fn files_match_memory_and_detect_tampering() {
    let dir = tempfile::tempdir().unwrap();
    let key = [5u8; 32];
    let s = Suite::Cobblestone256;
    let n = 3 * cobblestone::CHUNKS_PER_STEP * 16384 + 777;
    let p = plaintext(n);
    let ip = dir.path().join("in");
    std::fs::write(&ip, &p).unwrap();
    for pool in pools() {
        let keys = ChunkKeys::derive(s, &key, &[1u8; 24], b"").unwrap();
        let want = cobblestone::encrypt_with_keys(&pool, &keys, &p).unwrap();
        let op = dir.path().join("out");
        let of = std::fs::File::create(&op).unwrap();
        let inf = std::fs::File::open(&ip).unwrap();
        cobblestone::encrypt_file(&pool, &keys, &inf, n as u64, &of, 0, &|_| {}).unwrap();
        assert_eq!(std::fs::read(&op).unwrap(), want);
        for chunk in [0usize, 40, 97, 98] {
            let mut bad = want.clone();
            let pos = (56 + chunk * 16400 + 3).min(bad.len() - 1);
            bad[pos] ^= 1;
            let bp = dir.path().join("bad");
            std::fs::write(&bp, &bad).unwrap();
            let bf = std::fs::File::open(&bp).unwrap();
            let out = std::fs::File::create(dir.path().join("back")).unwrap();
            let e = cobblestone::decrypt_file(
                &pool,
                s,
                &key,
                b"",
                &bf,
                0,
                bad.len() as u64,
                &out,
                &|_| {},
            )
            .unwrap_err();
            assert!(matches!(e, Error::ChunkAuthentication(_)), "{chunk}: {e}");
        }
        // A file shorter than the length given: an error, not garbage.
        let short = std::fs::File::open(dir.path().join("bad")).unwrap();
        let out = std::fs::File::create(dir.path().join("back")).unwrap();
        assert!(
            cobblestone::decrypt_file(
                &pool,
                s,
                &key,
                b"",
                &short,
                0,
                want.len() as u64 + 16400,
                &out,
                &|_| {}
            )
            .is_err()
        );
        let inf = std::fs::File::open(&ip).unwrap();
        assert!(
            cobblestone::encrypt_file(&pool, &keys, &inf, n as u64 + 5, &of, 0, &|_| {}).is_err()
        );
    }
}

/// A partial chunk without `with_final` is the caller's error, not a panic,
/// and leaves `out` as it was; whole chunks and the final partial chunk
/// still seal.
#[test]
fn seal_chunks_partial_nonfinal_is_an_error() {
    let keys = ChunkKeys::for_encryption(Suite::Cobblestone256, &[3u8; 32], b"ctx").unwrap();
    for pool in pools() {
        for len in [1, cobblestone::CHUNK_SIZE - 1, cobblestone::CHUNK_SIZE + 5] {
            let mut out = vec![0xAAu8; 7];
            let e = keys
                .seal_chunks(&pool, 0, &plaintext(len), false, &mut out)
                .unwrap_err();
            assert!(matches!(e, Error::InvalidInput(_)), "{len}: {e}");
            assert!(e.to_string().contains("with_final"), "{e}");
            assert_eq!(out, vec![0xAAu8; 7], "{len}: out untouched");
            keys.seal_chunks(&pool, 0, &plaintext(len), true, &mut out)
                .unwrap();
            assert_eq!(
                out.len() as u64,
                cobblestone::ciphertext_len(len as u64) - cobblestone::PREFIX_SIZE as u64
            );
        }
        let mut out = Vec::new();
        keys.seal_chunks(
            &pool,
            0,
            &plaintext(2 * cobblestone::CHUNK_SIZE),
            false,
            &mut out,
        )
        .unwrap();
        assert_eq!(out.len(), 2 * cobblestone::ENC_CHUNK_SIZE);
    }
}

/// The slice APIs seal and open exactly as the `Vec` ones, at any chunk
/// index; a wrong output length is an error; a failed open zeroes the
/// output.
#[test]
fn chunk_runs_into_slices() {
    let keys = ChunkKeys::for_encryption(Suite::Cobblestone128, &[8u8; 16], b"s").unwrap();
    for pool in pools() {
        for len in [0, 1, 16384, 16 * 16384, 16 * 16384 + 9, 40 * 16384 + 3] {
            let p = plaintext(len);
            let mut enc = Vec::new();
            keys.seal_chunks(&pool, 5, &p, true, &mut enc).unwrap();
            let mut sealed = vec![0u8; cobblestone::sealed_len(len, true)];
            keys.seal_chunks_into(&pool, 5, &p, true, &mut sealed)
                .unwrap();
            assert_eq!(sealed, enc, "{len}");
            let mut opened = vec![0u8; cobblestone::opened_len(enc.len(), true).unwrap()];
            keys.open_chunks_into(&pool, 5, &enc, true, &mut opened)
                .unwrap();
            assert_eq!(opened, p, "{len}");
            let mut short = vec![0u8; opened.len() + 1];
            let e = keys
                .open_chunks_into(&pool, 5, &enc, true, &mut short)
                .unwrap_err();
            assert!(matches!(e, Error::InvalidInput(_)), "{e}");
            let end = enc.len() - 1;
            enc[end] ^= 1;
            let e = keys
                .open_chunks_into(&pool, 5, &enc, true, &mut opened)
                .unwrap_err();
            let last = 5 + len as u64 / 16384;
            assert!(
                matches!(e, Error::ChunkAuthentication(i) if i == last),
                "{e}"
            );
            assert!(opened.iter().all(|&b| b == 0), "{len}: zeroed");
        }
        assert!(cobblestone::opened_len(16400 + 3, false).is_err());
        assert!(cobblestone::opened_len(16400 + 15, true).is_err());
    }
}
