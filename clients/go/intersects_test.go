package canopy

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// pagedServer serves GET /projects from a script of pages keyed by the cursor asked for ("" for
// the first), recording every query it receives.
type pagedServer struct {
	mu      sync.Mutex
	queries []url.Values
	pages   map[string]map[string]interface{}
}

func (p *pagedServer) handler(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	q := r.URL.Query()
	p.queries = append(p.queries, q)
	page, ok := p.pages[q.Get("cursor")]
	p.mu.Unlock()
	if !ok {
		writeJSON(w, 400, errBody("VALIDATION_ERROR", "unknown cursor "+q.Get("cursor")))
		return
	}
	writeJSON(w, 200, page)
}

func projectsPage(names []string, next interface{}) map[string]interface{} {
	data := []interface{}{}
	for _, n := range names {
		data = append(data, map[string]interface{}{"id": "prj_" + n, "name": n, "slug": n, "description": nil, "geometry": nil, "status": "active"})
	}
	return map[string]interface{}{
		"data": data,
		"meta": map[string]interface{}{"total": len(names), "total_exact": false, "per_page": 3, "has_more": next != nil, "next_cursor": next, "request_id": "req_p"},
	}
}

// An intersects list may answer pages with fewer rows than per_page, even none, while has_more is
// true: the iterator follows next_cursor across them and yields the later rows.
func TestIterContinuesAcrossEmptyPagesWithHasMore(t *testing.T) {
	ps := &pagedServer{pages: map[string]map[string]interface{}{
		"":   projectsPage(nil, "c1"),
		"c1": projectsPage(nil, "c2"),
		"c2": projectsPage([]string{"a"}, "c3"),
		"c3": projectsPage([]string{"b", "c", "d"}, nil),
	}}
	srv := httptest.NewServer(http.HandlerFunc(ps.handler))
	defer srv.Close()
	c := fastClient(srv.URL)
	it := c.Projects.ListAll(context.Background(), &ProjectListParams{
		ListParams: ListParams{PerPage: Int(3)},
		Intersects: NewPoint(40.005, -9.99),
		Sort:       String("name"),
	})
	got, err := it.Collect()
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, p := range got {
		names = append(names, p.Name)
	}
	if strings.Join(names, ",") != "a,b,c,d" {
		t.Fatalf("items = %v, want a,b,c,d", names)
	}
	if it.PagesFetched() != 4 || len(ps.queries) != 4 {
		t.Fatalf("pages fetched = %d, requests = %d, want 4", it.PagesFetched(), len(ps.queries))
	}
	wantCursors := []string{"", "c1", "c2", "c3"}
	for i, q := range ps.queries {
		if cur := strings.Join(q["cursor"], ","); cur != wantCursors[i] {
			t.Fatalf("request %d cursor = %q, want %q", i, cur, wantCursors[i])
		}
		// every request carries the filter, compact, with the same order and size
		if g := strings.Join(q["intersects"], ","); g != `{"type":"Point","coordinates":[40.005,-9.99]}` {
			t.Fatalf("request %d intersects = %q", i, g)
		}
		if q.Get("per_page") != "3" || q.Get("sort") != "name" || q.Get("page") != "" {
			t.Fatalf("request %d query = %v", i, q)
		}
	}
	if m := it.Meta(); m == nil || m.HasMore || m.NextCursor != nil {
		t.Fatalf("last meta = %+v", m)
	}
}

// A page of no rows without has_more ends the list (no further request).
func TestIterStopsAtAnEmptyLastPage(t *testing.T) {
	ps := &pagedServer{pages: map[string]map[string]interface{}{
		"":   projectsPage([]string{"a"}, "c1"),
		"c1": projectsPage(nil, nil),
	}}
	srv := httptest.NewServer(http.HandlerFunc(ps.handler))
	defer srv.Close()
	got, err := fastClient(srv.URL).Projects.ListAll(context.Background(), &ProjectListParams{Intersects: NewPoint(1, 2)}).Collect()
	if err != nil || len(got) != 1 || got[0].Name != "a" || len(ps.queries) != 2 {
		t.Fatalf("items = %+v, err = %v, requests = %d", got, err, len(ps.queries))
	}
}

// A server handing back the cursor it was asked for would loop forever: the iterator stops with an error.
func TestIterRefusesARepeatedCursor(t *testing.T) {
	ps := &pagedServer{pages: map[string]map[string]interface{}{
		"":   projectsPage(nil, "c1"),
		"c1": projectsPage(nil, "c1"),
	}}
	srv := httptest.NewServer(http.HandlerFunc(ps.handler))
	defer srv.Close()
	it := fastClient(srv.URL).Projects.ListAll(context.Background(), &ProjectListParams{Intersects: NewPoint(1, 2)})
	if it.Next() {
		t.Fatalf("yielded %+v", it.Current())
	}
	if it.Err() == nil || !strings.Contains(it.Err().Error(), "c1") || len(ps.queries) != 2 {
		t.Fatalf("err = %v after %d requests", it.Err(), len(ps.queries))
	}
}

// What each kind of Intersects value puts on the wire.
func TestIntersectsEncodings(t *testing.T) {
	ps := &pagedServer{pages: map[string]map[string]interface{}{"": projectsPage(nil, nil)}}
	srv := httptest.NewServer(http.HandlerFunc(ps.handler))
	defer srv.Close()
	c := fastClient(srv.URL)
	ctx := context.Background()
	var nilPoint *Point
	var nilGeometry *Geometry
	cases := []struct {
		name string
		in   json.Marshaler
		want string // "" = no intersects parameter
	}{
		{"point", NewPoint(-122.5, 37.75), `{"type":"Point","coordinates":[-122.5,37.75]}`},
		{"polygon", square(40, -10, 0.5), `{"type":"Polygon","coordinates":[[[40,-10],[40.5,-10],[40.5,-9.5],[40,-9.5],[40,-10]]]}`},
		{"multipolygon", NewMultiPolygon([][][]float64{{{0, 0}, {1, 0}, {1, 1}, {0, 0}}}), `{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]]]}`},
		{"raw JSON, compacted", json.RawMessage("{ \"type\": \"Point\",\n \"coordinates\": [ 1, 2 ] }"), `{"type":"Point","coordinates":[1,2]}`},
		{"nil", nil, ""},
		{"typed nil point", nilPoint, ""},
		{"typed nil geometry", nilGeometry, ""},
	}
	for i, tc := range cases {
		if _, err := c.Projects.List(ctx, &ProjectListParams{Intersects: tc.in}); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		q := ps.queries[i]
		if tc.want == "" {
			if _, present := q["intersects"]; present {
				t.Fatalf("%s: intersects = %q, want none", tc.name, q["intersects"])
			}
		} else if got := q.Get("intersects"); got != tc.want {
			t.Fatalf("%s: intersects = %s, want %s", tc.name, got, tc.want)
		}
	}
	// a geometry that cannot be written fails before any request, in List and in ListAll
	bad := &Geometry{Type: "LineString"}
	before := len(ps.queries)
	if _, err := c.Projects.List(ctx, &ProjectListParams{Intersects: bad}); err == nil || !strings.Contains(err.Error(), "LineString") {
		t.Fatalf("list with a LineString: %v", err)
	}
	it := c.Projects.ListAll(ctx, &ProjectListParams{Intersects: bad})
	if it.Next() || it.Err() == nil || !strings.Contains(it.Err().Error(), "intersects") {
		t.Fatalf("list all with a LineString: %v", it.Err())
	}
	if len(ps.queries) != before {
		t.Fatalf("%d requests sent for an unencodable geometry", len(ps.queries)-before)
	}
}
