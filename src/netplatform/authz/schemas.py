"""The authz service's wire format: the reference framework's shapes (``{"role": [...]}``,
``{"perm": [{"type", "instance", "action"}]}``, ``{"user": [...]}``), JSON both ways.

Passwords appear only in requests, never in a response model.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StrictInt

from ..access.permissions import Permission
from ..web.text import StorableStr

IDENTITY_PATTERN = r"^[A-Za-z0-9._@-]{1,255}$"
ROLE_PATTERN = r"^[A-Za-z0-9._-]{1,255}$"

IdentityId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=255,
        pattern=IDENTITY_PATTERN,
        description="1-255 characters: letters, digits, '.', '_', '@', '-'",
        examples=["svc-a@example.org"],
    ),
]
RoleName = Annotated[
    str,
    Field(
        min_length=1,
        max_length=255,
        pattern=ROLE_PATTERN,
        description="1-255 characters: letters, digits, '.', '_', '-'",
        examples=["org.alarms.publisher"],
    ),
]
# A name that must already exist: any text (a configured identity may be spelled otherwise), at
# most the 255 characters a stored name has.
ExistingName = Annotated[StorableStr, Field(min_length=1, max_length=255)]
Password = Annotated[StorableStr, Field(min_length=1, max_length=1024, json_schema_extra={"writeOnly": True})]
# Checked by Permission.of (1-255 characters, no '|'), whose message names the part.
PermissionPart = StorableStr


class _Request(BaseModel):
    model_config = ConfigDict(extra="ignore")


class NewCredential(_Request):
    id: IdentityId
    password: Password


class ChangedCredential(_Request):
    id: ExistingName | None = Field(None, description="when given, the identity of the path")
    password: Password


class Validation(_Request):
    id: ExistingName
    password: Annotated[StorableStr, Field(min_length=1, max_length=1024)]


class NewRole(_Request):
    name: RoleName
    description: Annotated[StorableStr, Field(max_length=1024)] = ""


class Perm(BaseModel):
    type: PermissionPart
    instance: PermissionPart
    action: PermissionPart

    @classmethod
    def of(cls, permission: Permission) -> Perm:
        return cls(type=permission.type, instance=permission.instance, action=permission.action)


class Grant(_Request):
    role: ExistingName
    perm: Perm


class NewMembership(_Request):
    user: ExistingName
    role: ExistingName
    expires: StrictInt | StorableStr | None = Field(
        None,
        description="when the membership ends: an RFC 3339 date-time with its offset, or epoch "
        "milliseconds; absent or null: never",
        examples=["2030-01-01T00:00:00Z", 1893456000000],
    )


# --- answers ----------------------------------------------------------------------------


class IdentityAnswer(BaseModel):
    id: str


class IdentityEntry(BaseModel):
    id: str
    configured: bool = Field(description="from NETPLATFORM_USERS (read-only here) rather than stored")


class IdentityList(BaseModel):
    user: list[IdentityEntry]


class Role(BaseModel):
    name: str
    description: str
    perms: list[Perm]
    builtin: bool = Field(description="a built-in role: exists always, its permissions are code")


class RoleList(BaseModel):
    role: list[Role]


class GrantAnswer(BaseModel):
    role: str
    perm: Perm


class PermList(BaseModel):
    perm: list[Perm]


class Member(BaseModel):
    id: str
    expires: str | None = Field(description="RFC 3339 (UTC), or null: never (and for configured members)")
    configured: bool = Field(
        default=False, description="held through NETPLATFORM_USERS (removed there, not through this API)"
    )


class MemberList(BaseModel):
    user: list[Member]


class MembershipAnswer(BaseModel):
    user: str
    role: str
    expires: str | None


class RoleNameAnswer(BaseModel):
    name: str


class MembershipKey(BaseModel):
    user: str
    role: str


class DirectoryIdentity(BaseModel):
    id: str
    passwordHash: str = Field(description="argon2id; never a password")
    created: int


class DirectoryRole(BaseModel):
    name: str
    description: str


class DirectoryGrant(BaseModel):
    role: str
    type: str
    instance: str
    action: str


class DirectoryMembership(BaseModel):
    identity: str
    role: str
    expires: int | None


class Directory(BaseModel):
    generation: int
    identities: list[DirectoryIdentity]
    roles: list[DirectoryRole]
    grants: list[DirectoryGrant]
    memberships: list[DirectoryMembership]


class DirectoryAnswer(BaseModel):
    generation: int = Field(description="the directory's generation now")
    directory: Directory | None = Field(description="the directory; null when it did not move past `after`")
