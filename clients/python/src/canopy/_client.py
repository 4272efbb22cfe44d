"""The client: ``Canopy(api_key=..., base_url=...)``."""

from __future__ import annotations

import os
import time
import urllib.request
from typing import Callable, Optional

from ._base import RetryInfo, Transport
from ._account_resources import AccountResource, Auth, Events, Members, UsageResource, Webhooks
from ._resources import Assets, Boundaries, Imports, Projects

__all__ = ["Canopy", "DEFAULT_BASE_URL"]

DEFAULT_BASE_URL = "http://127.0.0.1:8080/v1"


def _normalise_base_url(url: str) -> str:
    url = url.rstrip("/")
    # The API is versioned in the path; a server address without it gets /v1.
    if not url.endswith("/v1"):
        url += "/v1"
    return url


class Canopy:
    """A Canopy API client.

    ``api_key`` (else ``$CANOPY_API_KEY``) is an API key, OAuth access token or service token.
    ``base_url`` (else ``$CANOPY_BASE_URL``, else ``http://127.0.0.1:8080/v1``) may omit ``/v1``.

    Retries: 429 (after ``Retry-After``), 5xx and network errors are retried up to
    ``max_retries`` times on GET/PUT/DELETE and on POSTs, which always carry an ``Idempotency-Key``
    (generated per call unless given, reused by its retries). Backoff is exponential with jitter
    (``backoff_base`` doubling, at most ``backoff_max`` seconds); a ``Retry-After`` longer than
    ``max_retry_after`` seconds is not waited for: the error is raised. ``on_retry`` is called with
    a :class:`RetryInfo` before each retry's sleep; ``sleep`` replaces ``time.sleep``.
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        *,
        base_url: Optional[str] = None,
        max_retries: int = 2,
        timeout: float = 30.0,
        backoff_base: float = 0.5,
        backoff_max: float = 8.0,
        max_retry_after: float = 60.0,
        on_retry: Optional[Callable[[RetryInfo], None]] = None,
        sleep: Callable[[float], None] = time.sleep,
        user_agent: Optional[str] = None,
        opener: Optional[urllib.request.OpenerDirector] = None,
    ) -> None:
        key = api_key if api_key is not None else os.environ.get("CANOPY_API_KEY", "")
        url = base_url if base_url is not None else os.environ.get("CANOPY_BASE_URL", DEFAULT_BASE_URL)
        self._transport = Transport(
            api_key=key,
            base_url=_normalise_base_url(url),
            max_retries=max_retries,
            timeout=timeout,
            backoff_base=backoff_base,
            backoff_max=backoff_max,
            max_retry_after=max_retry_after,
            on_retry=on_retry,
            sleep=sleep,
            user_agent=user_agent,
            opener=opener,
        )
        self.projects = Projects(self._transport)
        self.assets = Assets(self._transport)
        self.members = Members(self._transport)
        self.account = AccountResource(self._transport)
        self.usage = UsageResource(self._transport)
        self.webhooks = Webhooks(self._transport)
        self.events = Events(self._transport)
        self.auth = Auth(self._transport)
        self.boundaries = Boundaries(self._transport)
        self.imports = Imports(self._transport)

    @property
    def base_url(self) -> str:
        return self._transport.base_url

    def __repr__(self) -> str:
        # Never the key.
        return f"Canopy(base_url={self.base_url!r})"
