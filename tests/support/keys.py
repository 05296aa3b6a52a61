"""The platform key the tests' instances share (store/secrets.py): instances over one database must
hold the same key, to open each other's sealed secrets and accept each other's platform identities.
A test key, in the source on purpose: it seals nothing outside a test's own temporary database."""

TEST_SECRET_KEY = "6TJUPFsedwHA9lb1RYMwFPAeHbLpA7lZdsBFZRp2Q-E="
