"""Kernels, AESFLOW_KERNEL, and every kernel against pyca."""

import os

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM as PycaGCM

import aesflow


@pytest.fixture
def env_kernel():
    names = ["AESFLOW_KERNEL", "AESFLOW_ALLOW_VARIABLE_TIME"]
    old = {n: os.environ.get(n) for n in names}
    yield
    for n, v in old.items():
        if v is None:
            os.environ.pop(n, None)
        else:
            os.environ[n] = v


def test_kernels_listing():
    ks = aesflow.kernels()
    names = [k["name"] for k in ks]
    assert {"reference", "ctime", "aesni", "vaes"} <= set(names)
    assert sum(k["default"] for k in ks) == 1
    d = next(k for k in ks if k["default"])
    assert d["name"] == aesflow.default_kernel()
    assert d["available"]
    for k in ks:
        assert set(k) == {"name", "available", "constant_time", "default", "description"}
    assert not next(k for k in ks if k["name"] == "ttable")["constant_time"]


def test_env_forces_kernel(env_kernel, rng):
    key, nonce, data = rng.randbytes(32), rng.randbytes(12), rng.randbytes(70_000)
    want = PycaGCM(key).encrypt(nonce, data, b"a")
    os.environ["AESFLOW_ALLOW_VARIABLE_TIME"] = "1"
    for k in aesflow.kernels():
        if not k["available"]:
            continue
        os.environ["AESFLOW_KERNEL"] = k["name"]
        assert aesflow.default_kernel() == k["name"]
        g = aesflow.AESGCM(key)
        assert f"kernel={k['name']}" in repr(g)
        assert g.encrypt(nonce, data, b"a") == want, k["name"]
        iv = rng.randbytes(16)
        assert aesflow.decrypt("cbc", key, iv, aesflow.encrypt("cbc", key, iv, data)) == data
        assert aesflow.cbc_encrypt_many([key], [iv], [data[:65536]]) == [
            aesflow.encrypt("cbc", key, iv, data[:65536], padding=False)
        ]


def test_multistream_follows_kernel(env_kernel, rng):
    """cbc_encrypt_many runs the multi-stream backend of the kernel
    AESFLOW_KERNEL names (vaes256 included), else of the default kernel."""
    os.environ.pop("AESFLOW_KERNEL", None)
    assert aesflow.multistream_backend() == {"vaes": "vaes", "vaes256": "vaes256", "aesni": "aesni"}.get(
        aesflow.default_kernel(), "portable"
    )
    expect = {"vaes": "vaes", "vaes256": "vaes256", "aesni": "aesni", "ctime": "portable"}
    available = {k["name"] for k in aesflow.kernels() if k["available"]}
    if "vaes256" not in available:
        import sys

        print("skipped: vaes256 not available on this CPU", file=sys.stderr)
    key, iv, data = rng.randbytes(32), rng.randbytes(16), rng.randbytes(3 * 65536)
    want = aesflow.encrypt("cbc", key, iv, data, padding=False)
    for name, backend in expect.items():
        if name not in available:
            continue
        os.environ["AESFLOW_KERNEL"] = name
        assert aesflow.multistream_backend() == backend, name
        assert aesflow.cbc_encrypt_many([key] * 3, [iv] * 3, [data] * 3) == [want] * 3


def test_variable_time_kernel_refused(env_kernel):
    """As the command: a variable-time kernel needs an explicit opt-in."""
    os.environ.pop("AESFLOW_ALLOW_VARIABLE_TIME", None)
    for name in ["ttable", "reference"]:
        os.environ["AESFLOW_KERNEL"] = name
        with pytest.raises(ValueError, match="not constant-time"):
            aesflow.AESGCM(bytes(16))
        with pytest.raises(ValueError, match="not constant-time"):
            aesflow.encrypt("cbc", bytes(16), bytes(16), b"x")
        with pytest.raises(ValueError, match="not constant-time"):
            aesflow.Cobblestone256Encryptor(bytes(32), b"")
    os.environ["AESFLOW_ALLOW_VARIABLE_TIME"] = "1"
    os.environ["AESFLOW_KERNEL"] = "ttable"
    assert "kernel=ttable" in repr(aesflow.AESGCM(bytes(16)))


def test_env_errors(env_kernel):
    os.environ["AESFLOW_KERNEL"] = "no-such-kernel"
    with pytest.raises(ValueError, match="no-such-kernel"):
        aesflow.default_kernel()
    with pytest.raises(ValueError):
        aesflow.AESGCM(bytes(16))
    with pytest.raises(ValueError):
        aesflow.encrypt("ctr", bytes(16), bytes(16), b"x")
    with pytest.raises(ValueError):
        aesflow.Cobblestone256Encryptor(bytes(32), b"")
    missing = [k["name"] for k in aesflow.kernels() if not k["available"]]
    if missing:
        os.environ["AESFLOW_KERNEL"] = missing[0]
        with pytest.raises(ValueError):
            aesflow.AESGCM(bytes(16))
    os.environ["AESFLOW_KERNEL"] = ""
    assert aesflow.default_kernel() in {k["name"] for k in aesflow.kernels() if k["available"]}
