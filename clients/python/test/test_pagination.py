"""Checks the client's paging across pages that hold no rows while ``has_more`` is true (as an
``intersects`` list may answer) and what ``intersects=`` puts on the wire, against a local HTTP
server (a real socket, not Canopy) that serves scripted pages by cursor.

A test (``PaginationTest``) under pytest and unittest; as a script it prints one JSON line
``{"ok": true, "checks": N, ...}``, or exits 1 with ``{"ok": false, "error": ...}``.
"""

from __future__ import annotations

import json
import sys
import traceback
import unittest
import urllib.parse
from typing import Any, Dict, List, Optional

from local_server import LocalServer, QuietHandler

from canopy import Canopy, CanopyError, Point, Polygon

checks = 0


def check(cond: bool, what: str) -> None:
    global checks
    if not cond:
        raise AssertionError(what)
    checks += 1


def page(names: List[str], next_cursor: Optional[str]) -> Dict[str, Any]:
    data = [{"id": f"proj_{n}", "name": n, "slug": n, "description": None, "geometry": None, "status": "active"} for n in names]
    return {
        "data": data,
        "meta": {"total": len(data), "total_exact": False, "per_page": 3, "has_more": next_cursor is not None,
                 "next_cursor": next_cursor, "request_id": "req_local"},
    }


class PagedServer(LocalServer):
    """Answers GET /projects with ``pages[cursor]`` ("" for no cursor), recording each query."""

    def __init__(self) -> None:
        self.pages: Dict[str, Dict[str, Any]] = {}
        self.queries: List[Dict[str, List[str]]] = []
        outer = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                parsed = urllib.parse.urlsplit(self.path)
                query = urllib.parse.parse_qs(parsed.query, keep_blank_values=True)
                outer.queries.append(query)
                cursor = query.get("cursor", [""])[0]
                body: Dict[str, Any]
                if parsed.path == "/v1/projects" and cursor in outer.pages:
                    status, body = 200, outer.pages[cursor]
                else:
                    status = 400
                    body = {"error": {"code": "VALIDATION_ERROR", "message": f"unknown cursor {cursor}", "details": []},
                            "meta": {"request_id": "req_local"}}
                self.send_json(status, json.dumps(body).encode("utf-8"))

        super().__init__(Handler)


def main() -> Dict[str, Any]:
    global checks
    checks = 0
    srv = PagedServer()
    try:
        client = Canopy(api_key="cnp_key_local", base_url=srv.url, max_retries=0)
        point: Point = {"type": "Point", "coordinates": [40.005, -9.99]}
        compact_point = '{"type":"Point","coordinates":[40.005,-9.99]}'

        # two empty pages with has_more, then rows: every row is yielded, each request keeps the filter
        srv.pages = {"": page([], "c1"), "c1": page([], "c2"), "c2": page(["a"], "c3"), "c3": page(["b", "c", "d"], None)}
        names = [p["name"] for p in client.projects.list_all(per_page=3, intersects=point, sort="name")]
        check(names == ["a", "b", "c", "d"], f"list_all across empty pages: {names}")
        check([q.get("cursor", [""])[0] for q in srv.queries] == ["", "c1", "c2", "c3"], f"cursors followed: {srv.queries}")
        check(all(q.get("intersects") == [compact_point] for q in srv.queries), f"intersects on every request: {srv.queries}")
        check(all(q.get("per_page") == ["3"] and q.get("sort") == ["name"] and "page" not in q for q in srv.queries),
              f"same size and order, no page number: {srv.queries}")

        # the same through Page: next_page on an empty page with has_more, and iter_pages
        srv.queries.clear()
        first = client.projects.list(per_page=3, intersects=point)
        check(len(first) == 0 and first.has_more and first.next_cursor == "c1", f"first page: {first!r}")
        second = first.next_page()
        check(second is not None and len(second) == 0 and second.has_more, f"next_page of an empty page: {second!r}")
        sizes = [len(p) for p in first.iter_pages()]
        check(sizes == [0, 0, 1, 3], f"iter_pages sizes: {sizes}")

        # an empty page without has_more ends the list, with no further request
        srv.pages = {"": page(["a"], "c1"), "c1": page([], None)}
        srv.queries.clear()
        ended = [p["name"] for p in client.projects.list_all(intersects=point)]
        check(ended == ["a"] and len(srv.queries) == 2, f"empty last page: {ended}, {len(srv.queries)} requests")

        # a server answering the cursor it was given would loop forever: the iteration stops with an error
        srv.pages = {"": page([], "c1"), "c1": page([], "c1")}
        srv.queries.clear()
        try:
            list(client.projects.list_all(intersects=point))
            raise AssertionError("a repeated cursor was followed without end")
        except CanopyError as e:
            check("c1" in str(e) and len(srv.queries) == 2, f"repeated cursor: {e}, {len(srv.queries)} requests")

        # what each kind of value puts on the wire
        srv.pages = {"": page([], None)}
        polygon: Polygon = {"type": "Polygon", "coordinates": [[[40.0, -10.0], [40.5, -10.0], [40.5, -9.5], [40.0, -10.0]]]}
        sent: Dict[str, Optional[List[str]]] = {}
        for label, value in (
            ("polygon", polygon),
            ("mapping", {"type": "MultiPolygon", "coordinates": [[[[0, 0], [1, 0], [1, 1], [0, 0]]]]}),
            ("string", '{"type": "Point", "coordinates": [1, 2]}'),
            ("unicode", {"type": "Point", "coordinates": [1, 2], "name": "Fjäll"}),
            ("none", None),
        ):
            srv.queries.clear()
            client.projects.list(intersects=value)
            sent[label] = srv.queries[0].get("intersects")
        check(sent["polygon"] == ['{"type":"Polygon","coordinates":[[[40.0,-10.0],[40.5,-10.0],[40.5,-9.5],[40.0,-10.0]]]}'],
              f"polygon: {sent['polygon']}")
        check(sent["mapping"] == ['{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]]]}'], f"mapping: {sent['mapping']}")
        check(sent["string"] == ['{"type": "Point", "coordinates": [1, 2]}'], f"a string is sent as it is: {sent['string']}")
        check(sent["unicode"] == ['{"type":"Point","coordinates":[1,2],"name":"Fjäll"}'], f"UTF-8 text: {sent['unicode']}")
        check(sent["none"] is None, f"no intersects: {sent['none']}")
        srv.queries.clear()
        try:
            client.projects.list(intersects={"type": "Point", "coordinates": [float("nan"), 0.0]})
            raise AssertionError("a NaN coordinate was sent")
        except ValueError:
            check(srv.queries == [], "nothing sent for a NaN coordinate")
        return {"ok": True, "checks": checks, "sent": sent}
    finally:
        srv.close()


class PaginationTest(unittest.TestCase):
    def test_empty_pages_and_intersects_on_the_wire(self) -> None:
        result = main()
        self.assertEqual(result["checks"], 15)
        self.assertEqual(result["sent"]["none"], None)


if __name__ == "__main__":
    try:
        result = main()
    except Exception as e:  # report any failure as one line
        print(json.dumps({"ok": False, "error": f"{type(e).__name__}: {e}", "trace": traceback.format_exc(), "checks": checks}))
        sys.exit(1)
    print(json.dumps(result))
