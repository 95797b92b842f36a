"""AES-256-GCM from Python: aesflow beside pyca/cryptography, same run.

    target/pyvenv/bin/python python/benchmarks/aesgcm.py [--sizes 64,16K,1M,64M]
        [--calls encrypt,encrypt_into,decrypt] [--reps N] [--one-thread] [--cpu-time]

For every message size and call both libraries process the same message
with the same key and a 96-bit nonce; the measurements alternate between
the two (so both see the same machine load) and each figure is the best of
--reps runs of about 0.3 s. ``encrypt`` returns a new ``bytes``;
``encrypt_into`` writes into a preallocated ``bytearray`` (no allocation);
``decrypt`` verifies and returns a new ``bytes``. aesflow runs with its
default pool (one thread per CPU; a message of 4 MiB or more is split
across them, one thread per 2 MiB); --one-thread repeats the table in a child process with
AESFLOW_THREADS=1 (one core, like pyca). GB/s = 10^9 bytes of message per
second. Prints a Markdown table with the ratio aesflow / pyca.

With --cpu-time the one-thread table is timed by the calling thread's
on-CPU time (``time.thread_time``) instead of the wall clock: with one
thread every call runs on the caller, for both libraries, and on a machine
shared with other jobs the on-CPU time does not count the time the thread
waits for a CPU (it still counts the page faults, and the memory system
stays shared).
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import time


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def parse_size(s):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    s = s.strip().upper().removesuffix("IB").removesuffix("B")
    return int(s[:-1]) * units[s[-1]] if s[-1] in units else int(s)


def label(n):
    for unit, size in [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)]:
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} B"


CLOCK = time.perf_counter


def rate(fn, size, seconds=0.3):
    n, t0 = 0, CLOCK()
    while True:
        fn()
        n += 1
        dt = CLOCK() - t0
        if dt >= seconds:
            return n * size / dt / 1e9


def calls(lib, key, nonce, data, call):
    g = lib(key)
    if call == "encrypt":
        return lambda: g.encrypt(nonce, data, None)
    if call == "encrypt_into":
        out = bytearray(len(data) + 16)
        return lambda: g.encrypt_into(nonce, data, None, out)
    if call == "decrypt":
        ct = g.encrypt(nonce, data, None)
        return lambda: g.decrypt(nonce, ct, None)
    raise ValueError(call)


def measure(sizes, call_names, reps):
    import aesflow
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    key, nonce = bytes(range(32)), bytes(12)
    rows = []
    for size in sizes:
        data = os.urandom(size)
        assert AESGCM(key).encrypt(nonce, data, None) == aesflow.AESGCM(key).encrypt(nonce, data, None)
        for call in call_names:
            fns = {
                "aesflow": calls(aesflow.AESGCM, key, nonce, data, call),
                "pyca": calls(AESGCM, key, nonce, data, call),
            }
            best = {k: 0.0 for k in fns}
            for _ in range(reps):
                for k, fn in fns.items():
                    best[k] = max(best[k], rate(fn, size))
            rows.append({"size": size, "call": call, **best})
            del fns
    clock = "on-CPU time" if CLOCK is time.thread_time else "wall clock"
    return {"rows": rows, "threads": aesflow.threads(), "kernel": aesflow.default_kernel(), "clock": clock}


def table(res):
    print(f"aesflow: {res['threads']} thread(s), kernel {res['kernel']}, timed by the {res['clock']}")
    print()
    print("| message | call | aesflow GB/s | pyca GB/s | aesflow / pyca |")
    print("|---|---|---|---|---|")
    for r in res["rows"]:
        print(
            f"| {label(r['size'])} | `{r['call']}` | {r['aesflow']:.2f} | {r['pyca']:.2f} | "
            f"{r['aesflow'] / r['pyca']:.2f} |"
        )


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="64,16K,1M,64M")
    ap.add_argument("--calls", default="encrypt,encrypt_into,decrypt")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--one-thread", action="store_true")
    ap.add_argument("--cpu-time", action="store_true", help="time the one-thread table by on-CPU time")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    global CLOCK
    if a.json and a.cpu_time:
        CLOCK = time.thread_time
    sizes = [parse_size(s) for s in a.sizes.split(",")]
    call_names = a.calls.split(",")
    res = measure(sizes, call_names, a.reps)
    if a.json:
        print(json.dumps(res))
        return
    import cryptography

    try:
        load = os.getloadavg()[0]
    except OSError:
        load = float("nan")
    print(f"CPU: {cpu_name()} ({os.cpu_count()} logical CPUs), load average {load:.2f}")
    print(
        f"Python {platform.python_version()}, pyca/cryptography {cryptography.__version__}; "
        f"AES-256-GCM, 96-bit nonce, best of {a.reps}"
    )
    print()
    table(res)
    if a.one_thread:
        env = dict(os.environ, AESFLOW_THREADS="1")
        child = subprocess.run(
            [sys.executable, __file__, "--json", "--sizes", a.sizes, "--calls", a.calls, "--reps", str(a.reps)]
            + (["--cpu-time"] if a.cpu_time else []),
            env=env, check=True, capture_output=True, text=True,
        )
        print()
        table(json.loads(child.stdout))


if __name__ == "__main__":
    main()
