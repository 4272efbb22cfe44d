"""The HTTP transport (urllib), retries with backoff, and pages of lists."""

from __future__ import annotations

import http.client
import json
import random
import socket
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Dict, Generic, Iterator, List, Mapping, Optional, Tuple, TypeVar, cast

from ._errors import (
    APIConnectionError,
    APIError,
    APITimeoutError,
    CanopyError,
    error_from_response,
    parse_retry_after,
)
from ._types import ListMeta, QueryValue
from ._version import __version__

__all__ = ["NOT_GIVEN", "NotGiven", "Page", "RetryInfo", "Transport"]

T = TypeVar("T")

#: Methods that may be repeated without changing the outcome (RFC 9110 §9.2.2).
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})


class NotGiven:
    """Marks an argument that was not passed (so ``None`` can mean JSON ``null``)."""

    _instance: Optional["NotGiven"] = None

    def __new__(cls) -> "NotGiven":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN = NotGiven()


@dataclass(frozen=True)
class RetryInfo:
    """Passed to ``on_retry`` before the client sleeps and repeats a request."""

    #: 1 for the first retry, 2 for the second, ...
    retry: int
    method: str
    url: str
    #: The status that caused the retry, or ``None`` for a network error.
    status: Optional[int]
    #: The error that caused the retry.
    error: CanopyError
    #: Seconds the client is about to sleep.
    delay: float
    #: The server's ``Retry-After`` in seconds, when it sent one.
    retry_after: Optional[float]
    #: The ``Idempotency-Key`` sent (the same on every attempt), for POSTs.
    idempotency_key: Optional[str]


@dataclass(frozen=True)
class Response:
    status: int
    headers: Dict[str, str]
    body: Any


class Transport:
    """Sends requests to ``base_url`` with the bearer token; retries what is safe to retry."""

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str,
        max_retries: int,
        timeout: float,
        backoff_base: float,
        backoff_max: float,
        max_retry_after: float,
        on_retry: Optional[Callable[[RetryInfo], None]],
        sleep: Callable[[float], None],
        user_agent: Optional[str],
        opener: Optional[urllib.request.OpenerDirector],
    ) -> None:
        if not api_key:
            raise CanopyError("an API key is required: pass api_key= or set CANOPY_API_KEY")
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        self.api_key = api_key
        self.base_url = base_url
        self.max_retries = max_retries
        self.timeout = timeout
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.max_retry_after = max_retry_after
        self.on_retry = on_retry
        self.sleep = sleep
        self.user_agent = user_agent or f"canopy-python/{__version__}"
        self.opener = opener or urllib.request.build_opener()

    # -- one attempt ---------------------------------------------------------------------------

    def _send_once(self, method: str, url: str, headers: Dict[str, str], data: Optional[bytes]) -> Tuple[int, Dict[str, str], bytes]:
        req = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with self.opener.open(req, timeout=self.timeout) as resp:
                r = cast(http.client.HTTPResponse, resp)
                return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
        except urllib.error.HTTPError as e:
            hdrs = {k.lower(): v for k, v in e.headers.items()} if e.headers else {}
            try:
                raw = e.read()
            except (OSError, http.client.HTTPException):
                raw = b""
            return e.code, hdrs, raw
        except urllib.error.URLError as e:
            if isinstance(e.reason, (socket.timeout, TimeoutError)):
                raise APITimeoutError(f"no response from {url} within {self.timeout} s") from e
            raise APIConnectionError(f"could not reach {url}: {e.reason}") from e
        except (socket.timeout, TimeoutError) as e:
            raise APITimeoutError(f"no response from {url} within {self.timeout} s") from e
        except (OSError, http.client.HTTPException) as e:
            raise APIConnectionError(f"connection to {url} failed: {e!r}") from e

    # -- backoff -------------------------------------------------------------------------------

    def backoff(self, retry: int) -> float:
        """Exponential backoff with jitter for retry number ``retry`` (1-based): a random delay
        between half and all of ``backoff_base * 2**(retry-1)``, at most ``backoff_max``."""
        ceiling = min(self.backoff_max, self.backoff_base * (2 ** (retry - 1)))
        return ceiling / 2 + random.uniform(0, ceiling / 2)

    # -- a logical request ---------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, QueryValue]] = None,
        body: Optional[Mapping[str, Any]] = None,
        content: Optional[Tuple[bytes, str]] = None,
        idempotency_key: Optional[str] = None,
    ) -> Response:
        """One logical request: ``body`` is sent as JSON, ``content`` as ``(bytes, media type)``."""
        method = method.upper()
        url = self.base_url + path
        if query:
            items = [(k, _query_value(v)) for k, v in query.items() if v is not None]
            if items:
                url += "?" + urllib.parse.urlencode(items)
        headers: Dict[str, str] = {
            "Authorization": f"Bearer {self.api_key}",
            "Accept": "application/json",
            "User-Agent": self.user_agent,
        }
        data: Optional[bytes] = None
        if body is not None:
            data = json.dumps(body, separators=(",", ":")).encode("utf-8")
            headers["Content-Type"] = "application/json"
        elif content is not None:
            data, headers["Content-Type"] = content
        key: Optional[str] = None
        if method == "POST":
            # One key per logical POST, reused by its retries: the server replays instead of redoing.
            key = idempotency_key or str(uuid.uuid4())
            headers["Idempotency-Key"] = key
        retryable = method in IDEMPOTENT_METHODS or key is not None

        retry = 0
        while True:
            error: CanopyError
            status: Optional[int] = None
            retry_after: Optional[float] = None
            try:
                status, resp_headers, raw = self._send_once(method, url, headers, data)
            except APIConnectionError as e:
                error = e
            else:
                if 200 <= status < 300:
                    return Response(status, resp_headers, _parse_json(raw, status, resp_headers))
                error = error_from_response(status, resp_headers, raw)
                retry_after = parse_retry_after(resp_headers.get("retry-after"))
                if not _retryable_status(status, key is not None, retry_after is not None):
                    raise error
            if not retryable or retry >= self.max_retries:
                raise error
            retry += 1
            if retry_after is not None:
                if retry_after > self.max_retry_after:
                    # Waiting less than the server asks would only be refused again.
                    raise error
                delay = retry_after + random.uniform(0, min(0.25, retry_after * 0.1 + 0.05))
            else:
                delay = self.backoff(retry)
            if self.on_retry is not None:
                self.on_retry(RetryInfo(retry, method, url, status, error, delay, retry_after, key))
            self.sleep(delay)


def _retryable_status(status: int, has_key: bool, has_retry_after: bool) -> bool:
    if status == 429 or status >= 500:
        return status != 501
    # 409 + Retry-After: the first request with this Idempotency-Key is still at work.
    return status == 409 and has_key and has_retry_after


def _query_value(v: QueryValue) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _parse_json(raw: bytes, status: int, headers: Mapping[str, str]) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise APIError(
            f"the server answered {status} with a body that is not JSON",
            status=status,
            request_id=headers.get("x-request-id"),
            headers=headers,
            body=raw.decode("utf-8", "replace"),
        ) from e


class Page(Generic[T]):
    """One page of a list: ``data``, ``meta`` and the way to the next page (by cursor).

    Iterating a page yields its items; :meth:`auto_paging_iter` walks every following page too.
    A page may hold fewer items than ``per_page``, even none, while ``has_more`` is true (a
    projects list filtered by ``intersects`` tests a bounded number of candidates per request):
    only ``has_more`` and ``next_cursor`` say whether the list goes on, and the iterators follow
    them across such pages.
    """

    def __init__(self, data: List[T], meta: ListMeta, fetch: Optional[Callable[[str], "Page[T]"]] = None) -> None:
        self.data = data
        self.meta = meta
        self._fetch = fetch

    @property
    def total(self) -> int:
        return self.meta.get("total", len(self.data))

    @property
    def next_cursor(self) -> Optional[str]:
        return self.meta.get("next_cursor")

    @property
    def has_more(self) -> bool:
        return bool(self.meta.get("has_more")) and self.next_cursor is not None and self._fetch is not None

    def next_page(self) -> Optional["Page[T]"]:
        """The following page, or ``None`` on the last one."""
        cursor = self.next_cursor
        if not self.has_more or cursor is None or self._fetch is None:
            return None
        return self._fetch(cursor)

    def iter_pages(self) -> Iterator["Page[T]"]:
        """This page and every following one (empty pages with ``has_more`` included)."""
        page: Optional[Page[T]] = self
        followed: set[str] = set()
        while page is not None:
            yield page
            cursor = page.next_cursor if page.has_more else None
            if cursor is not None:
                if cursor in followed:
                    # the same cursor again would fetch the same pages forever
                    raise CanopyError(f"the server answered a cursor already followed ({cursor!r}); stopping")
                followed.add(cursor)
            page = page.next_page()

    def auto_paging_iter(self) -> Iterator[T]:
        """Every item of this page and the following ones, fetching pages as needed."""
        for page in self.iter_pages():
            yield from page.data

    def __iter__(self) -> Iterator[T]:
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)

    def __repr__(self) -> str:
        return f"Page(items={len(self.data)}, total={self.total}, has_more={self.has_more})"
