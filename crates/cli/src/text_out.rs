//! Text outputs of the modelling commands (tables, SVG, DOT, SDF3, HTML):
//! one writer for all of them, and bytes as hex.

use std::io::Write;
use std::path::Path;

/// Write `text` to `path` (`-`: stdout) through an atomic output file
/// (`aesflow-output`): whole or not at all, an existing file kept unless
/// `force`.
pub fn write(path: &Path, text: &str, force: bool) -> anyhow::Result<()> {
    if path == Path::new("-") {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes())?;
        return Ok(out.flush()?);
    }
    let mut f = aesflow_output::AtomicFile::create(path, force)?;
    f.file_mut()
        .write_all(text.as_bytes())
        .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
    f.commit(true)?;
    Ok(())
}

/// [`write()`] (`None`: stdout), then say `wrote PATH` on stderr for a file.
pub fn write_reported(path: Option<&Path>, text: &str, force: bool) -> anyhow::Result<()> {
    let path = path.unwrap_or(Path::new("-"));
    write(path, text, force)?;
    if path != Path::new("-") {
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// Bytes as lower-case hex digits.
pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
