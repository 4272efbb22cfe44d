"""Verifying webhook deliveries exactly as the server signs them.

Each delivery carries two signature sets over the *raw* request body:

- ``X-Service-Signature: sha256=<lowercase hex>``: HMAC-SHA256 of the body keyed by the secret's
  UTF-8 bytes (the spec's header); ``X-Service-Timestamp`` is sent alongside but not signed by it.
- Standard Webhooks: ``webhook-id``, ``webhook-timestamp`` and ``webhook-signature: v1,<base64>``,
  an HMAC-SHA256 of ``"{id}.{timestamp}.{body}"`` keyed by the base64-decoded part of a
  ``whsec_…`` secret (or the secret's UTF-8 bytes when it has no ``whsec_`` prefix). This one also
  authenticates the timestamp, so the tolerance check is meaningful.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import time
from typing import Any, Dict, Iterable, Optional, Protocol, Tuple, Union, cast

from ._errors import WebhookVerificationError
from ._types import Event

__all__ = ["verify_webhook", "sign_payload", "sign_standard", "WebhookVerificationError"]


class HeaderSource(Protocol):
    """Anything with ``items()`` of (name, value): a dict, ``http.client.HTTPMessage``, ..."""

    def items(self) -> Iterable[Tuple[str, Any]]: ...


def _bytes(x: Union[str, bytes, bytearray, memoryview]) -> bytes:
    return x.encode("utf-8") if isinstance(x, str) else bytes(x)


def sign_payload(secret: str, payload: Union[str, bytes]) -> str:
    """The ``X-Service-Signature`` value for a raw body: ``sha256=<lowercase hex>``."""
    return "sha256=" + hmac.new(_bytes(secret), _bytes(payload), hashlib.sha256).hexdigest()


def _standard_key(secret: str) -> bytes:
    if not secret.startswith("whsec_"):
        return _bytes(secret)
    # Decoded as Node's Buffer.from(s, "base64") does: both alphabets, padding optional, other
    # characters skipped.
    text = secret[len("whsec_"):].replace("-", "+").replace("_", "/")
    text = re.sub(r"[^A-Za-z0-9+/]", "", text.split("=", 1)[0])
    if len(text) % 4 == 1:
        text = text[:-1]
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):  # pragma: no cover - the text is already cleaned
        return b""


def sign_standard(secret: str, msg_id: str, timestamp: int, payload: Union[str, bytes]) -> str:
    """The Standard Webhooks ``webhook-signature`` value: ``v1,<base64>``."""
    mac = hmac.new(_standard_key(secret), f"{msg_id}.{timestamp}.".encode("utf-8") + _bytes(payload), hashlib.sha256)
    return "v1," + base64.b64encode(mac.digest()).decode("ascii")


def _eq(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode("utf-8"), b.encode("utf-8"))


def verify_webhook(
    payload: Union[bytes, bytearray, memoryview, str],
    headers: Union[HeaderSource, Dict[str, str]],
    secret: str,
    tolerance: Optional[float] = 300,
    *,
    now: Optional[float] = None,
) -> Event:
    """Verifies a delivery and answers its event.

    ``payload`` must be the raw request body exactly as received (not re-serialised JSON).
    Every signature header present must be valid (at least one must be present), compared in
    constant time; the timestamp (``webhook-timestamp``, else ``X-Service-Timestamp``) must be
    within ``tolerance`` seconds of ``now`` (``tolerance=None`` skips that check). Raises
    :class:`WebhookVerificationError` otherwise.
    """
    if not secret:
        raise WebhookVerificationError("no webhook secret given")
    body = _bytes(payload)
    h: Dict[str, str] = {}
    for name, value in headers.items():
        h[str(name).lower()] = str(value)

    service_sig = h.get("x-service-signature")
    standard_sig = h.get("webhook-signature")
    if service_sig is None and standard_sig is None:
        raise WebhookVerificationError("no X-Service-Signature or webhook-signature header")

    if service_sig is not None and not _eq(sign_payload(secret, body), service_sig.strip()):
        raise WebhookVerificationError("X-Service-Signature does not match the body")

    timestamp_text = h.get("webhook-timestamp")
    if standard_sig is not None:
        msg_id = h.get("webhook-id")
        if msg_id is None or timestamp_text is None:
            raise WebhookVerificationError("webhook-signature without webhook-id and webhook-timestamp")
        try:
            ts = int(timestamp_text.strip())
        except ValueError:
            raise WebhookVerificationError("webhook-timestamp is not an integer") from None
        expected = sign_standard(secret, msg_id, ts, body)
        # The header may list several space-separated signatures (secret rotation); one must match.
        matches = [_eq(part, expected) for part in standard_sig.split(" ") if part]
        if not any(matches):
            raise WebhookVerificationError("webhook-signature does not match the body")
    if timestamp_text is None:
        timestamp_text = h.get("x-service-timestamp")

    if tolerance is not None:
        if timestamp_text is None:
            raise WebhookVerificationError("no timestamp header to check the tolerance against")
        try:
            ts_value = int(timestamp_text.strip())
        except ValueError:
            raise WebhookVerificationError("the timestamp header is not an integer") from None
        current = time.time() if now is None else now
        if abs(current - ts_value) > tolerance:
            raise WebhookVerificationError(f"the timestamp is more than {tolerance:g} s from now")

    try:
        event = json.loads(body.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        raise WebhookVerificationError("the body is not JSON") from None
    if not isinstance(event, dict):
        raise WebhookVerificationError("the body is not an event object")
    ev = cast(Dict[str, Any], event)
    if not isinstance(ev.get("id"), str) or not isinstance(ev.get("type"), str):
        raise WebhookVerificationError("the body is not an event (no id or type)")
    return cast(Event, ev)
