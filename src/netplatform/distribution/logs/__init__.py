"""Delivery logs: the records, the book that writes them, the query of the log routes and the retention."""
