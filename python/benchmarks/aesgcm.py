"""AESGCM.encrypt from Python: aesflow beside pyca/cryptography, same run.

    target/pyvenv/bin/python python/benchmarks/aesgcm.py [--size BYTES] [--reps N]

Both libraries encrypt the same message (1 MiB by default) with the same
AES-256 key and a 96-bit nonce; the measurements alternate between them
(so both see the same machine load) and each row is the best of --reps
repetitions of about 0.3 s. aesflow is measured with its default pool (one
thread per CPU: a message of 1 MiB or more is sealed on all cores) and, in a
child process, with AESFLOW_THREADS=1 (one core, like pyca). GB/s = 10^9
bytes of plaintext per second.
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


def rate(fn, size, seconds=0.3):
    n, t0 = 0, time.perf_counter()
    while True:
        fn()
        n += 1
        dt = time.perf_counter() - t0
        if dt >= seconds:
            return n * size / dt / 1e9


def measure(size, reps, with_pyca):
    import aesflow

    key, nonce = bytes(range(32)), bytes(12)
    data = os.urandom(size)
    ours = aesflow.AESGCM(key)
    fns = {"aesflow": lambda: ours.encrypt(nonce, data, None)}
    if with_pyca:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        theirs = AESGCM(key)
        assert theirs.encrypt(nonce, data, None) == ours.encrypt(nonce, data, None)
        fns["pyca"] = lambda: theirs.encrypt(nonce, data, None)
    best = {k: 0.0 for k in fns}
    for _ in range(reps):
        for k, fn in fns.items():
            best[k] = max(best[k], rate(fn, size))
    return best, aesflow.threads(), aesflow.default_kernel()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=1 << 20)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        best, threads, kernel = measure(a.size, a.reps, True)
        print(json.dumps({"best": best, "threads": threads, "kernel": kernel}))
        return
    import cryptography

    best, threads, kernel = measure(a.size, a.reps, True)
    env = dict(os.environ, AESFLOW_THREADS="1")
    child = subprocess.run(
        [sys.executable, __file__, "--child", "--size", str(a.size), "--reps", str(a.reps)],
        env=env, check=True, capture_output=True, text=True,
    )
    one = json.loads(child.stdout)
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = float("nan")
    print(f"CPU: {cpu_name()} ({os.cpu_count()} logical CPUs), load average {load:.2f}")
    print(f"Python {platform.python_version()}, pyca/cryptography {cryptography.__version__}, "
          f"aesflow kernel {kernel}; AES-256-GCM encrypt, {a.size} B messages, best of {a.reps}")
    print()
    print("| library | threads | GB/s | x pyca (same run) |")
    print("|---|---|---|---|")
    print(f"| pyca/cryptography AESGCM | 1 | {best['pyca']:.2f} | 1.00 |")
    print(f"| aesflow AESGCM | {threads} | {best['aesflow']:.2f} | {best['aesflow'] / best['pyca']:.2f} |")
    b1 = one["best"]
    print(f"| aesflow AESGCM (AESFLOW_THREADS=1) | 1 | {b1['aesflow']:.2f} | "
          f"{b1['aesflow'] / b1['pyca']:.2f} (pyca {b1['pyca']:.2f} in that run) |")


if __name__ == "__main__":
    main()
