"""Shapes of the API's resources, as ``TypedDict`` s (the JSON objects the API answers).

Optional keys use the ``total=False`` base-class pattern (``NotRequired`` needs Python 3.11).
Values the API may add later are kept: these are plain dicts.
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, TypedDict, Union

__all__ = [
    "ErrorDetail",
    "Polygon",
    "Point",
    "Geometry",
    "ProjectStatus",
    "ProjectOverlap",
    "OverlapReport",
    "Project",
    "AssetType",
    "AssetStatus",
    "Asset",
    "Role",
    "Member",
    "AccountUsage",
    "OverlapPolicy",
    "Account",
    "Usage",
    "Webhook",
    "DeliveryLog",
    "EventAccount",
    "Event",
    "OverlapEventProject",
    "ProjectOverlapEventData",
    "TokenInfo",
    "BoundaryChangedBy",
    "BoundaryVersionSummary",
    "BoundaryVersion",
    "ImportStatus",
    "ImportMode",
    "ImportFile",
    "ImportProgress",
    "ImportTotals",
    "ImportFeatureResult",
    "Import",
    "ListMeta",
    "EventType",
]

ProjectStatus = Literal["active", "archived", "draft"]
AssetType = Literal["equipment", "monitoring_station", "point_of_interest", "sensor", "other"]
AssetStatus = Literal["active", "inactive", "maintenance", "retired"]
Role = Literal["owner", "admin", "editor", "viewer"]
#: ``warn``: writes succeed and report overlaps (and emit ``project.overlap_detected``); ``reject``: a
#: write whose boundary overlaps another active or draft project is refused (``ConflictError``, 409).
OverlapPolicy = Literal["warn", "reject"]
EventType = Literal[
    "project.created",
    "project.updated",
    "project.deleted",
    "project.archived",
    "project.restored",
    "asset.created",
    "asset.updated",
    "asset.deleted",
    "asset.status_changed",
    "member.invited",
    "member.joined",
    "member.updated",
    "member.removed",
    "subscription.created",
    "subscription.updated",
    "subscription.canceled",
    "invoice.paid",
    "invoice.failed",
    "usage.threshold_reached",
    "usage.limit_exceeded",
    "project.overlap_detected",
    "import.completed",
    "*",
]


class ErrorDetail(TypedDict):
    field: str
    message: str


class Polygon(TypedDict):
    """GeoJSON Polygon: rings of ``[longitude, latitude]`` positions, each ring closed."""

    type: Literal["Polygon"]
    coordinates: List[List[List[float]]]


class Point(TypedDict):
    """GeoJSON Point: ``[longitude, latitude]``."""

    type: Literal["Point"]
    coordinates: List[float]


Geometry = Dict[str, Any]


class ProjectOverlap(TypedDict):
    """Another project of the account whose boundary overlaps this one."""

    project_id: str
    name: str
    #: The shared area in geodesic hectares, 4 decimals.
    overlap_hectares: float


class OverlapReport(TypedDict):
    #: Largest first.
    overlaps: List[ProjectOverlap]
    #: False when not every nearby project was compared (too many, or the time budget ran out).
    complete: bool


class _ProjectBase(TypedDict):
    id: str
    name: str
    slug: str
    description: Optional[str]
    geometry: Optional[Geometry]
    area_hectares: float
    bbox: Optional[List[float]]
    status: ProjectStatus
    created_at: str
    updated_at: str


class Project(_ProjectBase, total=False):
    #: In the answer of a write (create, update, restore, import, boundary) that set, changed or
    #: restored a boundary: the account's other active and draft projects sharing at least
    #: 0.0001 ha with it. Absent on reads and on writes that left the boundary alone.
    overlaps: OverlapReport


class Asset(TypedDict):
    id: str
    project_id: str
    name: str
    type: AssetType
    location: Optional[Geometry]
    status: AssetStatus
    metadata: Dict[str, Any]
    created_at: str
    updated_at: str


class Member(TypedDict):
    id: str
    email: str
    name: Optional[str]
    role: Role
    permissions: List[str]
    status: Literal["active", "invited"]
    joined_at: Optional[str]
    last_active_at: Optional[str]


class AccountUsage(TypedDict):
    hectares: float
    projects: int
    members: int


class Account(TypedDict):
    id: str
    name: str
    slug: str
    type: str
    plan: Literal["free", "pro", "enterprise"]
    overlap_policy: OverlapPolicy
    usage: AccountUsage
    created_at: str


class UsagePeriod(TypedDict):
    start: str
    end: str


class UsageHectares(TypedDict):
    current: float
    limit: float
    percentage: float


class UsageProjects(TypedDict):
    active: int
    archived: int
    total: int


class UsageCounter(TypedDict):
    current: int
    limit: int


class Usage(TypedDict):
    period: UsagePeriod
    hectares: UsageHectares
    projects: UsageProjects
    members: UsageCounter
    api_requests: UsageCounter


class _WebhookBase(TypedDict):
    id: str
    url: str
    events: List[str]
    description: Optional[str]
    enabled: bool
    disabled_reason: Optional[str]
    disabled_at: Optional[str]
    created_at: str
    updated_at: str


class Webhook(_WebhookBase, total=False):
    #: The signing secret: answered only by ``webhooks.create``.
    secret: str


class DeliveryLog(TypedDict):
    id: str
    event_id: str
    event_type: str
    status: Literal["success", "failed", "pending", "canceled"]
    attempt: int
    response_code: Optional[int]
    response_time_ms: Optional[int]
    error: Optional[str]
    error_class: Optional[str]
    delivered_at: Optional[str]
    next_retry_at: Optional[str]


class EventAccount(TypedDict):
    id: str
    name: str


class Event(TypedDict):
    """A webhook/event envelope."""

    id: str
    type: str
    created_at: str
    data: Dict[str, Any]
    account: EventAccount


class OverlapEventProject(TypedDict):
    id: str
    name: str
    slug: str
    area_hectares: float
    status: ProjectStatus


class ProjectOverlapEventData(TypedDict):
    """The ``data`` of a ``project.overlap_detected`` event."""

    project: OverlapEventProject
    overlaps: List[ProjectOverlap]
    complete: bool


class TokenInfo(TypedDict):
    """``GET /auth/verify``."""

    valid: bool
    type: Literal["api_key", "service_token", "oauth"]
    permissions: List[str]
    account_id: str
    expires_at: Optional[str]


class BoundaryChangedBy(TypedDict):
    #: ``api_key``, ``service_token``, ``oauth``, ``member`` (the dashboard) or ``system``.
    kind: str
    user_id: Optional[str]
    credential_id: Optional[str]


class BoundaryVersionSummary(TypedDict):
    """One change of a project's boundary (``boundaries.list``), without the boundary itself."""

    #: 1, 2, 3... per project, in the order the boundary changed.
    version: int
    project_id: str
    area_hectares_before: float
    area_hectares_after: float
    #: ``initial``, ``create``, ``import``, ``update``, ``boundary_file``, ``dashboard``,
    #: ``dashboard_file`` or ``version_restore``.
    via: str
    file_format: Optional[str]
    #: The version a ``version_restore`` brought back.
    restored_from: Optional[int]
    changed_by: Optional[BoundaryChangedBy]
    created_at: str


class BoundaryVersion(BoundaryVersionSummary):
    """One version of a project's boundary (``boundaries.get``), with its geometry."""

    geometry: Optional[Geometry]
    bbox: Optional[List[float]]


ImportStatus = Literal["running", "completed", "failed", "cancelled"]
ImportMode = Literal["per_feature", "merge"]


class ImportFile(TypedDict):
    name: Optional[str]
    format: Optional[str]
    source_crs: Optional[str]


class ImportProgress(TypedDict):
    features_read: int
    #: Features dealt with so far.
    done: int
    created: int
    refused: int


class ImportTotals(TypedDict):
    features: int
    created: int
    refused: int
    #: Hectares of the projects created (a preview: that would be).
    hectares: float


class _ImportFeatureResultBase(TypedDict):
    #: The feature's place in the file, from 0.
    position: int
    feature: str
    #: ``created``, ``refused`` (see ``problems``) or ``valid`` (a preview: it would be created).
    outcome: Literal["created", "refused", "valid"]
    name: Optional[str]
    project_id: Optional[str]
    area_hectares: Optional[float]
    problems: List[ErrorDetail]


class ImportFeatureResult(_ImportFeatureResultBase, total=False):
    #: A preview's valid feature: the account's active and draft projects it would share hectares
    #: with, as its create would report them.
    overlaps: OverlapReport


class Import(TypedDict):
    """A bulk import (``imports.create``): its projects are created in the background."""

    id: str
    status: ImportStatus
    mode: ImportMode
    #: A preview: the results say what an import would do; nothing was stored.
    dry_run: bool
    file: ImportFile
    progress: ImportProgress
    totals: ImportTotals
    error: Optional[str]
    #: Per-feature results in file order, a page at a time.
    results: List[ImportFeatureResult]
    #: Pass as ``results_after`` to ``imports.get`` for the next page of results; None at the end.
    next_results_after: Optional[int]
    created_at: str
    updated_at: str
    completed_at: Optional[str]


class _ListMetaBase(TypedDict):
    total: int


class ListMeta(_ListMetaBase, total=False):
    total_exact: bool
    page: Optional[int]
    per_page: int
    total_pages: int
    has_more: bool
    next_cursor: Optional[str]
    request_id: str
    timestamp: str


QueryValue = Union[str, int, float, bool, None]
