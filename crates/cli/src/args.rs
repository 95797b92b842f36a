//! Argument types shared by several subcommands.

use aesflow_cipher::KeySize;

/// `--key-size`: an AES key size in bits.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KeySizeArg {
    /// AES-128 (the size of the paper's figures).
    #[default]
    #[value(name = "128")]
    Aes128,
    /// AES-192.
    #[value(name = "192")]
    Aes192,
    /// AES-256.
    #[value(name = "256")]
    Aes256,
}

impl KeySizeArg {
    /// The cipher's key size.
    pub fn size(self) -> KeySize {
        match self {
            KeySizeArg::Aes128 => KeySize::Aes128,
            KeySizeArg::Aes192 => KeySize::Aes192,
            KeySizeArg::Aes256 => KeySize::Aes256,
        }
    }
}

impl From<KeySizeArg> for KeySize {
    fn from(k: KeySizeArg) -> KeySize {
        k.size()
    }
}
