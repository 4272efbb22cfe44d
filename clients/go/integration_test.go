package canopy

// The scripted scenario against a real `canopy serve`: the test starts the repository's server
// with the repository's Node 24 (../../node_modules/.bin/node, or $CANOPY_NODE), bootstraps two
// accounts with `canopy init --json` (one on the pro plan for the scenario, one on the free plan,
// 60 requests a minute, for the 429), and stops the server and removes its files at the end.
// Without node or the repository the test fails, saying what is missing.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"
)

func TestLiveServerScenario(t *testing.T) {
	srv := startLiveServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	client := NewClient(srv.mainKey, WithBaseURL(srv.base))

	var project *Project
	t.Run("auth, account, usage", func(t *testing.T) {
		info, err := client.Auth.Verify(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !info.Valid || info.Type != "api_key" || !strings.HasPrefix(info.AccountID, "acc_") || info.ExpiresAt != nil {
			t.Fatalf("verify = %+v", info)
		}
		acc, err := client.Account.Get(ctx)
		if err != nil || acc.ID != info.AccountID || acc.Plan != "pro" || acc.Name != "Go client pro" || acc.OverlapPolicy != OverlapPolicyWarn {
			t.Fatalf("account = %+v, %v", acc, err)
		}
		renamed, err := client.Account.Update(ctx, &AccountUpdateParams{Name: String("Go client renamed")})
		if err != nil || renamed.Name != "Go client renamed" || renamed.ID != acc.ID {
			t.Fatalf("rename = %+v, %v", renamed, err)
		}
		usage, err := client.Usage.Get(ctx)
		if err != nil || usage.Members.Current != 1 || usage.APIRequests.Limit <= 0 || !usage.Period.End.After(usage.Period.Start) {
			t.Fatalf("usage = %+v, %v", usage, err)
		}
	})

	t.Run("create, get", func(t *testing.T) {
		var err error
		project, err = client.Projects.Create(ctx, &ProjectCreateParams{
			Name:        "Amazon Reforestation",
			Description: String("Go client scenario"),
			Geometry:    NewPolygon([][]float64{{-62.2, -3.4}, {-62.18, -3.4}, {-62.18, -3.38}, {-62.2, -3.38}, {-62.2, -3.4}}),
		})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(project.ID, "proj_") || project.Slug != "amazon-reforestation" || project.Status != ProjectActive {
			t.Fatalf("created %+v", project)
		}
		// a 0.02° square at 3.4°S is about 491.5 ha
		if project.AreaHectares < 480 || project.AreaHectares > 500 {
			t.Fatalf("area_hectares = %v", project.AreaHectares)
		}
		if project.Geometry == nil || project.Geometry.Type != "Polygon" || len(project.Geometry.Polygon[0]) != 5 || len(project.BBox) != 4 {
			t.Fatalf("geometry = %+v, bbox %v", project.Geometry, project.BBox)
		}
		got, err := client.Projects.Get(ctx, project.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != project.ID || got.Name != project.Name || got.Description == nil || *got.Description != "Go client scenario" ||
			got.AreaHectares != project.AreaHectares || !got.CreatedAt.Equal(project.CreatedAt) {
			t.Fatalf("get = %+v, created %+v", got, project)
		}
	})
	if project == nil {
		t.Fatal("no project: the create step failed")
	}

	t.Run("list all pages", func(t *testing.T) {
		want := map[string]bool{project.ID: true}
		for i := 1; i <= 6; i++ {
			p, err := client.Projects.Create(ctx, &ProjectCreateParams{Name: fmt.Sprintf("Paging block %d", i), Geometry: square(10+float64(i)/10, 50, 0.01)})
			if err != nil {
				t.Fatal(err)
			}
			want[p.ID] = true
		}
		it := client.Projects.ListAll(ctx, &ProjectListParams{ListParams: ListParams{PerPage: Int(2)}, Sort: String("name"), Order: String("asc")})
		var names []string
		seen := map[string]bool{}
		for it.Next() {
			p := it.Current()
			if seen[p.ID] {
				t.Fatalf("%s came twice", p.ID)
			}
			seen[p.ID] = true
			names = append(names, p.Name)
		}
		if err := it.Err(); err != nil {
			t.Fatal(err)
		}
		if len(seen) != len(want) {
			t.Fatalf("iterated %d projects, want %d", len(seen), len(want))
		}
		for id := range want {
			if !seen[id] {
				t.Fatalf("%s was not listed", id)
			}
		}
		if it.PagesFetched() != 4 || !sort.StringsAreSorted(names) {
			t.Fatalf("pages = %d (want 4 of 2), names %v", it.PagesFetched(), names)
		}
		// page numbers work too, and meta says where we are
		page, err := client.Projects.List(ctx, &ProjectListParams{ListParams: ListParams{Page: Int(2), PerPage: Int(3)}})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Data) != 3 || page.Meta.Total != 7 || page.Meta.TotalPages != 3 || page.Meta.Page == nil || *page.Meta.Page != 2 {
			t.Fatalf("page 2 of 3: %d items, meta %+v", len(page.Data), page.Meta)
		}
		// a filter reaches the server: nothing is archived yet
		archived, err := client.Projects.ListAll(ctx, &ProjectListParams{Status: String(ProjectArchived)}).Collect()
		if err != nil || len(archived) != 0 {
			t.Fatalf("archived = %v, %v", archived, err)
		}
	})

	t.Run("update, archive, restore, delete", func(t *testing.T) {
		updated, err := client.Projects.Update(ctx, project.ID, &ProjectUpdateParams{Name: String("Amazon Reforestation II"), Geometry: square(-62.2, -3.4, 0.01)})
		if err != nil {
			t.Fatal(err)
		}
		if updated.Name != "Amazon Reforestation II" || updated.AreaHectares >= project.AreaHectares || updated.Description == nil || !updated.UpdatedAt.After(project.UpdatedAt) {
			t.Fatalf("updated %+v", updated)
		}
		// an active project cannot be deleted
		err = client.Projects.Delete(ctx, project.ID)
		if e, ok := AsError(err); !ok || e.Status < 400 || e.Status >= 500 {
			t.Fatalf("deleting an active project: %v", err)
		}
		archived, err := client.Projects.Archive(ctx, project.ID)
		if err != nil || archived.Status != ProjectArchived {
			t.Fatalf("archive = %+v, %v", archived, err)
		}
		restored, err := client.Projects.Restore(ctx, project.ID)
		if err != nil || restored.Status == ProjectArchived {
			t.Fatalf("restore = %+v, %v", restored, err)
		}
		if _, err := client.Projects.Archive(ctx, project.ID); err != nil {
			t.Fatal(err)
		}
		if err := client.Projects.Delete(ctx, project.ID); err != nil {
			t.Fatal(err)
		}
		_, err = client.Projects.Get(ctx, project.ID)
		if !IsNotFound(err) {
			t.Fatalf("get after delete: %v", err)
		}
	})

	t.Run("assets", func(t *testing.T) {
		p, err := client.Projects.Create(ctx, &ProjectCreateParams{Name: "Asset host", Geometry: square(20, 40, 0.02)})
		if err != nil {
			t.Fatal(err)
		}
		a, err := client.Assets.Create(ctx, p.ID, &AssetCreateParams{
			Name: "Weather station 1", Type: "monitoring_station", Location: NewPoint(20.01, 40.01),
			Metadata: map[string]interface{}{"serial": "WS-001", "height_m": 3.5},
		})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(a.ID, "asset_") || a.ProjectID != p.ID || a.Status != "active" || a.Location == nil ||
			a.Location.Coordinates[0] != 20.01 || a.Metadata["serial"] != "WS-001" || a.Metadata["height_m"] != 3.5 {
			t.Fatalf("asset = %+v", a)
		}
		for i := 0; i < 2; i++ {
			if _, err := client.Assets.Create(ctx, p.ID, &AssetCreateParams{Name: fmt.Sprintf("Harvester %d", i), Type: "equipment"}); err != nil {
				t.Fatal(err)
			}
		}
		got, err := client.Assets.Get(ctx, p.ID, a.ID)
		if err != nil || got.Name != a.Name || got.Type != "monitoring_station" {
			t.Fatalf("get = %+v, %v", got, err)
		}
		all, err := client.Assets.ListAll(ctx, p.ID, &AssetListParams{ListParams: ListParams{PerPage: Int(2)}}).Collect()
		if err != nil || len(all) != 3 {
			t.Fatalf("list all = %d assets, %v", len(all), err)
		}
		equipment, err := client.Assets.List(ctx, p.ID, &AssetListParams{Type: String("equipment")})
		if err != nil || len(equipment.Data) != 2 || equipment.Meta.Total != 2 {
			t.Fatalf("equipment = %+v, %v", equipment, err)
		}
		upd, err := client.Assets.Update(ctx, p.ID, a.ID, &AssetUpdateParams{Status: String("maintenance")})
		if err != nil || upd.Status != "maintenance" || upd.Name != a.Name {
			t.Fatalf("update = %+v, %v", upd, err)
		}
		if err := client.Assets.Delete(ctx, p.ID, a.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := client.Assets.Get(ctx, p.ID, a.ID); !IsNotFound(err) {
			t.Fatalf("get after delete: %v", err)
		}
		// an asset with an unknown type is a validation error naming the field
		_, err = client.Assets.Create(ctx, p.ID, &AssetCreateParams{Name: "Thing", Type: "spaceship"})
		if e, ok := AsError(err); !ok || !IsValidation(err) || len(e.Details) == 0 {
			t.Fatalf("bad asset type: %v", err)
		} else if _, named := e.DetailFor("type"); !named {
			t.Fatalf("details %+v do not name type", e.Details)
		}
	})

	t.Run("422 with details", func(t *testing.T) {
		_, err := client.Projects.Create(ctx, &ProjectCreateParams{
			Name:     "",
			Geometry: NewPolygon([][]float64{{0, 0}, {1, 0}, {0, 0}}),
		})
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("err = %v, want *canopy.Error", err)
		}
		if e.Status != 422 || e.Code != CodeValidation || !IsValidation(err) || e.Message == "" || !strings.HasPrefix(e.RequestID, "req_") {
			t.Fatalf("error = %+v", e)
		}
		if msg, ok := e.DetailFor("name"); !ok || msg == "" {
			t.Fatalf("no detail on name: %+v", e.Details)
		}
		if msg, ok := e.DetailFor("geometry.coordinates[0]"); !ok || !strings.Contains(msg, "4") {
			t.Fatalf("no detail on geometry.coordinates[0]: %+v", e.Details)
		}
	})

	t.Run("404", func(t *testing.T) {
		_, err := client.Projects.Get(ctx, "proj_doesnotexist")
		e, ok := AsError(err)
		if !ok || e.Status != 404 || e.Code != CodeNotFound || !IsNotFound(err) || IsValidation(err) || !strings.Contains(e.Message, "proj_doesnotexist") || !strings.HasPrefix(e.RequestID, "req_") {
			t.Fatalf("err = %#v", err)
		}
		if !strings.Contains(err.Error(), "NOT_FOUND") {
			t.Fatalf("message %q", err.Error())
		}
		// a bad key is a 401
		_, err = NewClient("cnp_key_invalid", WithBaseURL(srv.base)).Auth.Verify(ctx)
		if !IsUnauthorized(err) {
			t.Fatalf("bad key: %v", err)
		}
	})

	t.Run("members and events", func(t *testing.T) {
		inv, err := client.Members.Invite(ctx, &MemberInviteParams{Email: "forester@example.com", Role: "viewer"})
		if err != nil || inv.Email != "forester@example.com" || inv.Role != "viewer" || inv.Status != "invited" {
			t.Fatalf("invite = %+v, %v", inv, err)
		}
		members, err := client.Members.List(ctx)
		if err != nil || members.Meta.Total != 2 || len(members.Data) != 2 {
			t.Fatalf("members = %+v, %v", members, err)
		}
		up, err := client.Members.Update(ctx, inv.ID, &MemberUpdateParams{Role: "editor"})
		if err != nil || up.Role != "editor" {
			t.Fatalf("member update = %+v, %v", up, err)
		}
		if err := client.Members.Remove(ctx, inv.ID); err != nil {
			t.Fatal(err)
		}
		events, err := client.Events.ListAll(ctx, &EventListParams{ListParams: ListParams{PerPage: Int(3)}, Type: String(EventProjectCreated)}).Collect()
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, ev := range events {
			if ev.Type != EventProjectCreated {
				t.Fatalf("event of type %s in a filtered list", ev.Type)
			}
			var d ProjectEventData
			if err := ev.DecodeData(&d); err != nil {
				t.Fatal(err)
			}
			if d.ID == project.ID && d.CreatedBy != nil && d.CreatedBy.Email == "owner-pro@example.com" {
				found = true
			}
		}
		if len(events) != 8 || !found { // the first project, six paging blocks, the asset host
			t.Fatalf("%d project.created events, first project found: %v", len(events), found)
		}
	})

	t.Run("webhook delivery verified", func(t *testing.T) { checkWebhookDelivery(ctx, t, client) })

	t.Run("overlaps, bbox filter, overlap policy", func(t *testing.T) { checkOverlaps(ctx, t, client) })

	t.Run("boundary history", func(t *testing.T) { checkBoundaryHistory(ctx, t, client) })
	t.Run("bulk import", func(t *testing.T) { checkBulkImport(ctx, t, client) })

	t.Run("429 retried after Retry-After", func(t *testing.T) {
		limitedNoRetry := NewClient(srv.limitedKey, WithBaseURL(srv.base), WithMaxRetries(0))
		rec := &recordingTransport{}
		limited := NewClient(srv.limitedKey, WithBaseURL(srv.base), WithHTTPClient(&http.Client{Transport: rec}), WithMaxRetries(5))

		var trace []attempt
		var created *Project
		for round := 0; round < 5 && created == nil; round++ {
			// spend the minute's allowance (60 on the free plan) until the server refuses
			var limitErr *Error
			for i := 0; i < 200 && limitErr == nil; i++ {
				_, err := limitedNoRetry.Auth.Verify(ctx)
				if err != nil {
					e, ok := AsError(err)
					if !ok || !IsRateLimited(err) {
						t.Fatalf("while spending the allowance: %v", err)
					}
					limitErr = e
				}
			}
			if limitErr == nil {
				t.Fatal("200 requests on the free plan were never refused")
			}
			if limitErr.Status != 429 || limitErr.RetryAfter <= 0 || limitErr.Header.Get("X-RateLimit-Remaining") != "0" {
				t.Fatalf("429 = %+v", limitErr)
			}
			p, err := limited.Projects.Create(ctx, &ProjectCreateParams{Name: fmt.Sprintf("Rate limited %d", round)})
			if err != nil {
				t.Fatalf("create through the rate limit: %v", err)
			}
			trace = rec.take()
			if trace[0].status == 429 {
				created = p
			}
		}
		if created == nil {
			t.Fatal("the retrying client's first attempt was never refused with 429")
		}
		if len(trace) < 2 || trace[len(trace)-1].status != 201 {
			t.Fatalf("attempts: %+v", trace)
		}
		for i, a := range trace {
			if a.method != "POST" || a.key == "" || a.key != trace[0].key {
				t.Fatalf("attempt %d: %+v (key of the first: %q)", i, a, trace[0].key)
			}
			if i > 0 {
				prev := trace[i-1]
				wait := parseRetryAfter(prev.retryAfter, prev.answered)
				if prev.status != 429 || wait <= 0 {
					t.Fatalf("attempt %d followed %+v", i, prev)
				}
				if gap := a.sent.Sub(prev.answered); gap < wait {
					t.Fatalf("attempt %d came %s after a 429 with Retry-After %s", i, gap, prev.retryAfter)
				}
			}
		}
		// one logical create, one project, whatever the number of attempts
		list, err := limited.Projects.List(ctx, &ProjectListParams{Search: String(created.Name)})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, p := range list.Data {
			if p.Name == created.Name {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("%d projects named %q", n, created.Name)
		}
	})
}
