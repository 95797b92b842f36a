//! ECB, CTR, CBC decryption, XTS and GCM on 16 KiB buffers for each
//! hardware kernel this CPU runs, best of 15 × 500 operations, in GB/s
//! (10^9 B/s). Run beside a peer in the same session, e.g.
//! `cargo bench -p aesflow-modes --bench modes_speed` then
//! `openssl speed -evp aes-128-xts -bytes 16384 -seconds 1` (and -ctr, -gcm,
//! `-cbc -decrypt`), and report ratios. GCM open is measured as
//! (seal + open of the same buffer) − seal, so no copy is timed; each GCM
//! variant the kernel's width has (the `vaes` kernel: 16- and 32-block
//! groups) gets its own line.

use aesflow_cipher::{Aes, KeyExpansion, kernel_by_name};
use aesflow_modes::gcm::{FusedChoice, GcmOptions};
use aesflow_modes::{Gcm, Xts};
use std::time::Instant;
fn best(mut f: impl FnMut()) -> f64 {
    let mut b = f64::MAX;
    for _ in 0..15 {
        let t = Instant::now();
        for _ in 0..500 {
            f();
        }
        b = b.min(t.elapsed().as_secs_f64() / 500.0);
    }
    b
}
fn main() {
    let mut buf = vec![7u8; 16384];
    for name in ["aesni", "vaes256", "vaes"] {
        let Ok(k) = kernel_by_name(name) else {
            println!("{name}: not available on this CPU");
            continue;
        };
        for kl in [16usize, 32] {
            let aes = Aes::with_kernel(&vec![1u8; kl], k, KeyExpansion::Offline).unwrap();
            let xts = Xts::with_kernel(&vec![3u8; 2 * kl], k).unwrap();
            let gcm = Gcm::from_aes(&aes);
            let mut ctr = [0u8; 16];
            let g = |t: f64| 16384.0 / t / 1e9;
            let tc = best(|| aes.ctr_xor(&mut ctr, &mut buf));
            let te = best(|| aes.encrypt_blocks(buf.as_chunks_mut::<16>().0));
            let tx = best(|| xts.encrypt_sector(5, &mut buf).unwrap());
            let txd = best(|| xts.decrypt_sector(5, &mut buf).unwrap());
            let tcd = best(|| {
                let mut iv = [0u8; 16];
                aes.cbc_decrypt(&mut iv, buf.as_chunks_mut::<16>().0)
            });
            let tg = best(|| {
                gcm.seal_in_place_detached(&[0; 12], b"0123456789abc", &mut buf)
                    .unwrap();
            });
            // open in place = (seal + open of the same buffer) − seal.
            let tso = best(|| {
                let tag = gcm
                    .seal_in_place_detached(&[0; 12], b"0123456789abc", &mut buf)
                    .unwrap();
                gcm.open_in_place_detached(&[0; 12], b"0123456789abc", &mut buf, &tag)
                    .unwrap();
            });
            let tgo = tso - tg;
            println!(
                "{name:8} AES-{}: ecb {:.2} ctr {:.2} cbc-dec {:.2} xts-enc {:.2} xts-dec {:.2} gcm-seal {:.2} gcm-open {:.2} [{}]  xts/ctr {:.2}",
                kl * 8,
                g(te),
                g(tc),
                g(tcd),
                g(tx),
                g(txd),
                g(tg),
                g(tgo),
                gcm.fused_kernel().unwrap_or("-"),
                tc / tx
            );
            let variants: &[FusedChoice] = match name {
                "vaes" => &[FusedChoice::Vaes32],
                _ => &[],
            };
            for &fused in variants {
                let Ok(gcm) = Gcm::with_options(&aes, GcmOptions { ghash: None, fused }) else {
                    continue;
                };
                let tg = best(|| {
                    gcm.seal_in_place_detached(&[0; 12], b"0123456789abc", &mut buf)
                        .unwrap();
                });
                let tso = best(|| {
                    let tag = gcm
                        .seal_in_place_detached(&[0; 12], b"0123456789abc", &mut buf)
                        .unwrap();
                    gcm.open_in_place_detached(&[0; 12], b"0123456789abc", &mut buf, &tag)
                        .unwrap();
                });
                println!(
                    "{name:8} AES-{}: gcm-seal {:.2} gcm-open {:.2} [{}]",
                    kl * 8,
                    g(tg),
                    g(tso - tg),
                    gcm.fused_kernel().unwrap_or("-"),
                );
            }
        }
    }
}
