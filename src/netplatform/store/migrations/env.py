"""Alembic environment: runs on the connection handed over by netplatform.store.migrate."""

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, render_as_batch=True, compare_type=True)
with context.begin_transaction():
    context.run_migrations()
