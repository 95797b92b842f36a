//! AES-192 and AES-256 processors simulated cycle by cycle in Icarus Verilog
//! against aesflow's cipher and CTR mode: FIPS-197 C.2/C.3, the SP 800-38A
//! CTR-AES192/256 keystreams, random keys and blocks, the latency
//! `1 + Nr × stages`, one block per clock and a key change mid-stream. Every
//! S-box kind and both key schedules run here across the two sizes (four
//! variants); `aesflow hw verify --key-size 192|256` runs all of them.

mod common;
use aesflow_cipher::Aes;
use aesflow_hw::sim::{CtrOp, run_ctr};
use aesflow_hw::verify::{check_blocks, fips197_cases_of, random_cases_of};
use aesflow_hw::{KeySize, Variant};
use common::{key_change_mid_stream, skip_or};

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

#[test]
fn fips197_appendix_c_ciphertexts() {
    // The expected outputs of FIPS-197 C.2 and C.3, as printed there: the
    // reference the simulations compare against must give them.
    for (size, ct) in [
        (KeySize::Aes192, "dda97ca4864cdfe06eaf70a0ec0d7191"),
        (KeySize::Aes256, "8ea2b7ca516745bfeafc49904b496089"),
    ] {
        let c = &fips197_cases_of(size)[0];
        let mut b = c.blocks[0];
        Aes::new(&c.key).unwrap().encrypt_block(&mut b);
        assert_eq!(b.to_vec(), unhex(ct));
    }
}

/// SP 800-38A F.5.3 / F.5.5: CTR-AES192/256.Encrypt, the four keystream
/// blocks (ciphertext XOR plaintext) from the initial counter.
fn sp800_38a_keystream(v: &Variant) {
    let (key, ct) = match v.key_size {
        KeySize::Aes192 => (
            "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b",
            "1abc932417521ca24f2b0459fe7e6e0b090339ec0aa6faefd5ccc2c6f4ce8e941e36b26bd1ebc670d1bd1d665620abf74f78a7f6d29809585a97daec58c6b050",
        ),
        _ => (
            "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
            "601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c52b0930daa23de94ce87017ba2d84988ddfc9c58db67aada613c2dd08457941a6",
        ),
    };
    let pt = unhex(
        "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710",
    );
    let seed: [u8; 16] = unhex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")
        .try_into()
        .unwrap();
    let ops = [CtrOp::Seed(seed), CtrOp::Key(unhex(key)), CtrOp::Run(4)];
    let Some(t) = skip_or(run_ctr(v, &ops)) else {
        return;
    };
    let ks: Vec<u8> = t.outputs.iter().flat_map(|(_, b)| *b).collect();
    let want: Vec<u8> = unhex(ct).iter().zip(&pt).map(|(c, p)| c ^ p).collect();
    assert_eq!(ks, want, "{v}: SP 800-38A keystream");
}

fn run_variant(name: &str) {
    let v = Variant::parse(name).unwrap();
    let size = v.key_size;
    sp800_38a_keystream(&v);
    let mut cases = fips197_cases_of(size);
    cases.extend(random_cases_of(size, 0x5eed ^ v.latency() as u64, 4, 20));
    let Some(r) = skip_or(check_blocks(&v, &cases)) else {
        return;
    };
    assert_eq!(r.latency as usize, 1 + size.rounds() * v.stages);
    let Some(c) = key_change_mid_stream(&v, &cases) else {
        return;
    };
    eprintln!("{name}: {r:?}; {c:?}");
}

#[test]
fn lut_two_stages_online_256() {
    run_variant("lut-2-online-256");
}

#[test]
fn composite_unpipelined_offline_192() {
    run_variant("composite-1-offline-192");
}

#[test]
fn composite_two_stages_online_192() {
    run_variant("composite-2-2-online-192");
}

#[test]
fn composite_three_stages_four_per_round_offline_256() {
    run_variant("composite-3-4-offline-256");
}

#[test]
fn a_key_of_the_wrong_size_is_refused() {
    let v = Variant::parse("lut-1-online-192").unwrap();
    let e = run_ctr(&v, &[CtrOp::Key(vec![0; 16])]).unwrap_err();
    assert!(e.to_string().contains("16-byte key"), "{e}");
}

/// Every AES-192 and AES-256 variant (`cargo test -- --ignored`).
#[test]
#[ignore = "long: 32 simulations"]
fn every_wide_variant() {
    for size in [KeySize::Aes192, KeySize::Aes256] {
        for v in Variant::all_of(size) {
            run_variant(&v.name());
        }
    }
}
