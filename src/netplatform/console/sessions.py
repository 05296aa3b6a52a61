"""Sessions in an encrypted cookie, and CSRF tokens bound to them.

The signed-in user's credentials must reach the APIs on every page but never the browser in
readable form, and the console keeps no state of its own (several instances behind a load
balancer share sessions when they share ``console_secret``). So the session is a Fernet token
(AES-128-CBC + HMAC-SHA256, from ``cryptography``) holding user, password, a CSRF token and a
session id; the browser only ever sees ciphertext. Fernet's timestamp bounds a session's life.
Sign-out clears the cookie and records the session id in the database until it would have
expired anyway (signouts.py), so a copied cookie stops working on every instance, restarts too.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass

from cryptography.fernet import Fernet, InvalidToken

SESSION_COOKIE = "np_console"
SIGNIN_COOKIE = "np_console_signin"
SESSION_TTL_S = 8 * 3600


@dataclass(frozen=True)
class Session:
    user: str
    password: str
    csrf: str
    sid: str

    @property
    def credentials(self) -> tuple[str, str]:
        return (self.user, self.password)


class SessionCodec:
    """Seals sessions into cookie values and opens them again."""

    def __init__(self, secret: str | None) -> None:
        raw = secret.encode() if secret else secrets.token_bytes(32)
        key = hashlib.sha256(b"netplatform-console-session\x00" + raw).digest()
        self._fernet = Fernet(base64.urlsafe_b64encode(key))

    def new(self, user: str, password: str) -> tuple[Session, str]:
        session = Session(user, password, secrets.token_urlsafe(32), secrets.token_urlsafe(16))
        payload = {"u": session.user, "p": session.password, "c": session.csrf, "s": session.sid}
        return session, self._fernet.encrypt(json.dumps(payload).encode()).decode("ascii")

    def open(self, cookie: str | None) -> Session | None:
        """The session a cookie holds; None when absent, tampered with or expired (whether it
        was signed out is the database's to say: signouts.py)."""
        if not cookie:
            return None
        try:
            payload = json.loads(self._fernet.decrypt(cookie.encode("ascii"), ttl=SESSION_TTL_S))
            session = Session(payload["u"], payload["p"], payload["c"], payload["s"])
        except (InvalidToken, ValueError, KeyError, TypeError, UnicodeEncodeError):
            return None
        return session


def tokens_match(expected: str | None, given: str | None) -> bool:
    """Constant-time comparison of a CSRF token; a missing side never matches."""
    if not expected or not given:
        return False
    return hmac.compare_digest(expected.encode(), given.encode())
