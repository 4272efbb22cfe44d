package canopy

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// An import sends the file's bytes as they are, with its media type and the options as the query;
// a retry after a 503 sends the same bytes under the same Idempotency-Key.
func TestImportSendsTheFileRawAndRetriesIt(t *testing.T) {
	var s seen
	var types, queries []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		types = append(types, r.Header.Get("Content-Type"))
		queries = append(queries, r.URL.RawQuery)
		if s.add(r) == 1 {
			writeJSON(w, 503, map[string]interface{}{"error": map[string]string{"code": "SERVICE_UNAVAILABLE", "message": "busy"}})
			return
		}
		writeJSON(w, 202, map[string]interface{}{"data": map[string]interface{}{"id": "imp_1", "status": "running"}})
	}))
	defer srv.Close()
	file := []byte(`<kml xmlns="http://www.opengis.net/kml/2.2"/>`)
	job, err := fastClient(srv.URL).Imports.Create(context.Background(), file, &ImportCreateParams{
		ContentType: "application/vnd.google-earth.kml+xml", Mode: String("merge"), Name: String("North"), DryRun: true,
	})
	if err != nil || job.ID != "imp_1" || job.Status != ImportRunning {
		t.Fatalf("import = %+v, %v", job, err)
	}
	if s.attempts != 2 || s.bodies[0] != string(file) || s.bodies[1] != string(file) || s.keys[0] == "" || s.keys[0] != s.keys[1] {
		t.Fatalf("attempts %d, bodies %q, keys %q", s.attempts, s.bodies, s.keys)
	}
	if types[1] != "application/vnd.google-earth.kml+xml" || queries[1] != "dry_run=true&mode=merge&name=North" {
		t.Fatalf("content type %q, query %q", types[1], queries[1])
	}
}
