"""Certificates for HTTPS endpoints in tests, signed by a throwaway trustme CA."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import trustme


@dataclass(frozen=True)
class TlsFiles:
    ca_bundle: Path
    cert_chain: Path
    private_key: Path

    @property
    def uvicorn_ssl(self) -> dict[str, str]:
        return {"ssl_certfile": str(self.cert_chain), "ssl_keyfile": str(self.private_key)}


def make_tls_files(folder: Path) -> TlsFiles:
    folder.mkdir(parents=True, exist_ok=True)
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1", "localhost", "::1")
    files = TlsFiles(folder / "ca.pem", folder / "server-chain.pem", folder / "server-key.pem")
    ca.cert_pem.write_to_path(str(files.ca_bundle))
    cert.private_key_pem.write_to_path(str(files.private_key))
    with open(files.cert_chain, "wb") as chain:
        for blob in cert.cert_chain_pems:
            chain.write(blob.bytes())
    return files
