"""Provisioning of authz roles and permissions: client and provisioning."""
