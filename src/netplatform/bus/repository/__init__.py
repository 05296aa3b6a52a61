"""Queries of the bus controller, one module per concept; each takes the caller's session.

Nothing here opens or commits a transaction: the service objects do, so one request's reads and
writes commit (or roll back) together.
"""
