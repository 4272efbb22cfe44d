"""The scenario's spatial steps: overlap reports and the overlap policy, the bbox and intersects
filters, boundary history, and a bulk import (run in order by ``scenario.main``)."""

from __future__ import annotations

import json
import time
from typing import Any, List, cast

from canopy import Canopy, ConflictError, NotFoundError, Point, Polygon, ProjectOverlapEventData, ValidationError
from scenario_kit import check, expect_raises, step, steps


def spatial_steps(client: Canopy, run: str, account_name: str) -> None:
    """Runs the steps on the account of ``client`` (named ``account_name``), tagging names with ``run``."""
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
    check(strict["overlap_policy"] == "reject" and strict["name"] == account_name, f"overlap_policy reject, name kept: {strict}")
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
