"""Who may do what, for every service: identities, roles, permissions and the decisions the
kernel takes on every request (docs/security.md).

The kernel reads these tables on every service (through :class:`.directory.AccessDirectory`,
cached per generation), and the authz service (:mod:`netplatform.authz`) is their REST API, so
they live here rather than in the service's package.
"""
