"""A publish or retraction from its request to its outcome, in one service method (the publish
routes only translate HTTP): every check before the body (:meth:`.publishing.Publisher.admit`,
in a worker thread), the ingress route (:meth:`.routing.Routing.target_of`: another node's URL),
the body spooled within the room the spool has, the group commit of file, deliveries and publish
record, and the delivery engine woken for the subscriptions that take the file."""

from __future__ import annotations

from collections.abc import AsyncIterable, Iterable
from dataclasses import dataclass

import anyio

from ..clock import now_ms
from ..web.errors import BadRequest
from .delivery.engine import DeliveryEngine
from .delivery.metrics import DeliveryMetrics
from .file_headers import CONTENT_TYPE, captured_headers
from .publishing import Admission, Arrival, Publisher
from .routing import Routing
from .spool_space import declared_length


@dataclass(frozen=True)
class PublishRequest:
    """What a publish route hands over of its request (everything but the body)."""

    feed_id: str
    file_id: str
    method: str  # PUT (publish) or DELETE (retract)
    uri: str  # the request URI, for the publish record
    headers: Iterable[tuple[str, str]]
    authorization: str | None
    metadata: str | None  # X-BUS-DR-META
    content_type: str | None
    content_length: str | None  # as given, unchecked
    source_ip: str
    local_ip: str
    request_id: str


@dataclass(frozen=True)
class Published:
    """Committed: the publish id the 204 carries."""

    publish_id: str


@dataclass(frozen=True)
class Elsewhere:
    """The publisher's ingress route names other sites: the base URL of a live node there."""

    node_url: str


class PublishService:
    def __init__(
        self, publisher: Publisher, routing: Routing, delivery: DeliveryEngine, metrics: DeliveryMetrics
    ) -> None:
        self.publisher = publisher
        self.routing = routing
        self.delivery = delivery
        self.metrics = metrics

    async def take(self, request: PublishRequest, body: AsyncIterable[bytes]) -> Published | Elsewhere:
        """Admit, receive and commit a publish or retraction (the body is read only once admitted)."""
        # One thread hop for the checks of a small file and a share of its group's commit: each
        # hop is a measurable share of a small publish's cost.
        admitted = await anyio.to_thread.run_sync(self._admit, request)
        if isinstance(admitted, Elsewhere):
            return admitted
        admission, room = admitted
        arrival = await self._receive(request, body, room)
        publish_id, receivers = await self.publisher.accept(admission, arrival)
        self.delivery.wake(receivers)
        self.metrics.published.labels(request.method).inc()
        return Published(publish_id)

    def _admit(self, request: PublishRequest) -> tuple[Admission, int | None] | Elsewhere:
        """Every check before the body, in the reference's order (a worker thread): the admission
        and the room its body may take, or the node the publish belongs at."""
        admission = self.publisher.admit(
            request.feed_id, request.file_id, request.authorization, request.source_ip, request.metadata
        )
        target = self.routing.target_of(admission.ingress_route)
        if target is not None:
            return Elsewhere(target)
        if request.method != "PUT":
            return admission, None
        if not request.content_type:
            # Spec 4.2: "Content-type (required, application/octet-stream)"; the spec wins over the
            # reference, which defaulted a missing one.
            raise BadRequest("Missing Content-Type header.")
        return admission, self.publisher.room(declared_length(request.content_length))

    async def _receive(
        self, request: PublishRequest, body: AsyncIterable[bytes], room: int | None
    ) -> Arrival:
        """The body spooled (PUT, within ``room``) and the headers that travel with it."""
        received_ms = now_ms()
        has_body = request.method == "PUT"
        blob = inline = None
        length = 0
        if has_body:
            received = await self.publisher.receive(body, room)
            if isinstance(received, bytes):
                inline, length = received, len(received)
            else:
                blob, length = received.name, received.size
        headers = captured_headers(
            request.headers,
            request_id=request.request_id,
            source_ip=request.source_ip,
            local_ip=request.local_ip,
            received_ms=received_ms,
            with_content=has_body,
        )
        return Arrival(
            method=request.method,
            request_uri=request.uri,
            content_type=headers.get(CONTENT_TYPE),
            content_length=length,
            blob=blob,
            headers=headers,
            body=inline,
        )
