"""Where the MQTT broker is and how to log in: ``mqtt://HOST[:PORT]`` or ``mqtts://HOST[:PORT]`` (TLS).

Credentials never travel on the command line (other users of the machine can read it): the user
name comes from ``--mqtt-username`` or ``COMPANION_MQTT_USERNAME``, the password from
``COMPANION_MQTT_PASSWORD`` or ``--mqtt-password-file``. Nothing here prints the password.
"""

from __future__ import annotations

import argparse
import os
import ssl
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

#: Topic root: ``tc/CLUB/TABLE/events`` (QoS 1), ``tc/CLUB/TABLE/state`` (retained), ``tc/CLUB/TABLE/resend``.
ROOT = "tc"
DEFAULT_CLUB = "default"
#: MQTT v5 user property naming the game (the table's game id) an event belongs to.
GAME_PROPERTY = "game_id"


class BrokerError(ValueError):
    """A broker address, name or credential that cannot be used; the message says why."""


@dataclass(frozen=True)
class BrokerConfig:
    """How to reach the broker. ``password`` is left out of ``repr`` so it never lands in a log."""

    host: str
    port: int
    tls: bool = False
    tls_ca: Path | None = None
    username: str | None = None
    password: str | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        """The address without credentials (safe to print)."""
        shown = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'mqtts' if self.tls else 'mqtt'}://{shown}:{self.port}"


def parse_broker_url(text: str, what: str = "--broker") -> tuple[str, int, bool]:
    """``mqtt://HOST[:PORT]`` → ``(host, port, tls)``; ``BrokerError`` names the problem."""
    parts = urlsplit(text.strip())
    if parts.scheme not in ("mqtt", "mqtts"):
        raise BrokerError(f"{what} {text!r}: expected mqtt://HOST:1883 or mqtts://HOST:8883")
    if parts.username is not None or parts.password is not None:
        raise BrokerError(f"{what}: leave the user name and password out of the address (a command line is "
                          "visible to other users); use COMPANION_MQTT_USERNAME and COMPANION_MQTT_PASSWORD")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise BrokerError(f"{what} {text!r}: expected only a host and a port, like mqtt://HOST:1883")
    try:
        port = parts.port
    except ValueError:
        raise BrokerError(f"{what} {text!r}: the port must be a number 1-65535") from None
    if not parts.hostname:
        raise BrokerError(f"{what} {text!r}: names no host")
    tls = parts.scheme == "mqtts"
    return parts.hostname, port if port else (8883 if tls else 1883), tls


def check_name(text: str, what: str) -> str:
    """A club or table name usable as one MQTT topic level."""
    if not text or any(c in text for c in "/+#\0") or text != text.strip() or len(text) > 64 or text[0] == "$":
        raise BrokerError(f"{what} {text!r}: use 1-64 characters without '/', '+', '#' or surrounding spaces")
    return text


def add_broker_options(p: argparse.ArgumentParser) -> None:
    """The login options shared by ``serve --hub`` and ``hub``."""
    p.add_argument("--mqtt-username", default=None,
                   help="broker user name (default: $COMPANION_MQTT_USERNAME)")
    p.add_argument("--mqtt-password-file", default=None,
                   help="file holding the broker password (default: $COMPANION_MQTT_PASSWORD)")
    p.add_argument("--tls-ca", default=None,
                   help="CA certificate file to check the broker's TLS certificate (turns TLS on)")


def broker_from_args(url: str, args: argparse.Namespace, what: str) -> BrokerConfig:
    """The broker named by ``url`` with the login from the options or the environment."""
    host, port, tls = parse_broker_url(url, what)
    username = args.mqtt_username or os.environ.get("COMPANION_MQTT_USERNAME") or None
    password = os.environ.get("COMPANION_MQTT_PASSWORD") or None
    if args.mqtt_password_file:
        try:
            password = Path(args.mqtt_password_file).read_text(encoding="utf-8").strip("\r\n")
        except (OSError, UnicodeDecodeError) as exc:
            raise BrokerError(f"--mqtt-password-file: cannot read it ({type(exc).__name__})") from None
    if password is not None and username is None:
        raise BrokerError("a broker password was given without a user name "
                          "(--mqtt-username or COMPANION_MQTT_USERNAME)")
    ca = None
    if args.tls_ca:
        ca = Path(args.tls_ca)
        if not ca.is_file():
            raise BrokerError(f"--tls-ca {args.tls_ca}: no such file")
        tls = True
    return BrokerConfig(host=host, port=port, tls=tls, tls_ca=ca, username=username, password=password)


def make_client(config: BrokerConfig, client_id: str) -> Any:
    """A paho MQTT v5 client set up to log in to the broker (not connected yet)."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion

    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=MQTTProtocolVersion.MQTTv5)
    if config.username is not None:
        client.username_pw_set(config.username, config.password)
    if config.tls:
        client.tls_set(ca_certs=str(config.tls_ca) if config.tls_ca else None, cert_reqs=ssl.CERT_REQUIRED)
    client.reconnect_delay_set(min_delay=1, max_delay=2)
    return client


def topic(club: str, table: str, kind: str) -> str:
    """``tc/CLUB/TABLE/KIND``."""
    return f"{ROOT}/{club}/{table}/{kind}"


@dataclass(frozen=True)
class HubLink:
    """A table's link to the club's broker (``companion serve --hub URL --table NAME --club CLUB``)."""

    broker: BrokerConfig
    table: str
    club: str = DEFAULT_CLUB
