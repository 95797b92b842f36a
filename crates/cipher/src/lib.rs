//! aesflow cipher (work in progress).
