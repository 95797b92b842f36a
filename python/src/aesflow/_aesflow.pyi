"""Type stubs of the aesflow extension module (re-exported by ``aesflow``)."""

import os
import sys
from typing import List, Optional, Sequence, TypedDict, Union

if sys.version_info >= (3, 12):
    from collections.abc import Buffer
else:
    from typing_extensions import Buffer

StrPath = Union[str, "os.PathLike[str]"]

CHUNK_SIZE: int
DASK_TEMP_PREFIX: str
ENC_CHUNK_SIZE: int
PREFIX_SIZE: int
SALT_SIZE: int

class AESGCM:
    """AES-GCM with pyca/cryptography's ``AESGCM`` interface."""

    def __init__(self, key: Buffer) -> None: ...
    @staticmethod
    def generate_key(bit_length: int) -> bytes: ...
    def encrypt(self, nonce: Buffer, data: Buffer, associated_data: Optional[Buffer]) -> bytes: ...
    def decrypt(self, nonce: Buffer, data: Buffer, associated_data: Optional[Buffer]) -> bytes: ...
    def encrypt_into(
        self, nonce: Buffer, data: Buffer, associated_data: Optional[Buffer], buf: Buffer
    ) -> int: ...
    def decrypt_into(
        self, nonce: Buffer, data: Buffer, associated_data: Optional[Buffer], buf: Buffer
    ) -> int: ...

# The four streaming classes share one interface; these bases exist only
# in the stubs (at run time each class stands alone).
class _CobblestoneStream:
    def __init__(self, key: Buffer, context: Buffer) -> None: ...
    def update(self, data: Buffer) -> bytes: ...
    def update_into(self, data: Buffer, buf: Buffer) -> int: ...
    def finalize(self) -> bytes: ...

class _CobblestoneEncryptor(_CobblestoneStream):
    @staticmethod
    def generate_key() -> bytes: ...

class Cobblestone256Encryptor(_CobblestoneEncryptor): ...
class Cobblestone256Decryptor(_CobblestoneStream): ...
class Cobblestone128Encryptor(_CobblestoneEncryptor): ...
class Cobblestone128Decryptor(_CobblestoneStream): ...

def encrypt(
    mode: str, key: Buffer, iv: Optional[Buffer], data: Buffer, padding: bool = True
) -> bytes: ...
def decrypt(
    mode: str, key: Buffer, iv: Optional[Buffer], data: Buffer, padding: bool = True
) -> bytes: ...
def encrypt_into(
    mode: str, key: Buffer, iv: Optional[Buffer], data: Buffer, buf: Buffer, padding: bool = True
) -> int: ...
def decrypt_into(
    mode: str, key: Buffer, iv: Optional[Buffer], data: Buffer, buf: Buffer, padding: bool = True
) -> int: ...
def multistream_backend() -> str: ...
def cbc_encrypt_many(
    keys: Sequence[Buffer], ivs: Sequence[Buffer], buffers: Sequence[Buffer]
) -> List[bytes]: ...
def encrypt_file(
    src: StrPath, dst: StrPath, key: Buffer, context: Optional[Buffer] = None, *, force: bool = False
) -> int: ...
def decrypt_file(
    src: StrPath, dst: StrPath, key: Buffer, context: Optional[Buffer] = None, *, force: bool = False
) -> int: ...

class KernelInfo(TypedDict):
    name: str
    available: bool
    constant_time: bool
    default: bool
    description: str

def kernels() -> List[KernelInfo]: ...
def default_kernel() -> str: ...
def threads() -> int: ...
def remove_stale(directory: StrPath) -> List[StrPath]: ...
def dask_temp_name() -> str: ...

# Chunk-range primitives used by aesflow.dask.
def cobblestone_prefix(key: Buffer, context: Optional[Buffer], salt: Buffer) -> bytes: ...
def cobblestone_ciphertext_len(plain_len: int) -> int: ...
def cobblestone_plaintext_len(ct_len: int) -> int: ...
def seal_file_range(
    src: StrPath,
    dst: StrPath,
    key: Buffer,
    context: Optional[Buffer],
    salt: Buffer,
    plain_len: int,
    first: int,
    count: int,
) -> int: ...
def open_file_range(
    src: StrPath,
    dst: StrPath,
    key: Buffer,
    context: Optional[Buffer],
    ct_len: int,
    first: int,
    count: int,
) -> int: ...
