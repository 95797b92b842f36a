//! `aesflow bench --gateway`: its flags, their bad values (usage errors,
//! exit 2) and a tiny run's JSON rows.

use std::process::{Command, Output, Stdio};

mod common;
use common::{BIN, err};

fn aesflow(args: &[&str]) -> Output {
    Command::new(BIN)
        .env_remove("AESFLOW_KERNEL")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn bad_gateway_values_are_usage_errors() {
    for args in [
        &["bench", "--gateway", "--tunnels", "0"][..],
        &["bench", "--gateway", "--tunnels", "many"],
        &["bench", "--gateway", "--packets", "1000001"],
        &["bench", "--gateway", "--queue-capacity", "-1"],
        &["bench", "--gateway", "--mix", "7:64,4"],
        &["bench", "--gateway", "--mix", "0:64"],
        &["bench", "--gateway", "--mix", "1:70000"],
        // A gateway flag without the gateway rows.
        &["bench", "--tunnels", "10"],
        &["bench", "--modes", "--mix", "1:64"],
    ] {
        let o = aesflow(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", err(&o));
        assert!(o.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn a_tiny_gateway_run_reports_both_rows() {
    let o = aesflow(&[
        "bench",
        "--gateway",
        "--tunnels",
        "5",
        "--packets",
        "40",
        "--mix",
        "3:64,1:1500",
        "--queue-capacity",
        "8",
        "--time-ms",
        "1",
        "--no-openssl",
        "--json",
    ]);
    assert!(o.status.success(), "{}", err(&o));
    let j = String::from_utf8(o.stdout).unwrap();
    for want in [
        "\"gateway-cbc-enc\"",
        "\"gateway-gcm-seal\"",
        "\"tunnels\": 5",
        "\"packets\": 40",
        "\"mix\": \"3:1 of 64/1500 B\"",
        "a batch per 8 pending packets",
    ] {
        assert!(j.contains(want), "{want} not in {j}");
    }
    // Only the gateway rows: no other op of the modes section.
    assert!(!j.contains("\"op\": \"ctr\""));
}
