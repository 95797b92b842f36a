//! The report rendered with `--quick` and opened in headless Chromium at
//! 1400 px and at 420 px (a phone): every table has its rows, every figure
//! is drawn, every dataflow graph at its own size (not scaled into a
//! strip), chart text at a readable scale, nothing wider than the screen
//! but inside its own scrolling box, no request leaves the file, the
//! console stays silent; screenshots are saved under `target/`. Headless
//! Chromium opens no window narrower than 500 px, so the page lays itself
//! out at the width the test asks for (`?width=420` fixes the root
//! element's width; the narrow-screen styles apply below 760 px).
//!
//! Chromium is found as `$AESFLOW_CHROMIUM`, `chromium`, `chromium-browser`
//! or `google-chrome`; where none runs, the browser part prints
//! `skipped: <reason>` and returns (the static checks still run).

use std::path::{Path, PathBuf};
use std::process::Command;

use aesflow_report::{Collected, DesignSpace, FrontPoint, Inputs, Options, collect, render};

fn quick_report() -> Collected {
    collect(
        &Options {
            quick: true,
            bench: true,
            ..Options::default()
        },
        Inputs {
            command: "aesflow report --quick (test)".into(),
            hardware: Some(aesflow_hw::sweep::Sweep::measured()),
            // Two made-up designs stand in for `aesflow explore`'s points
            // (this crate does not run the explorer): the section draws.
            front: Some(DesignSpace {
                points: vec![
                    FrontPoint {
                        label: "design a".into(),
                        cores: 6,
                        cycles_per_byte: 160.0,
                        nj_per_bit: Some(1.8),
                        on_front: true,
                    },
                    FrontPoint {
                        label: "design b".into(),
                        cores: 12,
                        cycles_per_byte: 200.0,
                        nj_per_bit: None,
                        on_front: false,
                    },
                ],
                charts: vec![front_chart()],
                blocks: 32,
            }),
            ..Inputs::default()
        },
        &|_, _, _| {},
    )
    .expect("the quick report runs")
}

/// A stand-in for the explorer's chart (this crate does not run it).
fn front_chart() -> String {
    use aesflow_chart::{AxisSpec, LineChart, Scale, Series, Style};
    LineChart {
        title: "design space".into(),
        x: AxisSpec::new("cores", Scale::Log10),
        y: AxisSpec::new("Gbit/s", Scale::Log10),
        series: vec![Series {
            label: "designs".into(),
            points: vec![(6.0, 0.06), (12.0, 0.048)],
            style: Style::Dots,
            colour: 0,
            tips: vec![],
        }],
        refs: vec![],
    }
    .render()
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
    let c = quick_report();
    let html = render(&c);
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
    contents_name_every_section_in_order(&html);
    let without = Collected {
        inputs: Inputs {
            hardware: None,
            ..c.inputs.clone()
        },
        ..c.clone()
    };
    let without = render(&without);
    assert!(!without.contains("id=\"hardware\""));
    contents_name_every_section_in_order(&without);

    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("report");
    std::fs::create_dir_all(&dir).unwrap();
    let page = dir.join("report.html");
    std::fs::write(&page, &html).unwrap();

    let Some(bin) = chromium() else {
        aesflow_vectors::skip!(
            "no Chromium found for the browser checks (install the Debian package \
             `chromium`, or set AESFLOW_CHROMIUM); the static checks passed"
        );
        return;
    };
    let profile = dir.join(format!("profile-{}", std::process::id()));
    for width in [1400, 420] {
        let v = self_test(&bin, &profile, &page, width);
        check_content(&v, &c);
        check_layout(&v, width);
        screenshot(&bin, &profile, &page, width);
    }
    let _ = std::fs::remove_dir_all(&profile);
}

/// The sections' headings are numbered 1, 2, 3, … in order, and the
/// contents list one link per section, in the same order.
fn contents_name_every_section_in_order(html: &str) {
    let ids: Vec<&str> = html
        .split("<section id=\"")
        .skip(1)
        .filter_map(|rest| {
            let (id, rest) = rest.split_once('"')?;
            let h2 = rest.split_once("<h2>")?.1;
            let number: usize = h2.split_once('.')?.0.trim().parse().ok()?;
            Some((id, number))
        })
        .enumerate()
        .map(|(i, (id, number))| {
            assert_eq!(number, i + 1, "section {id} is numbered {number}");
            id
        })
        .collect();
    let nav = html
        .split_once("<nav>")
        .unwrap()
        .1
        .split_once("</nav>")
        .unwrap()
        .0;
    let links: Vec<&str> = nav
        .split("href=\"#")
        .skip(1)
        .map(|l| l.split_once('"').unwrap().0)
        .collect();
    assert!(ids.len() >= 8, "{ids:?}");
    assert_eq!(links, ids, "the contents against the sections");
}

/// The page's self-test (`?selftest`) at a window `width` px wide: its
/// JSON summary, after a silent console.
fn self_test(bin: &Path, profile: &Path, page: &Path, width: u32) -> serde_json::Value {
    let url = format!("file://{}?selftest&width={width}", page.display());
    let out = browser(bin, profile)
        .arg(format!("--window-size={width},1200"))
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
    serde_json::from_str(&unescape(json)).expect("self-test JSON")
}

/// Every table has its rows, every figure is drawn, nothing was fetched.
fn check_content(v: &serde_json::Value, c: &Collected) {
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
    let n = |len: usize| len as u64;
    assert!(n(c.study.checks.len()) >= 20, "the energy checks");
    assert_eq!(rows("checks"), n(c.study.checks.len()));
    for key in [128, 192, 256] {
        assert_eq!(rows(&format!("table2-{key}")), 16, "Table 2 AES-{key}");
    }
    assert_eq!(rows("table4"), 5, "Table 4's five kinds");
    assert_eq!(rows("table4-power"), 5);
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
    assert_eq!(rows("front"), 2);
    for fig in [
        "fig12",
        "fig14",
        "fig15",
        "dvfs",
        "bench-size",
        "front-chart",
    ] {
        assert!(drawn(fig) >= 1, "{fig} not drawn");
    }
}

/// At `width` px: no horizontal overflow of the page (wide content
/// scrolls in its own box), every dataflow graph at its own size (a box
/// 44 px tall stays 44 px: its labels read), and chart text not shrunk
/// below three quarters (12 px labels stay at least 9 px).
fn check_layout(v: &serde_json::Value, width: u32) {
    let (page_w, view_w) = (v["page_w"].as_f64().unwrap(), v["view_w"].as_f64().unwrap());
    assert!(
        page_w <= view_w + 0.5,
        "at {width} px the page is {page_w} px wide (view {view_w}); too wide: {}",
        v["wide"]
    );
    let svgs = v["svgs"].as_array().unwrap();
    let graphs: Vec<&serde_json::Value> = svgs
        .iter()
        .filter(|s| s["id"].as_str().is_some_and(|i| i.starts_with("graph-")))
        .collect();
    assert_eq!(graphs.len(), 16, "16 dataflow graphs at {width} px");
    for g in &graphs {
        let (scale, h) = (g["scale"].as_f64().unwrap(), g["h"].as_f64().unwrap());
        assert!(
            scale > 0.99,
            "graph drawn at {scale:.2} of its size at {width} px: {g}"
        );
        assert!(h >= 100.0, "graph only {h:.0} px tall at {width} px: {g}");
    }
    for s in svgs {
        let scale = s["scale"].as_f64().unwrap();
        assert!(
            scale >= 0.75,
            "an SVG drawn at {scale:.2} of its size at {width} px: {s}"
        );
    }
}

fn screenshot(bin: &Path, profile: &Path, page: &Path, width: u32) {
    let shot = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("report-{width}.png"));
    let _ = std::fs::remove_file(&shot);
    let out = browser(bin, profile)
        .arg(format!("--window-size={width},2400"))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}?width={width}", page.display()))
        .output()
        .expect("chromium runs");
    assert!(
        std::fs::metadata(&shot).is_ok_and(|m| m.len() > 10_000),
        "no screenshot; stderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("screenshot: {}", shot.display());
}
