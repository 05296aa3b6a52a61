"""HTTP routes of the policy design API (spec 4.4), one module per resource."""
