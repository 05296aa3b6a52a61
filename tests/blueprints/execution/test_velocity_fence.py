"""The Velocity sandbox through real runs: no expression context reaches a Python object or runs
anything, one blueprint's render cannot change another's, and Java-style calls mean the same
inside ``#if`` as outside (issue 37, point 1)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ...conftest import ServiceStarter, SettingsFactory
from ...support.cbas import assignment, execution
from .conftest import run, save
from .test_resolution import one_step, response

INPUTS = {"host": "r1", "count": "3", "items": [1, 2], "flag": False, "obj": {"k-1": "v"}}
MAPPING = [
    assignment("host"),
    assignment("count", type_="integer"),
    assignment("items", type_="list"),
    assignment("flag", type_="boolean"),
    assignment("obj", type_="json"),
]
PYTHON_TEXT = ("<class", "<function", "<built-in", "<module", "<bound", "__", "object at 0x")


def save_templates(client: httpx.Client, name: str, templates: dict[str, str]) -> None:
    """A one-step CBA rendering one Velocity template per prefix, each over :data:`MAPPING`."""
    files: dict[str, Any] = {}
    for prefix, text in templates.items():
        files[f"Templates/{prefix}-mapping.json"] = MAPPING
        files[f"Templates/{prefix}-template.vtl"] = text
    save(client, one_step(name, dict.fromkeys(templates, "vtl"), files))


def rendered(client: httpx.Client, name: str) -> dict[str, str]:
    body = run(client, execution(name, "assign", {"assign-properties": INPUTS}))
    params: dict[str, str] = response(body)["params"]
    return params


def escape_to_system(marker: Path, entry: str) -> str:
    """The chain a writer used to run ``id``: from a string up to ``object``, down to the class
    ``os._wrap_close`` and through its globals to ``os.system``; ``entry`` wraps the first step
    in an expression context (``{"c": X}`` then ``$d.c``, or ``(X)``)."""
    subclasses = "$host.__class__.__mro__[1].__subclasses__()"
    start = (
        f'#set($d = {{"c": {subclasses}}})#set($classes = $d.c)'
        if entry == "dict"
        else f"#set($classes = ({subclasses}))"
    )
    return (
        f"{start}#foreach($c in $classes)#if($c.__name__ == '_wrap_close')"
        f"#set($g = ($c.__init__.__globals__))#set($r = ($g.system('touch {marker}')))#end#end"
        "escaped? $classes $g $r"
    )


def test_no_expression_context_reaches_a_python_attribute(client: httpx.Client, tmp_path: Path) -> None:
    markers = tmp_path / "escapes"
    markers.mkdir()
    templates = {
        "dict": '#set($d = {"k": $host.__class__})$d',
        "parens": "#set($p = ($host.__class__))$p",
        "if": "#if($host.__class__)LEAK#{else}no#end",
        "elseif": "#if(false)#elseif($host.__class__.__name__ == 'str')LEAK#{else}no#end",
        "set": '#set($s = $host.__class__.__name__ + "")$s',
        "macro": "#macro(show $v)[$v]#end#show(($host.__class__))",
        "method": "$StringUtils.defaultString(($host.__class__), 'none')",
        "table": "#set($t = ($StringUtils.methods))$t",
        "system-parens": escape_to_system(markers / "from-parens", "parens"),
        "system-dict": escape_to_system(markers / "from-dict", "dict"),
    }
    save_templates(client, "fence", templates)
    params = rendered(client, "fence")
    assert params == {
        "dict": "{k=null}",
        "parens": "$p",
        "if": "no",
        "elseif": "no",
        "set": "$s",
        "macro": "[$v]",
        "method": "none",
        "table": "$t",
        "system-parens": "escaped? $classes $g $r",
        "system-dict": "escaped? $classes $g $r",
    }
    for text in params.values():
        assert not any(python in text for python in PYTHON_TEXT), text
    assert list(markers.iterdir()) == []  # os.system never ran


@pytest.fixture
def one_renderer(start_service: ServiceStarter, make_settings: SettingsFactory) -> Iterator[httpx.Client]:
    """A catalog with a single renderer: every template renders in the same process."""
    with start_service("blueprints", make_settings(execution_render_workers=1)).client() as client:
        yield client


def test_one_blueprints_set_cannot_change_how_another_renders(one_renderer: httpx.Client) -> None:
    victim = {"v": "$host.toUpperCase() $StringUtils.upperCase($host) $shared"}
    save_templates(one_renderer, "victim", victim)
    assert rendered(one_renderer, "victim") == {"v": "R1 R1 $shared"}
    tamper = (  # the method tables of the renderer's process, reached through a function's globals
        "#set($g = ($StringUtils.methods.upperCase.__globals__))"
        "#set($x = ($g._STRING.update({'toUpperCase': $g._STRING.trim})))"
        "#set($y = ($StringUtils.methods.update({'upperCase': $StringUtils.methods.trim})))"
        "#set($shared = 'from tamper')done"
    )
    save_templates(one_renderer, "tamper", {"t": tamper})
    assert rendered(one_renderer, "tamper") == {"t": "done"}
    assert rendered(one_renderer, "victim") == {"v": "R1 R1 $shared"}


def test_java_style_calls_mean_the_same_inside_conditions(client: httpx.Client) -> None:
    conditions = {
        "blank": "#if($StringUtils.isNotBlank($host))yes#{else}no#end",
        "upper": "#if($host.toUpperCase() == 'R1')yes#{else}no#end",
        "as-int": "#if(${count.asInt()} > 2)yes#{else}no#end",
        "size": "#if($items.size() > 1)yes#{else}no#end",
        "elseif": "#if($items.size() > 5)no#elseif($host.length() == 2)yes#{else}no#end",
        "and-not": "#if(!$BooleanUtils.isTrue($flag) && $obj.k-1 == 'v')yes#{else}no#end",
        "get": "#if($items.get(0) == 1 && $obj.get('k-1').equals('v'))yes#{else}no#end",
        "outside": "${count.asInt()} $items.size() $host.toUpperCase() $StringUtils.isNotBlank($host)",
    }
    save_templates(client, "conditions", conditions)
    params = rendered(client, "conditions")
    assert params.pop("outside") == "3 2 R1 true"
    assert params == dict.fromkeys(params, "yes")


def test_what_real_cbas_use_renders_as_the_reference_does(client: httpx.Client) -> None:
    template = (
        "hostname ${host}\n"
        "#foreach($i in [1..${count.asInt()}])\n"
        "<id>fw_udp_$i</id>#if($foreach.hasNext),#end\n"
        "#end\n"
        "#macro(item $name $value)$name=$value;#end\n"
        '#foreach($item in $items)#item("n$foreach.count" $item)#end\n'
        '$flag $items $obj ${obj.k-1} $StringUtils.upperCase("$host") $BooleanUtils.isFalse($flag)\n'
        "$!missing|${missing}|${missing|'fallback'}|$occurrence\n"
    )
    save_templates(client, "real", {"r": template})
    # A line of nothing but a directive prints nothing; a newline right after #end is eaten
    # (Velocity 1's whitespace gobbling, the reference's setting).
    assert rendered(client, "real")["r"] == (
        "hostname r1\n"
        "<id>fw_udp_1</id>,<id>fw_udp_2</id>,<id>fw_udp_3</id>"
        "n1=1;n2=2;"
        'false [1,2] {"k-1":"v"} v R1 true\n'
        "|${missing}|fallback|1\n"
    )
