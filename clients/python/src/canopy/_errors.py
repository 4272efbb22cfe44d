"""Typed errors raised by the client.

Every error answered by the API carries the spec's body
``{"error": {"code", "message", "details": [{"field", "message"}]}, "meta": {"request_id"}}``;
:func:`error_from_response` turns it into the matching :class:`CanopyError` subclass.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional, Type, cast

from ._types import ErrorDetail

__all__ = [
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
    "error_from_response",
    "parse_retry_after",
]


class CanopyError(Exception):
    """Base class of every error this library raises.

    ``status`` is the HTTP status (``None`` when no response arrived), ``code`` the spec's error
    code (``VALIDATION_ERROR``, ``NOT_FOUND``, ...), ``details`` the per-field problems and
    ``request_id`` the ``req_…`` id to quote to support.
    """

    status: Optional[int]
    code: Optional[str]
    message: str
    details: List[ErrorDetail]
    request_id: Optional[str]
    headers: Dict[str, str]
    body: Any

    def __init__(
        self,
        message: str,
        *,
        status: Optional[int] = None,
        code: Optional[str] = None,
        details: Optional[List[ErrorDetail]] = None,
        request_id: Optional[str] = None,
        headers: Optional[Mapping[str, str]] = None,
        body: Any = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.details = list(details) if details is not None else []
        self.request_id = request_id
        self.headers = dict(headers) if headers is not None else {}
        self.body = body

    def __str__(self) -> str:
        parts: List[str] = []
        if self.status is not None:
            parts.append(str(self.status))
        if self.code:
            parts.append(self.code)
        head = " ".join(parts)
        text = f"{head}: {self.message}" if head else self.message
        if self.details:
            text += " (" + "; ".join(f"{d.get('field', '')}: {d.get('message', '')}" for d in self.details) + ")"
        if self.request_id:
            text += f" [request_id={self.request_id}]"
        return text


class APIError(CanopyError):
    """The API answered with an error status (``status`` is always set)."""

    def __init__(self, message: str, *, status: int, **kwargs: Any) -> None:
        super().__init__(message, status=status, **kwargs)


class BadRequestError(APIError):
    """400: invalid parameters."""


class ValidationError(APIError):
    """``VALIDATION_ERROR`` (422, or 400 for invalid parameters): see ``details``."""


class AuthenticationError(APIError):
    """``UNAUTHORIZED`` (401): a missing, invalid, revoked or expired token."""


class PermissionDeniedError(APIError):
    """``FORBIDDEN`` (403): the token lacks the permission."""


class NotFoundError(APIError):
    """``NOT_FOUND`` (404)."""


class ConflictError(APIError):
    """``CONFLICT`` (409): e.g. a duplicate slug, deleting an active project, an overlapping boundary under ``overlap_policy="reject"``."""


class RateLimitError(APIError):
    """``RATE_LIMITED`` (429). ``retry_after`` is the server's ``Retry-After`` in seconds."""

    retry_after: Optional[float]

    def __init__(self, message: str, *, status: int, retry_after: Optional[float] = None, **kwargs: Any) -> None:
        super().__init__(message, status=status, **kwargs)
        self.retry_after = retry_after


class InternalServerError(APIError):
    """``INTERNAL_ERROR`` or any 5xx status."""


class APIConnectionError(CanopyError):
    """No response: the connection failed or broke."""


class APITimeoutError(APIConnectionError):
    """No response within the client's timeout."""


class WebhookVerificationError(CanopyError):
    """A webhook delivery failed verification (signature, timestamp or body)."""


_BY_CODE: Dict[str, Type[APIError]] = {
    "VALIDATION_ERROR": ValidationError,
    "UNAUTHORIZED": AuthenticationError,
    "FORBIDDEN": PermissionDeniedError,
    "NOT_FOUND": NotFoundError,
    "CONFLICT": ConflictError,
    "RATE_LIMITED": RateLimitError,
    "INTERNAL_ERROR": InternalServerError,
}

_BY_STATUS: Dict[int, Type[APIError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: ValidationError,
    429: RateLimitError,
}


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Seconds to wait from a ``Retry-After`` value (delta-seconds or an HTTP date)."""
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    try:
        seconds = float(value)
        return max(0.0, seconds)
    except ValueError:
        pass
    from email.utils import parsedate_to_datetime
    import time

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


def error_from_response(status: int, headers: Mapping[str, str], raw: bytes) -> APIError:
    """The typed error for an error response."""
    body: Any = None
    code: Optional[str] = None
    message = f"HTTP {status}"
    details: List[ErrorDetail] = []
    request_id: Optional[str] = headers.get("x-request-id")
    try:
        body = json.loads(raw.decode("utf-8")) if raw else None
    except (ValueError, UnicodeDecodeError):
        body = raw.decode("utf-8", "replace")
    if isinstance(body, dict):
        envelope = cast(Dict[str, Any], body)
        err = envelope.get("error")
        if isinstance(err, dict):
            e = cast(Dict[str, Any], err)
            if isinstance(e.get("code"), str):
                code = cast(str, e["code"])
            if isinstance(e.get("message"), str):
                message = cast(str, e["message"])
            raw_details = e.get("details")
            if isinstance(raw_details, list):
                for d in cast(List[Any], raw_details):
                    if isinstance(d, dict):
                        dd = cast(Dict[str, Any], d)
                        details.append({"field": str(dd.get("field", "")), "message": str(dd.get("message", ""))})
        meta = envelope.get("meta")
        if isinstance(meta, dict):
            rid = cast(Dict[str, Any], meta).get("request_id")
            if isinstance(rid, str):
                request_id = rid
    cls: Type[APIError]
    if code is not None and code in _BY_CODE:
        cls = _BY_CODE[code]
    elif status in _BY_STATUS:
        cls = _BY_STATUS[status]
    elif status >= 500:
        cls = InternalServerError
    else:
        cls = APIError
    common: Dict[str, Any] = {
        "status": status,
        "code": code,
        "details": details,
        "request_id": request_id,
        "headers": headers,
        "body": body,
    }
    if cls is RateLimitError:
        return RateLimitError(message, retry_after=parse_retry_after(headers.get("retry-after")), **common)
    return cls(message, **common)
