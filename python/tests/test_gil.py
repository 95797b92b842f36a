"""The GIL is released while aesflow works.

Method (robust on a loaded machine, no speed comparison): a worker thread
makes one long aesflow call while the main thread runs Python code in a
loop, time-stamping every iteration. If the call held the GIL, the main
thread could not run at all between the worker's entry into the call and
its return, so the largest gap between the main thread's stamps inside the
call would be the call's whole duration. With the GIL released the main
thread keeps running; we require the largest gap to be under half of the
call's duration (the call lasts at least 0.25 s; a scheduler stall on a
busy machine is retried). A negative control (a call known to hold the
GIL) shows that the method detects a held GIL.
"""

import os
import re
import sys
import threading
import time

import pytest

import aesflow

KEY = bytes(range(32))
IV = bytes(16)


def largest_gap(call, main_work):
    """Run `call()` in a thread; return (largest main-thread gap inside the
    call, duration of the call)."""
    box, stamps = {}, []
    done = threading.Event()

    def worker():
        box["t0"] = time.perf_counter()
        call()
        box["t1"] = time.perf_counter()
        done.set()

    old = sys.getswitchinterval()
    sys.setswitchinterval(0.0005)
    try:
        t = threading.Thread(target=worker)
        t.start()
        while not done.is_set():
            main_work()
            stamps.append(time.perf_counter())
        t.join()
    finally:
        sys.setswitchinterval(old)
    t0, t1 = box["t0"], box["t1"]
    pts = [t0] + [s for s in stamps if t0 < s < t1] + [t1]
    return max(b - a for a, b in zip(pts, pts[1:])), t1 - t0


def sized_call(make, min_seconds=0.25):
    """A call built by make(n) lasting at least min_seconds, or the one of
    1 GiB (AES-GCM refuses 2 GiB, as pyca does; a fast machine seals 1 GiB
    in less than min_seconds, still long enough to see a held GIL)."""
    n = 1 << 20
    while True:
        call = make(n)
        t = time.perf_counter()
        call()
        if time.perf_counter() - t >= min_seconds or n >= 1 << 30:
            return call
        n *= 2


def check_released(make, main_work=lambda: None):
    call = sized_call(make)
    results = []
    for _ in range(3):
        gap, dur = largest_gap(call, main_work)
        results.append((round(gap, 4), round(dur, 4)))
        if gap < 0.5 * dur:
            return
    pytest.fail(f"the main thread was blocked for most of the call: (gap, duration) = {results}")


def _gcm(n):
    a, data = aesflow.AESGCM(KEY), bytes(n)
    return lambda: a.encrypt(IV[:12], data, None)


def _gcm_open(n):
    a = aesflow.AESGCM(KEY)
    ct = a.encrypt(IV[:12], bytes(n), b"x")
    return lambda: a.decrypt(IV[:12], ct, b"x")


def _raw(mode):
    def make(n):
        data = bytearray(n)
        return lambda: aesflow.encrypt(mode, KEY, IV, data)
    return make


def _cob(n):
    data = memoryview(bytes(n))
    def call():
        e = aesflow.Cobblestone256Encryptor(KEY, b"")
        e.update(data)
        e.finalize()
    return call


def _many(n):
    bufs = [bytes(n // 64 // 16 * 16)] * 64
    return lambda: aesflow.cbc_encrypt_many([KEY] * 64, [IV] * 64, bufs)


CALLS = {
    "AESGCM.encrypt": _gcm,
    "AESGCM.decrypt": _gcm_open,
    "encrypt(cbc)": _raw("cbc"),
    "encrypt(ctr)": _raw("ctr"),
    "Cobblestone256Encryptor.update": _cob,
    "cbc_encrypt_many": _many,
}


@pytest.mark.parametrize("name", list(CALLS))
def test_gil_released(name):
    check_released(CALLS[name])


def test_two_threads_encrypting_at_once():
    """The main thread encrypts too (small AES-GCM messages) while the worker
    runs one long AES-GCM call: both threads make progress together."""
    a, small = aesflow.AESGCM(KEY), bytes(4096)
    check_released(_gcm, main_work=lambda: a.encrypt(IV[:12], small, None))


def test_file_call_released(tmp_path):
    src = tmp_path / "src"
    with open(src, "wb") as f:
        f.truncate(256 << 20)

    def make(n):
        def call():
            dst = tmp_path / "dst.cob"
            aesflow.encrypt_file(src, dst, KEY, force=True)
        return call

    check_released(make)


def test_method_detects_a_held_gil():
    """Negative control: `re` matching runs in C without releasing the GIL
    (here a pattern with exponential backtracking, grown until one match
    takes 0.25 s); the method must see the main thread blocked."""
    k, text = 14, ""
    while k < 40:
        text = "a" * k
        t = time.perf_counter()
        re.match(r"(a+)+b", text)
        if time.perf_counter() - t >= 0.25:
            break
        k += 1
    else:
        pytest.skip("no slow enough GIL-holding call found")
    gap, dur = largest_gap(lambda: re.match(r"(a+)+b", text), lambda: None)
    assert gap >= 0.5 * dur, (gap, dur)
