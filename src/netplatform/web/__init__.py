"""The HTTP kernel every service shares: app assembly, auth, errors, request ids, metrics."""
