"""Connecting to a Ray cluster, with one clear error before any row is judged.

`connect("auto")` joins the cluster `ray start` left on this machine (or `$RAY_ADDRESS`),
`connect("local")` starts a private one in this process, and `connect("host:port")` joins the
head at that address. Ray is imported here only, so the single-process path never needs it.

Example:
    >>> connect("127.0.0.1:6379")  # doctest: +SKIP
"""

from __future__ import annotations

import logging
import os
import socket
from pathlib import Path
from types import ModuleType
from typing import Any

from ragjudge.exceptions import ConfigurationError

__all__ = ["connect", "import_ray", "resolve_address"]

logger = logging.getLogger(__name__)

INSTALL_HINT = "judging on Ray needs the ray extra: pip install 'ragjudge[ray]'"
#: Where `ray start --head` records the address of the cluster it started.
CURRENT_CLUSTER = Path("/tmp/ray/ray_current_cluster")
PROBE_SECONDS = 5.0


def import_ray() -> ModuleType:
    """Ray, or a `ConfigurationError` that says how to install it."""
    try:
        import ray
    except ImportError:
        raise ConfigurationError(INSTALL_HINT) from None
    return ray


def resolve_address(address: str) -> str | None:
    """The `host:port` (or `ray://host:port`) to join; None for `local` (start one here).

    Raises:
        ConfigurationError: For `auto` when no cluster was started on this machine, or a
            malformed address.
    """
    if address == "local":
        return None
    if address == "auto":
        found = os.environ.get("RAY_ADDRESS", "").strip()
        if not found and CURRENT_CLUSTER.is_file():
            found = CURRENT_CLUSTER.read_text(encoding="utf-8").strip()
        if not found or found == "auto":
            raise ConfigurationError(
                "`address` auto: no running Ray cluster found (start one with `ray start --head`, "
                "set RAY_ADDRESS, or pass `address` local)"
            )
        address = found
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise ConfigurationError(
            f"`address` {address}: not an address; use host:port, ray://host:port, auto or local"
        )
    return address


def _probe(address: str) -> None:
    """Fail fast where nothing listens (Ray itself retries for minutes)."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=PROBE_SECONDS):
            pass
    except OSError as exc:
        raise ConfigurationError(
            f"`address` {address}: no Ray cluster reachable there ({exc.strerror or exc})"
        ) from None


def connect(address: str, *, num_cpus: int | None = None) -> dict[str, Any]:
    """Join (or start) the cluster; idempotent within a process.

    Args:
        address: `auto`, `local`, `host:port` or `ray://host:port`.
        num_cpus: CPUs of a `local` cluster (default: all of this machine's).

    Returns:
        The cluster's resources (`{"CPU": 4.0, ...}`).

    Raises:
        ConfigurationError: If Ray is not installed or the cluster cannot be reached.
    """
    ray = import_ray()
    target = resolve_address(address)
    if ray.is_initialized():
        return dict(ray.cluster_resources())
    if target is not None:
        _probe(target)
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    options: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": False}
    if target is None:
        options.update(num_cpus=num_cpus, include_dashboard=False)
    try:
        ray.init(address=target, **options)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ConfigurationError(
            f"`address` {address}: cannot join the cluster ({first})"
        ) from None
    resources = dict(ray.cluster_resources())
    logger.info("joined Ray cluster %s: %s", target or "local", resources)
    return resources
