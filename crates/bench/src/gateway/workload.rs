//! The gateway's packets: tunnels with their own keys and salts, and a
//! packet trace drawn from a packet-size mix by a fixed-seed generator, so
//! that every contender gets the same work in every run.

use aesflow_cipher::KeySize;

/// One class of a packet-size mix: `weight` packets of `bytes` bytes in
/// every `total weight`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MixPart {
    /// Relative share of packets.
    pub weight: u32,
    /// Packet length in bytes (GCM payload; CBC pads it to whole blocks).
    pub bytes: usize,
}

/// A packet-size mix, e.g. the simple IMIX: 7:4:1 of 64/576/1500 bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mix(pub Vec<MixPart>);

/// The longest packet of a mix (a jumbo frame's 9 KiB and more).
pub const MAX_PACKET: usize = 65535;

impl Mix {
    /// The simple IMIX: 7 packets of 64 bytes, 4 of 576, 1 of 1500.
    pub fn imix() -> Mix {
        Mix(vec![
            MixPart {
                weight: 7,
                bytes: 64,
            },
            MixPart {
                weight: 4,
                bytes: 576,
            },
            MixPart {
                weight: 1,
                bytes: 1500,
            },
        ])
    }

    /// Parse `WEIGHT:BYTES,…` (e.g. `7:64,4:576,1:1500`): weights at least
    /// 1, lengths 1 to [`MAX_PACKET`].
    pub fn parse(s: &str) -> Result<Mix, String> {
        let mut parts = Vec::new();
        for p in s.split(',') {
            let (w, b) = p
                .trim()
                .split_once(':')
                .ok_or_else(|| format!("{p:?} is not WEIGHT:BYTES (e.g. 7:64,4:576,1:1500)"))?;
            let weight: u32 = w
                .trim()
                .parse()
                .map_err(|_| format!("{w:?} is not a packet weight"))?;
            let bytes: usize = b
                .trim()
                .parse()
                .map_err(|_| format!("{b:?} is not a packet length"))?;
            if weight == 0 || weight > 1_000_000 {
                return Err(format!("weight {weight}: must be 1 to 1000000"));
            }
            if !(1..=MAX_PACKET).contains(&bytes) {
                return Err(format!(
                    "packet length {bytes}: must be 1 to {MAX_PACKET} bytes"
                ));
            }
            parts.push(MixPart { weight, bytes });
        }
        Ok(Mix(parts))
    }

    /// `7:4:1 of 64/576/1500 B`.
    pub fn describe(&self) -> String {
        let w: Vec<String> = self.0.iter().map(|p| p.weight.to_string()).collect();
        let b: Vec<String> = self.0.iter().map(|p| p.bytes.to_string()).collect();
        format!("{} of {} B", w.join(":"), b.join("/"))
    }

    fn total_weight(&self) -> u64 {
        self.0.iter().map(|p| u64::from(p.weight)).sum()
    }
}

/// A tunnel (security association): its key, GCM salt and SPI.
#[derive(Clone, Debug)]
pub struct Tunnel {
    /// The AES key.
    pub key: Vec<u8>,
    /// The GCM nonce's salt (RFC 4106: the first 4 bytes of the nonce).
    pub salt: [u8; 4],
    /// The security parameter index (the ESP header's first word).
    pub spi: u32,
}

/// One packet of the trace.
#[derive(Clone, Debug)]
pub struct Packet {
    /// Index of its tunnel.
    pub tunnel: usize,
    /// The ESP sequence number (per tunnel, from 1).
    pub seq: u32,
    /// The per-packet IV: CBC's 16 bytes; GCM's explicit 8 are its first.
    pub iv: [u8; 16],
    /// The payload: `len` bytes, padded to whole blocks for CBC (ESP's
    /// padding bytes 1, 2, 3, …).
    pub data: Vec<u8>,
    /// The payload length without padding (the GCM message).
    pub len: usize,
}

impl Packet {
    /// The GCM input: the unpadded payload.
    pub fn gcm_plain(&self) -> &[u8] {
        &self.data[..self.len]
    }

    /// The CBC input: the payload padded to whole blocks.
    pub fn cbc_plain(&self) -> &[u8] {
        &self.data
    }
}

/// Tunnels and a packet trace.
#[derive(Clone, Debug)]
pub struct Workload {
    /// The tunnels, each with its own key.
    pub tunnels: Vec<Tunnel>,
    /// The packets in arrival order.
    pub packets: Vec<Packet>,
}

/// SplitMix64: a fixed-seed generator, the same sequence everywhere.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n ≥ 1; the bias of a 64-bit modulo is negligible
    /// for a benchmark trace).
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn bytes(&mut self, out: &mut [u8]) {
        for c in out.chunks_mut(8) {
            let v = self.next().to_le_bytes();
            c.copy_from_slice(&v[..c.len()]);
        }
    }
}

/// The generator's seed: every run draws the same trace.
pub const SEED: u64 = 0x00ae_5f10_a9a7_e3a1;

impl Workload {
    /// `tunnels` tunnels with keys of `size`, and `packets` packets whose
    /// lengths follow `mix` and whose tunnels are uniform among all.
    pub fn generate(tunnels: usize, packets: usize, mix: &Mix, size: KeySize) -> Workload {
        let mut g = SplitMix(SEED);
        let tunnels: Vec<Tunnel> = (0..tunnels)
            .map(|i| {
                let mut key = vec![0u8; size.bytes()];
                g.bytes(&mut key);
                let mut salt = [0u8; 4];
                g.bytes(&mut salt);
                Tunnel {
                    key,
                    salt,
                    spi: 0x1000 + i as u32,
                }
            })
            .collect();
        let mut seqs = vec![0u32; tunnels.len()];
        let total = mix.total_weight().max(1);
        let packets = (0..packets)
            .map(|_| {
                let mut pick = g.below(total);
                let part = mix
                    .0
                    .iter()
                    .find(|p| {
                        let hit = pick < u64::from(p.weight);
                        pick = pick.saturating_sub(u64::from(p.weight));
                        hit
                    })
                    .unwrap_or(&mix.0[0]);
                let tunnel = g.below(tunnels.len() as u64) as usize;
                seqs[tunnel] += 1;
                let len = part.bytes;
                let mut data = vec![0u8; len.div_ceil(16) * 16];
                g.bytes(&mut data[..len]);
                for (i, b) in data[len..].iter_mut().enumerate() {
                    *b = i as u8 + 1;
                }
                let mut iv = [0u8; 16];
                g.bytes(&mut iv);
                Packet {
                    tunnel,
                    seq: seqs[tunnel],
                    iv,
                    data,
                    len,
                }
            })
            .collect();
        Workload { tunnels, packets }
    }

    /// The GCM nonce of a packet: its tunnel's salt, then its 8-byte
    /// explicit IV (RFC 4106).
    pub fn nonce(&self, p: &Packet) -> [u8; 12] {
        let mut n = [0u8; 12];
        n[..4].copy_from_slice(&self.tunnels[p.tunnel].salt);
        n[4..].copy_from_slice(&p.iv[..8]);
        n
    }

    /// The GCM additional data of a packet: its ESP header (SPI, sequence
    /// number; 8 bytes).
    pub fn aad(&self, p: &Packet) -> [u8; 8] {
        let mut a = [0u8; 8];
        a[..4].copy_from_slice(&self.tunnels[p.tunnel].spi.to_be_bytes());
        a[4..].copy_from_slice(&p.seq.to_be_bytes());
        a
    }

    /// Bytes per pass: padded payloads for CBC, unpadded for GCM.
    pub fn bytes(&self, cbc: bool) -> usize {
        self.packets
            .iter()
            .map(|p| if cbc { p.data.len() } else { p.len })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_trace_every_time_in_the_mix_proportions() {
        let mix = Mix::imix();
        let a = Workload::generate(1000, 12_000, &mix, KeySize::Aes128);
        let b = Workload::generate(1000, 12_000, &mix, KeySize::Aes128);
        assert_eq!(a.packets.len(), 12_000);
        for (x, y) in a.packets.iter().zip(&b.packets) {
            assert_eq!(
                (x.tunnel, x.seq, x.iv, &x.data),
                (y.tunnel, y.seq, y.iv, &y.data)
            );
        }
        assert!(
            a.tunnels
                .iter()
                .zip(&b.tunnels)
                .all(|(x, y)| x.key == y.key)
        );
        // Keys differ between tunnels.
        assert_ne!(a.tunnels[0].key, a.tunnels[1].key);
        let count = |n| a.packets.iter().filter(|p| p.len == n).count() as f64 / 12_000.0;
        for (n, share) in [(64, 7.0 / 12.0), (576, 4.0 / 12.0), (1500, 1.0 / 12.0)] {
            assert!((count(n) - share).abs() < 0.02, "{n}: {}", count(n));
        }
        // Most tunnels carry traffic; sequence numbers count per tunnel.
        let used = a.tunnels.len()
            - (0..1000)
                .filter(|&t| a.packets.iter().all(|p| p.tunnel != t))
                .count();
        assert!(used > 990, "{used}");
        let p = a.packets.iter().find(|p| p.len == 1500).unwrap();
        assert_eq!((p.cbc_plain().len(), p.gcm_plain().len()), (1504, 1500));
        assert_eq!(&p.data[1500..], &[1, 2, 3, 4]);
        assert_eq!(a.aad(p)[..4], (0x1000 + p.tunnel as u32).to_be_bytes());
        assert_eq!(a.nonce(p)[..4], a.tunnels[p.tunnel].salt);
        let c = Workload::generate(1000, 100, &mix, KeySize::Aes256);
        assert_eq!(c.tunnels[5].key.len(), 32);
    }

    #[test]
    fn mixes_parse_and_describe() {
        assert_eq!(Mix::parse("7:64, 4:576,1:1500"), Ok(Mix::imix()));
        assert_eq!(Mix::imix().describe(), "7:4:1 of 64/576/1500 B");
        for bad in ["", "7", "0:64", "1:0", "1:65536", "x:64", "1:-3", "7:64,"] {
            assert!(Mix::parse(bad).is_err(), "{bad:?}");
        }
    }
}
