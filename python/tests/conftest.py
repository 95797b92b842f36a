"""Shared fixtures: random data in every buffer type, the aesflow binary."""

import array
import os
import random
import shutil
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]


def _binary():
    p = os.environ.get("AESFLOW_BIN") or str(REPO / "target" / "release" / "aesflow")
    return p if os.path.exists(p) else None


@pytest.fixture(scope="session")
def aesflow_bin():
    p = _binary()
    if p is None:
        pytest.skip("the aesflow binary is not built (cargo build --release); AESFLOW_BIN unset")
    return p


@pytest.fixture(scope="session")
def openssl_bin():
    p = shutil.which("openssl")
    if p is None:
        pytest.skip("openssl binary not installed")
    return p


@pytest.fixture
def rng():
    seed = int(os.environ.get("AESFLOW_TEST_SEED", random.randrange(1 << 30)))
    print(f"AESFLOW_TEST_SEED={seed}")
    return random.Random(seed)


BUFFER_TYPES = ["bytes", "bytearray", "memoryview", "numpy_u8", "array_B", "memoryview_slice"]


def as_buffer(data: bytes, kind: str):
    """The same bytes as another buffer-protocol object."""
    if kind == "bytes":
        return bytes(data)
    if kind == "bytearray":
        return bytearray(data)
    if kind == "memoryview":
        return memoryview(data)
    if kind == "numpy_u8":
        return np.frombuffer(data, dtype=np.uint8).copy()
    if kind == "array_B":
        return array.array("B", data)
    if kind == "memoryview_slice":
        return memoryview(b"\x00" * 7 + data + b"\x00" * 5)[7 : 7 + len(data)]
    raise ValueError(kind)


def sizes(rng, n=12, top=200_000):
    fixed = [0, 1, 15, 16, 17, 31, 32, 33, 16383, 16384, 16385, 65536]
    return fixed + [rng.randrange(top) for _ in range(n)]
