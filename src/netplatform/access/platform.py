"""The platform's own identities: one per hop between parts of the platform, each a member of one
built-in role holding the least that hop needs, never a person's password.

| identity        | role                 | the hop                                                     |
|-----------------|----------------------|-------------------------------------------------------------|
| `svc.bus`       | `platform.bus`       | bus controller -> file distribution, message routers, authz |
| `svc.node`      | `platform.node`      | distribution node -> distribution node (forwards)           |
| `svc.mirror`    | `platform.mirror`    | router mirror agent -> source router                        |
| `svc.execution` | `platform.execution` | blueprint execution -> config tree, acting for its caller   |

Their passwords are derived from the platform key (store/secrets.py): every instance holding the
key presents and accepts the same ones, and nothing about them is stored. An instance accepts the
credential derived from each of its keys, so a rotation can restart instances one at a time.

A deployment whose parts do not share the key (a site run by someone else) gives the calling
side the credential to present (the hop's ``NETPLATFORM_..._USER`` / ``_PASSWORD`` settings) and
the called side an identity of that name (``NETPLATFORM_USERS`` or the authz API) with the
hop's role. An entry of ``NETPLATFORM_USERS`` naming a platform identity replaces it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..settings import Settings
from ..store.secrets import SecretKeys, sealer_for
from .builtin import BUS_ROLE, EXECUTION_ROLE, MIRROR_ROLE, NODE_ROLE


@dataclass(frozen=True)
class PlatformIdentity:
    name: str
    role: str
    hop: str


BUS = PlatformIdentity("svc.bus", BUS_ROLE, "bus controller to file distribution, message routers and authz")
NODE = PlatformIdentity("svc.node", NODE_ROLE, "distribution node to distribution node")
MIRROR = PlatformIdentity("svc.mirror", MIRROR_ROLE, "router mirror agent to source router")
EXECUTION = PlatformIdentity("svc.execution", EXECUTION_ROLE, "blueprint execution to config tree")
PLATFORM_IDENTITIES: tuple[PlatformIdentity, ...] = (BUS, NODE, MIRROR, EXECUTION)


def _purpose(identity: PlatformIdentity) -> str:
    return f"identity:{identity.name}"


def accepted_passwords(keys: SecretKeys, identity: PlatformIdentity) -> list[str]:
    """The passwords an instance accepts for a platform identity: one per key."""
    return keys.derive(_purpose(identity))


def credential(
    settings: Settings,
    identity: PlatformIdentity,
    user: str | None = None,
    password: str | None = None,
) -> tuple[str, str]:
    """The user and password to present for a hop: the hop's own settings when given (``user``
    and ``password`` both set), else the platform identity with its derived password."""
    if user and password:
        return user, password
    if bool(user) != bool(password):
        raise ValueError(f"set both the user and the password of the {identity.hop} hop, or neither")
    keys = sealer_for(settings).keys
    return identity.name, accepted_passwords(keys, identity)[0]
