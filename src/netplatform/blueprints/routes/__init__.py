"""HTTP routes of the blueprint catalog, one module per resource; shared helpers in ``_common``."""
