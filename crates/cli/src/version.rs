//! `aesflow --version`: the version, the AES kernels built in (and which
//! this CPU runs), and the cargo features.

/// The long version text.
pub fn long() -> String {
    let kernels: Vec<String> = aesflow_cipher::kernels()
        .iter()
        .map(|k| {
            let mut s = k.name().to_string();
            if !k.is_available() {
                s.push_str(" (not on this CPU)");
            } else if !k.is_constant_time() {
                s.push_str(" (variable-time)");
            }
            s
        })
        .collect();
    let default = match aesflow_cipher::default_kernel() {
        Ok(k) => k.name().to_string(),
        Err(e) => format!("none ({e})"),
    };
    format!(
        "{}\nkernels: {}\ndefault kernel: {default}\ntarget: {}-{}, features: {}",
        env!("CARGO_PKG_VERSION"),
        kernels.join(", "),
        std::env::consts::ARCH,
        std::env::consts::OS,
        features()
    )
}

fn features() -> String {
    let mut f: Vec<&str> = Vec::new();
    if cfg!(target_feature = "aes") {
        f.push("+aes (compile time)");
    }
    if cfg!(debug_assertions) {
        f.push("debug");
    }
    if f.is_empty() {
        "default (CPU features detected at run time)".into()
    } else {
        f.join(", ")
    }
}
