//! The OpenSSL peer: `openssl speed -mr -elapsed -evp CIPHER -bytes N
//! -seconds S` run as a subprocess (wall-clock, machine-readable output),
//! so the default build links nothing but Rust. Missing `openssl` skips
//! the peer with a note.

use std::process::Command;
use std::sync::OnceLock;

/// `openssl version`, or `None` if OpenSSL cannot be run. The subprocess
/// runs once per process: the machine description and every section that
/// asks whether the peer is available share its answer.
pub fn openssl_version() -> Option<String> {
    static VERSION: OnceLock<Option<String>> = OnceLock::new();
    VERSION
        .get_or_init(|| {
            let out = Command::new("openssl").arg("version").output().ok()?;
            out.status
                .success()
                .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
        })
        .clone()
}

/// One `openssl speed` run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpensslSpeed {
    /// EVP cipher name, e.g. `aes-128-cbc`.
    pub cipher: String,
    /// Bytes per operation (`-bytes`).
    pub bytes: usize,
    /// `-seconds` (at least 1).
    pub seconds: u32,
    /// `-decrypt`.
    pub decrypt: bool,
    /// `-aead`: each operation is a whole AEAD message (IV set, 13 bytes of
    /// AAD, the data, the tag), as a one-shot seal is.
    pub aead: bool,
    /// `-multi N` (N processes, figures summed) if above 1.
    pub multi: usize,
}

impl OpensslSpeed {
    /// Encryption, one process.
    pub fn new(cipher: &str, bytes: usize, seconds: u32) -> Self {
        OpensslSpeed {
            cipher: cipher.to_string(),
            bytes,
            seconds,
            decrypt: false,
            aead: false,
            multi: 1,
        }
    }

    /// The arguments after `openssl`.
    pub fn args(&self) -> Vec<String> {
        let mut a: Vec<String> = ["speed", "-mr", "-elapsed"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        if self.multi > 1 {
            a.extend(["-multi".into(), self.multi.to_string()]);
        }
        a.extend(["-evp".into(), self.cipher.clone()]);
        if self.decrypt {
            a.push("-decrypt".into());
        }
        if self.aead {
            a.push("-aead".into());
        }
        a.extend([
            "-bytes".into(),
            self.bytes.to_string(),
            "-seconds".into(),
            self.seconds.max(1).to_string(),
        ]);
        a
    }

    /// The command line, for notes and reports.
    pub fn command_line(&self) -> String {
        format!("openssl {}", self.args().join(" "))
    }

    /// Run it: bytes/s (summed over the processes with `-multi`), or an
    /// explanation of why the peer is skipped.
    pub fn run(&self) -> Result<f64, String> {
        let out = Command::new("openssl")
            .args(self.args())
            .output()
            .map_err(|e| format!("peer skipped: openssl not found ({e})"))?;
        let text = String::from_utf8_lossy(&out.stdout);
        parse_openssl_speed(&text).ok_or_else(|| {
            format!(
                "peer skipped: could not parse `{}` output (exit {})",
                self.command_line(),
                out.status
            )
        })
    }
}

/// The bytes/s figure of `openssl speed -mr` output (its last `+F:` line).
pub fn parse_openssl_speed(text: &str) -> Option<f64> {
    text.lines()
        .filter(|l| l.starts_with("+F:"))
        .filter_map(|l| l.rsplit(':').next()?.trim().parse::<f64>().ok())
        .next_back()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speed_args() {
        let p = OpensslSpeed {
            decrypt: true,
            multi: 2,
            ..OpensslSpeed::new("aes-128-cbc", 16384, 0)
        };
        assert_eq!(
            p.command_line(),
            "openssl speed -mr -elapsed -multi 2 -evp aes-128-cbc -decrypt -bytes 16384 -seconds 1"
        );
    }

    #[test]
    fn parses_mr_output() {
        let out = "+DT:AES-128-CTR:1:16384\n+R:183617:AES-128-CTR:0.620000\n\
                   +H:16384\n+F:25:AES-128-CTR:4852227303.23\n";
        assert_eq!(parse_openssl_speed(out), Some(4852227303.23));
        assert_eq!(parse_openssl_speed("garbage"), None);
        let multi = "Got: +H:16384 from 0\nGot: +F:25:AES-256-CTR:1.5e9 from 0\n\
                     +H:16384\n+F:25:AES-256-CTR:2532418446.22\n";
        assert_eq!(parse_openssl_speed(multi), Some(2532418446.22));
    }
}
