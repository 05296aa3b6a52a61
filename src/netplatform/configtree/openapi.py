"""OpenAPI paths of the config tree (placeholder)."""

from fastapi import FastAPI


def document_config_nodes(app: FastAPI) -> None:
    return None
