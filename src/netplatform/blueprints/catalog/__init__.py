"""What a CBA is and the rules it is held to: the archive and its TOSCA-Metadata, the TOSCA
model, enrichment from the stored types, validation, the steps of its workflows, and what its
expressions may expand to. No HTTP, no transaction: the catalog's service objects
(blueprint_models.py and its neighbours) and the execution (execution/) use it."""
