"""Stored text (config snapshots, resolved templates) rendered in the format a client asks for.

``format`` names a media type; a bare word gets ``application/`` in front (``xml`` ->
``application/xml``). Plain text is the stored text verbatim; JSON asked for as XML (and XML as
JSON) is really converted, and text that is neither cannot be, which is a 406.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Any

from ..web.errors import BadRequest, NotAcceptable

TEXT = "text/plain"
JSON = "application/json"
XML = "application/xml"
SUPPORTED = (TEXT, JSON, XML)
FORMAT_WORDS = (*SUPPORTED, "json", "xml")
"""What ``format`` may say, in any case."""
XML_ROOT = "root"
_XML_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9._-]*$")


@dataclass(frozen=True)
class FormattedText:
    """Stored text as a client asked for it, and the media type to answer it as."""

    text: str
    media_type: str


def media_type_of(format_: str) -> str:
    value = format_.lower()
    media_type = value if "/" in value else f"application/{value}"
    if media_type not in SUPPORTED:
        raise BadRequest(f"format ({format_}) is not one of {', '.join(SUPPORTED)}")
    return media_type


def rendered(text: str, media_type: str, what: str) -> str:
    """``text`` in ``media_type``, converting between JSON and XML when it is the other one."""
    if media_type == TEXT:
        return text
    try:
        return _converted(text, media_type, what)
    except RecursionError:
        raise NotAcceptable(f"{what} nests too deeply to be converted to {media_type}") from None


def _converted(text: str, media_type: str, what: str) -> str:
    document = _as_json(text)
    if media_type == JSON:
        if document is not _NOT_JSON:
            return text
        element = _as_xml(text)
        if element is not None:
            return json.dumps({_local_name(element.tag): _element_value(element)}, separators=(",", ":"))
    else:
        if _as_xml(text) is not None:
            return text
        if document is not _NOT_JSON:
            converted = _json_to_xml(document)
            if converted is not None:
                return converted
    raise NotAcceptable(f"{what} cannot be converted to {media_type}")


_NOT_JSON = object()


def _as_json(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return _NOT_JSON


def _as_xml(text: str) -> ET.Element | None:
    stripped = text.lstrip()
    if not stripped.startswith("<") or "<!DOCTYPE" in stripped.upper():
        return None  # no DTDs: entity expansion is not ours to run
    try:
        return ET.fromstring(stripped)  # noqa: S314 - documents with a DTD never get here
    except ET.ParseError:
        return None


def _local_name(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _element_value(element: ET.Element) -> Any:
    children = list(element)
    text = "".join([element.text or "", *(child.tail or "" for child in children)]).strip()
    if not children and not element.attrib:
        return text or None
    value: dict[str, Any] = {f"@{_local_name(k)}": v for k, v in element.attrib.items()}
    for child in children:
        name = _local_name(child.tag)
        child_value = _element_value(child)
        if name not in value:
            value[name] = child_value
        elif isinstance(value[name], list):
            value[name].append(child_value)
        else:
            value[name] = [value[name], child_value]
    if text:
        value["#text"] = text
    return value


def _json_to_xml(document: Any) -> str | None:
    """One top-level key becomes the root element; anything else goes under ``<root>``."""
    try:
        if isinstance(document, dict) and len(document) == 1:
            name, content = next(iter(document.items()))
            parent = ET.Element("wrapper")
            _append(parent, name, content)
            root = parent[0]
        else:
            root = ET.Element(XML_ROOT)
            _fill(root, document)
    except ValueError:
        return None
    return ET.tostring(root, encoding="unicode")


def _append(parent: ET.Element, name: str, value: Any) -> None:
    if not _XML_NAME.match(name) or name.lower().startswith("xml"):
        raise ValueError(name)
    if isinstance(value, list):
        for item in value:
            _append(parent, name, item)
        return
    _fill(ET.SubElement(parent, name), value)


def _fill(element: ET.Element, value: Any) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _append(element, str(key), item)
    elif isinstance(value, list):
        for item in value:
            _append(element, "item", item)
    elif isinstance(value, bool):
        element.text = "true" if value else "false"
    elif value is not None:
        element.text = str(value)
