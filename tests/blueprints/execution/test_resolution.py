"""Resource resolution: every source, both template engines, occurrence, storing, reuse, the reads."""

from __future__ import annotations

from typing import Any

import httpx

from ...support.cbas import assignment, cba, execution, resolution_node, workflow
from .conftest import TreeAndCatalog, run, save

AR = "/config/GENERIC-RESOURCE-API:brg-allotted-resources/GENERIC-RESOURCE-API:brg-allotted-resource"
PARAM_PATH = (
    "/restconf" + AR + "/$ar-id/GENERIC-RESOURCE-API:allotted-resource-data/GENERIC-RESOURCE-API:brg-topology"
    "/GENERIC-RESOURCE-API:brg-parameters/GENERIC-RESOURCE-API:param/vlan/"
)


def one_step(name: str, prefixes: dict[str, str | None], files: dict[str, Any], **kwargs: Any) -> bytes:
    inputs = kwargs.pop("inputs", {})
    timeout = kwargs.pop("timeout", None)
    return cba(
        name,
        {
            "assign": workflow(
                {"s": {"target": "n"}},
                outputs={
                    "params": {"get_attribute": ["n", "assignment-params"]},
                    "map": {"get_attribute": ["n", "assignment-map"]},
                },
            )
        },
        {"n": resolution_node(prefixes, inputs, timeout)},
        files,
        **kwargs,
    )


def response(body: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = body["payload"]["assign-response"]
    return found


def rest_definition(selector_key: str, url_path: str = PARAM_PATH) -> dict[str, Any]:
    return {
        "vlan": {
            "name": "vlan",
            "property": {"type": "integer", "description": "vlan"},
            "sources": {
                selector_key: {
                    "type": "source-rest",
                    "properties": {
                        "verb": "GET",
                        "type": "JSON",
                        "url-path": url_path,
                        "path": "/GENERIC-RESOURCE-API:param/0",
                        "input-key-mapping": {"ar-id": "ar-id"},
                        "output-key-mapping": {"vlan": "value"},
                        "key-dependencies": ["ar-id"],
                    },
                }
            },
        }
    }


def test_rest_sources_read_the_config_tree_as_sdnc_and_as_an_operator_endpoint(
    tree_and_catalog: TreeAndCatalog,
) -> None:
    entry = {
        "GENERIC-RESOURCE-API:brg-allotted-resource": [
            {
                "allotted-resource-id": "ar-7",
                "allotted-resource-data": {
                    "brg-topology": {"brg-parameters": {"param": [{"name": "vlan", "value": "110"}]}}
                },
            }
        ]
    }
    written = tree_and_catalog.tree.put(f"{AR}/ar-7/", json=entry)
    assert written.status_code in (201, 204), written.text
    client = tree_and_catalog.catalog
    for selector in ("sdnc", "inventory"):
        mapping = [assignment("ar-id"), assignment("vlan", selector, type_="integer", dependencies=["ar-id"])]
        name = f"rest-{selector}"
        save(
            client,
            one_step(
                name,
                {"net": "vtl"},
                {"Templates/net-mapping.json": mapping, "Templates/net-template.vtl": "vlan=$vlan"},
                definitions=rest_definition(
                    selector, PARAM_PATH if selector == "sdnc" else PARAM_PATH[len("/restconf") :]
                ),
            ),
        )
        body = run(client, execution(name, "assign", {"assign-properties": {"ar-id": "ar-7"}}))
        assert response(body)["params"] == {"net": "vlan=110"}
        assert response(body)["map"]["net"]["vlan"] == 110
        missing = run(client, execution(name, "assign", {"assign-properties": {"ar-id": "ar-9"}}), 500)
        assert "Failed to resolve required values: [vlan]" in missing["status"]["errorMessage"]


def test_a_selector_the_operator_did_not_configure_fails_clearly(client: httpx.Client) -> None:
    mapping = [assignment("ar-id"), assignment("vlan", "elsewhere", dependencies=["ar-id"])]
    save(
        client,
        one_step(
            "rest-x",
            {"net": None},
            {"Templates/net-mapping.json": mapping},
            definitions=rest_definition("elsewhere"),
        ),
    )
    body = run(client, execution("rest-x", "assign", {"assign-properties": {"ar-id": "a"}}), 500)
    assert "no REST endpoint is configured for selector (elsewhere)" in body["status"]["errorMessage"]


def test_sql_and_capability_sources_fail_clearly(client: httpx.Client) -> None:
    definitions = {
        "q": {
            "name": "q",
            "property": {"type": "string"},
            "sources": {
                "processor-db": {"type": "source-db", "properties": {"type": "SQL", "query": "select 1"}},
                "capability": {"type": "source-capability", "properties": {"script-type": "jython"}},
            },
        }
    }
    for source, message in (
        ("processor-db", "SQL sources (processor-db) are not supported"),
        ("capability", "capability sources run code"),
    ):
        name = f"refused-{source}"
        save(
            client,
            one_step(
                name,
                {"p": None},
                {"Templates/p-mapping.json": [assignment("q", source)]},
                definitions=definitions,
            ),
        )
        body = run(client, execution(name, "assign", {}), 500)
        assert message in body["status"]["errorMessage"]


def test_jinja_template_input_and_default_sources(client: httpx.Client) -> None:
    mapping = [
        assignment("host_name"),
        assignment("ntp", "default", default="ntp.example.net"),
        assignment("note", required=False),
    ]
    template = "host {{ host_name }} ntp {{ ntp }} note {{ note }}{% for i in range(2) %} {{ i }}{% endfor %}"
    save(
        client,
        one_step(
            "jinja",
            {"j": "jinja"},
            {"Templates/j-mapping.json": mapping, "Templates/j-template.jinja": template},
        ),
    )
    body = run(client, execution("jinja", "assign", {"assign-properties": {"host_name": "r1"}}))
    assert response(body)["params"]["j"] == "host r1 ntp ntp.example.net note {{ note }} 0 1"
    unsafe = "{{ host_name.__class__.__mro__ }}"
    save(
        client,
        one_step(
            "jinja-unsafe",
            {"j": "jinja"},
            {"Templates/j-mapping.json": mapping, "Templates/j-template.jinja": unsafe},
        ),
    )
    failed = run(client, execution("jinja-unsafe", "assign", {"assign-properties": {"host_name": "r1"}}), 500)
    assert "template of (j) failed" in failed["status"]["errorMessage"]


def test_jinja_includes_read_the_cba_only(client: httpx.Client) -> None:
    # Renderers have no archive: the CBA's texts travel with a template that includes.
    files = {
        "Templates/j-mapping.json": [assignment("host_name")],
        "Templates/j-template.jinja": "{% include 'Templates/part.jinja' %}!",
        "Templates/part.jinja": "host {{ host_name }}",
    }
    save(client, one_step("includes", {"j": "jinja"}, files))
    body = run(client, execution("includes", "assign", {"assign-properties": {"host_name": "r1"}}))
    assert response(body)["params"]["j"] == "host r1!"
    files["Templates/j-template.jinja"] = "{% include '/etc/passwd' %}"
    save(client, one_step("outside", {"j": "jinja"}, files))
    failed = run(client, execution("outside", "assign", {"assign-properties": {"host_name": "r1"}}), 500)
    assert "template of (j) failed" in failed["status"]["errorMessage"]
    assert "root:" not in failed["status"]["errorMessage"]


def test_jinja_templates_cannot_loop_or_compute_without_bound(client: httpx.Client) -> None:
    # The sandbox bounds range() but not nesting: 10^10 silent iterations would keep a thread
    # busy long after the step timed out. Loops are counted, and what can take the memory or
    # the CPU (repetition, powers, format widths, padding, replacement) is bounded too.
    mapping = [assignment("host_name")]
    for name, template, reason in (
        (
            "spin",
            "line one\n{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
            "line 2: more than 1000000 loop iterations",
        ),
        ("repeat", "{{ host_name * 100000000 }}", "a repetition larger than the output bound"),
        ("power", "{{ 7 ** 1000000 }}", "a power larger than 4096 bits"),
        ("pad", "{{ '%300000000d' % 1 }}{{ host_name|center(300000000) }}", "a width or precision above"),
        ("nested-width", "{{ '{:>{}}'.format(host_name, 300000000) }}", "a width or precision above"),
        ("replace", "{{ (host_name * 1000000)|replace('r', 'xxxxx') }}", "a result larger than"),
    ):
        files = {"Templates/j-mapping.json": mapping, "Templates/j-template.jinja": template}
        save(client, one_step(name, {"j": "jinja"}, files))
        failed = run(client, execution(name, "assign", {"assign-properties": {"host_name": "r1"}}), 500)
        assert reason in failed["status"]["errorMessage"]


def test_velocity_streams_and_render_failures_name_the_line(client: httpx.Client) -> None:
    template = "#foreach($i in [1..${stream-count.asInt()}])\n<id>fw_udp_$i</id>\n#end"
    mapping = [assignment("stream-count", type_="integer")]
    save(
        client,
        one_step(
            "streams",
            {"s": "vtl"},
            {"Templates/s-mapping.json": mapping, "Templates/s-template.vtl": template},
        ),
    )
    body = run(client, execution("streams", "assign", {"assign-properties": {"stream-count": 3}}))
    assert response(body)["params"]["s"].count("<id>fw_udp_") == 3
    broken = "line one\n#foreach($i in [1..100000000])x#end"
    save(
        client,
        one_step(
            "broken", {"s": "vtl"}, {"Templates/s-mapping.json": mapping, "Templates/s-template.vtl": broken}
        ),
    )
    failed = run(client, execution("broken", "assign", {"assign-properties": {"stream-count": 3}}), 500)
    assert "line 2" in failed["status"]["errorMessage"]
    assert "range" in failed["status"]["errorMessage"]


def test_dependency_cycles_fail_clearly(client: httpx.Client) -> None:
    mapping = [
        assignment("a", "default", default="1", dependencies=["b"]),
        assignment("b", "default", default="2", dependencies=["a"]),
    ]
    save(client, one_step("cycle", {"c": None}, {"Templates/c-mapping.json": mapping}))
    body = run(client, execution("cycle", "assign", {}), 500)
    assert "cyclic dependency" in body["status"]["errorMessage"]


def template_text(client: httpx.Client, **params: Any) -> httpx.Response:
    return client.get("/api/v1/template", params={"bpName": params.pop("bp"), "bpVersion": "1.0.0", **params})


def test_store_by_key_reuse_and_force(client: httpx.Client) -> None:
    mapping = [assignment("hostname")]
    inputs = {
        "store-result": True,
        "resolution-key": {"get_input": "resolution-key"},
        "force-resolution": {"get_input": "force"},
    }
    archive = one_step(
        "stored",
        {"h": "vtl"},
        {"Templates/h-mapping.json": mapping, "Templates/h-template.vtl": "name $hostname"},
        inputs=inputs,
    )
    save(client, archive)
    run(
        client,
        execution("stored", "assign", {"resolution-key": "day-1", "assign-properties": {"hostname": "r1"}}),
    )
    stored = template_text(client, bp="stored", artifactName="h", resolutionKey="day-1")
    assert stored.status_code == 200 and stored.text == "name r1"
    values = client.get(
        "/api/v1/resources",
        params={"bpName": "stored", "bpVersion": "1.0.0", "artifactName": "h", "resolutionKey": "day-1"},
    ).json()
    assert [(v["name"], v["value"], v["status"]) for v in values] == [("hostname", "r1", "success")]
    # The same key again: the stored value is reused, the new input ignored.
    body = run(
        client,
        execution("stored", "assign", {"resolution-key": "day-1", "assign-properties": {"hostname": "r2"}}),
    )
    assert response(body)["params"]["h"] == "name r1"
    forced = run(
        client,
        execution(
            "stored",
            "assign",
            {"resolution-key": "day-1", "force": True, "assign-properties": {"hostname": "r2"}},
        ),
    )
    assert response(forced)["params"]["h"] == "name r2"
    assert template_text(client, bp="stored", artifactName="h", resolutionKey="day-1").text == "name r2"
    as_json = template_text(client, bp="stored", artifactName="h", resolutionKey="nothing")
    assert as_json.status_code == 404


def test_store_by_resource_and_occurrence(client: httpx.Client) -> None:
    mapping = [assignment("port", "default", default="ge-0")]
    template = "port $port occurrence $occurrence"
    inputs = {"store-result": True, "resource-type": "vnf", "resource-id": "v1", "occurrence": 2}
    save(
        client,
        one_step(
            "occ",
            {"p": "vtl"},
            {"Templates/p-mapping.json": mapping, "Templates/p-template.vtl": template},
            inputs=inputs,
        ),
    )
    body = run(client, execution("occ", "assign", {}))
    assert response(body)["params"] == {
        "1": {"p": "port ge-0 occurrence 1"},
        "2": {"p": "port ge-0 occurrence 2"},
    }
    for occurrence in (1, 2):
        text = template_text(
            client, bp="occ", artifactName="p", resourceType="vnf", resourceId="v1", occurrence=occurrence
        )
        assert text.text == f"port ge-0 occurrence {occurrence}"
    by_path = client.get("/api/v1/template/occ/1.0.0/p/vnf/v1")
    assert by_path.text == "port ge-0 occurrence 1"
    assert template_text(client, bp="occ", artifactName="p").status_code == 400


def test_store_result_needs_a_key(client: httpx.Client) -> None:
    save(
        client,
        one_step(
            "nokey",
            {"p": None},
            {"Templates/p-mapping.json": [assignment("a", "default", default="x")]},
            inputs={"store-result": True},
        ),
    )
    body = run(client, execution("nokey", "assign", {}), 500)
    assert "can't persist resolution without a correlation key" in body["status"]["errorMessage"]


def test_processor_db_reads_the_resolved_resource_store(client: httpx.Client) -> None:
    first = one_step(
        "producer",
        {"p": None},
        {"Templates/p-mapping.json": [assignment("mgmt-ip", "default", default="10.0.0.1")]},
        inputs={"store-result": True, "resolution-key": "site-a"},
    )
    save(client, first)
    run(client, execution("producer", "assign", {}))
    definitions = {
        "mgmt-ip": {
            "name": "mgmt-ip",
            "property": {"type": "string"},
            "sources": {
                "processor-db": {
                    "type": "source-db",
                    "properties": {
                        "type": "resolved-resource",
                        "query": "mgmt-ip",
                        "input-key-mapping": {
                            "blueprint-name": "source-bp",
                            "artifact-name": "source-artifact",
                            "resolution-key": "site",
                        },
                    },
                }
            },
        }
    }
    mapping = [
        assignment("source-bp", "default", default="producer"),
        assignment("source-artifact", "default", default="p"),
        assignment("site"),
        assignment("mgmt-ip", "processor-db", dependencies=["source-bp", "source-artifact", "site"]),
    ]
    save(
        client,
        one_step(
            "consumer",
            {"c": "vtl"},
            {"Templates/c-mapping.json": mapping, "Templates/c-template.vtl": "ip $mgmt-ip"},
            definitions=definitions,
        ),
    )
    body = run(client, execution("consumer", "assign", {"assign-properties": {"site": "site-a"}}))
    assert response(body)["params"]["c"] == "ip 10.0.0.1"


def test_a_later_step_reads_what_an_earlier_step_of_the_run_stored(client: httpx.Client) -> None:
    """A sync run of several steps stores each step's results when the step ends (only a one-step
    run's are kept for its record's transaction): the second step reads the first one's value."""
    source: dict[str, Any] = {"type": "resolved-resource", "query": "mgmt-ip"}
    source["input-key-mapping"] = {"artifact-name": "source-artifact", "resolution-key": "site"}
    definitions = {
        "mgmt-ip": {
            "name": "mgmt-ip",
            "property": {"type": "string"},
            "sources": {"processor-db": {"type": "source-db", "properties": source}},
        }
    }
    reader = [
        assignment("source-artifact", "default", default="p"),
        assignment("site"),
        assignment("mgmt-ip", "processor-db", dependencies=["source-artifact", "site"]),
    ]
    steps: dict[str, dict[str, Any]] = {
        "first": {"target": "store", "on_success": ["second"]},
        "second": {"target": "read"},
    }
    chained = cba(
        "chained",
        {"assign": workflow(steps, outputs={"params": {"get_attribute": ["read", "assignment-params"]}})},
        {
            "store": resolution_node({"p": None}, {"store-result": True, "resolution-key": "site-b"}),
            "read": resolution_node({"c": "vtl"}),
        },
        {
            "Templates/p-mapping.json": [assignment("mgmt-ip", "default", default="10.0.0.9")],
            "Templates/c-mapping.json": reader,
            "Templates/c-template.vtl": "ip $mgmt-ip",
        },
        definitions=definitions,
    )
    save(client, chained)
    body = run(client, execution("chained", "assign", {"assign-properties": {"site": "site-b"}}))
    assert response(body)["params"]["c"] == "ip 10.0.0.9"
