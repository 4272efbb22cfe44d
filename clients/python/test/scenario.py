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
from typing import Any, Callable, Dict, List, Optional, Tuple, TypeVar, cast

from canopy_serve import CanopyServe
from local_server import LocalServer, QuietHandler

from canopy import (
    APIConnectionError,
    Canopy,
    ConflictError,
    InternalServerError,
    NotFoundError,
    Point,
    Polygon,
    ProjectOverlapEventData,
    RateLimitError,
    RetryInfo,
    ValidationError,
    WebhookVerificationError,
    verify_webhook,
)

T = TypeVar("T")
E = TypeVar("E", bound=BaseException)

steps: Dict[str, Any] = {}
current = {"step": "setup"}


class ScenarioFailure(Exception):
    pass


def check(cond: bool, what: str) -> None:
    if not cond:
        raise ScenarioFailure(what)


def expect_raises(exc: "type[E]", fn: Callable[[], object], what: str) -> E:
    try:
        fn()
    except exc as e:
        return e
    raise ScenarioFailure(f"{what}: expected {exc.__name__}, nothing was raised")


def step(name: str) -> None:
    current["step"] = name


def square(lon: float, side: float = 0.01) -> Polygon:
    return {
        "type": "Polygon",
        "coordinates": [[[lon, 0.0], [lon + side, 0.0], [lon + side, side], [lon, side], [lon, 0.0]]],
    }


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

    step("overlaps")
    check(client.account.get()["overlap_policy"] == "warn", "a new account's overlap_policy is warn")

    def rect(lon: float, lat: float, side: float) -> Polygon:
        return {
            "type": "Polygon",
            "coordinates": [[[lon, lat], [lon + side, lat], [lon + side, lat + side], [lon, lat + side], [lon, lat]]],
        }

    # two 0.02-degree squares at 10 S, the second shifted east by half a side: they share half of it
    west = client.projects.create(f"Overlap west {run}", geometry=rect(50.0, -10.0, 0.02))
    west_report = west.get("overlaps")
    check(west_report is not None and west_report["overlaps"] == [] and west_report["complete"] is True, f"nothing overlapped: {west_report}")
    east = client.projects.create(f"Overlap east {run}", geometry=rect(50.01, -10.0, 0.02))
    report = east.get("overlaps")
    check(report is not None and report["complete"] is True and len(report["overlaps"]) == 1, f"east overlaps: {report}")
    assert report is not None
    shared = report["overlaps"][0]
    half = east["area_hectares"] / 2
    check(shared["project_id"] == west["id"] and shared["name"] == west["name"], f"overlap names the west square: {shared}")
    check(shared["overlap_hectares"] > 0 and abs(shared["overlap_hectares"] - half) <= half * 0.01, f"about {half:.1f} ha shared: {shared}")
    listed = list(client.projects.overlaps_all(east["id"], per_page=1))
    check([(o["project_id"], o["overlap_hectares"]) for o in listed] == [(west["id"], shared["overlap_hectares"])],
          f"GET overlaps of east lists west with its hectares: {listed}")
    check([o["project_id"] for o in client.projects.overlaps(west["id"])] == [east["id"]], "GET overlaps of west lists east")
    check("overlaps" not in client.projects.get(east["id"]), "a read carries no overlaps")
    check("overlaps" not in client.projects.update(east["id"], description="renamed only"), "a write without a boundary carries no overlaps")
    detected = [
        cast(ProjectOverlapEventData, e["data"]) for e in client.events.list_all(type="project.overlap_detected")
        if cast(ProjectOverlapEventData, e["data"])["project"]["id"] == east["id"]
    ]
    check(len(detected) == 1 and detected[0]["overlaps"][0]["project_id"] == west["id"]
          and detected[0]["overlaps"][0]["overlap_hectares"] == shared["overlap_hectares"], f"project.overlap_detected: {detected}")

    def in_box(box: Any) -> List[str]:
        return [p["id"] for p in client.projects.list_all(bbox=box, sort="name", order="asc")]

    only_west = in_box((49.99, -10.01, 50.005, -9.99))
    only_east = in_box("50.025,-9.995,50.5,-9.5")
    both = in_box([50.015, -9.995, 50.016, -9.994])
    nothing = in_box((-170.0, -80.0, -169.5, -79.5))
    check(only_west == [west["id"]], f"bbox at the west square: {only_west}")
    check(only_east == [east["id"]], f"bbox past the west square: {only_east}")
    check(both == [east["id"], west["id"]], f"bbox inside both: {both}")
    check(nothing == [], f"bbox over nothing: {nothing}")
    bad_box = expect_raises(ValidationError, lambda: client.projects.list(bbox=(0, 10, 1, 5)), "south > north")
    check(any(d["field"] == "query.bbox" for d in bad_box.details), f"bbox in details: {bad_box.details}")

    # intersects: tested exactly against the boundaries (west spans 50-50.02 E, east 50.01-50.03 E)
    def meeting(geometry: Any) -> List[str]:
        return [p["id"] for p in client.projects.list_all(intersects=geometry, sort="name", order="asc")]

    def pt(lon: float, lat: float) -> Point:
        return {"type": "Point", "coordinates": [lon, lat]}

    hits = {
        "west": meeting(pt(50.005, -9.99)),
        "east": meeting(pt(50.025, -9.99)),
        "both": meeting(pt(50.015, -9.99)),
        "edge": meeting(pt(50.0, -9.99)),
        "outside": meeting(pt(50.035, -9.99)),
        "polygon": meeting(rect(50.021, -9.995, 0.001)),
        "touching": meeting(rect(49.99, -10.0, 0.01)),
        "text": meeting('{"type":"Point","coordinates":[50.005,-9.99]}'),
    }
    check(hits["west"] == [west["id"]], f"point in the west square: {hits['west']}")
    check(hits["east"] == [east["id"]], f"point in the east square: {hits['east']}")
    check(hits["both"] == [east["id"], west["id"]], f"point in both: {hits['both']}")
    check(hits["edge"] == [west["id"]], f"point on the west square's edge: {hits['edge']}")
    check(hits["outside"] == [], f"point outside both: {hits['outside']}")
    check(hits["polygon"] == [east["id"]], f"polygon inside the east square: {hits['polygon']}")
    check(hits["touching"] == [], f"polygon sharing only an edge: {hits['touching']}")
    check(hits["text"] == [west["id"]], f"intersects as JSON text: {hits['text']}")
    paged = expect_raises(ValidationError, lambda: client.projects.list(intersects=pt(50.005, -9.99), page=2), "intersects with page 2")
    check(any(d["field"] == "query.page" for d in paged.details), f"page in details: {paged.details}")
    line = expect_raises(
        ValidationError,
        lambda: client.projects.list(intersects={"type": "LineString", "coordinates": [[0, 0], [1, 1]]}),
        "intersects with a LineString",
    )
    check(any(d["field"] == "query.intersects" for d in line.details), f"intersects in details: {line.details}")

    strict = client.account.update(overlap_policy="reject")
    check(strict["overlap_policy"] == "reject" and strict["name"] == renamed["name"], f"overlap_policy reject, name kept: {strict}")
    try:
        refused = expect_raises(
            ConflictError,
            lambda: client.projects.create(f"Overlap refused {run}", geometry=rect(50.005, -9.995, 0.005)),
            "an overlapping create under reject",
        )
        check(refused.status == 409 and refused.code == "CONFLICT" and west["id"] in str(refused), f"409 naming the west square: {refused}")
        check(len(client.projects.list(search=f"Overlap refused {run}")) == 0, "the refused project was not stored")
        expect_raises(
            ConflictError,
            lambda: client.projects.update(east["id"], geometry=rect(50.015, -10.0, 0.02)),
            "an overlapping update under reject",
        )
        kept = client.projects.get(east["id"])
        check(kept["area_hectares"] == east["area_hectares"] and (kept["bbox"] or [0.0])[0] == 50.01, f"east unchanged: {kept}")
        apart = client.projects.create(f"Overlap apart {run}", geometry=rect(51.0, -10.0, 0.01))
        check(apart.get("overlaps") == {"overlaps": [], "complete": True}, f"apart under reject: {apart.get('overlaps')}")
    finally:
        client.account.update(overlap_policy="warn")
    steps["overlaps"] = {
        "project": east["id"], "other": shared["project_id"], "west": west["id"], "overlap_hectares": shared["overlap_hectares"],
        "half_area": half, "bbox": {"west": only_west, "east": only_east, "both": both, "none": nothing},
        "intersects": hits,
        "rejected_status": refused.status, "events": len(detected),
    }

    step("boundaries")
    moved = client.projects.create(f"History {run}", geometry=rect(52.0, -10.0, 0.01))
    grown = client.projects.update(moved["id"], geometry=rect(52.0, -10.0, 0.02))
    check(grown["area_hectares"] > moved["area_hectares"] * 3, f"the boundary grew: {grown['area_hectares']}")
    versions = list(client.boundaries.list_all(moved["id"], per_page=1))
    check(sorted(v["version"] for v in versions) == [1, 2], f"two versions: {versions}")
    first = next(v for v in versions if v["version"] == 1)
    check(first["area_hectares_after"] == moved["area_hectares"] and first["via"] == "create", f"version 1: {first}")
    check("geometry" not in first, "a listed version carries no boundary")
    old = client.boundaries.get(moved["id"], 1)
    check(old["geometry"] == moved["geometry"] and old["area_hectares_after"] == moved["area_hectares"], f"version 1's boundary: {old}")
    back = client.boundaries.restore(moved["id"], 1)
    check(back["area_hectares"] == moved["area_hectares"] and back["geometry"] == moved["geometry"], f"restored: {back}")
    latest = client.boundaries.list(moved["id"])
    restored = [v for v in latest if v["version"] == 3]
    check(len(restored) == 1 and restored[0]["via"] == "version_restore" and restored[0]["restored_from"] == 1,
          f"the restore is version 3: {list(latest)}")
    missing = expect_raises(NotFoundError, lambda: client.boundaries.get(moved["id"], 99), "an unknown version")
    steps["boundaries"] = {"versions": len(latest), "restored_from": restored[0]["restored_from"], "missing_status": missing.status}

    step("imports")
    collection = {"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"title": f"Imported {run} {i}"}, "geometry": rect(53.0 + i * 0.1, -10.0, 0.01)}
        for i in range(2)
    ]}
    file = json.dumps(collection).encode("utf-8")
    preview = client.imports.create(file, dry_run=True, name_field="title")
    check(preview["dry_run"] is True and preview["status"] == "completed", f"a preview: {preview}")
    check([r["outcome"] for r in preview["results"]] == ["valid", "valid"] and preview["totals"]["created"] == 0,
          f"the preview's results: {preview['results']}")
    check(not [p for p in client.projects.list_all(search=f"Imported {run}")], "a preview stores no project")
    created_import = client.imports.create(file, name_field="title")
    job = created_import
    deadline = time.monotonic() + 30
    while job["status"] == "running" and time.monotonic() < deadline:
        time.sleep(0.1)
        job = client.imports.get(created_import["id"])
    check(job["status"] == "completed" and job["totals"]["created"] == 2 and job["totals"]["refused"] == 0, f"the import: {job}")
    names = sorted(r["name"] or "" for r in job["results"])
    check(names == [f"Imported {run} 0", f"Imported {run} 1"], f"named from name_field: {names}")
    for r in job["results"]:
        check(r["project_id"] is not None and client.projects.get(r["project_id"])["area_hectares"] == r["area_hectares"],
              f"the imported project exists: {r}")
    ended = expect_raises(ConflictError, lambda: client.imports.cancel(created_import["id"]), "cancelling an ended import")
    steps["imports"] = {"preview": preview["status"], "created": job["totals"]["created"], "cancel_status": ended.status}

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
