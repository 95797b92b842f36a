//! The caches of the machine, as far as the engine's choices need them:
//! an output larger than the last-level cache leaves it anyway, so the
//! calls that write one may write it past the caches (e.g. Cobblestone's
//! in-memory runs of chunks with `Prefetch::Stream`).

use std::sync::OnceLock;

/// The size in bytes of this machine's last-level cache: the largest cache
/// of the highest level Linux lists under
/// `/sys/devices/system/cpu/cpu0/cache`, read once; `usize::MAX` where that
/// cannot be read, so that nothing counts as larger than an unknown cache.
pub fn last_level_cache() -> usize {
    static LLC: OnceLock<usize> = OnceLock::new();
    *LLC.get_or_init(|| {
        let dir = std::path::Path::new("/sys/devices/system/cpu/cpu0/cache");
        let read = |p: std::path::PathBuf| std::fs::read_to_string(p).ok();
        let caches = std::fs::read_dir(dir).into_iter().flatten().flatten();
        caches
            .filter_map(|e| {
                let level: u32 = read(e.path().join("level"))?.trim().parse().ok()?;
                let size = read(e.path().join("size"))?;
                Some((level, parse_size(size.trim())?))
            })
            .max()
            .map_or(usize::MAX, |(_, size)| size)
    })
}

/// A sysfs cache size (`32768K`, `2M`, `1G`, or bytes) in bytes.
fn parse_size(s: &str) -> Option<usize> {
    let (digits, unit) = match s.as_bytes().last()? {
        b'K' => (&s[..s.len() - 1], 1 << 10),
        b'M' => (&s[..s.len() - 1], 1 << 20),
        b'G' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    digits.parse::<usize>().ok()?.checked_mul(unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("32768K"), Some(32 << 20));
        assert_eq!(parse_size("2M"), Some(2 << 20));
        assert_eq!(parse_size("1G"), Some(1 << 30));
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("x"), None);
        assert_eq!(parse_size("K"), None);
        assert_eq!(parse_size(""), None);
        assert!(last_level_cache() > 0);
    }
}
