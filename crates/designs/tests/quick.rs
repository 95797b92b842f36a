use aesflow_cipher::{Aes, KeyExpansion, KeySize};
use aesflow_designs::*;

#[test]
fn quick() {
    let platform = aesflow_array::Platform::default();
    let key: Vec<u8> = (0u8..16).collect();
    let pt: [u8; 16] = [0x00,0x11,0x22,0x33,0x44,0x55,0x66,0x77,0x88,0x99,0xaa,0xbb,0xcc,0xdd,0xee,0xff];
    let aes = Aes::with_kernel_name(&key, "reference", KeyExpansion::Offline).unwrap();
    let mut ct = pt; aes.encrypt_block(&mut ct);
    let blocks: Vec<[u8;16]> = (0..256u32).map(|i| { let mut b = pt; b[0] ^= i as u8; b[1] ^= (i>>8) as u8; b }).collect();
    for e in Engine::ALL {
        for x in Expansion::ALL {
            for (opt, oname) in [(Optimisations::NONE, "pre"), (Optimisations::ALL, "opt")] {
                let d = build(e, KeySize::Aes128, x, opt);
                let r = run_design(&d, &key, &blocks, &platform).unwrap();
                let ok = r.ciphertext.len() == blocks.len() && r.ciphertext.iter().zip(&blocks).all(|(c, p)| { let mut q = *p; aes.encrypt_block(&mut q); q == *c });
                println!("{:32} {:7} {} cores {:3} comm {:2} (m{} d{}) c/blk {:8.1} c/B {:7.3} ok {}", e.name(), x.name(), oname, r.mapping.total_cores(), r.mapping.comm_cores(), r.mapping.merge_cores(), r.mapping.dispatch_cores(), r.cycles_per_block, r.cycles_per_byte(), ok);
            }
        }
    }
    let _ = ct;
}
