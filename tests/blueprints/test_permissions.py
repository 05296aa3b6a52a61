"""Authorization of the blueprint catalog (issue 23), over real HTTP: what each built-in role may do.

A ``blueprints.reader`` reads everything, including the three POSTs that only read (enrich an
archive without storing it, a workflow's spec, dictionaries by names), and writes nothing; a
``blueprints.writer`` writes; an identity without roles, or with only other services' roles, is
refused even reads. The refusal comes from the kernel before the handler, so a write sent with
no body at all is a 403, not a 400 or 415.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator

import httpx
import pytest

from ..conftest import ADMIN, RunningService, service_on_fresh_store
from ..support.routes import protected_operations
from .conftest import MODELS, named, sample_files, unenriched_files, upload, zip_bytes

READER = ("reader", "reader-pw")
WRITER = ("writer", "writer-pw")
NOBODY = ("nobody", "nobody-pw")
OUTSIDER = ("outsider", "outsider-pw")
USERS = (
    "admin:admin,reader:reader-pw:blueprints.reader,writer:writer-pw:blueprints.writer,"
    "nobody:nobody-pw,outsider:outsider-pw:policy.writer|configtree.writer|distribution.writer"
)
API_TYPE = "platform.blueprints.api"
DICTIONARY = "/api/v1/dictionary"
CONFIGS = "/api/v1/configs"
TEMPLATE = "/api/v1/template/edge-router-cfg/1.0.0/baseconfig/key-1"
RESOURCES = "/api/v1/resources"
BLUEPRINT = {"bpName": "edge-router-cfg", "bpVersion": "1.0.0", "artifactName": "baseconfig"}
# POSTs that store nothing: what they do decides their permission, not their method.
READING_POSTS = {
    ("POST", f"{MODELS}/enrich"),
    ("POST", f"{MODELS}/workflow-spec"),
    ("POST", f"{DICTIONARY}/by-names"),
}


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningService]:
    """One catalog for the module, seeded by the administrator with something of every kind."""
    directory = tmp_path_factory.mktemp("blueprints-authz")
    with service_on_fresh_store("blueprints", directory, users=USERS) as running, running.client() as admin:
        seed(admin)
        yield running


def seed(admin: httpx.Client) -> None:
    kinds = {"loadModelType": True, "loadResourceDictionary": True}
    assert admin.post(f"{MODELS}/bootstrap", json=kinds).status_code == 200
    assert upload(admin, "/enrichandpublish", zip_bytes(unenriched_files())).status_code == 200
    assert admin.post(f"{CONFIGS}/router/r1/running", content=b"<config/>").status_code == 200
    assert admin.post(TEMPLATE, content=b"<config>a</config>").status_code == 200
    value = {
        "blueprintName": "edge-router-cfg",
        "blueprintVersion": "1.0.0",
        "artifactName": "baseconfig",
        "name": "hostname",
        "value": "r1",
        "resolutionKey": "key-1",
    }
    assert admin.post(RESOURCES, json=[value]).status_code == 200


def operations(service: RunningService) -> list[tuple[str, str]]:
    return protected_operations(service.server)


def is_write(method: str, path: str) -> bool:
    return method not in ("GET", "HEAD") and (method, path) not in READING_POSTS


def assert_refused(response: httpx.Response, user: str, action: str) -> None:
    """403 in the catalog's own error body, naming the permission the caller lacks."""
    assert response.status_code == 403, (response.request.method, response.request.url, response.text)
    body = response.json()
    assert body["code"] == 403 and body["status"] == "GENERIC_FAILURE", body
    # (trusting a device's new host key needs the administrators' type, platform.blueprints.admin)
    wanted = rf"Cause: User {user} does not have permission {re.escape(API_TYPE)}\|[a-z-]+\|{action}\b.*"
    wanted = wanted.replace(re.escape(API_TYPE), "platform\\.blueprints\\.(api|admin)")
    assert re.fullmatch(wanted, body["message"], re.DOTALL), body["message"]


def model_id(service: RunningService) -> str:
    with service.client(auth=ADMIN) as admin:
        return str(
            admin.get(f"{MODELS}/by-name/edge-router-cfg/version/1.0.0").json()["blueprintModel"]["id"]
        )


def test_a_reader_gets_200_on_the_reads(service: RunningService) -> None:
    identifier = model_id(service)
    by_name = "by-name/edge-router-cfg/version/1.0.0"
    reads = [
        "/actuator/mappings",
        MODELS,
        f"{MODELS}/paged",
        f"{MODELS}/search/edge",
        f"{MODELS}/{by_name}",
        f"{MODELS}/download/{by_name}",
        f"{MODELS}/download/{identifier}",
        f"{MODELS}/workflows/blueprint-name/edge-router-cfg/version/1.0.0",
        f"{MODELS}/{identifier}",
        "/api/v1/model-type/component-resource-resolution",
        "/api/v1/model-type/by-definition/node_type",
        f"{DICTIONARY}/hostname",
        f"{DICTIONARY}/source-mapping",
        f"{DICTIONARY}/resource_dictionary_group",
        f"{CONFIGS}?resourceType=router&resourceId=r1",
        f"{CONFIGS}/allByID?resourceId=r1",
        TEMPLATE,
        f"{RESOURCES}?bpName=edge-router-cfg&bpVersion=1.0.0&resolutionKey=key-1&artifactName=baseconfig",
        "/metrics",
    ]
    with service.client(auth=READER) as reader:
        for path in reads:
            response = reader.get(path)
            assert response.status_code in (200, 202), (path, response.text)


def test_a_reader_may_use_the_posts_that_only_read(service: RunningService) -> None:
    with service.client(auth=READER) as reader:
        enriched = upload(reader, "/enrich", zip_bytes(unenriched_files()))
        assert enriched.status_code == 200, enriched.text
        assert enriched.headers["content-type"] == "application/zip"
        request = {
            "blueprintName": "edge-router-cfg",
            "version": "1.0.0",
            "workflowName": "resource-assignment",
        }
        spec = reader.post(f"{MODELS}/workflow-spec", json=request)
        assert spec.status_code == 200, spec.text
        found = reader.post(f"{DICTIONARY}/by-names", json=["hostname"])
        assert found.status_code == 200, found.text
        assert [entry["name"] for entry in found.json()] == ["hostname"]
        # Enriching stored nothing: the catalog still holds the one seeded model.
        assert len(reader.get(MODELS).json()) == 1


def test_a_reader_passes_every_read_and_is_refused_every_write(service: RunningService) -> None:
    walked = operations(service)
    assert set(walked) >= READING_POSTS
    with service.client(auth=READER) as reader:
        for method, path in walked:
            # No body, no Content-Type: the permission is checked before the body is parsed.
            response = reader.request(method, path)
            if is_write(method, path):
                assert_refused(response, "reader", "write")
            else:
                assert response.status_code not in (401, 403), (method, path, response.text)


def test_a_refused_write_changes_nothing(service: RunningService) -> None:
    identifier = model_id(service)
    with service.client(auth=READER) as reader:
        assert_refused(reader.delete(f"{MODELS}/{identifier}"), "reader", "write")
        refused = upload(reader, "", named(sample_files(), "reader-model"))
        assert_refused(refused, "reader", "write")
        assert f"{API_TYPE}|blueprint-model|write" in refused.json()["message"]
        assert_refused(reader.delete(f"{DICTIONARY}/hostname"), "reader", "write")
        assert reader.get(f"{MODELS}/{identifier}").status_code == 200
        assert reader.get(f"{MODELS}/by-name/reader-model/version/1.0.0").status_code == 404
        assert reader.get(f"{DICTIONARY}/hostname").status_code == 200


def test_a_writer_stores_and_deletes(service: RunningService) -> None:
    name = f"writer-{uuid.uuid4().hex[:8]}"
    with service.client(auth=WRITER) as writer:
        saved = upload(writer, "", named(sample_files(), name))
        assert saved.status_code == 200, saved.text
        assert writer.get(f"{MODELS}/by-name/{name}/version/1.0.0").status_code == 200
        assert writer.delete(f"{MODELS}/name/{name}/version/1.0.0").status_code == 200
        stored = writer.post(f"{CONFIGS}/router/{name}/candidate", content=b"<config/>")
        assert stored.status_code == 200, stored.text


def test_an_identity_without_roles_is_refused_reads_and_writes(service: RunningService) -> None:
    with service.client(auth=NOBODY) as nobody:
        for method, path in operations(service):
            action = "write" if is_write(method, path) else "read"
            assert_refused(nobody.request(method, path), "nobody", action)


def test_the_roles_of_other_services_grant_nothing_here(service: RunningService) -> None:
    with service.client(auth=OUTSIDER) as outsider:
        assert_refused(outsider.get(MODELS), "outsider", "read")
        assert_refused(outsider.post(f"{DICTIONARY}/by-names", json=["hostname"]), "outsider", "read")
        assert_refused(upload(outsider, "", named(sample_files(), "outsider-model")), "outsider", "write")
        assert_refused(outsider.post(f"{CONFIGS}/router/r2/running", content=b"<x/>"), "outsider", "write")
