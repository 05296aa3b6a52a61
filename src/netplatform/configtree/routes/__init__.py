"""HTTP routes of the config tree."""
