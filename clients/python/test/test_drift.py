"""The client's response types (TypedDicts) against the OpenAPI document a live server publishes at
/v1/openapi.json: every property of a schema is a key of the type and every key of the type is a
property of the schema, recursively through nested TypedDicts, lists and Optional. A field added
to the API but not to the client (or a client key the API does not have) fails here."""

from __future__ import annotations

import json
import typing
import unittest
import urllib.request
from typing import Any, Dict, List, Optional, Tuple

from canopy_serve import CanopyServe

from canopy import (
    Account,
    Asset,
    BoundaryVersion,
    BoundaryVersionSummary,
    DeliveryLog,
    ErrorDetail,
    Event,
    Import,
    ImportFeatureResult,
    ListMeta,
    Member,
    OverlapReport,
    Point,
    Polygon,
    Project,
    ProjectOverlap,
    ProjectOverlapEventData,
    TokenInfo,
    Usage,
    Webhook,
)

Schema = Dict[str, Any]

# (schema in components.schemas, property path inside it, the client's type)
CASES: List[Tuple[str, Tuple[str, ...], Any]] = [
    ("GeoJsonPoint", (), Point),
    ("GeoJsonPolygon", (), Polygon),
    ("Project", (), Project),
    ("ProjectOverlap", (), ProjectOverlap),
    ("OverlapReport", (), OverlapReport),
    ("Asset", (), Asset),
    ("Member", (), Member),
    ("Account", (), Account),
    ("UsageStatistics", (), Usage),
    ("Webhook", (), Webhook),
    ("DeliveryLog", (), DeliveryLog),
    ("Event", (), Event),
    ("ProjectOverlapDetectedEventData", (), ProjectOverlapEventData),
    ("Verification", (), TokenInfo),
    ("ListMeta", (), ListMeta),
    ("BoundaryVersionSummary", (), BoundaryVersionSummary),
    ("BoundaryVersion", (), BoundaryVersion),
    ("Import", (), Import),
    ("ImportFeatureResult", (), ImportFeatureResult),
    ("Error", ("error", "details"), ErrorDetail),
]


def resolve(schemas: Dict[str, Schema], schema: Optional[Schema]) -> Optional[Schema]:
    """Follows ``$ref`` and, for anyOf/oneOf, the one branch that is an object or array (None when
    there are none or several, e.g. a Polygon-or-MultiPolygon geometry)."""
    for _ in range(16):
        if schema is None:
            return None
        ref = schema.get("$ref")
        if isinstance(ref, str):
            schema = schemas.get(ref.rsplit("/", 1)[-1])
            continue
        if "properties" in schema or "items" in schema:
            return schema
        branches: List[Schema] = [*schema.get("anyOf", []), *schema.get("oneOf", [])]
        found = [r for r in (resolve(schemas, b) for b in branches) if r is not None]
        return found[0] if len(found) == 1 else None
    return None


def is_typed_dict(tp: Any) -> bool:
    return hasattr(tp, "__required_keys__") and isinstance(tp, type) and issubclass(tp, dict)


def unwrap(hint: Any) -> Tuple[Any, int]:
    """The one TypedDict inside Optional[...] and List[...] (with how many lists), else (None, 0)."""
    lists = 0
    for _ in range(8):
        if is_typed_dict(hint):
            return hint, lists
        origin = typing.get_origin(hint)
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if origin is list and len(args) == 1:
            lists += 1
            hint = args[0]
        elif origin is typing.Union and len(args) == 1:
            hint = args[0]
        else:
            return None, 0
    return None, 0


def compare(schemas: Dict[str, Schema], path: str, tp: Any, schema: Optional[Schema], problems: List[str]) -> None:
    """Appends to ``problems`` the differences between the TypedDict ``tp`` and ``schema``."""
    resolved = resolve(schemas, schema)
    if resolved is None:
        problems.append(f"{path}: not an object in the OpenAPI document")
        return
    props: Dict[str, Schema] = resolved.get("properties", {})
    hints: Dict[str, Any] = typing.get_type_hints(tp)
    for name in props:
        if name not in hints:
            problems.append(f"{path}.{name}: in the OpenAPI document, not in {tp.__name__}")
    for name, hint in hints.items():
        if name not in props:
            problems.append(f"{path}.{name}: in {tp.__name__}, not in the OpenAPI document")
            continue
        inner, lists = unwrap(hint)
        if inner is None:
            continue
        prop: Optional[Schema] = props[name]
        for _ in range(lists):
            prop = resolve(schemas, prop)
            prop = None if prop is None else prop.get("items")
        compare(schemas, f"{path}.{name}", inner, prop, problems)


def at_path(schemas: Dict[str, Schema], schema: Optional[Schema], path: Tuple[str, ...]) -> Optional[Schema]:
    """The schema at a property path (through objects, and the items of arrays)."""
    for name in path:
        resolved = resolve(schemas, schema)
        if resolved is not None and "items" in resolved:
            resolved = resolve(schemas, resolved["items"])
        schema = None if resolved is None else resolved.get("properties", {}).get(name)
    resolved = resolve(schemas, schema)
    if resolved is not None and "items" in resolved:
        return resolved["items"]
    return schema


class DriftTest(unittest.TestCase):
    def test_types_match_the_openapi_document(self) -> None:
        server = CanopyServe()
        try:
            with urllib.request.urlopen(server.url + "/v1/openapi.json", timeout=30) as response:
                document: Dict[str, Any] = json.loads(response.read())
        finally:
            server.stop()
        schemas: Dict[str, Schema] = document["components"]["schemas"]
        problems: List[str] = []
        for name, path, tp in CASES:
            label = ".".join((name, *path))
            compare(schemas, label, tp, at_path(schemas, schemas.get(name), path), problems)
        self.assertEqual(sorted(problems), [], "the Python types drifted from the OpenAPI document")

    def test_the_comparison_finds_missing_and_extra_keys(self) -> None:
        schemas: Dict[str, Schema] = {"Inner": {"type": "object", "properties": {"a": {}, "b": {}}}}
        schema: Schema = {"type": "object", "properties": {
            "id": {"type": "string"},
            "inner": {"anyOf": [{"type": "array", "items": {"$ref": "#/components/schemas/Inner"}}, {"type": "null"}]},
        }}
        problems: List[str] = []
        compare(schemas, "T", _Outer, schema, problems)
        self.assertEqual(sorted(problems), [
            "T.extra: in _Outer, not in the OpenAPI document",
            "T.inner.b: in the OpenAPI document, not in _Inner",
            "T.inner.c: in _Inner, not in the OpenAPI document",
        ])


class _Inner(typing.TypedDict):
    a: str
    c: str


class _Outer(typing.TypedDict):
    id: str
    inner: Optional[List[_Inner]]
    extra: int


if __name__ == "__main__":
    unittest.main()
