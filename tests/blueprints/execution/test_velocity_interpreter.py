"""The Velocity interpreter itself (velocity.py, velocity_nodes.py, velocity_values.py): the
language CBAs use, the allow-list in every context, per-render state, and every bound."""

from __future__ import annotations

from typing import Any

import pytest

from netplatform.blueprints.execution.velocity import TemplateFailed, VelocityTemplate

PYTHON_TEXT = (
    "<class",
    "<function",
    "<built-in",
    "<bound",
    "<method",
    "object at 0x",
    "dict_items",
    "mappingproxy",
)
DATA: dict[str, Any] = {"host": "r1", "count": 3, "items": [1, 2], "flag": False, "obj": {"k-1": "v", "n": 0}}


def render(text: str, data: dict[str, Any] | None = None, occurrence: int = 1) -> str:
    return VelocityTemplate(text, "t.vtl").render(DATA if data is None else data, occurrence)


def refused(text: str) -> str:
    with pytest.raises(TemplateFailed) as failure:
        render(text)
    return str(failure.value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("#set($x = 1 + 2 * 3)$x", "7"),
        ("#set($x = (1 + 2) * 3)$x", "9"),
        ("#set($x = 10 - 4 - 3)$x", "3"),
        ("#set($x = -7 / 2)$x #set($y = -7 % 2)$y", "-3 -1"),  # Java truncates toward zero
        ("#set($x = 7.0 / 2)$x", "3.5"),
        ("#set($f = 2.0)$f #set($g = 0.00001)$g", "2.0 1.0E-5"),
        ('#set($s = "a" + 1 + 2)$s', "a12"),
        ("#if(1 + 1 == 2 && 3 > 2 || false)yes#end", "yes"),
        ("#if($count == '3')text-equal#end", "text-equal"),  # different kinds compare as text
        ("#if('' && 0 && $items)all-true#end", "all-true"),  # only null and false are false
        ("#if($flag || $missing)no#{else}false-and-null#end", "false-and-null"),
        ("#if(!$flag)not#end #if(not $flag)not#end", "not not"),
        ("#if($host eq 'r1' and $count gt 2)words#end", "words"),
    ],
)
def test_operators_as_java_and_velocity_have_them(text: str, expected: str) -> None:
    assert render(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$flag $items $obj", 'false [1,2] {"k-1":"v","n":0}'),  # Jackson's printing of the data
        ('#set($l = [1, "a", true])$l #set($m = {"k": [1..2]})$m', "[1, a, true] {k=[1, 2]}"),  # Java's
        (
            "$obj.k-1 ${obj.k-1} $obj.get('k-1') $obj['k-1'] $items[1] $items.get(5)",
            "v v v v 2 $items.get(5)",
        ),
        ("$obj.keySet() $obj.size() $obj.has('n') $obj.containsKey('x')", "[k-1, n] 2 true false"),
        ("#foreach($v in $obj)$v;#end", "v;0;"),  # a map iterates its values, as Jackson's does
        ("#foreach($i in [3..1])$i$foreach.count$velocityCount#end", "311222133"),
        ("#foreach($i in $items)#if($foreach.first)[#end$i#if($foreach.last)]#{else},#end#end", "[1,2]"),
        ("#foreach($i in $items)$foreach.hasNext()$foreach.index #end", "true0 false1 "),
        (
            "#set($l = [])#set($ok = $l.add('a'))$l.add('b')$l $l.contains('a') $l.indexOf('b')",
            "true[a, b] true 1",
        ),
        ("#set($m = {})#set($m.a-b = 1)$m.put('c', 2)$m ${m.a-b}", "$m.put('c', 2){a-b=1, c=2} 1"),
        ("$host.toUpperCase() $host.length() $host.substring(1) $host.replace('1', '2')", "R1 2 1 r2"),
        ("$host.startsWith('r') $host.charAt(0) $host.split('1') $host.empty", "true r [r, ] false"),
        (
            "$count.asText() $count.asInt() $count.asDouble() ${host.asInt()} $flag.asBoolean()",
            "3 3 3.0 0 false",
        ),
        (
            "$StringUtils.join($items, '-') $StringUtils.isBlank('  ') $StringUtils.capitalize($host)",
            "1-2 true R1",
        ),
        ("$StringUtils.substringBefore('a.b', '.') $StringUtils.defaultString($missing, 'd')", "a d"),
        (
            "$BooleanUtils.isTrue($flag) $BooleanUtils.negate($flag) $BooleanUtils.toBoolean('TRUE')",
            "false true true",
        ),
        (
            "$missing $!missing ${missing} ${missing|'alt'} $host.nothing() $occurrence",
            "$missing  ${missing} alt $host.nothing() 2",
        ),
        ("#macro(pair $a $b)$a=$b;#end#pair('x' $host)#pair(1)#nosuch(1)", "x=r1;1=$b;#nosuch(1)"),
        ("#define($block)<$host>#end$block$block", "<r1><r1>"),
        ('#set($a = "x")#set($b = "$a-$host")$b', "x-r1"),
        ("before#stop after", "before"),
        ("#set($tacplus-server = {'tacplus-server-name': 'srv'})$tacplus-server.tacplus-server-name", "srv"),
    ],
)
def test_what_cbas_use(text: str, expected: str) -> None:
    assert render(text, occurrence=2) == expected


@pytest.mark.parametrize(
    "reach",
    [
        "$host.__class__",
        "$host.__class__.__mro__",
        "$host.encode()",
        "$host.format('x')",
        "$host.startswith('r')",
        "$obj.items()",
        "$obj.__dict__",
        "$obj.pop('n')",
        "$items.pop()",
        "$items.append(3)",
        "$items.__getitem__(0)",
        "$StringUtils.methods",
        "$StringUtils.__init__.__globals__",
        "$StringUtils.upperCase.__globals__",
        "$foreach.parent",
        "$count.__add__(1)",
        "$flag.value",
    ],
)
def test_no_context_reaches_what_is_not_listed(reach: str) -> None:
    contexts = [
        f"{reach}",
        f"#set($d = {{'k': {reach}}})$d",
        f"#set($p = ({reach}))$p",
        f"#if({reach})LEAK#end",
        f"#if(false)#elseif({reach})LEAK#end",
        f"#set($s = {reach})$s",
        f"#macro(m $v)[$v]#end#m(({reach}))",
        f"$StringUtils.defaultString(({reach}), 'none')",
        f"#set($l = [{reach}])$l",
        f'#set($i = "{reach}")$i',
        f"#foreach($x in [{reach}])$x#end",
    ]
    for text in contexts:
        output = render(text)
        assert not any(python in output for python in ("LEAK", *PYTHON_TEXT)), (text, output)
    assert render(f"{reach}|" * 2) == f"{reach}|" * 2  # printed as written: it does not resolve
    assert DATA["items"] == [1, 2] and DATA["obj"] == {"k-1": "v", "n": 0}  # nothing changed


def test_nothing_a_render_does_survives_it() -> None:
    template = VelocityTemplate(
        "$!seen|$items|#set($seen = 'set')#set($ok = $items.add(9))#set($obj.n = 5)$obj.n"
        "#define($seen2)x#end",
        "t.vtl",
    )
    data: dict[str, Any] = {"items": [1], "obj": {"n": 0}}
    assert template.render(data, 1) == "|[1]|5"
    assert template.render(data, 1) == "|[1]|5"
    assert data == {"items": [1], "obj": {"n": 0}}
    assert render("$host.toUpperCase()#set($host = 'changed')") == "R1"
    assert render("$host") == "r1"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("x\n#foreach($i in [1..100001])#end", "line 2: a range of more than 100000 numbers"),
        (
            "#foreach($i in [1..1000])#foreach($j in [1..1000])#end#end",
            "line 1: more than 1000000 loop iterations (a macro call counts 10)",
        ),
        (  # a macro calling itself twice: its calls count with the loop's iterations (10 each)
            "#foreach($i in [1..99999])#foreach($j in [1..9])#end#end\n"
            '#macro(m $s)#if($s.length() < 4)#m("${s}x")#m("${s}x")#end#end#m(\'\')',
            "line 2: more than 1000000 loop iterations (a macro call counts 10)",
        ),
        ("#macro(deep $n)#set($k = $n + 1)#deep($k)#end#deep(1)", "macros nested more than 20 deep"),
        ("#define($a)$a#end$a", "macros nested more than 20 deep"),
        ('#set($a = "x")#foreach($i in [1..30])#set($a = "$a$a")#end', "a string longer than 4194304"),
        ('#set($a = "x")#foreach($i in [1..30])#set($a = $a + $a)#end', "a string longer than 4194304"),
        (
            '#set($a = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")'
            '#foreach($i in [1..15])#set($a = "$a$a")#end#foreach($i in [1..100])#set($b = "$a")#end',
            "more than 67108864 characters built",
        ),
        ("#set($x = 2)#foreach($i in [1..13])#set($x = $x * $x)#end", "a number larger than 4096 bits"),
        ("#set($l = [1])#foreach($i in [1..30])#set($ok = $l.addAll($l))#end", "a list longer than"),
        (
            '#set($a = "x")#foreach($i in [1..12])#set($a = "$a$a")#end$a.replace("x", $a)',
            "a string longer than",
        ),
        ("a\nb\n#set($x = 1 / 0)", "line 3: division by zero"),
        ("#set($x = $host - 1)", "- needs two numbers, not string and number"),
        ("#set($x = $items < 1)", "< compares two numbers or two strings, not list and number"),
        ("$host.substring('a')", "substring() of a string failed"),
        ("#foreach($i in [1..$host])#end", "a range's bound is a number, not string 'r1'"),
        ("#set($StringUtils.methods.upperCase = 1)", "$StringUtils.methods is not a map"),
        ("#evaluate('$host')", "line 1: #evaluate is not supported"),
        ("x\n#parse('/etc/passwd')", "line 2: #parse is not supported"),
        ("#include('/etc/passwd')", "#include is not supported"),
        ("#macro(m)a#end#macro(m)b#end", "macro m is defined twice"),
        ("#if($host", "t.vtl: line 1"),
    ],
)
def test_every_bound_and_error_names_the_line_and_the_reason(text: str, reason: str) -> None:
    assert reason in refused(text)


def test_output_is_bounded() -> None:
    text = '#set($a = "x")#foreach($i in [1..20])#set($a = "$a$a")#end#foreach($i in [1..5])$a#end'
    assert "output larger than 4194304 characters" in refused(text)
