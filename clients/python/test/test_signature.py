"""Checks canopy's webhook signing against vectors computed by @canopy/core's Signature module.

As a test (SignatureTest): the vectors in signature_vectors.json (the root test run checks that
the service's Signature module still computes them). As a script: reads {"vectors": [{secret,
body, id, timestamp, service, standard}]} on stdin; prints one JSON line {"ok": true, "python":
[{service, standard}], "checks": N} (the Python-computed values, for the caller to compare too);
exits 1 with {"ok": false, "error": ...} on a mismatch.
"""

from __future__ import annotations

import json
import os
import sys
import unittest
from typing import Any, Dict, List, Tuple

from canopy import WebhookVerificationError, sign_payload, sign_standard, verify_webhook


VECTORS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "signature_vectors.json")


def check_vectors(vectors: List[Dict[str, Any]]) -> Tuple[List[Dict[str, str]], int]:
    """Signs and verifies every vector (and refuses its tampered variants); answers the values
    computed here and the number of checks passed. Raises AssertionError on a mismatch."""
    out: List[Dict[str, str]] = []
    checks = 0
    for v in vectors:
        secret: str = v["secret"]
        body: bytes = v["body"].encode("utf-8")
        ts: int = v["timestamp"]
        service = sign_payload(secret, body)
        standard = sign_standard(secret, v["id"], ts, body)
        out.append({"service": service, "standard": standard})
        if service != v["service"]:
            raise AssertionError(f"X-Service-Signature differs for {secret!r}: {service} != {v['service']}")
        if standard != v["standard"]:
            raise AssertionError(f"webhook-signature differs for {secret!r}: {standard} != {v['standard']}")
        headers = {
            "X-Service-Signature": v["service"],
            "X-Service-Timestamp": str(ts),
            "Webhook-Id": v["id"],
            "Webhook-Timestamp": str(ts),
            "Webhook-Signature": "v1,bm90IGl0 " + v["standard"],  # several entries: one matches
        }
        event = verify_webhook(body, headers, secret, now=ts + 10)
        if event["id"] != json.loads(v["body"])["id"]:
            raise AssertionError("verify_webhook answered another event")
        checks += 1
        bad_cases = {
            "tampered body": (body + b" ", headers, secret),
            "other secret": (body, headers, secret + "x"),
            "only a bad standard signature": (body, {**headers, "Webhook-Signature": "v1,bm90IGl0"}, secret),
            "bad service signature": (body, {**headers, "X-Service-Signature": "sha256=" + "0" * 64}, secret),
            "no signature": (body, {"Webhook-Timestamp": str(ts)}, secret),
        }
        for name, (b, h, s) in bad_cases.items():
            try:
                verify_webhook(b, h, s, now=ts)
            except WebhookVerificationError:
                checks += 1
            else:
                raise AssertionError(f"{name} was accepted")
        try:
            verify_webhook(body, headers, secret, now=ts + 301)
        except WebhookVerificationError:
            checks += 1
        else:
            raise AssertionError("a timestamp 301 s old was accepted")
        # each signature header alone is enough (a relay may keep only one set)
        only_service = {"X-Service-Signature": v["service"], "X-Service-Timestamp": str(ts)}
        only_standard = {"Webhook-Id": v["id"], "Webhook-Timestamp": str(ts), "Webhook-Signature": v["standard"]}
        for alone in (only_service, only_standard):
            if verify_webhook(body, alone, secret, now=ts)["id"] != v["id"]:
                raise AssertionError(f"one signature set alone was not accepted: {sorted(alone)}")
            checks += 1
    return out, checks


class SignatureTest(unittest.TestCase):
    def test_the_services_vectors(self) -> None:
        with open(VECTORS_FILE, encoding="utf-8") as f:
            vectors: List[Dict[str, Any]] = json.load(f)["vectors"]
        self.assertGreaterEqual(len(vectors), 2)
        out, checks = check_vectors(vectors)
        self.assertEqual(out, [{"service": v["service"], "standard": v["standard"]} for v in vectors])
        self.assertEqual(checks, len(vectors) * 9)


def main() -> int:
    out, checks = check_vectors(json.load(sys.stdin)["vectors"])
    print(json.dumps({"ok": True, "python": out, "checks": checks}))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:
        print(json.dumps({"ok": False, "error": f"{type(e).__name__}: {e}"}))
        sys.exit(1)
