"""Every query of the file-distribution service; nothing else in the package speaks SQL.

Split by table group: :mod:`.provisioning` (feeds, subscriptions, id counters), :mod:`.queue`
(spooled files, deliveries, per-subscription claims) and :mod:`.logs` (log records). Each
function takes the caller's session, so one transaction can span several of them.
"""
