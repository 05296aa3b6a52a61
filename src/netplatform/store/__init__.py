"""Persistence every service shares: the database (SQLite or PostgreSQL) and the blob store."""
