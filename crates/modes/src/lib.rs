//! aesflow modes (work in progress).
