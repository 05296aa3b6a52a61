"""HTTP routes of the message router: one module per resource."""
