"""Every query of the file-distribution service; nothing else in the package speaks SQL.

One module per concept: :mod:`.counters` (where feed and subscription ids come from),
:mod:`.feeds`, :mod:`.subscriptions`, :mod:`.queue` (spooled files, deliveries,
per-subscription and node claims), :mod:`.logs` (log records), :mod:`.nodes` (the nodes and their
heartbeats) and :mod:`.routing` (ingress and egress routes). Each function takes the caller's
session and never opens a transaction, so one transaction can span several of them.
"""
