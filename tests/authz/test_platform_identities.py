"""The platform's own identities (access/platform.py): each authenticates with a credential derived
from the platform key, holds its one role and nothing more, and cannot be taken over as a name."""

from __future__ import annotations

import pytest

from netplatform.access.builtin import BUILTIN_ROLES
from netplatform.access.platform import (
    BUS,
    EXECUTION,
    MIRROR,
    NODE,
    PLATFORM_IDENTITIES,
    PlatformIdentity,
    credential,
)
from netplatform.settings import Settings
from netplatform.store.secrets import SecretKeys, sealer_of

from ..conftest import RunningService, ServiceStarter, SettingsFactory
from ..support.answers import ok
from .conftest import ADMIN, client_as, refused


@pytest.mark.parametrize("identity", PLATFORM_IDENTITIES, ids=lambda identity: identity.name)
def test_a_platform_identity_signs_in_with_its_derived_credential_and_holds_its_role_only(
    authz: RunningService, identity: PlatformIdentity
) -> None:
    name, password = credential(authz.settings, identity)
    assert name == identity.name
    with client_as(authz, (name, password)) as client:
        roles = ok(client.get(f"/authz/roles/user/{name}"))["role"]
    assert [role["name"] for role in roles] == [identity.role]


def test_a_credential_derived_from_another_key_is_refused(authz: RunningService) -> None:
    foreign = SecretKeys((SecretKeys.generate(),)).derive(f"identity:{BUS.name}")[0]
    with client_as(authz, (BUS.name, foreign)) as client:
        refused(client.get(f"/authz/roles/user/{BUS.name}"), 401)


def test_a_platform_identity_name_cannot_be_created_as_a_stored_one(authz: RunningService) -> None:
    with client_as(authz, ADMIN) as client:
        refused(client.post("/authn/cred", json={"id": NODE.name, "password": "guessable-1"}), 409)


def test_each_platform_role_holds_no_person_role_and_no_wildcard_type() -> None:
    for identity in PLATFORM_IDENTITIES:
        _, permissions = BUILTIN_ROLES[identity.role]
        assert permissions, identity
        assert all(permission.type != "*" for permission in permissions), identity


def test_the_bus_identity_may_not_read_what_its_hop_does_not_need(
    make_settings: SettingsFactory, start_service: ServiceStarter
) -> None:
    settings = make_settings()
    policy = start_service("policy", settings)
    with client_as(policy, credential(settings, BUS)) as client:
        assert client.get("/policy/api/v1/policytypes").status_code == 403
    with client_as(policy, credential(settings, EXECUTION)) as client:
        assert client.get("/policy/api/v1/policytypes").status_code == 403


def test_instances_during_a_key_rotation_accept_the_old_and_the_new_credential(
    make_settings: SettingsFactory, start_service: ServiceStarter
) -> None:
    old, new = SecretKeys.generate(), SecretKeys.generate()
    rotating: Settings = make_settings(secret_key=f"{new.decode()},{old.decode()}")
    service = start_service("authz", rotating)
    for key in (old, new):
        password = sealer_of([key]).keys.derive(f"identity:{MIRROR.name}")[0]
        with client_as(service, (MIRROR.name, password)) as client:
            ok(client.get(f"/authz/roles/user/{MIRROR.name}"))
    assert credential(rotating, MIRROR)[1] == sealer_of([new]).keys.derive(f"identity:{MIRROR.name}")[0]


def test_an_entry_of_the_users_setting_replaces_a_platform_identity(
    make_settings: SettingsFactory, start_service: ServiceStarter
) -> None:
    settings = make_settings(users=f"admin:admin,{NODE.name}:site-b-node-pw:platform.node")
    service = start_service("authz", settings)
    with client_as(service, (NODE.name, "site-b-node-pw")) as client:
        ok(client.get(f"/authz/roles/user/{NODE.name}"))
    with client_as(service, credential(settings, NODE)) as client:
        refused(client.get(f"/authz/roles/user/{NODE.name}"), 401)
