"""netplatform: the five HTTP interfaces of a network-automation platform."""

__version__ = "0.1.0"
