//! The multi-stream core simulated in Icarus Verilog: every stream's CBC
//! (and ECB) output against aesflow-modes, 10 cycles per block, the bus
//! shared as the paper's Eq. 1 says.

mod common;

use aesflow_hw::multistream::{MultiStream, Packet, run_packets};
use aesflow_hw::sweep::random_packets;
use common::skip_or;

#[test]
fn two_streams_on_a_64_bit_bus() {
    let m = MultiStream::new(2, 64).unwrap();
    // Two packets per stream: the second reloads key and IV.
    let mut packets = random_packets(7, 2, 2, 12, true);
    packets[1].cbc = false;
    let Some(r) = skip_or(run_packets(&m, &packets)) else {
        return;
    };
    assert_eq!(r.blocks, 48);
    eprintln!("{r:?}");
    // Steady state: 2 blocks per 10 cycles, less the set-up of 4 packets.
    assert!(r.bits_per_cycle > 18.0 && r.bits_per_cycle <= 25.6, "{r:?}");
}

#[test]
fn one_stream_is_ten_cycles_per_block() {
    let m = MultiStream::new(1, 64).unwrap();
    let Some(r) = skip_or(run_packets(&m, &random_packets(3, 1, 1, 40, true))) else {
        return;
    };
    // 40 blocks at 10 cycles, plus key, IV, first read and last write.
    assert!(r.cycles >= 400 && r.cycles <= 400 + 16, "{r:?}");
}

#[test]
fn three_streams_saturate_a_64_bit_bus() {
    // Eq. 1: floor(5 * 64 / 128) = 2 streams; a third finds the bus full.
    let m = MultiStream::new(3, 64).unwrap();
    assert_eq!(m.max_streams(), 2);
    let Some(r) = skip_or(run_packets(&m, &random_packets(5, 3, 1, 24, true))) else {
        return;
    };
    assert!(r.bus_use > 0.9, "{r:?}");
    assert!(r.bits_per_cycle < 32.0 + 1e-9, "{r:?}");
}

#[test]
fn a_wide_bus_and_odd_packets() {
    let m = MultiStream::new(3, 128).unwrap();
    let mut packets = random_packets(9, 3, 1, 3, true);
    packets.push(Packet {
        stream: 1,
        key: [1; 16],
        iv: [2; 16],
        cbc: true,
        blocks: vec![[3; 16]],
    });
    let Some(r) = skip_or(run_packets(&m, &packets)) else {
        return;
    };
    assert_eq!(r.blocks, 10);
    let m32 = MultiStream::new(1, 32).unwrap();
    skip_or(run_packets(&m32, &random_packets(11, 1, 1, 3, true)));
    assert!(MultiStream::new(9, 64).is_err());
    assert!(MultiStream::new(2, 48).is_err());
}
