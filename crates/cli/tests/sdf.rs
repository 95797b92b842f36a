//! `aesflow sdf`: exit status per the README's table (analysis errors 1,
//! an actor name that is not in the graph 2), a text report linear in the
//! size of the input with long names and cycles summarised (everything in
//! `--json`), buffer sizing that says when its front is partial, and the
//! hostile graphs refused or answered within the work budget.

mod common;

use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::{BIN, err, s};

/// An SDF3 document: actors `(name, execution time, input rate, output
/// rate)` and channels `(from, to, initial tokens)` by actor index, each
/// actor with one input port `i` and one output port `o` (a second input
/// or output of an actor gets ports `i1`, `o1`, ...).
fn doc(actors: &[(String, u64, u64, u64)], channels: &[(usize, usize, u64)]) -> String {
    let mut ins = vec![0usize; actors.len()];
    let mut outs = vec![0usize; actors.len()];
    let port = |k: usize, p: &str| {
        if k == 0 {
            p.to_string()
        } else {
            format!("{p}{k}")
        }
    };
    let mut ch = String::new();
    for (j, &(a, b, t)) in channels.iter().enumerate() {
        let (sp, dp) = (port(outs[a], "o"), port(ins[b], "i"));
        outs[a] += 1;
        ins[b] += 1;
        writeln!(
            ch,
            "<channel name='c{j}' srcActor='{}' srcPort='{sp}' dstActor='{}' dstPort='{dp}' initialTokens='{t}'/>",
            actors[a].0, actors[b].0
        )
        .unwrap();
    }
    let mut x = String::from(
        "<?xml version='1.0'?>\n<sdf3 type='sdf' version='1.0'><applicationGraph name='g'><sdf name='g' type='G'>\n",
    );
    for (k, (n, _, ri, ro)) in actors.iter().enumerate() {
        write!(x, "<actor name='{n}' type='T'>").unwrap();
        for p in 0..ins[k] {
            write!(x, "<port name='{}' type='in' rate='{ri}'/>", port(p, "i")).unwrap();
        }
        for p in 0..outs[k] {
            write!(x, "<port name='{}' type='out' rate='{ro}'/>", port(p, "o")).unwrap();
        }
        x.push_str("</actor>\n");
    }
    x.push_str(&ch);
    x.push_str("</sdf><sdfProperties>\n");
    for (n, t, _, _) in actors {
        writeln!(
            x,
            "<actorProperties actor='{n}'><processor type='p' default='true'><executionTime time='{t}'/></processor></actorProperties>"
        )
        .unwrap();
    }
    x.push_str("</sdfProperties></applicationGraph></sdf3>\n");
    x
}

/// Rate-1 actors named by `name(i)` with execution time `exec`.
fn actors(n: usize, exec: u64, name: impl Fn(usize) -> String) -> Vec<(String, u64, u64, u64)> {
    (0..n).map(|i| (name(i), exec, 1, 1)).collect()
}

/// A ring of `n` rate-1 actors `a0 ..`, channel `i` from actor `i` to
/// `i + 1` with `tokens(i)`.
fn ring(n: usize, exec: u64, tokens: impl Fn(usize) -> u64) -> String {
    let ch: Vec<_> = (0..n).map(|i| (i, (i + 1) % n, tokens(i))).collect();
    doc(&actors(n, exec, |i| format!("a{i}")), &ch)
}

fn sdf(dir: &Path, xml: &str, args: &[&str]) -> Output {
    let f = dir.join("g.xml");
    fs::write(&f, xml).unwrap();
    Command::new(BIN)
        .arg("sdf")
        .args(args)
        .arg(s(&f))
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn analysis_errors_exit_1_with_the_report_written() {
    let t = tempfile::tempdir().unwrap();
    let chain = doc(&actors(2, 1, |i| format!("a{i}")), &[(0, 1, 0)]);
    // latency needs a strongly connected graph
    let o = sdf(t.path(), &chain, &["--latency", "a0", "a1"]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    assert!(stdout(&o).contains("error: latency:"), "{}", stdout(&o));
    assert!(stdout(&o).contains("throughput:"));
    let e = err(&o);
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
    assert!(e.contains("1 analysis error (latency)"), "{e}");
    // the JSON report too, with the failed analyses named
    let o = sdf(t.path(), &chain, &["--json", "--latency", "a0", "a1"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(json(&o)["failed"], serde_json::json!(["latency"]));
    // a work limit (Howard's algorithm gets no round)
    let o = sdf(
        t.path(),
        &ring(3, 1, |i| u64::from(i == 0)),
        &["--max-work", "0"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    // an inconsistent graph
    let bad = doc(
        &[("a".into(), 1, 1, 2), ("b".into(), 1, 1, 1)],
        &[(0, 1, 0), (1, 0, 1)],
    );
    let o = sdf(t.path(), &bad, &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("NOT consistent"));
    // a deadlock is an answer (exit 0), the latency asked of it is not
    let dead = ring(3, 1, |_| 0);
    let o = sdf(t.path(), &dead, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(stdout(&o).contains("deadlock-free: NO"));
    let o = sdf(t.path(), &dead, &["--latency", "a0", "a1"]);
    assert_eq!(o.status.code(), Some(1));
    // and a graph that is fine exits 0
    let o = sdf(
        t.path(),
        &ring(3, 1, |i| u64::from(i == 0)),
        &["--latency", "a0", "a2"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
}

#[test]
fn an_unknown_actor_is_a_usage_error_and_nothing_is_written() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("report.txt");
    let o = sdf(
        t.path(),
        &ring(3, 1, |i| u64::from(i == 0)),
        &["--latency", "a0", "nope", "-o", s(&out)],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("no actor named `nope`"), "{}", err(&o));
    assert!(o.stdout.is_empty());
    assert!(!out.exists());
}

#[test]
fn throughput_1_over_2_pow_65_minus_2_is_exact() {
    let t = tempfile::tempdir().unwrap();
    let m = u64::MAX;
    let a = vec![
        ("a".to_string(), m, 1, 1),
        ("b".to_string(), m, 1, 1),
        ("c".to_string(), 0, 1, 1),
    ];
    let xml = doc(&a, &[(0, 1, 0), (1, 0, 1), (1, 2, 0), (2, 0, 1 << 63)]);
    let o = sdf(t.path(), &xml, &["--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let r = json(&o);
    assert_eq!(r["throughput"]["period"], "36893488147419103230");
    assert_eq!(
        r["throughput"]["throughput_exact"],
        "1/36893488147419103230"
    );
}

#[test]
fn a_coprime_ring_near_2_pow_62_is_refused_by_the_step_bound() {
    let t = tempfile::tempdir().unwrap();
    let (p, q, r) = ((1u64 << 62) - 1, (1u64 << 62) - 3, (1u64 << 62) - 5);
    let a = vec![
        ("a".to_string(), 1, r, q),
        ("b".to_string(), 1, p, r),
        ("c".to_string(), 1, q, p),
    ];
    let xml = doc(&a, &[(0, 1, 0), (1, 2, 0), (2, 0, 3 * r)]);
    let o = sdf(t.path(), &xml, &["--json"]);
    assert_eq!(o.status.code(), Some(1));
    let errors = json(&o)["errors"].to_string();
    assert!(
        errors.contains("deadlock check refused: it needs at least"),
        "{errors}"
    );
}

#[test]
fn long_names_are_shortened_in_text_and_whole_in_json() {
    let t = tempfile::tempdir().unwrap();
    let long = "x".repeat(100_000);
    let a = vec![(long.clone(), 3, 1, 1), ("b".to_string(), 4, 1, 1)];
    let xml = doc(&a, &[(0, 1, 0), (1, 0, 1)]);
    let o = sdf(t.path(), &xml, &["--latency", &long, "b"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let text = stdout(&o);
    // the text is as long as for a short name, give or take the marks
    assert!(text.len() < 6_000, "{} bytes", text.len());
    assert!(text.lines().all(|l| l.chars().count() < 300));
    assert!(text.contains("(100000 chars)"), "{text}");
    let o = sdf(t.path(), &xml, &["--json"]);
    assert_eq!(json(&o)["repetition_vector"][0]["name"], long.as_str());
}

#[test]
fn a_long_critical_cycle_is_summarised_in_text_and_whole_in_json() {
    let t = tempfile::tempdir().unwrap();
    let n = 100_000;
    let xml = ring(n, 1, |i| u64::from(i == 0));
    let o = sdf(t.path(), &xml, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let text = stdout(&o);
    let head = text
        .lines()
        .find(|l| l.starts_with("critical cycle"))
        .unwrap();
    assert!(head.len() < 300, "{} bytes", head.len());
    assert!(head.contains("100000 firings, 100000 actors"), "{head}");
    assert!(
        head.contains("a0 -> a1") && head.contains("a99999"),
        "{head}"
    );
    assert!(text.len() < 20_000, "{} bytes", text.len());
    let o = sdf(t.path(), &xml, &["--json"]);
    let r = json(&o);
    let actors = r["throughput"]["critical_actors"].as_array().unwrap();
    assert_eq!(actors.len(), n);
}

#[test]
fn buffer_sizing_says_when_its_front_is_partial() {
    let t = tempfile::tempdir().unwrap();
    // one token on every channel but the first: one free place goes round
    let crowded = ring(50, 1, |i| u64::from(i > 0));
    let o = sdf(
        t.path(),
        &crowded,
        &["--buffers", "--max-distributions", "40"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let text = stdout(&o);
    assert!(
        text.contains("PARTIAL FRONT (cap reached: --max-distributions)"),
        "{text}"
    );
    assert!(text.contains("40 of at most 40 distributions"), "{text}");
    let o = sdf(
        t.path(),
        &crowded,
        &["--json", "--buffers", "--max-distributions", "40"],
    );
    let b = &json(&o)["buffers"];
    assert_eq!(b["complete"], false);
    assert_eq!(b["evaluated"], 40);
    // a zero-time ring: unbounded throughput at the first distribution
    let zero = ring(10_000, 0, |i| u64::from(i == 0));
    let o = sdf(t.path(), &zero, &["--json", "--buffers"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let b = &json(&o)["buffers"];
    assert_eq!(b["complete"], true);
    assert_eq!(b["evaluated"], 1);
    assert_eq!(b["points"][0]["throughput"], "unbounded");
    // --max-work bounds the memory of a search that grows combinatorially
    let wide = ring(1_000, 1, |i| u64::from(i > 0));
    let o = sdf(t.path(), &wide, &["--buffers", "--max-work", "20000000"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(
        stdout(&o).contains("PARTIAL FRONT (memory limit reached"),
        "{}",
        stdout(&o)
    );
}
