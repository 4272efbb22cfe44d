"""Canopy: a Python client for the Canopy forest project management API.

Standard library only. See README.md for a tour::

    from canopy import Canopy
    client = Canopy(api_key="cnp_key_...", base_url="https://canopy.example.com/v1")
    project = client.projects.create("North block", geometry={...})
"""

from ._base import NOT_GIVEN, NotGiven, Page, RetryInfo
from ._client import DEFAULT_BASE_URL, Canopy
from ._errors import (
    APIConnectionError,
    APIError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    CanopyError,
    ConflictError,
    InternalServerError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ValidationError,
    WebhookVerificationError,
)
from ._types import (
    Account,
    Asset,
    DeliveryLog,
    ErrorDetail,
    Event,
    ListMeta,
    Member,
    OverlapPolicy,
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
from ._version import __version__
from ._webhook import sign_payload, sign_standard, verify_webhook

__all__ = [
    "Canopy",
    "DEFAULT_BASE_URL",
    "Page",
    "RetryInfo",
    "NOT_GIVEN",
    "NotGiven",
    "CanopyError",
    "APIError",
    "BadRequestError",
    "ValidationError",
    "AuthenticationError",
    "PermissionDeniedError",
    "NotFoundError",
    "ConflictError",
    "RateLimitError",
    "InternalServerError",
    "APIConnectionError",
    "APITimeoutError",
    "WebhookVerificationError",
    "verify_webhook",
    "sign_payload",
    "sign_standard",
    "Account",
    "Asset",
    "DeliveryLog",
    "ErrorDetail",
    "Event",
    "ListMeta",
    "Member",
    "OverlapPolicy",
    "OverlapReport",
    "Point",
    "Polygon",
    "Project",
    "ProjectOverlap",
    "ProjectOverlapEventData",
    "TokenInfo",
    "Usage",
    "Webhook",
    "__version__",
]
