"""The routes of the service, one module per area (each exposes ``router``)."""
