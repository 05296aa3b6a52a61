"""Queries of the message router, given a session; one module per concept, none opens a transaction."""
