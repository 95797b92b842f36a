//! Ad-hoc AES-GCM throughput check (not a benchmark suite):
//! `cargo run -p aesflow-modes --release --example gcm_speed [size] [keybits]`.

use aesflow_modes::gcm::{FusedChoice, Gcm, GcmOptions};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let size: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(16384);
    let bits: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(128);
    let key = vec![0x42u8; bits / 8];
    let nonce = [7u8; 12];
    let mut buf = vec![0u8; size];
    let aes = aesflow_cipher::Aes::new(&key).unwrap();
    println!("AES kernel: {}", aes.kernel().name());
    {
        let iters = (2_000_000_000 / size.max(1)).max(10);
        let t = Instant::now();
        for _ in 0..iters {
            let mut c = [0u8; 16];
            aes.ctr_xor(&mut c, &mut buf);
        }
        let s = t.elapsed().as_secs_f64();
        println!(
            "CTR alone ({}): {:.2} GB/s",
            aes.kernel().name(),
            (iters * size) as f64 / s / 1e9
        );
        for imp in aesflow_modes::gcm::GhashImpl::ALL
            .into_iter()
            .filter(|g| g.is_available())
        {
            let k = aesflow_modes::gcm::GhashKey::new(&[1; 16], imp);
            let t = Instant::now();
            let mut x = 0u128;
            let it = if imp.name() == "soft" {
                iters / 10
            } else {
                iters
            };
            for _ in 0..it {
                k.update_padded(&mut x, &buf);
            }
            let s = t.elapsed().as_secs_f64();
            println!(
                "GHASH alone ({}): {:.2} GB/s",
                imp.name(),
                (it * size) as f64 / s / 1e9
            );
        }
    }
    for fused in [FusedChoice::Auto, FusedChoice::Off] {
        let gcm = Gcm::with_options(aes.clone(), GcmOptions { ghash: None, fused }).unwrap();
        let label = format!(
            "AES-{bits}-GCM {size} B, fused={:?} ghash={}",
            gcm.fused_kernel(),
            gcm.ghash_impl().name()
        );
        let ct = buf.clone();
        let tag = gcm
            .seal_in_place_detached(&nonce, b"", &mut buf.clone())
            .unwrap();
        let mut ct_sealed = ct.clone();
        let tag2 = gcm
            .seal_in_place_detached(&nonce, b"", &mut ct_sealed)
            .unwrap();
        let _ = tag;
        for (dir, enc) in [("seal", true), ("open", false)] {
            let iters = (2_000_000_000 / size.max(1)).max(10);
            let t = Instant::now();
            for _ in 0..iters {
                if enc {
                    gcm.seal_in_place_detached(&nonce, b"", &mut buf).unwrap();
                } else {
                    // Out of place, so every iteration opens the real ciphertext.
                    gcm.open_into(&nonce, b"", &ct_sealed, &tag2, &mut buf)
                        .unwrap();
                }
            }
            let s = t.elapsed().as_secs_f64();
            println!("{label} {dir}: {:.2} GB/s", (iters * size) as f64 / s / 1e9);
        }
    }
}
