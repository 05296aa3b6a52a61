"""One way for a route to render its answer: ``reply(body, status, media_type=…, headers=…)``.

The body says how it is sent:

* a pydantic model, or a list of them: its JSON, dumped by alias (``drop_none`` leaves
  out the members that are null, the bus's rule);
* a dict or list: its JSON as it is (a body the service built itself);
* bytes or text: already rendered, sent as they are in ``media_type`` (stored text in the
  format a client asked for);
* a :class:`Rendered`: a body already in its negotiated format, sent in its own media type;
* ``None``: no body (a 204, or a status whose headers say it all).

JSON is written compactly, UTF-8 without escapes, as Starlette's ``JSONResponse`` writes it;
``media_type`` names a vendor type for it where the service has one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, overload

from pydantic import BaseModel
from starlette.responses import JSONResponse, Response


class Rendered(Protocol):
    """A body already in its wire format and its media type (policy's negotiated answers)."""

    @property
    def body(self) -> bytes: ...

    @property
    def media_type(self) -> str: ...


JsonBody = BaseModel | dict[str, Any] | list[Any]
"""What :class:`Reply` writes as JSON."""


@dataclass(frozen=True, slots=True)
class Reply:
    """Renders answers by the module's rules; ``drop_none`` is a service's rule for null members."""

    drop_none: bool = False

    @overload
    def __call__(
        self,
        body: bytes | str,
        status: int = 200,
        *,
        media_type: str,
        headers: Mapping[str, str] | None = None,
    ) -> Response: ...

    @overload
    def __call__(
        self,
        body: JsonBody | Rendered | None = None,
        status: int = 200,
        *,
        media_type: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Response: ...

    def __call__(
        self,
        body: JsonBody | Rendered | bytes | str | None = None,
        status: int = 200,
        *,
        media_type: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Response:
        if isinstance(body, BaseModel):
            return JSONResponse(self._dump(body), status, headers, media_type)
        if isinstance(body, list):
            return JSONResponse(self._list(body), status, headers, media_type)
        if isinstance(body, dict):
            return JSONResponse(body, status, headers, media_type)
        if body is None or isinstance(body, (bytes, str)):
            return Response(body, status, headers, media_type)
        return Response(body.body, status, headers, body.media_type)

    def _dump(self, model: BaseModel) -> Any:
        return model.model_dump(mode="json", by_alias=True, exclude_none=self.drop_none)

    def _list(self, body: list[Any]) -> list[Any]:
        """A list of models is dumped model by model; any other list is JSON already."""
        if body and isinstance(body[0], BaseModel):
            return [self._dump(item) for item in body]
        return body


reply = Reply()
"""For answers that keep their null members: every route but the bus's (bus/answers.py binds
``Reply(drop_none=True)``, as the config tree's errors.py does for its error body)."""
