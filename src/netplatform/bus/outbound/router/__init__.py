"""Provisioning of the message routers: client, documents, provisioning and the verifying reconcile."""
