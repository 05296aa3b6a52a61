"""Every query of the blueprint catalog; nothing else in the package speaks SQL.

One module per concept: :mod:`.blueprint_models` (archive meta-data and its keywords),
:mod:`.model_types`, :mod:`.dictionaries`, :mod:`.config_snapshots`, :mod:`.resolution_keys`
(where a resolution result belongs), :mod:`.resolved_templates`, :mod:`.resolved_resources`
and :mod:`.stored_definitions` (model types and dictionaries as enrichment looks them up).
Rows come back as small frozen records, so the layers above never hold a live session. Each
function takes the caller's session and never opens a transaction.

Writes that replace a keyed row are "select for update, then update or insert"; on PostgreSQL
two first-time writers can still race to insert the same key, which the service objects absorb
with :func:`~netplatform.store.retry.write_with_retry` (SQLite serialises writers with BEGIN
IMMEDIATE).
"""
