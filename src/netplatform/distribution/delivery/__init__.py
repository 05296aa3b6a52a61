"""Delivery: the engine that claims and sends files, its sender and body, outcomes, doorbell, metrics."""
