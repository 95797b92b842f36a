//! `aesflow demo`: the main job on built-in data.
//!
//! Encrypts the FIPS-197 Appendix C examples (all three key sizes) with every
//! kernel this CPU runs and both key-expansion styles of the paper (offline:
//! round keys stored; online: derived while encrypting), decrypts them back,
//! and prints whether each matches the standard; simulates the 16 many-core
//! engines of Liu & Baas and prints Table 2 beside the model; and measures
//! the default kernel beside OpenSSL and RustCrypto.

use crate::bench_cmd::render_report;
use crate::text_out::hex;
use aesflow_bench::{BenchOptions, Op};
use aesflow_cipher::{Aes, KeyExpansion, KeySize, default_kernel, kernels};
use aesflow_format::Pool;
use aesflow_format::cobblestone::Suite;
use aesflow_format::files::{Job, KeyMaterial, Operation, Report, run_job};
use anyhow::{Context, ensure};
use std::time::Duration;
use zeroize::Zeroizing;

/// FIPS-197 Appendix C: plaintext, and (key, ciphertext) per key size.
const PLAINTEXT: &str = "00112233445566778899aabbccddeeff";
const EXAMPLES: [(&str, &str); 3] = [
    (
        "000102030405060708090a0b0c0d0e0f",
        "69c4e0d86a7b0430d8cdb78070b4c55a",
    ),
    (
        "000102030405060708090a0b0c0d0e0f1011121314151617",
        "dda97ca4864cdfe06eaf70a0ec0d7191",
    ),
    (
        "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
        "8ea2b7ca516745bfeafc49904b496089",
    ),
];

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("built-in hex"))
        .collect()
}

pub fn run() -> anyhow::Result<()> {
    println!("aesflow demo");
    println!("============\n");
    fips197_every_kernel()?;
    many_core_engines()?;
    energy()?;
    host_benchmark()?;
    println!("5. File round trip: built-in data encrypted to a Cobblestone-256 file and back\n");
    file_round_trip()?;
    Ok(())
}

fn many_core_engines() -> anyhow::Result<()> {
    println!("2. The 16 many-core engines of Liu & Baas on the simulated AsAP array");
    println!("   (4096 random blocks each, every engine checked against the cipher core;");
    println!(
        "   `aesflow designs --table` for this table, `--key-size 256` for the longer keys)\n"
    );
    let table = crate::designs_cmd::table_text(4096)?;
    for line in table.lines() {
        println!("   {line}");
    }
    println!();
    Ok(())
}

fn energy() -> anyhow::Result<()> {
    println!("3. Energy from the simulated activity (Tables 4-5, Fig. 15, the talk's DVFS;");
    println!("   `aesflow energy` for all figures, with SVG charts)\n");
    for line in crate::energy_cmd::headline()?.lines() {
        println!("   {line}");
    }
    println!();
    Ok(())
}

fn host_benchmark() -> anyhow::Result<()> {
    let kernel = default_kernel()?;
    println!(
        "4. Host benchmark: the default kernel ({}) on AES-128, 16 KiB buffers,",
        kernel.name()
    );
    println!("   beside RustCrypto and OpenSSL in the same run (`aesflow bench --all` for all)\n");
    let opts = BenchOptions {
        kernels: vec![kernel.name().to_string()],
        key_sizes: vec![KeySize::Aes128],
        sizes: vec![16384],
        ops: Op::ALL.to_vec(),
        measuring: aesflow_bench::Measuring {
            peers: aesflow_bench::Peers {
                rustcrypto09: false,
                ipsec_mb: false,
                ..aesflow_bench::Peers::default()
            },
            ..aesflow_bench::Measuring::new(Duration::from_millis(150))
        },
        ..BenchOptions::default()
    };
    let report = aesflow_bench::run(&opts)?;
    for line in render_report(&report, None).lines() {
        println!("   {line}");
    }
    println!();
    Ok(())
}

fn fips197_every_kernel() -> anyhow::Result<()> {
    println!("1. FIPS-197 Appendix C on every kernel × key expansion (plaintext {PLAINTEXT})\n");
    println!(
        "   {:<10} {:<8} {:<8} {:<34} check",
        "kernel", "keys", "size", "ciphertext"
    );
    let mut all_ok = true;
    for kernel in kernels() {
        if !kernel.is_available() {
            println!(
                "   {:<10} skipped: this CPU lacks its instructions",
                kernel.name()
            );
            continue;
        }
        for style in KeyExpansion::ALL {
            for (size, (key, expect)) in KeySize::ALL.iter().zip(EXAMPLES) {
                let aes = Aes::with_kernel(&unhex(key), *kernel, style)?;
                let mut block: [u8; 16] = unhex(PLAINTEXT).try_into().expect("16 bytes");
                aes.encrypt_block(&mut block);
                let ct = hex(&block);
                aes.decrypt_block(&mut block);
                let ok = ct == expect && hex(&block) == PLAINTEXT;
                all_ok &= ok;
                println!(
                    "   {:<10} {:<8} {:<8} {ct}   {}",
                    kernel.name(),
                    style.name(),
                    size.to_string(),
                    if ok {
                        "ok (matches FIPS-197, decrypts back)"
                    } else {
                        "MISMATCH"
                    }
                );
            }
        }
    }
    println!();
    if !all_ok {
        anyhow::bail!("some kernel did not reproduce FIPS-197");
    }
    Ok(())
}

/// The file round trip on built-in data, with the measured speed.
fn file_round_trip() -> anyhow::Result<()> {
    let size = 64 << 20;
    let (e, d) = round_trip(size)?;
    println!(
        "File round trip (Cobblestone-256, {} MiB in {}, {} threads, {} kernel): encrypt {:.2} GB/s, decrypt {:.2} GB/s, data identical",
        size >> 20,
        aesflow_bench::default_dir().display(),
        Pool::global().threads(),
        default_kernel()?.name(),
        e.gbps(),
        d.gbps()
    );
    Ok(())
}

/// `size` bytes of built-in data encrypted to a file in a temporary
/// directory and decrypted back, on all cores; returns the two reports (the
/// data is compared). The directory is made in [`aesflow_bench::default_dir`]
/// (`/dev/shm` when present): the demo shows the engine's speed, not the
/// disk's (on a disk the output's `fsync` dominates).
fn round_trip(size: usize) -> anyhow::Result<(Report, Report)> {
    let base = aesflow_bench::default_dir();
    let dir = tempfile::Builder::new()
        .prefix("aesflow-demo-")
        .tempdir_in(&base)
        .with_context(|| format!("creating a temporary directory in {}", base.display()))?;
    let input = dir.path().join("demo.bin");
    let data: Vec<u8> = (0..size)
        .map(|i| (i % 251) as u8 ^ (i >> 12) as u8)
        .collect();
    std::fs::write(&input, &data).context("writing demo data")?;
    let op = Operation::Cobblestone {
        suite: Suite::Cobblestone256,
        context: b"aesflow demo".to_vec(),
        key: KeyMaterial::Key(Zeroizing::new(vec![0x5c; 32])),
    };
    let pool = &Pool::global().clone().with_kernel(default_kernel()?);
    let enc = dir.path().join("demo.bin.cob");
    let back = dir.path().join("demo.out");
    let j1 = Job {
        input: Some(input),
        output: Some(enc.clone()),
    };
    let r1 = run_job(pool, &op, &j1, true, false)?;
    let j2 = Job {
        input: Some(enc),
        output: Some(back.clone()),
    };
    let r2 = run_job(pool, &op, &j2, false, false)?;
    let got = std::fs::read(&back).context("reading demo output")?;
    ensure!(got == data, "demo round trip: data differs");
    Ok((r1, r2))
}
