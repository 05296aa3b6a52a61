"""Feeds: the fields a client may set, their rules (spec 2.2 and 8), and the stored feed."""

from __future__ import annotations

from dataclasses import dataclass

from ..web.errors import BadRequest
from .addresses import is_valid_address
from .lenient_json import Document, limit_length

DEFAULT_AUTHZ_INSTANCE = "legacy"


def is_legacy_instance(authz_instance: str) -> bool:
    """The reference's legacy instances: empty or ``legacy`` (reference authz 4)."""
    return authz_instance in ("", DEFAULT_AUTHZ_INSTANCE)


@dataclass(frozen=True)
class Endpoint:
    """A publisher identity of a stored feed (``endpoint_ids`` entry): its id and the argon2id
    hash of its password. The password itself is never stored (:mod:`.endpoint_secrets`)."""

    id: str
    password_hash: str


@dataclass(frozen=True)
class EndpointIn:
    """An ``endpoint_ids`` entry of a request: the password in clear, or None when an update
    leaves it out (the stored hash of the same id stays)."""

    id: str
    password: str | None


@dataclass(frozen=True)
class FeedAuthorization:
    """The stored ``authorization`` object."""

    classification: str
    endpoint_ids: tuple[Endpoint, ...]
    endpoint_addrs: tuple[str, ...]


@dataclass(frozen=True)
class RequestedAuthorization:
    """The ``authorization`` object of a create or update body, passwords in clear."""

    classification: str
    endpoint_ids: tuple[EndpointIn, ...]
    endpoint_addrs: tuple[str, ...]


@dataclass(frozen=True)
class FeedFields:
    """What a create or update body says; ``version`` is None when an update leaves it out."""

    name: str
    version: str | None
    description: str
    business_description: str
    authorization: RequestedAuthorization
    suspend: bool
    groupid: int
    authz_instance: str


@dataclass(frozen=True)
class Feed:
    id: int
    name: str
    version: str
    description: str
    business_description: str
    authorization: FeedAuthorization
    suspend: bool
    groupid: int
    authz_instance: str
    publisher: str
    # Created with X-EXCLUDE-AUTHZ: false while the framework was on: governed by the
    # platform.distribution.feed permissions of its authz_instance (see .access).
    authz_framework: bool = False

    def ensure_unchanged_identity(self, fields: FeedFields) -> None:
        """Name and version are immutable (the version only when the update gives one)."""
        if fields.name != self.name:
            raise BadRequest("The name of the feed may not be updated.")
        if fields.version is not None and fields.version != self.version:
            raise BadRequest("The version of the feed may not be updated.")


def parse_feed(document: Document, *, creating: bool) -> FeedFields:
    """The feed fields of a create (version required) or update body, validated."""
    name = document.required_string("name")
    if not name:
        raise BadRequest("name field is empty")
    limit_length(name, 20, "name field is too long")
    version: str | None = None
    if creating or document.has("version"):
        version = limit_length(document.required_string("version"), 20, "version field is too long")
    return FeedFields(
        name=name,
        version=version,
        description=limit_length(
            document.optional_string("description", ""), 256, "technical description field is too long"
        ),
        business_description=limit_length(
            document.optional_string("business_description", ""),
            256,
            "business description field is too long",
        ),
        authorization=_parse_authorization(document.required_object("authorization"), creating=creating),
        suspend=document.optional_bool("suspend"),
        groupid=document.optional_int("groupid", 0),
        authz_instance=limit_length(
            document.optional_string("authz_instance", DEFAULT_AUTHZ_INSTANCE),
            256,
            "authz_instance field is too long",
        ),
    )


def _parse_authorization(document: Document, *, creating: bool) -> RequestedAuthorization:
    classification = limit_length(
        document.required_string("classification"), 32, "classification field is too long"
    )
    endpoint_ids = tuple(
        _parse_endpoint(entry, index, creating=creating)
        for index, entry in enumerate(document.required_array("endpoint_ids"))
    )
    if not endpoint_ids:
        raise BadRequest("need to specify at least one endpoint_id")
    endpoint_addrs = []
    for entry in document.optional_array("endpoint_addrs"):
        if not isinstance(entry, str) or not is_valid_address(entry):
            raise BadRequest(f"bad IP addr or subnet mask: {entry}")
        endpoint_addrs.append(entry)
    return RequestedAuthorization(classification, endpoint_ids, tuple(endpoint_addrs))


def _parse_endpoint(entry: object, index: int, *, creating: bool) -> EndpointIn:
    """An endpoint identity; an update may leave its password out to keep the stored one (the
    answers never show passwords, so a client can send back what it read)."""
    if not isinstance(entry, dict):
        raise BadRequest(f"Invalid JSON: JSONArray[{index}] is not a JSONObject.")
    document = Document(entry)
    endpoint_id = document.required_string("id")
    limit_length(endpoint_id, 20, f"id field is too long ({endpoint_id})")
    if not creating and not document.has("password"):
        return EndpointIn(endpoint_id, None)
    password = limit_length(document.required_string("password"), 32, "password field is too long")
    return EndpointIn(endpoint_id, password)
