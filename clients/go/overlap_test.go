package canopy

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// What the overlap-related params put on the wire, seen by a local HTTP server.
func TestBBoxQueryAndPartialAccountUpdateOnTheWire(t *testing.T) {
	var s seen
	var queries []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.add(r)
		queries = append(queries, r.URL.Query().Get("bbox"))
		if r.Method == http.MethodGet {
			writeJSON(w, 200, map[string]interface{}{"data": []interface{}{}, "meta": map[string]interface{}{"total": 0, "request_id": "req_1"}})
			return
		}
		writeJSON(w, 200, map[string]interface{}{"data": map[string]interface{}{"id": "acc_1", "name": "A", "overlap_policy": "reject"}, "meta": map[string]string{"request_id": "req_2"}})
	}))
	defer srv.Close()
	c := fastClient(srv.URL)
	ctx := context.Background()
	if _, err := c.Projects.List(ctx, &ProjectListParams{BBox: &BBox{West: -122.5, South: -0.000001, East: 1e-7, North: 37.8}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Projects.List(ctx, &ProjectListParams{Status: String(ProjectActive)}); err != nil {
		t.Fatal(err)
	}
	if queries[0] != "-122.5,-0.000001,0.0000001,37.8" || queries[1] != "" {
		t.Fatalf("bbox queries = %q", queries)
	}
	acc, err := c.Account.Update(ctx, &AccountUpdateParams{OverlapPolicy: String(OverlapPolicyReject)})
	if err != nil || acc.OverlapPolicy != OverlapPolicyReject {
		t.Fatalf("update = %+v, %v", acc, err)
	}
	if _, err := c.Account.Update(ctx, &AccountUpdateParams{Name: String("B")}); err != nil {
		t.Fatal(err)
	}
	if s.bodies[2] != `{"overlap_policy":"reject"}` || s.bodies[3] != `{"name":"B"}` {
		t.Fatalf("account update bodies = %q", s.bodies[2:])
	}
}
