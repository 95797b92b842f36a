//! The examples of SP 800-38A Appendix F, for every mode and key size, on
//! every kernel and both key-expansion styles.

mod common;
use aesflow_modes::{Cbc, Cfb, Cfb1, Cfb8, Ctr, Ofb, Padding, cbc, ecb};
use common::{aes, configs, hex, label};

const K128: &str = "2b7e151628aed2a6abf7158809cf4f3c";
const K192: &str = "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b";
const K256: &str = "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4";
const PT: &str = "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51\
                  30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";
const IV: &str = "000102030405060708090a0b0c0d0e0f";
const CTR0: &str = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

/// (mode, key, ciphertext) for the four-block examples.
const FOUR_BLOCK: &[(&str, &str, &str)] = &[
    (
        "ECB",
        K128,
        "3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf43b1cd7f598ece23881b00e3ed0306887b0c785e27e8ad3f8223207104725dd4",
    ),
    (
        "ECB",
        K192,
        "bd334f1d6e45f25ff712a214571fa5cc974104846d0ad3ad7734ecb3ecee4eefef7afd2270e2e60adce0ba2face6444e9a4b41ba738d6c72fb16691603c18e0e",
    ),
    (
        "ECB",
        K256,
        "f3eed1bdb5d2a03c064b5a7e3db181f8591ccb10d410ed26dc5ba74a31362870b6ed21b99ca6f4f9f153e7b1beafed1d23304b7a39f9f3ff067d8d8f9e24ecc7",
    ),
    (
        "CBC",
        K128,
        "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b273bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7",
    ),
    (
        "CBC",
        K192,
        "4f021db243bc633d7178183a9fa071e8b4d9ada9ad7dedf4e5e738763f69145a571b242012fb7ae07fa9baac3df102e008b0e27988598881d920a9e64f5615cd",
    ),
    (
        "CBC",
        K256,
        "f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d39f23369a9d9bacfa530e26304231461b2eb05e2c39be9fcda6c19078c6a9d1b",
    ),
    (
        "CFB128",
        K128,
        "3b3fd92eb72dad20333449f8e83cfb4ac8a64537a0b3a93fcde3cdad9f1ce58b26751f67a3cbb140b1808cf187a4f4dfc04b05357c5d1c0eeac4c66f9ff7f2e6",
    ),
    (
        "CFB128",
        K192,
        "cdc80d6fddf18cab34c25909c99a417467ce7f7f81173621961a2b70171d3d7a2e1e8a1dd59b88b1c8e60fed1efac4c9c05f9f9ca9834fa042ae8fba584b09ff",
    ),
    (
        "CFB128",
        K256,
        "dc7e84bfda79164b7ecd8486985d386039ffed143b28b1c832113c6331e5407bdf10132415e54b92a13ed0a8267ae2f975a385741ab9cef82031623d55b1e471",
    ),
    (
        "OFB",
        K128,
        "3b3fd92eb72dad20333449f8e83cfb4a7789508d16918f03f53c52dac54ed8259740051e9c5fecf64344f7a82260edcc304c6528f659c77866a510d9c1d6ae5e",
    ),
    (
        "OFB",
        K192,
        "cdc80d6fddf18cab34c25909c99a4174fcc28b8d4c63837c09e81700c11004018d9a9aeac0f6596f559c6d4daf59a5f26d9f200857ca6c3e9cac524bd9acc92a",
    ),
    (
        "OFB",
        K256,
        "dc7e84bfda79164b7ecd8486985d38604febdc6740d20b3ac88f6ad82a4fb08d71ab47a086e86eedf39d1c5bba97c4080126141d67f37be8538f5a8be740e484",
    ),
    (
        "CTR",
        K128,
        "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee",
    ),
    (
        "CTR",
        K192,
        "1abc932417521ca24f2b0459fe7e6e0b090339ec0aa6faefd5ccc2c6f4ce8e941e36b26bd1ebc670d1bd1d665620abf74f78a7f6d29809585a97daec58c6b050",
    ),
    (
        "CTR",
        K256,
        "601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c52b0930daa23de94ce87017ba2d84988ddfc9c58db67aada613c2dd08457941a6",
    ),
];

/// F.3.7–F.3.12: CFB8 on the first 18 plaintext bytes.
const CFB8: &[(&str, &str)] = &[
    (K128, "3b79424c9c0dd436bace9e0ed4586a4f32b9"),
    (K192, "cda2521ef0a905ca44cd057cbf0d47a0678a"),
    (K256, "dc1f1a8520a64db55fcc8ac554844e889700"),
];

/// F.3.1–F.3.6: CFB1 on the first 16 plaintext bits (0x6bc1).
const CFB1: &[(&str, &str)] = &[(K128, "68b3"), (K192, "9359"), (K256, "9029")];

#[test]
fn appendix_f_all_modes_all_kernels() {
    let pt = hex(PT);
    let iv = hex(IV);
    let mut checks = 0;
    for (kernel, style) in configs() {
        for &(mode, key, ct) in FOUR_BLOCK {
            let key = hex(key);
            let ct = hex(ct);
            let aes = aes(&key, kernel, style);
            let what = format!("{mode} AES-{} on {}", key.len() * 8, label(kernel, style));
            let (enc, dec) = match mode {
                "ECB" => (
                    ecb::encrypt(&aes, Padding::None, &pt).unwrap(),
                    ecb::decrypt(&aes, Padding::None, &ct).unwrap(),
                ),
                "CBC" => {
                    let mut e = pt.clone();
                    Cbc::new(&aes, &iv).unwrap().encrypt_blocks(&mut e).unwrap();
                    (e, cbc::decrypt(&aes, &iv, Padding::None, &ct).unwrap())
                }
                "CFB128" => {
                    let (mut e, mut d) = (pt.clone(), ct.clone());
                    Cfb::new(&aes, &iv).unwrap().encrypt(&mut e);
                    Cfb::new(&aes, &iv).unwrap().decrypt(&mut d);
                    (e, d)
                }
                "OFB" => {
                    let (mut e, mut d) = (pt.clone(), ct.clone());
                    Ofb::new(&aes, &iv).unwrap().apply_keystream(&mut e);
                    Ofb::new(&aes, &iv).unwrap().apply_keystream(&mut d);
                    (e, d)
                }
                "CTR" => {
                    let (mut e, mut d) = (pt.clone(), ct.clone());
                    Ctr::new(&aes, &hex(CTR0)).unwrap().apply_keystream(&mut e);
                    Ctr::new(&aes, &hex(CTR0)).unwrap().apply_keystream(&mut d);
                    (e, d)
                }
                _ => unreachable!(),
            };
            assert_eq!(enc, ct, "{what} encrypt");
            assert_eq!(dec, pt, "{what} decrypt");
            checks += 2;
        }
        for &(key, ct) in CFB8 {
            let aes = aes(&hex(key), kernel, style);
            let mut e = pt[..18].to_vec();
            Cfb8::new(&aes, &iv).unwrap().encrypt(&mut e);
            assert_eq!(e, hex(ct), "CFB8 on {}", label(kernel, style));
            Cfb8::new(&aes, &iv).unwrap().decrypt(&mut e);
            assert_eq!(e, pt[..18]);
            checks += 2;
        }
        for &(key, ct) in CFB1 {
            let aes = aes(&hex(key), kernel, style);
            let mut e = pt[..2].to_vec();
            Cfb1::new(&aes, &iv)
                .unwrap()
                .encrypt_bits(&mut e, 16)
                .unwrap();
            assert_eq!(e, hex(ct), "CFB1 on {}", label(kernel, style));
            Cfb1::new(&aes, &iv)
                .unwrap()
                .decrypt_bits(&mut e, 16)
                .unwrap();
            assert_eq!(e, pt[..2]);
            checks += 2;
        }
    }
    println!(
        "SP 800-38A Appendix F: {checks} checks over {} kernel/style configs",
        configs().len()
    );
}
