"""Every query of the blueprint catalog; nothing else in the package speaks SQL.

One module per concept, each with its repository class: :mod:`.blueprint_models` (archive
meta-data and its keywords), :mod:`.model_types`, :mod:`.dictionaries`, :mod:`.config_snapshots`,
:mod:`.executions` (the execution audit), :mod:`.resolution_keys` (where a resolution result
belongs), :mod:`.resolved_templates`, :mod:`.resolved_resources`, :mod:`.resolution_results`
(both of a key in one transaction) and :mod:`.stored_definitions` (model types and dictionaries
as enrichment looks them up). Rows come back as small frozen records, so the layers above never
hold a live session. A repository is made on the caller's session and never opens a transaction:
the service objects run their transactions through a
:class:`~netplatform.store.unit_of_work.UnitOfWork` over it.

Writes that replace a keyed row are "select for update, then update or insert"; on PostgreSQL
two first-time writers can still race to insert the same key, which the service objects absorb
with a unit of work's retrying write (SQLite serialises writers with BEGIN IMMEDIATE).
"""
