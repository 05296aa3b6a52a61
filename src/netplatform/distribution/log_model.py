"""Log records (spec 2.2, reference section 7): what is kept for each publish, delivery attempt and expiry."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from enum import StrEnum
from typing import Any

from ..clock import wire_time_ms


class RecordType(StrEnum):
    PUBLISH = "pub"
    DELIVERY = "del"
    EXPIRY = "exp"
    FORWARD = "fwd"  # a hop to the node bound to the subscription (spec 1.3); not in the reference


class ExpiryReason(StrEnum):
    NOT_RETRYABLE = "notRetryable"
    RETRIES_EXHAUSTED = "retriesExhausted"
    DISK_FULL = "diskFull"
    OTHER = "other"
    # A decompress subscription's file inflates past the limits (issue 17); not in the reference.
    DECOMPRESSION_LIMIT = "decompressionLimit"


NO_STATUS = -1
"""statusCode of a delivery attempt that got no HTTP status (connection, TLS or timeout failure)."""


@dataclass(frozen=True)
class LogRecord:
    """One record; the fields that do not apply to its type stay None and are not sent."""

    type: RecordType
    date_ms: int
    feed_id: int
    publish_id: str
    request_uri: str
    method: str
    sub_id: int | None = None
    content_type: str | None = None
    content_length: int | None = None
    source_ip: str | None = None
    endpoint_id: str | None = None
    file_name: str | None = None
    status_code: int | None = None
    delivery_id: str | None = None
    expiry_reason: ExpiryReason | None = None
    attempts: int | None = None
    node: str | None = None  # the node that recorded it (the one that published, forwarded, delivered)

    def wire(self) -> dict[str, Any]:
        """The record as a log-list element (wire names, null members omitted)."""
        values: dict[str, Any] = {
            "type": str(self.type),
            "date": wire_time_ms(self.date_ms),
            "publishId": self.publish_id,
            "requestURI": self.request_uri,
            "method": self.method,
            "contentType": self.content_type,
            "contentLength": self.content_length,
            "sourceIP": self.source_ip,
            "endpointId": self.endpoint_id,
            "fileName": self.file_name,
            "statusCode": self.status_code,
            "deliveryId": self.delivery_id,
            "expiryReason": str(self.expiry_reason) if self.expiry_reason else None,
            "attempts": self.attempts,
            "node": self.node,
        }
        return {key: value for key, value in values.items() if value is not None}

    def shipped(self) -> dict[str, Any]:
        """The record as an edge ships it to central (field names, every field)."""
        values = asdict(self).items()
        return {key: str(value) if isinstance(value, StrEnum) else value for key, value in values}

    @classmethod
    def from_shipped(cls, data: Any) -> LogRecord:
        """A record an edge shipped; ValueError when it is not one."""
        if not isinstance(data, dict):
            raise ValueError("a log record is a JSON object")
        try:
            values: dict[str, Any] = {field.name: data.get(field.name) for field in fields(cls)}
            values["type"] = RecordType(values["type"])
            reason = values["expiry_reason"]
            values["expiry_reason"] = ExpiryReason(reason) if reason is not None else None
            for required in ("date_ms", "feed_id"):
                values[required] = int(values[required])
            for text in ("publish_id", "request_uri", "method"):
                values[text] = str(values[text])
            return cls(**values)
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"not a log record: {error}") from None
