"""What the bus controller provisions over HTTP: distribution, the message routers and authz."""
