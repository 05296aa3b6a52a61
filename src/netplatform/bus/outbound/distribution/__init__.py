"""Provisioning of file distribution: its client, documents, nodes, sites and routing."""
