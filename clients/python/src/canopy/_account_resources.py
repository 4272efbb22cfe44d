"""Account-side resource namespaces: ``client.members``, ``client.account``, ``client.usage``,
``client.webhooks``, ``client.events``, ``client.auth`` (the project side is in ``_resources``).

Methods answer the ``data`` of the API's envelope (a ``TypedDict``), a :class:`~canopy.Page` for lists,
or ``None`` for ``204 No Content``. In ``update`` methods an argument left out is not sent, and
``None`` is sent as JSON ``null``.
"""

from __future__ import annotations

from typing import Dict, Iterator, Optional, Sequence, Union, cast

from ._base import NOT_GIVEN, NotGiven, Page
from ._resources import Resource, clean, seg
from ._types import Account, DeliveryLog, Event, Member, QueryValue, TokenInfo, Usage, Webhook

__all__ = ["Members", "AccountResource", "UsageResource", "Webhooks", "Events", "Auth"]


class Members(Resource):
    """The account's team members."""

    def list(self) -> Page[Member]:
        """All members (this list is not paginated; ``meta.total`` counts them)."""
        return cast(Page[Member], self._list("/account/members", {}))

    def invite(self, email: str, role: str, *, idempotency_key: Optional[str] = None) -> Member:
        """Invites ``email`` as ``viewer``, ``editor`` or ``admin``."""
        return cast(Member, self._post("/account/members/invite", {"email": email, "role": role}, idempotency_key))

    def update(self, member_id: str, *, role: str) -> Member:
        return cast(Member, self._put(f"/account/members/{seg(member_id)}", {"role": role}))

    def remove(self, member_id: str) -> None:
        self._delete(f"/account/members/{seg(member_id)}")


class AccountResource(Resource):
    """The account behind the token."""

    def get(self) -> Account:
        return cast(Account, self._get("/account"))

    def update(
        self,
        *,
        name: Union[str, NotGiven] = NOT_GIVEN,
        overlap_policy: Union[str, NotGiven] = NOT_GIVEN,
    ) -> Account:
        """Changes the arguments given: ``name``, ``overlap_policy`` (``"warn"`` or ``"reject"``)."""
        return cast(Account, self._put("/account", clean({"name": name, "overlap_policy": overlap_policy})))

    def usage(self) -> Usage:
        return cast(Usage, self._get("/account/usage"))


class UsageResource(Resource):
    """Usage statistics of the current billing period (``GET /account/usage``)."""

    def get(self) -> Usage:
        return cast(Usage, self._get("/account/usage"))


class Webhooks(Resource):
    """Webhook endpoints and their delivery logs."""

    def list(self) -> Page[Webhook]:
        return cast(Page[Webhook], self._list("/webhooks", {}))

    def get(self, webhook_id: str) -> Webhook:
        return cast(Webhook, self._get(f"/webhooks/{seg(webhook_id)}"))

    def create(
        self,
        url: str,
        events: Sequence[str],
        *,
        secret: Optional[str] = None,
        description: Optional[str] = None,
        enabled: Optional[bool] = None,
        idempotency_key: Optional[str] = None,
    ) -> Webhook:
        """Registers an endpoint. The answer's ``secret`` (generated when not given) is shown only here."""
        body = clean({
            "url": url,
            "events": list(events),
            "secret": secret if secret is not None else NOT_GIVEN,
            "description": description if description is not None else NOT_GIVEN,
            "enabled": enabled if enabled is not None else NOT_GIVEN,
        })
        return cast(Webhook, self._post("/webhooks", body, idempotency_key))

    def update(
        self,
        webhook_id: str,
        *,
        url: Union[str, NotGiven] = NOT_GIVEN,
        events: Union[Sequence[str], NotGiven] = NOT_GIVEN,
        description: Union[str, None, NotGiven] = NOT_GIVEN,
        enabled: Union[bool, NotGiven] = NOT_GIVEN,
    ) -> Webhook:
        body = clean({
            "url": url,
            "events": events if isinstance(events, NotGiven) else list(events),
            "description": description,
            "enabled": enabled,
        })
        return cast(Webhook, self._put(f"/webhooks/{seg(webhook_id)}", body))

    def delete(self, webhook_id: str) -> None:
        self._delete(f"/webhooks/{seg(webhook_id)}")

    def test(self, webhook_id: str, *, idempotency_key: Optional[str] = None) -> DeliveryLog:
        """Sends a test event to the endpoint now; answers the attempt's log entry."""
        return cast(DeliveryLog, self._post(f"/webhooks/{seg(webhook_id)}/test", None, idempotency_key))

    def logs(
        self,
        webhook_id: str,
        *,
        page: Optional[int] = None,
        per_page: Optional[int] = None,
        cursor: Optional[str] = None,
        status: Optional[str] = None,
        event_type: Optional[str] = None,
    ) -> Page[DeliveryLog]:
        """Delivery attempts, newest first."""
        query: Dict[str, QueryValue] = {
            "page": page, "per_page": per_page, "cursor": cursor, "status": status, "event_type": event_type,
        }
        return cast(Page[DeliveryLog], self._list(f"/webhooks/{seg(webhook_id)}/logs", query))

    def redeliver(self, webhook_id: str, log_id: str, *, idempotency_key: Optional[str] = None) -> DeliveryLog:
        """A new attempt of a logged delivery (same event id)."""
        return cast(DeliveryLog, self._post(f"/webhooks/{seg(webhook_id)}/logs/{seg(log_id)}/redeliver", None, idempotency_key))


class Events(Resource):
    """The account's events (to catch up after an outage)."""

    def list(
        self,
        *,
        type: Optional[str] = None,
        created_after: Optional[str] = None,
        created_before: Optional[str] = None,
        page: Optional[int] = None,
        per_page: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> Page[Event]:
        query: Dict[str, QueryValue] = {
            "type": type, "created_after": created_after, "created_before": created_before,
            "page": page, "per_page": per_page, "cursor": cursor,
        }
        return cast(Page[Event], self._list("/events", query))

    def list_all(
        self,
        *,
        type: Optional[str] = None,
        created_after: Optional[str] = None,
        created_before: Optional[str] = None,
        per_page: Optional[int] = 100,
    ) -> Iterator[Event]:
        return self.list(type=type, created_after=created_after, created_before=created_before, per_page=per_page).auto_paging_iter()


class Auth(Resource):
    def verify(self) -> TokenInfo:
        """What the token is: type, permissions, account, expiry (``GET /auth/verify``)."""
        return cast(TokenInfo, self._get("/auth/verify"))
