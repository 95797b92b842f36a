//! A minimal progress bar on stderr (no dependencies).

use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Inputs larger than this get a progress bar (when stderr is a terminal).
pub const PROGRESS_MIN: u64 = 64 << 20;

/// A progress bar; [`Progress::add`] is safe to call from any thread.
#[derive(Debug)]
pub struct Progress {
    label: String,
    total: u64,
    done: AtomicU64,
    enabled: bool,
    state: Mutex<(Instant, Instant)>, // (start, last draw)
}

impl Progress {
    /// A bar for `total` bytes, shown only if `wanted`, `total` exceeds
    /// [`PROGRESS_MIN`] and stderr is a terminal.
    pub fn new(label: &str, total: Option<u64>, wanted: bool) -> Self {
        let total = total.unwrap_or(0);
        let enabled = wanted && total > PROGRESS_MIN && std::io::stderr().is_terminal();
        let now = Instant::now();
        Progress {
            label: label.to_string(),
            total,
            done: AtomicU64::new(0),
            enabled,
            state: Mutex::new((now, now)),
        }
    }

    /// A bar that never shows.
    pub fn hidden() -> Self {
        Self::new("", None, false)
    }

    /// Record `n` more bytes done.
    pub fn add(&self, n: u64) {
        let done = self.done.fetch_add(n, Ordering::Relaxed) + n;
        if !self.enabled {
            return;
        }
        let Ok(mut st) = self.state.try_lock() else {
            return;
        };
        let now = Instant::now();
        if now.duration_since(st.1) < Duration::from_millis(100) && done < self.total {
            return;
        }
        st.1 = now;
        let frac = (done as f64 / self.total.max(1) as f64).min(1.0);
        let width = 30;
        let fill = (frac * width as f64) as usize;
        let secs = now.duration_since(st.0).as_secs_f64().max(1e-9);
        let rate = done as f64 / secs / 1e9;
        let mut e = std::io::stderr().lock();
        let _ = write!(
            e,
            "\r{} [{}{}] {:3.0}% {:.1}/{:.1} MiB {:.2} GB/s ",
            self.label,
            "#".repeat(fill),
            "-".repeat(width - fill),
            frac * 100.0,
            done as f64 / 1048576.0,
            self.total as f64 / 1048576.0,
            rate
        );
        let _ = e.flush();
    }

    /// Erase the bar.
    pub fn finish(&self) {
        if self.enabled {
            let mut e = std::io::stderr().lock();
            let _ = write!(e, "\r\x1b[2K");
            let _ = e.flush();
        }
    }
}
