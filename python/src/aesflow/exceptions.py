"""aesflow's exceptions.

When pyca/cryptography is importable, :class:`InvalidTag` and
:class:`AlreadyFinalized` subclass ``cryptography.exceptions.InvalidTag``
and ``cryptography.exceptions.AlreadyFinalized``: code written for pyca
that catches those keeps catching aesflow's failures after its import
changes. Without cryptography they subclass :class:`Exception`, as pyca's
do.
"""

from __future__ import annotations

try:
    from cryptography.exceptions import AlreadyFinalized as _AlreadyFinalizedBase
    from cryptography.exceptions import InvalidTag as _InvalidTagBase
except ImportError:  # pragma: no cover - depends on the environment
    _InvalidTagBase = Exception  # type: ignore[misc,assignment]
    _AlreadyFinalizedBase = Exception  # type: ignore[misc,assignment]

__all__ = ["InvalidTag", "AlreadyFinalized"]


class InvalidTag(_InvalidTagBase):
    """Authentication failed: wrong key, nonce or context, or the data is
    corrupted, truncated or tampered with. No plaintext was released."""


class AlreadyFinalized(_AlreadyFinalizedBase):
    """The encryptor or decryptor was already finalized (or failed)."""
