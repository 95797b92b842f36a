//! aesflow array (work in progress).
