"""Configuration XML: a rendered template read as the content of an ``<edit-config>``, a
datastore's contents made comparable, and the text diff of two of them.

A template holds the children of ``<config>`` (the reference's templates), or a whole
``<config>`` element; any namespace of that element is accepted. The parser resolves no
entities, reads no DTD and fetches nothing.
"""

from __future__ import annotations

import difflib
import re

from lxml import etree

BASE_NS = "urn:ietf:params:xml:ns:netconf:base:1.0"
_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")
_PARSER = etree.XMLParser(
    resolve_entities=False, no_network=True, load_dtd=False, remove_comments=True, remove_pis=True
)


class ConfigError(ValueError):
    """A rendered template that is not configuration XML."""


def config_element(text: str) -> etree._Element:
    """``<config>`` (base namespace) holding the template's elements."""
    body = _DECLARATION.sub("", text, count=1)
    if "<!DOCTYPE" in body or "<!ENTITY" in body:
        raise ConfigError("the rendered configuration may not carry a DOCTYPE or entities")
    try:
        wrapper = etree.fromstring(f"<wrapper>{body}</wrapper>".encode(), _PARSER)
    except etree.XMLSyntaxError as error:
        raise ConfigError(f"the rendered configuration is not XML: {error}") from None
    if (wrapper.text or "").strip():
        raise ConfigError("the rendered configuration has text outside its elements")
    children = list(wrapper)
    if len(children) == 1 and etree.QName(children[0]).localname == "config":
        children = list(children[0])
    if not children:
        raise ConfigError("the rendered configuration holds no element")
    config = etree.Element(f"{{{BASE_NS}}}config", nsmap={None: BASE_NS})
    for child in children:
        child.tail = None
        config.append(child)
    return config


def config_text(config: etree._Element) -> str:
    return str(etree.tostring(config, encoding="unicode"))


def data_element(data_xml: str) -> etree._Element:
    """The ``<data>`` of a get-config reply, whitespace between elements removed."""
    root = etree.fromstring(data_xml.encode(), _PARSER)
    _strip(root)
    return root


def _strip(element: etree._Element) -> None:
    if len(element):
        if element.text is not None and not element.text.strip():
            element.text = None
        for child in element:
            _strip(child)
            if child.tail is not None and not child.tail.strip():
                child.tail = None
    elif element.text is not None:
        element.text = element.text.strip()


def pretty(data: etree._Element) -> str:
    """The children of ``<data>`` or ``<config>``, indented, each with its namespaces."""
    parts = []
    for child in data:
        copy = etree.fromstring(etree.tostring(child))
        # prefixes used in values (identityrefs) keep their declarations
        used = {e.text.partition(":")[0] for e in copy.iter() if e.text and ":" in e.text and not len(e)}
        etree.cleanup_namespaces(copy, keep_ns_prefixes=sorted(used))
        _strip(copy)
        parts.append(etree.tostring(copy, pretty_print=True, encoding="unicode"))
    return "".join(parts)


def same(first: etree._Element, second: etree._Element) -> bool:
    """Whether two datastore contents (``<data>`` or ``<config>``) hold the same configuration
    (namespace prefixes aside)."""
    return [_canonical(child) for child in first] == [_canonical(child) for child in second]


def _canonical(element: etree._Element) -> tuple[object, ...]:
    text = (element.text or "").strip() if not len(element) else ""
    if ":" in text and element.nsmap:  # an identityref: compare its namespace, not its prefix
        prefix, _, local = text.partition(":")
        namespace = element.nsmap.get(prefix)
        if namespace is not None:
            text = f"{{{namespace}}}{local}"
    attributes = tuple(sorted((str(k), str(v)) for k, v in element.attrib.items()))
    return (element.tag, text, attributes, tuple(_canonical(child) for child in element))


def contains(running: etree._Element, sent: etree._Element) -> bool:
    """Whether every element ``sent`` merges (operation attributes aside) is in ``running``: the
    read-back of a device edited without a candidate, whose result cannot be read first."""
    return all(
        _found(child, list(running)) for child in sent if _operation(child) not in ("delete", "remove")
    )


def _operation(element: etree._Element) -> str | None:
    value = element.get(f"{{{BASE_NS}}}operation")
    return None if value is None else str(value)


def _found(sent: etree._Element, candidates: list[etree._Element]) -> bool:
    for candidate in candidates:
        if candidate.tag != sent.tag:
            continue
        if not len(sent):
            if _canonical(candidate)[1] == _canonical(sent)[1]:
                return True
            continue
        children = list(candidate)
        if all(_found(child, children) for child in sent if _operation(child) not in ("delete", "remove")):
            return True
    return False


def diff(before: etree._Element, after: etree._Element, before_name: str, after_name: str) -> str:
    """A unified text diff of two datastore contents ('' when they are the same)."""
    lines = difflib.unified_diff(
        pretty(before).splitlines(), pretty(after).splitlines(), before_name, after_name, lineterm=""
    )
    return "\n".join(lines)
