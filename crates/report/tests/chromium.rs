//! The report rendered with `--quick` and opened in headless Chromium: every
//! table has its rows, every figure is drawn, no request leaves the file,
//! the console stays silent; a screenshot is saved under `target/`.
//!
//! Chromium is found as `$AESFLOW_CHROMIUM`, `chromium`, `chromium-browser`
//! or `google-chrome`; where none runs, the browser part says so and is
//! skipped (the static checks still run).

use std::path::{Path, PathBuf};
use std::process::Command;

use aesflow_report::{Collected, Inputs, Options, collect, render};

fn quick_report() -> Collected {
    collect(
        &Options {
            quick: true,
            bench: true,
        },
        Inputs {
            command: "aesflow report --quick (test)".into(),
            ..Inputs::default()
        },
        &|_, _, _| {},
    )
    .expect("the quick report runs")
}

fn chromium() -> Option<PathBuf> {
    let mut names: Vec<String> = std::env::var("AESFLOW_CHROMIUM").into_iter().collect();
    names.extend(["chromium", "chromium-browser", "google-chrome"].map(String::from));
    names.into_iter().map(PathBuf::from).find(|p| {
        Command::new(p)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// Headless Chromium with the flags CI uses and a fresh profile.
fn browser(bin: &Path, profile: &Path) -> Command {
    let mut c = Command::new(bin);
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        "--enable-logging=stderr",
        "--v=0",
    ])
    .arg(format!("--user-data-dir={}", profile.display()));
    c
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
}

#[test]
fn the_quick_report_is_self_contained_and_draws_everything_in_chromium() {
    let html = render(&quick_report());
    // Static: nothing that could fetch.
    for bad in ["<link", " src=", "@import", "url(http", "<iframe"] {
        assert!(!html.contains(bad), "the page contains {bad}");
    }
    let stripped = html.replace("http://www.w3.org/2000/svg", "");
    assert!(
        !stripped.contains("http://") && !stripped.contains("https://"),
        "an external address in the page"
    );
    assert!(html.contains("Content-Security-Policy"));

    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("report");
    std::fs::create_dir_all(&dir).unwrap();
    let page = dir.join("report.html");
    std::fs::write(&page, &html).unwrap();

    let Some(bin) = chromium() else {
        eprintln!(
            "SKIPPED the browser checks: no Chromium found (install the Debian package \
             `chromium`, or set AESFLOW_CHROMIUM); the static checks passed"
        );
        return;
    };
    let profile = dir.join(format!("profile-{}", std::process::id()));
    let url = format!("file://{}?selftest", page.display());
    let out = browser(&bin, &profile)
        .arg("--dump-dom")
        .arg(&url)
        .output()
        .expect("chromium runs");
    let dom = String::from_utf8_lossy(&out.stdout);
    let log = String::from_utf8_lossy(&out.stderr);
    let console: Vec<&str> = log.lines().filter(|l| l.contains("CONSOLE")).collect();
    assert!(console.is_empty(), "console messages: {console:#?}");

    let json = dom
        .split("<pre id=\"selftest\">")
        .nth(1)
        .and_then(|t| t.split("</pre>").next())
        .unwrap_or_else(|| panic!("no self-test output in the DOM; stderr:\n{log}"));
    let v: serde_json::Value = serde_json::from_str(&unescape(json)).expect("self-test JSON");

    let requests = v["requests"].as_array().unwrap();
    assert!(requests.is_empty(), "requests left the file: {requests:?}");

    let tables = v["tables"].as_array().unwrap();
    let rows = |id: &str| {
        tables
            .iter()
            .find(|t| t["id"] == id)
            .and_then(|t| t["rows"].as_u64())
            .unwrap_or_else(|| panic!("no table {id}"))
    };
    assert_eq!(rows("checks"), 20);
    for key in [128, 192, 256] {
        assert_eq!(rows(&format!("table2-{key}")), 16, "Table 2 AES-{key}");
    }
    assert_eq!(rows("table4"), 5);
    assert_eq!(rows("energy"), 8);
    assert!(rows("table5") >= 11, "Table 5 with the host row");
    for id in ["bench-kernels", "bench-modes", "bench-engine"] {
        assert!(rows(id) > 0, "{id} is empty");
    }
    for t in tables {
        assert!(t["rows"].as_u64().unwrap() > 0, "empty table {t}");
    }

    let svgs = v["svgs"].as_array().unwrap();
    // 4 figures + 16 maps + 16 graphs + the GB/s-by-size charts.
    assert!(svgs.len() >= 38, "only {} SVGs", svgs.len());
    for s in svgs {
        assert!(s["marks"].as_u64().unwrap() >= 5, "an empty SVG: {s}");
    }
    let drawn = |prefix: &str| {
        svgs.iter()
            .filter(|s| s["id"].as_str().is_some_and(|i| i.starts_with(prefix)))
            .filter(|s| s["w"].as_f64().unwrap() > 100.0 && s["h"].as_f64().unwrap() > 100.0)
            .count()
    };
    for fig in ["fig12", "fig14", "fig15", "dvfs", "bench-size"] {
        assert!(drawn(fig) >= 1, "{fig} not drawn");
    }

    let shot = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("report.png");
    let _ = std::fs::remove_file(&shot);
    let out = browser(&bin, &profile)
        .arg("--window-size=1280,2400")
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    assert!(
        std::fs::metadata(&shot).is_ok_and(|m| m.len() > 10_000),
        "no screenshot; stderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("screenshot: {}", shot.display());
    let _ = std::fs::remove_dir_all(&profile);
}
