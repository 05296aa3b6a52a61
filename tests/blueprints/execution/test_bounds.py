"""Bounds a CBA or a request cannot raise: the size of an execution request, what expressions may
expand to (refused at save when the CBA alone passes it, at run before it is built), and the
reference's template read by query answering the stored text in any format."""

from __future__ import annotations

import json
from typing import Any

import httpx

from ...support.cbas import PROCESS, assignment, cba, execution, resolution_node, workflow
from .conftest import run, save

MODELS = "/api/v1/blueprint-model"


def fan_out(levels: int, width: int = 4) -> dict[str, Any]:
    """``dsl_definitions`` where each level names the next ``width`` times: width^levels values."""
    dsl: dict[str, Any] = {"l0": "leaf"}
    for level in range(1, levels + 1):
        dsl[f"l{level}"] = [f"*l{level - 1}"] * width
    return dsl


def bomb(name: str, levels: int, where: str) -> bytes:
    top = f"*l{levels}"
    node = resolution_node({"p": None})
    outputs: dict[str, Any] = {"ok": "yes"}
    if where == "outputs":
        outputs["all"] = top
    elif where == "inputs":
        node["interfaces"]["ResourceResolutionComponent"]["operations"]["process"]["inputs"]["x"] = top
    else:
        node["properties"] = {"all": top}
        outputs["all"] = {"get_property": ["n", "all"]}
    return cba(
        name,
        {"go": workflow({"s": {"target": "n"}}, outputs=outputs)},
        {"n": node},
        {"Templates/p-mapping.json": [assignment("v", "default", default=1, type_="integer")]},
        dsl=fan_out(levels),
    )


def upload(client: httpx.Client, path: str, archive: bytes) -> httpx.Response:
    return client.post(f"{MODELS}{path}", files={"file": ("cba.zip", archive, "application/zip")})


def test_a_breadth_bomb_is_refused_at_save_publish_and_enrich_before_it_is_expanded(
    client: httpx.Client,
) -> None:
    """4^16 values (hours of CPU and over 100 GB if expanded) refused at once, wherever the
    expression sits; the bound is on the count, so 4^8 (65,536) still saves and runs."""
    for where in ("outputs", "inputs", "properties"):
        archive = bomb(f"bomb-{where}", 16, where)
        for path in ("", "/publish", "/enrich"):
            refused = upload(client, path, archive)
            assert refused.status_code == 400, (where, path, refused.text)
            assert "expand to more than 100000 values" in refused.json()["message"], refused.text
    save(client, bomb("wide", 8, "outputs"))
    outputs = run(client, execution("wide", "go", {}))["payload"]["go-response"]
    assert len(json.dumps(outputs["all"])) > 4**8


def test_references_that_expand_past_the_bytes_bound_fail_the_run_before_they_are_written(
    client: httpx.Client,
) -> None:
    """An input referred to 1,000 times is 1,000 copies in the answer: counted by its bytes."""
    outputs = {"copies": [{"get_input": "blob"}] * 1000, "one": {"get_input": "blob"}}
    archive = cba(
        "copies",
        {"go": workflow({"s": {"target": "n"}}, outputs=outputs)},
        {"n": resolution_node({"p": None})},
        {"Templates/p-mapping.json": [assignment("v", "default", default=1, type_="integer")]},
    )
    save(client, archive)
    body = run(client, execution("copies", "go", {"blob": "x" * 20_000}), 500)
    assert "expressions expand to more than 16777216 bytes" in body["status"]["errorMessage"]
    assert body["payload"] == {"go-response": {}}
    small = run(client, execution("copies", "go", {"blob": "x" * 100}))
    assert len(small["payload"]["go-response"]["copies"]) == 1000


def test_a_request_larger_than_the_bound_is_413_in_the_output_shape(client: httpx.Client) -> None:
    request = execution("any", "go", {"bulk": "x" * (1024 * 1024)})
    answer = client.post(PROCESS, json=request)
    assert answer.status_code == 413, answer.text
    body = answer.json()
    assert body["status"]["code"] == 413
    assert body["status"]["errorMessage"] == "the request body is larger than 1048576 bytes"

    def chunks() -> Any:
        yield json.dumps(request).encode()

    streamed = client.post(PROCESS, content=chunks(), headers={"Content-Type": "application/json"})
    assert streamed.status_code == 413, streamed.text
    assert streamed.json()["status"]["code"] == 413


def test_the_template_read_by_query_answers_the_stored_text_in_any_format(client: httpx.Client) -> None:
    mapping = [assignment("hostname")]
    inputs = {"store-result": True, "resolution-key": {"get_input": "resolution-key"}}
    archive = cba(
        "texts",
        {"assign": workflow({"s": {"target": "n"}})},
        {"n": resolution_node({"h": "vtl"}, inputs)},
        {"Templates/h-mapping.json": mapping, "Templates/h-template.vtl": "hostname $hostname"},
    )
    save(client, archive)
    run(
        client,
        execution("texts", "assign", {"resolution-key": "k1", "assign-properties": {"hostname": "r1"}}),
    )
    query = {"bpName": "texts", "bpVersion": "1.0.0", "artifactName": "h", "resolutionKey": "k1"}
    for format_, media_type in (("application/json", "application/json"), ("xml", "application/xml")):
        answer = client.get("/api/v1/template", params={**query, "format": format_})
        assert answer.status_code == 200, answer.text
        assert answer.text == "hostname r1"
        assert answer.headers["content-type"].startswith(media_type)
