"""The Python client's scenario against a live `canopy serve`.

Run as a script it starts its own server (canopy_serve.py), or uses the one named by the
environment: CANOPY_URL (server address), CANOPY_TOKEN (admin key of a pro account),
CANOPY_FREE_TOKEN (admin key of a free-plan account, for the 429). The package must be importable
(PYTHONPATH=clients/python/src). test_scenario.py runs it under pytest and unittest.

Prints one JSON line: {"ok": true, "steps": {...}}; on failure {"ok": false, "step": ..., "error": ...}
on stdout and exits 1.
"""

from __future__ import annotations

import json
import os
import queue
import socket
import sys
import time
import traceback
import uuid
from typing import Any, Callable, Dict, List, Optional, Tuple, cast

from canopy_serve import CanopyServe
from local_server import LocalServer, QuietHandler
from scenario_spatial import spatial_steps

from canopy import (
    APIConnectionError,
    Canopy,
    ConflictError,
    InternalServerError,
    NotFoundError,
    RateLimitError,
    RetryInfo,
    ValidationError,
    WebhookVerificationError,
    verify_webhook,
)

from scenario_kit import ScenarioFailure, check, current, expect_raises, square, step, steps

# -- a webhook receiver on a loopback port ----------------------------------------------------

Delivery = Tuple[bytes, Dict[str, str], Any]


class Receiver(LocalServer):
    def __init__(self) -> None:
        self.deliveries: "queue.Queue[Delivery]" = queue.Queue()
        outer = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("Content-Length") or "0")
                raw = self.rfile.read(length)
                outer.deliveries.put((raw, {k: v for k, v in self.headers.items()}, self.headers))
                self.send_response(204)
                self.end_headers()

        super().__init__(Handler, "/hook")

    def wait_for(self, pred: Callable[[Dict[str, Any]], bool], timeout: float = 20.0) -> Delivery:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ScenarioFailure("no matching webhook delivery arrived within 20 s")
            try:
                raw, headers, message = self.deliveries.get(timeout=left)
            except queue.Empty:
                continue
            try:
                event = json.loads(raw)
            except ValueError:
                continue
            if isinstance(event, dict) and pred(cast(Dict[str, Any], event)):
                return raw, headers, message


class FlakyEndpoint(LocalServer):
    """A local endpoint (not Canopy) that answers 503 twice, then 201, recording the requests:
    shows the client's 5xx retries with backoff reuse one Idempotency-Key."""

    def __init__(self) -> None:
        self.seen: List[Dict[str, str]] = []
        outer = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length") or "0"))
                outer.seen.append({k.lower(): v for k, v in self.headers.items()})
                if len(outer.seen) <= 2:
                    body = b'{"error":{"code":"INTERNAL_ERROR","message":"try again","details":[]},"meta":{"request_id":"req_local"}}'
                    self.send_json(503, body)
                else:
                    self.send_json(201, b'{"data":{"id":"proj_local","name":"x"},"meta":{"request_id":"req_ok"}}')

        super().__init__(Handler)


def main(url: str, token: str, free_token: str) -> None:
    run = uuid.uuid4().hex[:8]
    client = Canopy(api_key=token, base_url=url, max_retries=2, backoff_base=0.05)

    step("auth_verify")
    info = client.auth.verify()
    check(info["valid"] is True and info["type"] == "api_key", f"auth.verify: {info}")
    check(info["account_id"].startswith("acc_"), "auth.verify account_id")
    steps["auth_verify"] = {"type": info["type"], "account_id": info["account_id"]}

    step("account")
    account = client.account.get()
    check(account["id"] == info["account_id"], "account.get id matches auth.verify")
    renamed = client.account.update(name=f"Python scenario {run}")
    check(renamed["name"] == f"Python scenario {run}", "account.update name")
    usage = client.usage.get()
    check(set(usage) >= {"period", "hectares", "projects", "members", "api_requests"}, f"usage: {usage}")
    check(client.account.usage()["members"]["limit"] == usage["members"]["limit"], "account.usage() = usage.get()")
    steps["account"] = {"plan": account["plan"], "name": renamed["name"], "usage_projects": usage["projects"]["total"]}

    receiver = Receiver()
    try:
        step("webhook_create")
        hook = client.webhooks.create(receiver.url, ["project.created", "project.archived"], description="python scenario")
        secret = hook.get("secret")
        check(isinstance(secret, str) and len(secret or "") > 0, "webhooks.create answers the secret")
        assert secret is not None
        check(any(w["id"] == hook["id"] for w in client.webhooks.list()), "webhooks.list holds the new webhook")
        check("secret" not in client.webhooks.get(hook["id"]), "webhooks.get does not show the secret")
        steps["webhook_create"] = {"id": hook["id"], "url": hook["url"]}

        step("create")
        project = client.projects.create(f"North block {run}", description="created by the Python client", geometry=square(10.0))
        check(project["id"].startswith("proj_"), "project id prefix")
        check(project["status"] == "active", "a new project is active")
        check(project["area_hectares"] > 100, f"area computed: {project['area_hectares']}")
        key = str(uuid.uuid4())
        first = client.projects.create(f"Idem {run}", idempotency_key=key)
        replay = client.projects.create(f"Idem {run}", idempotency_key=key)
        check(first["id"] == replay["id"], "the same Idempotency-Key replays the first response")
        steps["create"] = {"id": project["id"], "area_hectares": project["area_hectares"], "idempotent_replay": True}

        step("get")
        got = client.projects.get(project["id"])
        check(got["id"] == project["id"] and got["name"] == project["name"], "projects.get")
        steps["get"] = {"id": got["id"], "slug": got["slug"]}

        step("webhook_verify")
        raw, headers, message = receiver.wait_for(lambda e: e.get("type") == "project.created" and e.get("data", {}).get("id") == project["id"])
        event = verify_webhook(raw, headers, secret)
        check(event["type"] == "project.created" and event["data"]["id"] == project["id"], "verified event")
        event2 = verify_webhook(raw, message, secret)  # an http.client.HTTPMessage works too
        check(event2["id"] == event["id"], "verify with HTTPMessage headers")
        tampered = raw.replace(project["id"].encode(), b"proj_forged")
        check(tampered != raw, "tampered body differs")
        expect_raises(WebhookVerificationError, lambda: verify_webhook(tampered, headers, secret), "tampered body")
        expect_raises(WebhookVerificationError, lambda: verify_webhook(raw, headers, secret + "x"), "wrong secret")
        only_service = {k: v for k, v in headers.items() if not k.lower().startswith("webhook-")}
        expect_raises(
            WebhookVerificationError,
            lambda: verify_webhook(tampered, only_service, secret),
            "tampered body, X-Service-Signature only",
        )
        verify_webhook(raw, only_service, secret)
        ts = int(headers.get("webhook-timestamp") or headers.get("Webhook-Timestamp") or "0")
        verify_webhook(raw, headers, secret, now=ts + 299)
        expect_raises(WebhookVerificationError, lambda: verify_webhook(raw, headers, secret, now=ts + 301), "stale timestamp")
        forged_ts = dict(headers)
        for k in list(forged_ts):
            if k.lower() == "webhook-timestamp":
                forged_ts[k] = str(ts + 1000)
        expect_raises(WebhookVerificationError, lambda: verify_webhook(raw, forged_ts, secret, now=ts + 1000), "forged timestamp")
        steps["webhook_verify"] = {"event_id": event["id"], "type": event["type"], "tampered_rejected": True}

        step("webhook_manage")
        deadline = time.monotonic() + 10
        logs = client.webhooks.logs(hook["id"])
        while not any(entry["status"] == "success" for entry in logs) and time.monotonic() < deadline:
            time.sleep(0.2)
            logs = client.webhooks.logs(hook["id"])
        check(any(entry["status"] == "success" and entry["event_id"] == event["id"] for entry in logs), "delivery log shows the success")
        test_log = client.webhooks.test(hook["id"])
        check(test_log["event_type"] != "", "webhooks.test answers a log entry")
        disabled = client.webhooks.update(hook["id"], enabled=False)
        check(disabled["enabled"] is False, "webhooks.update enabled=False")
    finally:
        receiver.close()
    steps["webhook_manage"] = {"logs": len(logs), "test_status": test_log["status"]}

    step("list_all_pages")
    ids = [project["id"], first["id"]]
    for i in range(7):
        ids.append(client.projects.create(f"Paged {run} {i}", geometry=square(20.0 + i)).get("id"))
    first_page = client.projects.list(per_page=3)
    check(len(first_page) == 3 and first_page.has_more, "first page of 3 with more")
    pages = list(first_page.iter_pages())
    seen = [p["id"] for pg in pages for p in pg]
    check(len(seen) == len(set(seen)), "no project twice across pages")
    check(all(i in seen for i in ids), "every created project is listed")
    check(len(seen) == first_page.total, f"items {len(seen)} = meta.total {first_page.total}")
    walked = [p["id"] for p in client.projects.list_all(per_page=4)]
    check(sorted(walked) == sorted(seen), "list_all walks the same projects")
    searched = [p["id"] for p in client.projects.list_all(per_page=2, search=f"Paged {run}")]
    check(len(searched) == 7, f"search by name across pages: {len(searched)}")
    steps["list_all_pages"] = {"pages": len(pages), "items": len(seen), "total": first_page.total, "searched": len(searched)}

    step("update")
    updated = client.projects.update(project["id"], name=f"North block renamed {run}", description="new words")
    check(updated["name"] == f"North block renamed {run}" and updated["description"] == "new words", "projects.update")
    cleared = client.projects.update(project["id"], description=None)
    check(cleared["description"] is None and cleared["name"] == updated["name"], "description=None clears, the rest stays")
    steps["update"] = {"name": updated["name"]}

    step("archive_restore_delete")
    conflict = expect_raises(ConflictError, lambda: client.projects.delete(project["id"]), "deleting an active project")
    check(conflict.status == 409 and conflict.code == "CONFLICT", f"conflict: {conflict}")
    archived = client.projects.archive(project["id"])
    check(archived["status"] == "archived", "archive")
    restored = client.projects.restore(project["id"])
    check(restored["status"] == "active", f"restore: {restored['status']}")
    client.projects.archive(project["id"])
    check(client.projects.delete(project["id"]) is None, "delete answers None")
    steps["archive_restore_delete"] = {"archived": archived["status"], "restored": restored["status"], "deleted": True}

    step("not_found")
    nf = expect_raises(NotFoundError, lambda: client.projects.get(project["id"]), "get after delete")
    check(nf.status == 404 and nf.code == "NOT_FOUND", f"404: {nf}")
    check((nf.request_id or "").startswith("req_"), "404 carries a request id")
    steps["not_found"] = {"status": nf.status, "code": nf.code, "request_id": nf.request_id}

    step("validation_error")
    bad: Any = {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [0, 0]]]}
    ve = expect_raises(ValidationError, lambda: client.projects.create(f"Bad {run}", geometry=bad), "3-position polygon")
    check(ve.status == 422 and ve.code == "VALIDATION_ERROR", f"422: {ve}")
    check(len(ve.details) >= 1 and all("field" in d and "message" in d for d in ve.details), f"details: {ve.details}")
    check(any(d["field"].startswith("geometry") for d in ve.details), f"a geometry field in details: {ve.details}")
    ve2 = expect_raises(ValidationError, lambda: client.projects.create(""), "empty name")
    check(any(d["field"] == "name" for d in ve2.details), f"name in details: {ve2.details}")
    steps["validation_error"] = {"status": ve.status, "details": ve.details}

    step("assets")
    owner = client.projects.get(ids[2])
    asset = client.assets.create(
        owner["id"], name="Weather station", type="monitoring_station",
        location={"type": "Point", "coordinates": [20.005, 0.005]}, metadata={"serial": "WS-1"},
    )
    check(asset["project_id"] == owner["id"] and asset["status"] == "active", "asset create")
    for i in range(4):
        client.assets.create(owner["id"], name=f"Saw {i}", type="equipment")
    asset_ids = [a["id"] for a in client.assets.list_all(owner["id"], per_page=2)]
    check(len(asset_ids) == 5 and asset["id"] in asset_ids, f"assets listed across pages: {len(asset_ids)}")
    check(client.assets.get(owner["id"], asset["id"])["metadata"] == {"serial": "WS-1"}, "asset get metadata")
    moved = client.assets.update(owner["id"], asset["id"], status="maintenance")
    check(moved["status"] == "maintenance", "asset update")
    client.assets.delete(owner["id"], asset["id"])
    expect_raises(NotFoundError, lambda: client.assets.get(owner["id"], asset["id"]), "deleted asset")
    equipment = client.assets.list(owner["id"], type="equipment")
    check(equipment.total == 4, f"assets filtered by type: {equipment.total}")
    steps["assets"] = {"listed": len(asset_ids), "equipment": equipment.total}

    step("members")
    email = f"py-{run}@example.com"
    invited = client.members.invite(email, "editor")
    check(invited["email"] == email and invited["role"] == "editor", "invite")
    check(any(m["id"] == invited["id"] for m in client.members.list()), "members.list holds the invitee")
    changed = client.members.update(invited["id"], role="viewer")
    check(changed["role"] == "viewer", "member role update")
    client.members.remove(invited["id"])
    check(all(m["id"] != invited["id"] for m in client.members.list()), "member removed")
    steps["members"] = {"invited": invited["id"], "role_after": changed["role"]}

    step("events")
    created_events = [e for e in client.events.list_all(type="project.created", per_page=5) if e["data"].get("id") == project["id"]]
    check(len(created_events) == 1, "events.list finds the project.created event")
    steps["events"] = {"found": created_events[0]["id"]}

    spatial_steps(client, run, renamed["name"])

    step("webhook_delete")
    client.webhooks.delete(hook["id"])
    expect_raises(NotFoundError, lambda: client.webhooks.get(hook["id"]), "deleted webhook")
    steps["webhook_delete"] = {"deleted": hook["id"]}

    step("network_error_retry")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead_port = s.getsockname()[1]
    net_retries: List[RetryInfo] = []
    dead = Canopy(api_key=token, base_url=f"http://127.0.0.1:{dead_port}", max_retries=2, backoff_base=0.02, on_retry=net_retries.append)
    expect_raises(APIConnectionError, lambda: dead.projects.list(), "closed port")
    check(len(net_retries) == 2 and all(r.status is None for r in net_retries), f"2 retries on a network error: {net_retries}")
    steps["network_error_retry"] = {"retries": len(net_retries)}

    step("server_error_retry")
    flaky = FlakyEndpoint()
    try:
        fr: List[RetryInfo] = []
        local = Canopy(api_key=token, base_url=flaky.url, max_retries=2, backoff_base=0.05, on_retry=fr.append)
        made = local.projects.create("retried")
        check(made["id"] == "proj_local", "answer after two 503s")
        keys = {h.get("idempotency-key") for h in flaky.seen}
        check(len(flaky.seen) == 3 and len(keys) == 1 and None not in keys, f"one Idempotency-Key across 3 attempts: {keys}")
        check([r.status for r in fr] == [503, 503], "retried twice on 503")
        check(0.025 <= fr[0].delay <= 0.05 and 0.05 <= fr[1].delay <= 0.1, f"exponential backoff with jitter: {[r.delay for r in fr]}")
        flaky.seen.clear()
        no_retry = Canopy(api_key=token, base_url=flaky.url, max_retries=0)
        ise = expect_raises(InternalServerError, lambda: no_retry.projects.create("once"), "503 without retries")
        check(ise.status == 503 and ise.request_id == "req_local", "5xx error typed")
    finally:
        flaky.close()
    steps["server_error_retry"] = {"attempts": 3, "delays": [round(r.delay, 3) for r in fr]}

    step("rate_limit_retry")
    strict = Canopy(api_key=free_token, base_url=url, max_retries=0)
    limited: Optional[RateLimitError] = None
    burst = 0
    for _ in range(200):
        burst += 1
        try:
            strict.auth.verify()
        except RateLimitError as e:
            limited = e
            break
    check(limited is not None, "a free-plan burst reaches 429")
    assert limited is not None
    check(limited.status == 429 and limited.code == "RATE_LIMITED", f"429: {limited}")
    check(limited.retry_after is not None and limited.retry_after >= 1, f"Retry-After: {limited.retry_after}")
    rl_retries: List[RetryInfo] = []
    patient = Canopy(api_key=free_token, base_url=url, max_retries=3, on_retry=rl_retries.append)
    started = time.monotonic()
    created = patient.projects.create(f"After the limit {run}")
    elapsed = time.monotonic() - started
    check(created["id"].startswith("proj_"), "the retried create succeeds")
    check(len(rl_retries) >= 1 and rl_retries[0].status == 429, f"retried through a 429: {rl_retries}")
    r0 = rl_retries[0]
    check(r0.retry_after is not None and r0.delay >= r0.retry_after, "the wait honours Retry-After")
    check(elapsed >= (r0.retry_after or 0), f"really waited {elapsed:.2f} s")
    check(len({r.idempotency_key for r in rl_retries}) == 1 and r0.idempotency_key is not None, "one Idempotency-Key across retries")
    steps["rate_limit_retry"] = {
        "burst": burst, "retry_after": limited.retry_after, "retries": len(rl_retries),
        "waited": round(elapsed, 2), "project": created["id"],
    }


def run_scenario(url: str, token: str, free_token: str) -> Dict[str, Any]:
    """Runs the scenario once: ``{"ok": True, "steps": {...}}``, or on failure ``{"ok": False, "step",
    "error", "trace", "steps"}`` (the steps that passed)."""
    try:
        main(url, token, free_token)
    except Exception as e:  # report any failure as one result
        return {"ok": False, "step": current["step"], "error": f"{type(e).__name__}: {e}", "trace": traceback.format_exc(), "steps": steps}
    return {"ok": True, "steps": steps}


def run_standalone() -> Dict[str, Any]:
    """Runs the scenario against the server the environment names, else against one of its own."""
    url = os.environ.get("CANOPY_URL")
    if url:
        return run_scenario(url, os.environ["CANOPY_TOKEN"], os.environ["CANOPY_FREE_TOKEN"])
    server = CanopyServe()
    try:
        return run_scenario(server.url, server.token, server.free_token)
    finally:
        server.stop()


if __name__ == "__main__":
    try:
        result = run_standalone()
    except Exception as e:  # the server could not start: one line too
        result = {"ok": False, "step": "setup", "error": f"{type(e).__name__}: {e}", "trace": traceback.format_exc(), "steps": steps}
    print(json.dumps(result))
    sys.exit(0 if result["ok"] else 1)
