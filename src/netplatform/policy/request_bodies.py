"""Request bodies in, plain JSON-safe data out: JSON or YAML, bounded in depth and size.

A body is untrusted text. Before any TOSCA rule looks at it, it is parsed here and rebuilt as
plain dicts, lists, strings, numbers, booleans and None, with these guarantees:

* nesting deeper than :data:`MAX_DEPTH` is refused *before* the YAML composer runs (libyaml's
  composer recurses in C and crashes the process on a very deep flow collection);
* YAML aliases are allowed, but their expansion is bounded: the rebuilt document may hold at
  most :data:`MAX_NODES` values, so a "billion laughs" document is refused after a bounded walk;
* NaN and infinities (PostgreSQL's JSON type refuses them), NUL characters (PostgreSQL text
  refuses them), lone surrogates (not encodable as UTF-8), YAML timestamps and binaries (not
  JSON values) never get through;
* a key repeated in one object is refused (400), except in the maps the caller names, where the
  repeats are kept on a :class:`RepeatedKeys` dict for the caller to judge (the TOSCA duplicate
  rule answers 406 there, or collapses identical repeats).
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection
from typing import Any

import yaml

from ..web.errors import BadRequest
from .media_types import BodyFormat, body_format

MAX_DEPTH = 64
MAX_NODES = 500_000

Path = tuple[str, ...]
ANY_ITEM = "*"
"""The path step that stands for every item of a list."""


class RepeatedKeys(dict[str, Any]):
    """An object whose text repeated some keys: the first value of each key, plus the repeats."""

    def __init__(self) -> None:
        super().__init__()
        self.repeats: list[tuple[str, Any]] = []

    def add(self, key: Any, value: Any) -> None:
        if key in self:
            self.repeats.append((key, value))
        else:
            self[key] = value


def invalid_body(reason: str) -> BadRequest:
    return BadRequest(f"Invalid Body: {reason}")


def decode(
    body: bytes,
    content_type: str | None,
    *,
    yaml_allowed: bool = True,
    repeatable_maps: Collection[Path] = (),
) -> Any:
    """Parse a request body by its Content-Type (JSON when none is given; 415 for other types)."""
    if body_format(content_type, yaml_allowed=yaml_allowed) is BodyFormat.YAML:
        parsed = _parse_yaml(body)
    else:
        parsed = _parse_json(body)
    return _Rebuilder(frozenset(repeatable_maps)).rebuild(parsed)


def _parse_json(body: bytes) -> Any:
    if not body.strip():
        raise invalid_body("the request body is empty")

    def refuse_constant(name: str) -> Any:
        raise ValueError(f"{name} is not a JSON number")

    def keep_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = {key for key, _ in pairs}
        if len(keys) == len(pairs):
            return dict(pairs)
        mapping = RepeatedKeys()
        for key, value in pairs:
            mapping.add(key, value)
        return mapping

    try:
        return json.loads(body, parse_constant=refuse_constant, object_pairs_hook=keep_repeats)
    except RecursionError:
        raise invalid_body(f"nested deeper than {MAX_DEPTH} levels") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise invalid_body(f"malformed JSON: {error}") from None


def _parse_yaml(body: bytes) -> Any:
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise invalid_body(f"YAML must be UTF-8: {error}") from None
    if not text.strip():
        raise invalid_body("the request body is empty")
    try:
        _check_yaml_shape(text)
        documents = list(yaml.load_all(text, Loader=_GuardedLoader))
    except yaml.YAMLError as error:
        raise invalid_body(f"malformed YAML: {error}") from None
    except RecursionError:
        raise invalid_body(f"nested deeper than {MAX_DEPTH} levels") from None
    if len(documents) != 1:
        raise invalid_body("the YAML body must hold exactly one document")
    return documents[0]


def _check_yaml_shape(text: str) -> None:
    """Walk the parser's events (iterative, no composer): refuse deep nesting and huge documents early."""
    depth = 0
    for count, event in enumerate(yaml.parse(text, Loader=_GuardedLoader), start=1):
        if count > MAX_NODES:
            raise invalid_body(f"the document holds more than {MAX_NODES} values")
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise invalid_body(f"nested deeper than {MAX_DEPTH} levels")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _GuardedLoader(_Base):  # type: ignore[misc]
    """SafeLoader that keeps repeated keys, and reads timestamps and binaries as plain strings."""


def _construct_mapping(loader: Any, node: yaml.MappingNode) -> Any:
    mapping = RepeatedKeys()
    yield mapping
    loader.flatten_mapping(node)
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=False)
        if not isinstance(key, str | int | float | bool) and key is not None:
            raise yaml.constructor.ConstructorError(
                None, None, "a mapping key must be a scalar", key_node.start_mark
            )
        mapping.add(key, loader.construct_object(value_node, deep=False))


_GuardedLoader.add_constructor("tag:yaml.org,2002:map", _construct_mapping)
_GuardedLoader.add_constructor("tag:yaml.org,2002:timestamp", yaml.SafeLoader.construct_yaml_str)
_GuardedLoader.add_constructor("tag:yaml.org,2002:binary", yaml.SafeLoader.construct_yaml_str)


class _Rebuilder:
    """Copies parsed data into plain JSON values, counting every value it makes."""

    def __init__(self, repeatable_maps: frozenset[Path]) -> None:
        self.repeatable_maps = repeatable_maps
        self.count = 0

    def rebuild(self, value: Any, path: Path = ()) -> Any:
        self.count += 1
        if self.count > MAX_NODES:
            raise invalid_body(f"the document holds more than {MAX_NODES} values")
        if len(path) > MAX_DEPTH:
            raise invalid_body(f"nested deeper than {MAX_DEPTH} levels")
        if isinstance(value, dict):
            return self._mapping(value, path)
        if isinstance(value, list):
            return [self.rebuild(item, (*path, ANY_ITEM)) for item in value]
        return _scalar(value)

    def _mapping(self, value: dict[Any, Any], path: Path) -> dict[str, Any]:
        repeats = getattr(value, "repeats", [])
        if repeats and path not in self.repeatable_maps:
            raise invalid_body(f'key "{_key(repeats[0][0])}" appears more than once in one object')
        rebuilt: dict[str, Any] = RepeatedKeys() if repeats else {}
        for key, item in value.items():
            name = _key(key)
            rebuilt[name] = self.rebuild(item, (*path, name))
        for key, item in repeats:
            name = _key(key)
            rebuilt.repeats.append((name, self.rebuild(item, (*path, name))))  # type: ignore[attr-defined]
        return rebuilt


def _key(key: Any) -> str:
    return _text(key if isinstance(key, str) else json.dumps(key))


def _text(value: str) -> str:
    """A string the stores and the answer can hold: no NUL, no lone surrogate (JSON allows both)."""
    if "\x00" in value:
        raise invalid_body("NUL characters are not allowed")
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise invalid_body("strings must be valid Unicode (a lone surrogate is not)") from None
    return value


def _scalar(value: Any) -> Any:
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise invalid_body("NaN and infinite numbers are not allowed")
        return value
    if isinstance(value, str):
        return _text(value)
    raise invalid_body(f"unsupported value of type {type(value).__name__}")
