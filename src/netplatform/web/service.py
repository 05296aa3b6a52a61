"""What a service tells the kernel about itself."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from .errors import ErrorRenderer


def _no_headers(request_id: str) -> Iterable[tuple[str, str]]:
    return ()


@dataclass(frozen=True)
class ServiceSpec:
    """The identity and conventions of one service.

    ``render_error`` is the service's documented error body; ``error_model`` describes that body
    in the OpenAPI document; ``response_headers`` adds headers to every response (errors and 401s
    included); ``echoed_headers`` are correlation headers copied from the request to the response,
    or generated (a UUID) when the client sent none, like ``X-PLATFORM-RequestID`` always is;
    ``error_descriptions`` words each error status in the OpenAPI document (the status phrase
    otherwise) and ``error_media_types`` lists further media types the error body comes in;
    ``max_body_bytes`` lowers the bound on request bodies below the settings' one;
    ``openapi_extension`` adds to the generated OpenAPI document what routes cannot say (paths
    served by one catch-all route), before the kernel's conventions are applied to all of it.
    """

    name: str
    title: str
    version: str
    render_error: ErrorRenderer
    error_model: type[BaseModel] | None = None
    error_media_type: str = "application/json"
    error_media_types: tuple[str, ...] = ()
    error_descriptions: Mapping[int, str] = field(default_factory=dict)
    response_headers: Callable[[str], Iterable[tuple[str, str]]] = field(default=_no_headers)
    echoed_headers: tuple[str, ...] = ()
    openapi_extension: Callable[[dict[str, Any]], None] | None = None
    max_body_bytes: int | None = None
    realm: str | None = None
