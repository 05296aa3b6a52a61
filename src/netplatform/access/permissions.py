"""Permissions: ``type|instance|action``, and how a granted one matches a required one.

The model is the reference authorization framework's (docs/security.md, reference authz.md
1.1): a permission names a *type* (``platform.bus.api``), an *instance* of it (``topics``,
``:topic.org.alarms``) and an *action* (``read``). Roles are granted permissions; identities
are members of roles. A granted instance or action ``*`` matches anything, a granted action may
be a comma list, an instance in key form (``:a:b:*``) matches segment by segment. One addition:
a granted *type* ``*`` matches every type, so ``platform.admin`` is the one grant ``*|*|*``.

How a route declares the permission it needs is the web kernel's (web/permissions.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_PART = re.compile(r"[^|\s][^|]*")


@dataclass(frozen=True, order=True)
class Permission:
    type: str
    instance: str
    action: str

    def __str__(self) -> str:
        return f"{self.type}|{self.instance}|{self.action}"

    @classmethod
    def parse(cls, text: str) -> Permission:
        parts = text.split("|")
        if len(parts) != 3:
            raise ValueError(f"a permission is type|instance|action, not {text!r}")
        return cls.of(*parts)

    @classmethod
    def of(cls, type_: str, instance: str, action: str) -> Permission:
        """A permission from its three parts; ValueError naming the bad part."""
        for name, value in (("type", type_), ("instance", instance), ("action", action)):
            if not value or len(value) > 255 or not _PART.fullmatch(value) or "\x00" in value:
                raise ValueError(f"permission {name} must be 1-255 characters without '|': {value!r}")
        return cls(type_, instance, action)

    def as_json(self) -> dict[str, str]:
        return {"type": self.type, "instance": self.instance, "action": self.action}


def matches(granted: Permission, required: Permission) -> bool:
    """Whether a permission a role was granted covers one a route requires."""
    if granted.type != "*" and granted.type != required.type:
        return False
    return _instance_matches(granted.instance, required.instance) and _action_matches(
        granted.action, required.action
    )


def any_matches(granted: Iterable[Permission], required: Permission) -> bool:
    return any(matches(permission, required) for permission in granted)


def _action_matches(granted: str, required: str) -> bool:
    return granted == "*" or required in (item.strip() for item in granted.split(","))


def _instance_matches(granted: str, required: str) -> bool:
    if granted == "*":
        return True
    if granted.startswith(":"):
        return required.startswith(":") and _key_matches(granted, required)
    if required.startswith(":"):
        return False
    return any(_item_matches(item.strip(), required) for item in granted.split(","))


def _item_matches(item: str, value: str) -> bool:
    if item.endswith("*"):
        return value.startswith(item[:-1])
    return item == value


def _segments(key: str) -> list[str]:
    return re.split(r"[:/]", key[1:])


def _key_matches(granted: str, required: str) -> bool:
    wanted = _segments(granted)
    given = _segments(required)
    open_ended = wanted[-1] == "*"
    if len(given) < len(wanted) or (len(given) > len(wanted) and not open_ended):
        return False
    for index, pattern in enumerate(wanted):
        if open_ended and index == len(wanted) - 1:
            return True
        if not _segment_matches(pattern, given[index]):
            return False
    return True


def _segment_matches(pattern: str, value: str) -> bool:
    if pattern == "*":
        return True
    for item in pattern.split(","):
        if item.startswith("!"):
            try:
                if re.fullmatch(item[1:], value):
                    return True
            except re.error:
                continue
        elif _item_matches(item, value):
            return True
    return False


@dataclass(frozen=True)
class ServicePermissions:
    """The permissions of one service's own API: ``platform.<service>.api|<resource>|read|write``,
    ``platform.<service>.internal|<resource>|call`` (node-to-node routes),
    ``platform.<service>.admin|<resource>|write`` (administrators only) and
    ``platform.<service>.actas|*|call`` (acting for another identity)."""

    service: str

    @property
    def api_type(self) -> str:
        return f"platform.{self.service}.api"

    @property
    def internal_type(self) -> str:
        return f"platform.{self.service}.internal"

    def read(self, resource: str) -> Permission:
        return Permission(self.api_type, resource, "read")

    def write(self, resource: str) -> Permission:
        return Permission(self.api_type, resource, "write")

    def internal(self, resource: str) -> Permission:
        return Permission(self.internal_type, resource, "call")

    @property
    def admin_type(self) -> str:
        return f"platform.{self.service}.admin"

    def admin(self, resource: str) -> Permission:
        """What only an administrator of the service may do, a writer not: what decides where
        the platform sends its own credentials (clusters, nodes, the bridge-admin topic)."""
        return Permission(self.admin_type, resource, "write")

    @property
    def act_as_type(self) -> str:
        return f"platform.{self.service}.actas"

    def act_as(self) -> Permission:
        """Acting for another identity on this service (an on-behalf-of header is honoured only
        from holders): the platform's own identities that call for someone, and administrators."""
        return Permission(self.act_as_type, "*", "call")

    def by_method(self, resource: str) -> dict[str, Permission]:
        """GET reads, every other method writes (a route serving several methods)."""
        return {"GET": self.read(resource), "HEAD": self.read(resource), "*": self.write(resource)}


# --- bounds: whether one holder's grants cover another permission ---------------------------
#
# A writer of the authorization tables may pass on only what it holds itself (docs/security.md
# "Grants cannot escalate"). ``covers(held, granted)`` answers whether every permission that
# ``granted`` could ever match is matched by one of ``held``: the same rules as :func:`matches`,
# read as set inclusion. Where inclusion cannot be decided simply (one regular expression
# against another, a prefix against a regular expression, a range covered only by several
# grants together), the answer is no: a refusal an administrator can lift, never a grant that
# reaches further than its writer.


def covers(held: Iterable[Permission], granted: Permission) -> bool:
    """Whether ``held`` covers everything ``granted`` could match (conservative: see above)."""
    holders = list(held)
    return all(
        any(_one_covers(holder, granted.type, instance, action) for holder in holders)
        for instance in _instance_pieces(granted.instance)
        for action in _action_pieces(granted.action)
    )


def _instance_pieces(instance: str) -> list[str]:
    """What a granted instance matches, as pieces each covered on its own: the items of a plain
    comma list (each matches on its own), or the whole of ``*`` or a key-form instance."""
    if instance == "*" or instance.startswith(":"):
        return [instance]
    return [item.strip() for item in instance.split(",")]


def _action_pieces(action: str) -> list[str]:
    return [action] if action == "*" else [item.strip() for item in action.split(",")]


def _one_covers(holder: Permission, type_: str, instance: str, action: str) -> bool:
    if holder.type != "*" and holder.type != type_:
        return False
    if holder.action != "*" and (action == "*" or action not in _action_pieces(holder.action)):
        return False
    return _instance_covers(holder.instance, instance)


def _instance_covers(held: str, piece: str) -> bool:
    """Whether the held instance matches every instance ``piece`` (one item of a plain list, or a
    whole ``*`` or key-form instance) matches."""
    if held == "*":
        return True
    if piece == "*":
        return False
    if piece.startswith(":"):
        return held.startswith(":") and _key_covers(held, piece)
    if held.startswith(":"):
        return False  # a key-form grant matches key-form instances only; a plain item matches none
    return any(_item_covers(item.strip(), piece) for item in held.split(","))


def _item_covers(held: str, item: str) -> bool:
    """One plain item (exact, or a prefix ending in ``*``) covering another."""
    if held.endswith("*"):
        # A prefix covers an exact item it starts, and a prefix item whose own prefix it starts.
        return item.removesuffix("*").startswith(held[:-1])
    return not item.endswith("*") and item == held


def _key_covers(held: str, granted: str) -> bool:
    """A key-form instance covering another: every key the granted one matches (its segments,
    a last ``*`` matching one segment or more) matches the held one."""
    wanted, given = _segments(held), _segments(granted)
    given_open = given[-1] == "*"
    if wanted[-1] == "*":
        # The held one matches every key of at least len(wanted) segments whose first ones match;
        # the granted one's keys have at least len(given) segments, its first ones as it says.
        fixed = wanted[:-1]
        if len(given) < len(wanted):
            return False
        return all(_segment_covers(pattern, given[index]) for index, pattern in enumerate(fixed))
    if given_open or len(given) != len(wanted):
        return False
    return all(_segment_covers(pattern, value) for pattern, value in zip(wanted, given, strict=True))


def _segment_covers(held: str, granted: str) -> bool:
    """One key segment's pattern covering another's (``*``, comma items, ``!regex`` items)."""
    held_items = held.split(",")
    if held == "*" or "*" in held_items:
        return True
    if granted == "*":
        return False
    return all(_segment_item_covered(held_items, item) for item in granted.split(","))


def _segment_item_covered(held_items: list[str], item: str) -> bool:
    for held in held_items:
        if held.startswith("!"):
            if item == held:
                return True  # the same expression
            if not item.startswith("!") and not item.endswith("*") and _full_match(held[1:], item):
                return True
        elif not item.startswith("!") and _item_covers(held, item):
            return True
    return False


def _full_match(pattern: str, value: str) -> bool:
    try:
        return re.fullmatch(pattern, value) is not None
    except re.error:
        return False
