"""Project-side resource namespaces: ``client.projects``, ``client.assets``, ``client.boundaries``,
``client.imports``, and what every namespace shares (``Resource``, the path and query helpers); the
account side is in ``_account_resources``.

Methods answer the ``data`` of the API's envelope (a ``TypedDict``), a :class:`~canopy.Page` for lists,
or ``None`` for ``204 No Content``. In ``update`` methods an argument left out is not sent, and
``None`` is sent as JSON ``null`` (to clear a description, say).
"""

from __future__ import annotations

import json
import urllib.parse
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union, cast

from ._base import NOT_GIVEN, NotGiven, Page, Response, Transport
from ._types import (
    Asset,
    BoundaryVersion,
    BoundaryVersionSummary,
    Import,
    ListMeta,
    Project,
    ProjectOverlap,
    QueryValue,
)

__all__ = ["Projects", "Assets", "Boundaries", "Imports"]

Geometry = Mapping[str, Any]


def seg(value: str) -> str:
    if not value:
        raise ValueError("an id is required")
    return urllib.parse.quote(value, safe="")


BBox = Union[str, Tuple[float, float, float, float], Sequence[float]]


def _bbox(value: Optional[BBox]) -> Optional[str]:
    """The ``bbox`` query value: ``"west,south,east,north"`` from a string or four numbers."""
    if value is None or isinstance(value, str):
        return value
    numbers = list(value)
    if len(numbers) != 4:
        raise ValueError("bbox takes four numbers: west, south, east, north")
    return ",".join(repr(float(n)) for n in numbers)


Intersects = Union[str, Mapping[str, Any]]
"""A GeoJSON Point, Polygon or MultiPolygon: a mapping (sent as compact JSON) or its JSON text."""


def _intersects(value: Optional[Intersects]) -> Optional[str]:
    """The ``intersects`` query value: compact GeoJSON from a mapping, or a string as it is."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def clean(fields: Mapping[str, object]) -> Dict[str, Any]:
    return {k: v for k, v in fields.items() if not isinstance(v, NotGiven)}


def _data(resp: Response) -> Any:
    body: Any = resp.body
    if isinstance(body, dict):
        envelope = cast(Dict[str, Any], body)
        return envelope["data"] if "data" in envelope else envelope
    return resp.body


class Resource:
    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def _get(self, path: str, query: Optional[Mapping[str, QueryValue]] = None) -> Any:
        return _data(self._t.request("GET", path, query=query))

    def _post(self, path: str, body: Optional[Mapping[str, Any]] = None, idempotency_key: Optional[str] = None) -> Any:
        return _data(self._t.request("POST", path, body=body, idempotency_key=idempotency_key))

    def _put(self, path: str, body: Mapping[str, Any]) -> Any:
        return _data(self._t.request("PUT", path, body=body))

    def _delete(self, path: str) -> None:
        self._t.request("DELETE", path)

    def _list(self, path: str, query: Mapping[str, QueryValue]) -> Page[Any]:
        resp = self._t.request("GET", path, query=query)
        raw: Any = resp.body
        body: Dict[str, Any] = cast(Dict[str, Any], raw) if isinstance(raw, dict) else {}
        data = cast(List[Any], body.get("data") or [])
        meta = cast(ListMeta, body.get("meta") or {"total": len(data)})

        def fetch(cursor: str) -> Page[Any]:
            # The next page: same filters, sort and order; the cursor replaces the page number.
            following: Dict[str, QueryValue] = {k: v for k, v in query.items() if k not in ("page", "cursor")}
            following["cursor"] = cursor
            return self._list(path, following)

        return Page(data, meta, fetch)


class Projects(Resource):
    """Projects: GeoJSON boundaries with a computed area in hectares."""

    def list(
        self,
        *,
        page: Optional[int] = None,
        per_page: Optional[int] = None,
        cursor: Optional[str] = None,
        status: Optional[str] = None,
        search: Optional[str] = None,
        bbox: Optional[BBox] = None,
        intersects: Optional[Intersects] = None,
        sort: Optional[str] = None,
        order: Optional[str] = None,
    ) -> Page[Project]:
        """One page of projects (``per_page`` at most 100). Use ``.auto_paging_iter()`` or
        :meth:`list_all` to walk them all.

        ``bbox`` (``(west, south, east, north)`` in degrees, or that as a comma-separated string)
        keeps the projects whose bounding box shares at least one point with the box.

        ``intersects`` (a GeoJSON mapping, sent as compact JSON, or its JSON text) is tested
        exactly against the boundaries: a ``Point`` keeps the projects whose boundary covers it
        (inside or on an edge, not in a hole), a ``Polygon`` or ``MultiPolygon`` (at most 1,000
        positions) those sharing area with it. One request tests at most 500 candidates, so a
        page may hold fewer rows than ``per_page``, even none, while ``has_more`` is true: walk
        it by cursor (``auto_paging_iter``, :meth:`list_all`); ``page`` > 1 is refused."""
        query: Dict[str, QueryValue] = {
            "page": page, "per_page": per_page, "cursor": cursor, "status": status,
            "search": search, "bbox": _bbox(bbox), "intersects": _intersects(intersects),
            "sort": sort, "order": order,
        }
        return cast(Page[Project], self._list("/projects", query))

    def list_all(
        self,
        *,
        per_page: Optional[int] = 100,
        status: Optional[str] = None,
        search: Optional[str] = None,
        bbox: Optional[BBox] = None,
        intersects: Optional[Intersects] = None,
        sort: Optional[str] = None,
        order: Optional[str] = None,
    ) -> Iterator[Project]:
        """Every matching project, fetching pages (by cursor) as the iteration goes, across
        pages that hold no rows while ``has_more`` is true (see :meth:`list`)."""
        return self.list(
            per_page=per_page, status=status, search=search, bbox=bbox, intersects=intersects, sort=sort, order=order,
        ).auto_paging_iter()

    def get(self, project_id: str) -> Project:
        return cast(Project, self._get(f"/projects/{seg(project_id)}"))

    def create(
        self,
        name: str,
        *,
        description: Optional[str] = None,
        geometry: Optional[Geometry] = None,
        status: Optional[str] = None,
        slug: Optional[str] = None,
        idempotency_key: Optional[str] = None,
    ) -> Project:
        """Creates a project; ``geometry`` is a GeoJSON Polygon (a closed ring of at least 4 positions).

        With a boundary the answer carries ``overlaps`` (other projects of the account sharing area
        with it); under the account's ``overlap_policy="reject"`` an overlap raises
        :class:`~canopy.ConflictError` and nothing is stored."""
        body = clean({
            "name": name,
            "description": description if description is not None else NOT_GIVEN,
            "geometry": geometry if geometry is not None else NOT_GIVEN,
            "status": status if status is not None else NOT_GIVEN,
            "slug": slug if slug is not None else NOT_GIVEN,
        })
        return cast(Project, self._post("/projects", body, idempotency_key))

    def update(
        self,
        project_id: str,
        *,
        name: Union[str, NotGiven] = NOT_GIVEN,
        description: Union[str, None, NotGiven] = NOT_GIVEN,
        geometry: Union[Geometry, None, NotGiven] = NOT_GIVEN,
        status: Union[str, NotGiven] = NOT_GIVEN,
        slug: Union[str, NotGiven] = NOT_GIVEN,
    ) -> Project:
        body = clean({"name": name, "description": description, "geometry": geometry, "status": status, "slug": slug})
        return cast(Project, self._put(f"/projects/{seg(project_id)}", body))

    def archive(self, project_id: str, *, idempotency_key: Optional[str] = None) -> Project:
        return cast(Project, self._post(f"/projects/{seg(project_id)}/archive", None, idempotency_key))

    def restore(self, project_id: str, *, idempotency_key: Optional[str] = None) -> Project:
        return cast(Project, self._post(f"/projects/{seg(project_id)}/restore", None, idempotency_key))

    def overlaps(
        self, project_id: str, *, page: Optional[int] = None, per_page: Optional[int] = None, cursor: Optional[str] = None,
    ) -> Page[ProjectOverlap]:
        """One page of the account's other active and draft projects sharing area with this one,
        with the shared hectares, by name. A page may hold fewer rows than ``per_page``, even none,
        while ``has_more`` is true: walk it by cursor (``auto_paging_iter``, :meth:`overlaps_all`)."""
        query: Dict[str, QueryValue] = {"page": page, "per_page": per_page, "cursor": cursor}
        return cast(Page[ProjectOverlap], self._list(f"/projects/{seg(project_id)}/overlaps", query))

    def overlaps_all(self, project_id: str, *, per_page: Optional[int] = 100) -> Iterator[ProjectOverlap]:
        """Every project sharing area with this one, fetching pages (by cursor) as the iteration goes."""
        return self.overlaps(project_id, per_page=per_page).auto_paging_iter()

    def delete(self, project_id: str) -> None:
        """Deletes an archived project (an active one is refused with :class:`~canopy.ConflictError`)."""
        self._delete(f"/projects/{seg(project_id)}")


class Assets(Resource):
    """Assets of a project: equipment, monitoring stations, points of interest..."""

    def list(
        self,
        project_id: str,
        *,
        page: Optional[int] = None,
        per_page: Optional[int] = None,
        cursor: Optional[str] = None,
        type: Optional[str] = None,
        status: Optional[str] = None,
        search: Optional[str] = None,
    ) -> Page[Asset]:
        query: Dict[str, QueryValue] = {
            "page": page, "per_page": per_page, "cursor": cursor, "type": type, "status": status, "search": search,
        }
        return cast(Page[Asset], self._list(f"/projects/{seg(project_id)}/assets", query))

    def list_all(
        self,
        project_id: str,
        *,
        per_page: Optional[int] = 100,
        type: Optional[str] = None,
        status: Optional[str] = None,
        search: Optional[str] = None,
    ) -> Iterator[Asset]:
        return self.list(project_id, per_page=per_page, type=type, status=status, search=search).auto_paging_iter()

    def get(self, project_id: str, asset_id: str) -> Asset:
        return cast(Asset, self._get(f"/projects/{seg(project_id)}/assets/{seg(asset_id)}"))

    def create(
        self,
        project_id: str,
        *,
        name: str,
        type: str,
        location: Optional[Geometry] = None,
        status: Optional[str] = None,
        metadata: Optional[Mapping[str, Any]] = None,
        idempotency_key: Optional[str] = None,
    ) -> Asset:
        """Creates an asset; ``location`` is a GeoJSON Point ``[longitude, latitude]``."""
        body = clean({
            "name": name,
            "type": type,
            "location": location if location is not None else NOT_GIVEN,
            "status": status if status is not None else NOT_GIVEN,
            "metadata": metadata if metadata is not None else NOT_GIVEN,
        })
        return cast(Asset, self._post(f"/projects/{seg(project_id)}/assets", body, idempotency_key))

    def update(
        self,
        project_id: str,
        asset_id: str,
        *,
        name: Union[str, NotGiven] = NOT_GIVEN,
        type: Union[str, NotGiven] = NOT_GIVEN,
        location: Union[Geometry, None, NotGiven] = NOT_GIVEN,
        status: Union[str, NotGiven] = NOT_GIVEN,
        metadata: Union[Mapping[str, Any], NotGiven] = NOT_GIVEN,
    ) -> Asset:
        body = clean({"name": name, "type": type, "location": location, "status": status, "metadata": metadata})
        return cast(Asset, self._put(f"/projects/{seg(project_id)}/assets/{seg(asset_id)}", body))

    def delete(self, project_id: str, asset_id: str) -> None:
        self._delete(f"/projects/{seg(project_id)}/assets/{seg(asset_id)}")


class Boundaries(Resource):
    """A project's boundary history: every change is a numbered version (the newest 50 are kept)."""

    def list(
        self, project_id: str, *, page: Optional[int] = None, per_page: Optional[int] = None, cursor: Optional[str] = None,
    ) -> Page[BoundaryVersionSummary]:
        """One page of versions (who, when, how, hectares before and after), without the boundaries."""
        query: Dict[str, QueryValue] = {"page": page, "per_page": per_page, "cursor": cursor}
        return cast(Page[BoundaryVersionSummary], self._list(f"/projects/{seg(project_id)}/boundaries", query))

    def list_all(self, project_id: str, *, per_page: Optional[int] = 100) -> Iterator[BoundaryVersionSummary]:
        """Every version, fetching pages (by cursor) as the iteration goes."""
        return self.list(project_id, per_page=per_page).auto_paging_iter()

    def get(self, project_id: str, version: int) -> BoundaryVersion:
        """One version, with its boundary."""
        return cast(BoundaryVersion, self._get(f"/projects/{seg(project_id)}/boundaries/{seg(str(version))}"))

    def restore(self, project_id: str, version: int, *, idempotency_key: Optional[str] = None) -> Project:
        """Sets the boundary back to a version's (a boundary update: plan limits and overlaps apply,
        and the restore becomes a new version); answers the project."""
        path = f"/projects/{seg(project_id)}/boundaries/{seg(str(version))}/restore"
        return cast(Project, self._post(path, None, idempotency_key))


class Imports(Resource):
    """Bulk imports: a GIS file's features become projects, in the background."""

    def create(
        self,
        file: bytes,
        *,
        content_type: str = "application/geo+json",
        mode: Optional[str] = None,
        name_field: Optional[str] = None,
        description_field: Optional[str] = None,
        dry_run: Optional[bool] = None,
        name: Optional[str] = None,
        idempotency_key: Optional[str] = None,
    ) -> Import:
        """Sends the file (its bytes, with its media type: GeoJSON, KML, KMZ, zipped Shapefile or
        GeoPackage); answers the import, ``running`` (or ``completed`` for ``dry_run=True``, a
        preview that stores nothing). Follow it with :meth:`get`. ``mode`` is ``per_feature`` (the
        default: each feature its own project, named from ``name_field``) or ``merge`` (one project
        named ``name``). A file that cannot be read raises :class:`~canopy.ValidationError`."""
        query: Dict[str, QueryValue] = {
            "mode": mode, "name_field": name_field, "description_field": description_field,
            "dry_run": dry_run, "name": name,
        }
        resp = self._t.request("POST", "/imports", query=query, content=(file, content_type), idempotency_key=idempotency_key)
        return cast(Import, _data(resp))

    def get(self, import_id: str, *, results_after: Optional[int] = None, results_per_page: Optional[int] = None) -> Import:
        """Status, progress, totals and a page of per-feature results (pass ``next_results_after``
        as ``results_after`` for the next page)."""
        query: Dict[str, QueryValue] = {"results_after": results_after, "results_per_page": results_per_page}
        return cast(Import, self._get(f"/imports/{seg(import_id)}", query))

    def cancel(self, import_id: str, *, idempotency_key: Optional[str] = None) -> Import:
        """Stops a running import (the projects created stay); one that has ended raises
        :class:`~canopy.ConflictError`."""
        return cast(Import, self._post(f"/imports/{seg(import_id)}/cancel", None, idempotency_key))
