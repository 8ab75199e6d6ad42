"""A private certificate authority for TLS tests, made by the ``openssl``
binary: a CA, a server certificate it issued for ``localhost`` only, a
second CA that issued nothing, and a file that is no PEM at all."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Pki:
    ca: Path
    other_ca: Path
    cert: Path
    key: Path
    not_pem: Path


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def _make_ca(d: Path, name: str) -> None:
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key",
             "-out", f"{name}.pem", "-days", "2", "-subj", f"/CN=Turnited {name}",
             "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=d)


def make_pki(d: Path) -> Pki:
    """The certificates, written into the directory ``d``."""
    _make_ca(d, "ca")
    _make_ca(d, "other")
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out",
             "server.csr", "-subj", "/CN=localhost", cwd=d)
    (d / "ext.cnf").write_text("subjectAltName=DNS:localhost\n"
                               "extendedKeyUsage=serverAuth\n", encoding="ascii")
    _openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
             "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "ext.cnf",
             cwd=d)
    (d / "not.pem").write_text("this is no certificate\n", encoding="ascii")
    return Pki(d / "ca.pem", d / "other.pem", d / "server.pem", d / "server.key",
               d / "not.pem")
