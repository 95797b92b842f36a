//! `aesflow hw` end to end: list, generate to a file and to stdout, usage
//! errors (exit 2, no file left), the overwrite refusal, verify of one
//! variant in Icarus Verilog, the sweep from its kept data, and the FPGA
//! command's own usage errors.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

mod common;
use common::{BIN, err, names, s};

fn run(args: &[&str]) -> Output {
    Command::new(BIN).arg("hw").args(args).output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn ok(args: &[&str]) -> String {
    let o = run(args);
    assert!(o.status.success(), "aesflow hw {args:?}: {}", err(&o));
    stdout(&o)
}

/// A usage error: exit 2, the message naming `what`.
fn usage(args: &[&str], what: &str) {
    let o = run(args);
    assert_eq!(o.status.code(), Some(2), "aesflow hw {args:?}: {}", err(&o));
    assert!(err(&o).contains(what), "aesflow hw {args:?}: {}", err(&o));
}

#[test]
fn list_names_every_variant_with_its_key_size_and_latency() {
    let out = ok(&["list"]);
    let rows: Vec<&str> = out.lines().skip(1).collect();
    assert_eq!(rows.len(), 48, "{out}");
    for (name, bits, latency) in [
        ("lut-1-online", 128, 11),
        ("lut-2-online", 128, 21),
        ("composite-2-3-online", 128, 31),
        ("composite-3-4-offline", 128, 41),
        ("lut-2-online-192", 192, 25),
        ("composite-3-4-offline-192", 192, 49),
        ("lut-1-online-256", 256, 15),
        ("composite-3-4-offline-256", 256, 57),
    ] {
        let row = rows
            .iter()
            .find(|r| r.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("{name} not listed: {out}"));
        let cols: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cols[1], bits.to_string(), "{row}");
        assert_eq!(cols[3], latency.to_string(), "{row}");
    }
    let only = ok(&["list", "--key-size", "256"]);
    assert_eq!(only.lines().count(), 17, "{only}");
    assert!(only.lines().skip(1).all(|l| l.contains("-256 ")), "{only}");
    usage(&["list", "--key-size", "512"], "one of 128, 192, 256");
}

#[test]
fn sweep_refuses_an_unknown_key_size_before_any_tool_runs() {
    usage(
        &["sweep", "--key-size", "128,512", "--no-multistream"],
        "--key-size 512: one of 128, 192, 256",
    );
}

#[test]
fn generate_aes192_and_aes256_by_name_or_key_size() {
    let by_name = ok(&["generate", "--variant", "lut-2-online-256"]);
    assert!(by_name.contains("AES-256"), "{}", &by_name[..200]);
    assert!(by_name.contains("input [255:0] key"));
    assert!(by_name.contains("module key_round_14"));
    let by_flag = ok(&[
        "generate",
        "--sbox",
        "lut",
        "--stages",
        "2",
        "--key-size",
        "256",
    ]);
    assert_eq!(by_name, by_flag);
    let offline = ok(&[
        "generate",
        "--sbox",
        "composite-3",
        "--keys",
        "offline",
        "--key-size",
        "192",
    ]);
    assert!(offline.contains("input [191:0] key"));
    assert!(offline.contains("Latency: 49 cycles"));
    // The AES-128 names are unchanged and mean 128-bit keys.
    assert!(ok(&["generate", "--variant", "lut-2-online"]).contains("input [127:0] key"));
    let t = tempfile::tempdir().unwrap();
    let o = s(&t.path().join("x.v")).to_string();
    usage(
        &["generate", "--sbox", "lut", "--key-size", "100", "-o", &o],
        "--key-size",
    );
    usage(
        &["generate", "--variant", "lut-2-online-100", "-o", &o],
        "not a variant",
    );
    usage(
        &["generate", "--variant", "lut-2-online", "--key-size", "256"],
        "--key-size",
    );
    assert!(names(t.path()).is_empty());
    usage(&["verify", "--key-size", "100"], "--key-size");
    usage(
        &["verify", "lut-1-online", "--key-size", "192"],
        "--key-size",
    );
}

#[test]
fn generate_writes_one_standalone_file_or_stdout() {
    let t = tempfile::tempdir().unwrap();
    let f = t.path().join("lut2.v");
    ok(&["generate", "--variant", "lut-2-online", "-o", s(&f)]);
    let text = fs::read_to_string(&f).unwrap();
    assert!(text.contains("variant lut-2-online"), "{}", &text[..200]);
    assert!(text.contains("module aes_ctr"));
    assert!(text.contains("Latency: 21 cycles"));
    // The same text on stdout, with no -o and with -o -.
    assert_eq!(ok(&["generate", "--variant", "lut-2-online"]), text);
    assert_eq!(
        ok(&["generate", "--sbox", "lut", "--stages", "2", "-o", "-"]),
        text
    );
    let ms = ok(&["generate", "--multistream", "--streams", "2", "--bus", "64"]);
    assert!(ms.contains("module aes_multistream"));
}

#[test]
fn bad_variants_and_flags_exit_2_and_leave_no_file() {
    let t = tempfile::tempdir().unwrap();
    let f = t.path().join("x.v");
    let o = s(&f);
    usage(
        &["generate", "--variant", "lut-5-online", "-o", o],
        "1 or 2 stages, not 5",
    );
    usage(
        &["generate", "--variant", "nonsense", "-o", o],
        "not a variant name",
    );
    usage(
        &["generate", "--sbox", "rom", "--stages", "1", "-o", o],
        "--sbox rom",
    );
    usage(
        &[
            "generate",
            "--sbox",
            "composite-3",
            "--stages",
            "2",
            "-o",
            o,
        ],
        "3 or 4 stages",
    );
    usage(
        &["generate", "--sbox", "lut", "--keys", "sometimes", "-o", o],
        "--keys sometimes",
    );
    usage(&["generate", "-o", o], "--variant");
    usage(
        &[
            "generate",
            "--multistream",
            "--streams",
            "9",
            "--bus",
            "64",
            "-o",
            o,
        ],
        "streams must be 1 to 8",
    );
    usage(&["generate", "--bogus"], "--bogus");
    usage(&["verify", "lut-9-online"], "not 9");
    usage(&["sweep", "--keys", "never"], "--keys never");
    assert!(names(t.path()).is_empty(), "{:?}", names(t.path()));
}

#[test]
fn an_existing_output_is_kept_without_force() {
    let t = tempfile::tempdir().unwrap();
    let f = t.path().join("keep.v");
    fs::write(&f, "keep me").unwrap();
    let o = run(&["generate", "--variant", "lut-1-online", "-o", s(&f)]);
    assert!(!o.status.success());
    assert!(err(&o).contains("exists"), "{}", err(&o));
    assert_eq!(fs::read_to_string(&f).unwrap(), "keep me");
    ok(&[
        "generate",
        "--variant",
        "lut-1-online",
        "-o",
        s(&f),
        "--force",
    ]);
    assert!(fs::read_to_string(&f).unwrap().contains("module aes_ctr"));
    assert_eq!(names(t.path()), ["keep.v"]);
}

#[test]
fn verify_checks_one_variant_in_icarus_verilog() {
    if !aesflow_hw::tool_available("iverilog") || !aesflow_hw::tool_available("vvp") {
        aesflow_vectors::skip!("iverilog/vvp not installed; aesflow hw verify not run");
        return;
    }
    let out = ok(&["verify", "composite-1-offline", "--random-keys", "1"]);
    assert!(out.starts_with("composite-1-offline"), "{out}");
    assert!(out.contains("ok:"), "{out}");
    assert!(out.contains("latency 11"), "{out}");
    assert!(out.contains("one block per clock"), "{out}");
    let out = ok(&["verify", "lut-1-online-256", "--random-keys", "1"]);
    assert!(out.starts_with("lut-1-online-256"), "{out}");
    assert!(out.contains("latency 15"), "{out}");
}

fn kept_sweep() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../hw/data/sweep.json")
        .to_string_lossy()
        .into_owned()
}

#[test]
fn sweep_reads_the_kept_data_without_tools() {
    let data = kept_sweep();
    let json = ok(&["sweep", "--from", &data, "--json"]);
    let sweep: aesflow_hw::sweep::Sweep = serde_json::from_str(&json).unwrap();
    assert_eq!(sweep.processors.len(), 16);
    assert!(sweep.claims.iter().all(|c| c.direction_holds));
    assert!(sweep.fpga.is_some(), "the kept FPGA figures are put beside");
    let no = ok(&["sweep", "--from", &data, "--json", "--no-fpga"]);
    let sweep: aesflow_hw::sweep::Sweep = serde_json::from_str(&no).unwrap();
    assert!(sweep.fpga.is_none());

    let table = ok(&["sweep", "--from", &data]);
    assert!(table.contains("composite-3-4-offline"), "{table}");
    assert!(table.contains("claim (Hodjat & Verbauwhede)"), "{table}");

    let t = tempfile::tempdir().unwrap();
    ok(&["sweep", "--from", &data, "-o", s(t.path())]);
    let charts = names(t.path());
    for c in ["hw-sbox.svg", "hw-online.svg", "hw-packets.svg"] {
        assert!(charts.iter().any(|n| n == c), "{charts:?}");
    }
    // Charts already there are kept without --force.
    let o = run(&["sweep", "--from", &data, "-o", s(t.path())]);
    assert!(!o.status.success());
    assert!(err(&o).contains("exists"), "{}", err(&o));

    let o = run(&["sweep", "--from", s(&t.path().join("missing.json"))]);
    assert!(!o.status.success());
    assert!(err(&o).contains("missing.json"), "{}", err(&o));
}

#[test]
fn fpga_usage_errors_exit_2_and_keep_the_file() {
    let t = tempfile::tempdir().unwrap();
    usage(&["fpga", "sbox-rom"], "not an FPGA target");
    let f = t.path().join("fpga.json");
    fs::write(&f, "{}").unwrap();
    usage(&["fpga", "sbox-lut", "-o", s(&f)], "--resume");
    assert_eq!(fs::read_to_string(&f).unwrap(), "{}");
    usage(&["fpga", "sbox-lut", "--resume"], "--output");
}
