"""The authz service's routes, one module per resource: credentials (``/authn/*``), roles and
their grants (``/authz/role*``), memberships (``/authz/userRole*``) and the listings."""
