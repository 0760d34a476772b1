"""What the command line's words mean: each function turns one option's text into its value,
or says in one line what it expected (a usage error, exit 2)."""

from __future__ import annotations

import argparse
import math

from .safety.errors import KernelbookError


def shard(text: str) -> tuple[int, int]:
    try:
        k, n = (int(x) for x in text.split("/"))
        if n < 1 or not 1 <= k <= n:
            raise ValueError
    except ValueError:
        raise KernelbookError(f"--shard {text!r}: expected K/N with 1 <= K <= N, e.g. 2/4") from None
    return k, n


def dev_addr(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    try:
        number = int(port)
        if not host or not 0 < number < 65536:
            raise ValueError
    except ValueError:
        raise KernelbookError(f"--dev-addr {text!r}: expected HOST:PORT, e.g. 127.0.0.1:8000") from None
    return host.strip("[]"), number


def check_port_free(host: str, port: int) -> None:
    """Bind the address as the server will (SO_REUSEADDR, like MkDocs' server): taken is one line, exit 2."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise KernelbookError(f"--dev-addr {host}:{port}: cannot resolve {host!r} ({exc.strerror})") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            raise KernelbookError(f"port {port} on {host} is not free ({exc.strerror}): another server holds it? "
                                  "Stop it, or pick another with --dev-addr HOST:PORT") from None


def positive_int(text: str) -> int:
    """``--jobs``: a whole number of at least 1 (argparse turns the error into a usage line, exit 2)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected at least 1")
    return value


def positive_seconds(text: str) -> float:
    """``--timeout``: a finite number of seconds above 0 (not -1, 0, nan or inf)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a number of seconds above 0")
    return value
