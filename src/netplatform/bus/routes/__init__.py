"""The bus controller's routes, one module per area of spec 4.3; each exports ``router``."""
