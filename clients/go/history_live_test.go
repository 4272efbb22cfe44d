package canopy

import (
	"context"
	"encoding/json"
	"sort"
	"testing"
	"time"
)

// checkOverlapLists: GET overlaps of each of two overlapping squares lists the other, with the
// hectares the write reported, walked one item a page.
func checkOverlapLists(ctx context.Context, t *testing.T, client *Client, west, east *Project, hectares float64) {
	t.Helper()
	listed, err := client.Projects.OverlapsAll(ctx, east.ID, &ListParams{PerPage: Int(1)}).Collect()
	if err != nil || len(listed) != 1 || listed[0].ProjectID != west.ID || listed[0].OverlapHectares != hectares {
		t.Fatalf("overlaps of east = %+v, %v (want west with %.4f ha)", listed, err, hectares)
	}
	page, err := client.Projects.Overlaps(ctx, west.ID, nil)
	if err != nil || len(page.Data) != 1 || page.Data[0].ProjectID != east.ID || page.Data[0].Name != east.Name {
		t.Fatalf("overlaps of west = %+v, %v (want east)", page, err)
	}
}

// checkBoundaryHistory: a replaced boundary makes two versions; one is read with its boundary
// and restored, the restore becoming version 3.
func checkBoundaryHistory(ctx context.Context, t *testing.T, client *Client) {
	small, err := client.Projects.Create(ctx, &ProjectCreateParams{Name: "History", Geometry: square(42, -10, 0.01)})
	if err != nil {
		t.Fatal(err)
	}
	grown, err := client.Projects.Update(ctx, small.ID, &ProjectUpdateParams{Geometry: square(42, -10, 0.02)})
	if err != nil || grown.AreaHectares < small.AreaHectares*3 {
		t.Fatalf("replacing the boundary = %+v, %v", grown, err)
	}
	versions, err := client.Boundaries.ListAll(ctx, small.ID, &ListParams{PerPage: Int(1)}).Collect()
	if err != nil || len(versions) != 2 {
		t.Fatalf("versions = %+v, %v (want 2)", versions, err)
	}
	sort.Slice(versions, func(i, j int) bool { return versions[i].Version < versions[j].Version })
	if versions[0].Version != 1 || versions[0].Via != "create" || versions[0].AreaHectaresAfter != small.AreaHectares ||
		versions[1].Version != 2 || versions[1].AreaHectaresAfter != grown.AreaHectares || versions[1].ChangedBy == nil {
		t.Fatalf("versions = %+v", versions)
	}
	first, err := client.Boundaries.Get(ctx, small.ID, 1)
	if err != nil || first.Geometry == nil || first.AreaHectaresAfter != small.AreaHectares || len(first.BBox) != 4 || first.BBox[2] != small.BBox[2] {
		t.Fatalf("version 1 = %+v, %v", first, err)
	}
	back, err := client.Boundaries.Restore(ctx, small.ID, 1)
	if err != nil || back.AreaHectares != small.AreaHectares || back.BBox[2] != small.BBox[2] {
		t.Fatalf("restore = %+v, %v (want %.4f ha)", back, err, small.AreaHectares)
	}
	latest, err := client.Boundaries.List(ctx, small.ID, nil)
	if err != nil || len(latest.Data) != 3 {
		t.Fatalf("versions after the restore = %+v, %v", latest, err)
	}
	var restored *BoundaryVersionSummary
	for i := range latest.Data {
		if latest.Data[i].Version == 3 {
			restored = &latest.Data[i]
		}
	}
	if restored == nil || restored.Via != "version_restore" || restored.RestoredFrom == nil || *restored.RestoredFrom != 1 {
		t.Fatalf("version 3 = %+v", restored)
	}
	if _, err := client.Boundaries.Get(ctx, small.ID, 99); !IsNotFound(err) {
		t.Fatalf("an unknown version: %v (want 404)", err)
	}
}

// checkBulkImport: a FeatureCollection of two polygons, previewed (nothing stored) then imported
// for real, followed until it completes with two projects created.
func checkBulkImport(ctx context.Context, t *testing.T, client *Client) {
	features := []map[string]interface{}{}
	for i, name := range []string{"Imported 0", "Imported 1"} {
		features = append(features, map[string]interface{}{
			"type": "Feature", "properties": map[string]string{"title": name}, "geometry": square(43+float64(i)*0.1, -10, 0.01),
		})
	}
	file, err := json.Marshal(map[string]interface{}{"type": "FeatureCollection", "features": features})
	if err != nil {
		t.Fatal(err)
	}
	preview, err := client.Imports.Create(ctx, file, &ImportCreateParams{DryRun: true, NameField: String("title")})
	if err != nil || !preview.DryRun || preview.Status != ImportCompleted || len(preview.Results) != 2 ||
		preview.Results[0].Outcome != "valid" || preview.Results[1].Outcome != "valid" || preview.Totals.Created != 0 {
		t.Fatalf("preview = %+v, %v", preview, err)
	}
	if stored, err := client.Projects.List(ctx, &ProjectListParams{Search: String("Imported")}); err != nil || len(stored.Data) != 0 {
		t.Fatalf("a preview stored projects: %+v, %v", stored, err)
	}
	job, err := client.Imports.Create(ctx, file, &ImportCreateParams{NameField: String("title")})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for job.Status == ImportRunning && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		if job, err = client.Imports.Get(ctx, job.ID, nil); err != nil {
			t.Fatal(err)
		}
	}
	if job.Status != ImportCompleted || job.Totals.Created != 2 || job.Totals.Refused != 0 || len(job.Results) != 2 {
		t.Fatalf("import = %+v", job)
	}
	for _, r := range job.Results {
		if r.Outcome != "created" || r.ProjectID == nil || r.AreaHectares == nil {
			t.Fatalf("result = %+v", r)
		}
		p, err := client.Projects.Get(ctx, *r.ProjectID)
		if err != nil || p.AreaHectares != *r.AreaHectares || r.Name == nil || p.Name != *r.Name {
			t.Fatalf("imported project = %+v, %v (result %+v)", p, err, r)
		}
	}
	if _, err := client.Imports.Cancel(ctx, job.ID); !IsConflict(err) {
		t.Fatalf("cancelling an ended import: %v (want 409)", err)
	}
}
