"""TLS for the platform's own outbound calls (the bus controller's, the mirror agents'): peers'
certificates are always verified, against the system's trusted CAs plus a bundle of the
deployment's own (its private CA), never switched off."""

from __future__ import annotations

import ssl
from pathlib import Path


def verifying_context(ca_bundle: Path | None = None) -> ssl.SSLContext:
    """A client context that verifies the peer's certificate and host name: the system's trusted
    CAs (``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` where set), and ``ca_bundle`` when given."""
    context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH)
    if ca_bundle is not None:
        context.load_verify_locations(cafile=str(ca_bundle))
    return context
