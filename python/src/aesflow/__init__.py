"""aesflow: parallel AES from Python.

The fast engine of the aesflow project (AES-NI / VAES kernels, fused
AES-GCM, the multi-core engine and the multi-stream engine), with
interfaces that mirror pyca/cryptography where it has the same thing, so
code ports by changing an import:

* :class:`AESGCM` -- ``cryptography.hazmat.primitives.ciphers.aead.AESGCM``,
  with pyca's limits and errors; a failed tag raises :class:`InvalidTag`.
* :class:`InvalidTag` / :class:`AlreadyFinalized` -- subclasses of
  ``cryptography.exceptions.InvalidTag`` / ``AlreadyFinalized`` when
  cryptography is importable, so existing ``except`` clauses catch them.
* :class:`Cobblestone256Encryptor` / :class:`Cobblestone256Decryptor` and
  the 128-bit variants -- ``cryptography.cobblestone`` (C2SP chunked
  encryption), byte-compatible with it and with the ``aesflow`` command.
* :func:`encrypt_file` / :func:`decrypt_file` -- whole Cobblestone files on
  all cores, with the command's atomic-output rules.
* :func:`encrypt` / :func:`decrypt` (and ``*_into``) -- raw ECB/CBC/CTR/CFB/OFB,
  byte-identical to ``openssl enc``.
* :func:`cbc_encrypt_many` / :func:`cbc_encrypt_many_into` -- many CBC
  streams at once on the multi-stream engine (``_into``: into the caller's
  buffers, nothing allocated).
* :func:`kernels` / :func:`default_kernel` -- the AES kernels; the
  ``AESFLOW_KERNEL`` environment variable forces one.
* :mod:`aesflow.dask` -- one large file sealed or opened in chunk ranges on
  the workers of a ``dask.distributed`` cluster.

Every call that does real work releases the GIL and reads any contiguous
buffer (bytes, bytearray, memoryview, mmap, numpy arrays) in place. Keys
are held only in Rust and zeroized when the object is dropped.
"""

from .exceptions import AlreadyFinalized, InvalidTag
from ._aesflow import (
    AESGCM,
    Cobblestone128Decryptor,
    Cobblestone128Encryptor,
    Cobblestone256Decryptor,
    Cobblestone256Encryptor,
    cbc_encrypt_many,
    cbc_encrypt_many_into,
    decrypt,
    decrypt_file,
    decrypt_into,
    default_kernel,
    encrypt,
    encrypt_file,
    encrypt_into,
    kernels,
    multistream_backend,
    threads,
)

__version__ = "0.1.0"

__all__ = [
    "AESGCM",
    "AlreadyFinalized",
    "Cobblestone128Decryptor",
    "Cobblestone128Encryptor",
    "Cobblestone256Decryptor",
    "Cobblestone256Encryptor",
    "InvalidTag",
    "cbc_encrypt_many",
    "cbc_encrypt_many_into",
    "decrypt",
    "decrypt_file",
    "decrypt_into",
    "default_kernel",
    "encrypt",
    "encrypt_file",
    "encrypt_into",
    "kernels",
    "multistream_backend",
    "threads",
]
