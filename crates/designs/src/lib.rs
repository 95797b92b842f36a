//! aesflow designs (work in progress).
