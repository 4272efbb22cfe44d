package canopy

// The scripted scenario against a real `canopy serve`: the test starts the repository's server
// with the repository's Node 24 (../../node_modules/.bin/node, or $CANOPY_NODE), bootstraps two
// accounts with `canopy init --json` (one on the pro plan for the scenario, one on the free plan,
// 60 requests a minute, for the 429), and stops the server and removes its files at the end.
// Without node or the repository the test fails, saying what is missing.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
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

	t.Run("webhook delivery verified", func(t *testing.T) {
		type delivery struct {
			body   []byte
			header http.Header
		}
		got := make(chan delivery, 64)
		receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				w.WriteHeader(400)
				return
			}
			got <- delivery{body, r.Header.Clone()}
			w.WriteHeader(204)
		}))
		defer receiver.Close()

		hook, err := client.Webhooks.Create(ctx, &WebhookCreateParams{URL: receiver.URL + "/canopy", Events: []string{EventProjectCreated}, Description: String("go client test")})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(hook.ID, "wh_") || hook.Secret == "" || !hook.Enabled {
			t.Fatalf("webhook = %+v", hook)
		}
		p, err := client.Projects.Create(ctx, &ProjectCreateParams{Name: "Webhook block", Geometry: square(30, 10, 0.01)})
		if err != nil {
			t.Fatal(err)
		}
		var d delivery
		var ev *Event
		deadline := time.After(30 * time.Second)
		for ev == nil {
			select {
			case d = <-got:
				e, err := VerifyWebhook(d.body, d.header, hook.Secret, 5*time.Minute)
				if err != nil {
					t.Fatalf("a real delivery failed verification: %v", err)
				}
				var data ProjectEventData
				if err := e.DecodeData(&data); err == nil && data.ID == p.ID {
					ev = e
				}
			case <-deadline:
				t.Fatal("no delivery of project.created within 30 s")
			}
		}
		if ev.Type != EventProjectCreated || !strings.HasPrefix(ev.ID, "evt_") || ev.Account.Name != "Go client renamed" ||
			d.header.Get(HeaderEventID) != ev.ID || d.header.Get("Webhook-Signature") == "" {
			t.Fatalf("event %+v, headers %v", ev, d.header)
		}

		tampered := bytes.Replace(d.body, []byte("Webhook block"), []byte("Webhook b1ock"), 1)
		if bytes.Equal(tampered, d.body) {
			t.Fatal("the body did not contain the project name")
		}
		if _, err := VerifyWebhook(tampered, d.header, hook.Secret, 5*time.Minute); !errors.Is(err, ErrInvalidSignature) {
			t.Fatalf("tampered body: %v", err)
		}
		if _, err := VerifyWebhook(d.body, d.header, hook.Secret+"x", 5*time.Minute); !errors.Is(err, ErrInvalidSignature) {
			t.Fatalf("wrong secret: %v", err)
		}
		// re-serialising the JSON breaks the signature: receivers must verify the raw body
		var anyBody map[string]interface{}
		_ = json.Unmarshal(d.body, &anyBody)
		reserialised, _ := json.Marshal(anyBody)
		if _, err := VerifyWebhook(reserialised, d.header, hook.Secret, 5*time.Minute); !errors.Is(err, ErrInvalidSignature) {
			t.Fatalf("re-serialised body: %v", err)
		}
		old := d.header.Clone()
		if _, err := verifyWebhookAt(d.body, old, hook.Secret, 5*time.Minute, time.Now().Add(10*time.Minute)); !errors.Is(err, ErrTimestampOutOfTolerance) {
			t.Fatalf("stale delivery: %v", err)
		}

		// the delivery log records the success
		var entry *DeliveryLog
		for i := 0; i < 50 && entry == nil; i++ {
			logs, err := client.Webhooks.LogsAll(ctx, hook.ID, nil).Collect()
			if err != nil {
				t.Fatal(err)
			}
			for j := range logs {
				if logs[j].EventID == ev.ID && logs[j].Status == "success" {
					entry = &logs[j]
				}
			}
			if entry == nil {
				time.Sleep(200 * time.Millisecond)
			}
		}
		if entry == nil || entry.ResponseCode == nil || *entry.ResponseCode != 204 {
			t.Fatalf("log entry = %+v", entry)
		}
		hooks, err := client.Webhooks.List(ctx)
		if err != nil || len(hooks.Data) != 1 || hooks.Data[0].ID != hook.ID {
			t.Fatalf("webhooks = %+v, %v", hooks, err)
		}
		off, err := client.Webhooks.Update(ctx, hook.ID, &WebhookUpdateParams{Enabled: Bool(false)})
		if err != nil || off.Enabled {
			t.Fatalf("disable = %+v, %v", off, err)
		}
		if err := client.Webhooks.Delete(ctx, hook.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := client.Webhooks.Get(ctx, hook.ID); !IsNotFound(err) {
			t.Fatalf("get after delete: %v", err)
		}
	})

	t.Run("overlaps, bbox filter, overlap policy", func(t *testing.T) {
		acc, err := client.Account.Get(ctx)
		if err != nil || acc.OverlapPolicy != OverlapPolicyWarn {
			t.Fatalf("a new account's overlap policy = %+v, %v (want warn)", acc, err)
		}
		// two 0.02° squares at 10°S, the second shifted east by half a side: they share half of it
		west, err := client.Projects.Create(ctx, &ProjectCreateParams{Name: "Overlap west", Geometry: square(40, -10, 0.02)})
		if err != nil {
			t.Fatal(err)
		}
		if west.Overlaps == nil || len(west.Overlaps.Overlaps) != 0 || !west.Overlaps.Complete {
			t.Fatalf("a boundary overlapping nothing: overlaps = %+v", west.Overlaps)
		}
		east, err := client.Projects.Create(ctx, &ProjectCreateParams{Name: "Overlap east", Geometry: square(40.01, -10, 0.02)})
		if err != nil {
			t.Fatal(err)
		}
		if east.Overlaps == nil || !east.Overlaps.Complete || len(east.Overlaps.Overlaps) != 1 {
			t.Fatalf("overlaps of the east square = %+v", east.Overlaps)
		}
		o := east.Overlaps.Overlaps[0]
		// the shared 0.01° × 0.02° rectangle is half of either square (about 242 ha)
		half := east.AreaHectares / 2
		if o.ProjectID != west.ID || o.Name != "Overlap west" || o.OverlapHectares <= 0 ||
			o.OverlapHectares < half*0.99 || o.OverlapHectares > half*1.01 {
			t.Fatalf("overlap = %+v, want %s sharing about %.1f ha (east %.4f ha)", o, west.ID, half, east.AreaHectares)
		}
		// a read and a write that leaves the boundary alone carry no report
		got, err := client.Projects.Get(ctx, east.ID)
		if err != nil || got.Overlaps != nil {
			t.Fatalf("get = %+v, %v (want no overlaps)", got, err)
		}
		renamed, err := client.Projects.Update(ctx, east.ID, &ProjectUpdateParams{Description: String("renamed only")})
		if err != nil || renamed.Overlaps != nil {
			t.Fatalf("update without a boundary = %+v, %v (want no overlaps)", renamed, err)
		}

		// the event, with its typed data
		events, err := client.Events.ListAll(ctx, &EventListParams{Type: String(EventProjectOverlapDetected)}).Collect()
		if err != nil {
			t.Fatal(err)
		}
		var data *ProjectOverlapEventData
		for _, ev := range events {
			var d ProjectOverlapEventData
			if err := ev.DecodeData(&d); err != nil {
				t.Fatal(err)
			}
			if d.Project.ID == east.ID {
				data = &d
			}
		}
		if data == nil || len(data.Overlaps) != 1 || data.Overlaps[0].ProjectID != west.ID ||
			data.Overlaps[0].OverlapHectares != o.OverlapHectares || !data.Complete || data.Project.AreaHectares != east.AreaHectares {
			t.Fatalf("%d project.overlap_detected events; data for %s = %+v", len(events), east.ID, data)
		}
		checkOverlapLists(ctx, t, client, west, east, o.OverlapHectares)

		// the bbox filter: a box touching only one square, one touching both, one touching none
		ids := func(b BBox) []string {
			t.Helper()
			list, err := client.Projects.ListAll(ctx, &ProjectListParams{BBox: &b, Sort: String("name"), Order: String("asc")}).Collect()
			if err != nil {
				t.Fatalf("bbox %s: %v", b, err)
			}
			out := []string{}
			for _, p := range list {
				out = append(out, p.ID)
			}
			return out
		}
		if got := ids(BBox{West: 39.99, South: -10.01, East: 40.005, North: -9.99}); len(got) != 1 || got[0] != west.ID {
			t.Fatalf("bbox around the west square's edge = %v, want [%s]", got, west.ID)
		}
		if got := ids(BBox{West: 40.025, South: -9.995, East: 40.5, North: -9.5}); len(got) != 1 || got[0] != east.ID {
			t.Fatalf("bbox past the west square = %v, want [%s]", got, east.ID)
		}
		if got := ids(BBox{West: 40.015, South: -9.995, East: 40.016, North: -9.994}); len(got) != 2 || got[0] != east.ID || got[1] != west.ID {
			t.Fatalf("bbox inside both = %v, want [%s %s]", got, east.ID, west.ID)
		}
		if got := ids(BBox{West: -170, South: -80, East: -169.5, North: -79.5}); len(got) != 0 {
			t.Fatalf("bbox over nothing = %v", got)
		}
		_, err = client.Projects.List(ctx, &ProjectListParams{BBox: &BBox{West: 0, South: 10, East: 1, North: 5}})
		if e, ok := AsError(err); !ok || !IsValidation(err) {
			t.Fatalf("south > north: %v", err)
		} else if _, named := e.DetailFor("query.bbox"); !named {
			t.Fatalf("details %+v do not name bbox", e.Details)
		}

		// the intersects filter, tested exactly against the boundaries (west spans 40–40.02°E, east 40.01–40.03°E)
		hits := func(g json.Marshaler) []string {
			t.Helper()
			it := client.Projects.ListAll(ctx, &ProjectListParams{Intersects: g, Sort: String("name"), Order: String("asc")})
			list, err := it.Collect()
			if err != nil {
				t.Fatalf("intersects %T %+v: %v", g, g, err)
			}
			out := []string{}
			for _, p := range list {
				out = append(out, p.ID)
			}
			return out
		}
		if got := hits(NewPoint(40.005, -9.99)); len(got) != 1 || got[0] != west.ID {
			t.Fatalf("point in the west square only = %v, want [%s]", got, west.ID)
		}
		if got := hits(NewPoint(40.025, -9.99)); len(got) != 1 || got[0] != east.ID {
			t.Fatalf("point in the east square only = %v, want [%s]", got, east.ID)
		}
		if got := hits(NewPoint(40.015, -9.99)); len(got) != 2 || got[0] != east.ID || got[1] != west.ID {
			t.Fatalf("point in both = %v, want [%s %s]", got, east.ID, west.ID)
		}
		if got := hits(NewPoint(40, -9.99)); len(got) != 1 || got[0] != west.ID {
			t.Fatalf("point on the west square's edge = %v, want [%s]", got, west.ID)
		}
		// inside the bbox of both squares' union but outside both boundaries: an exact test, not a box test
		if got := hits(NewPoint(40.035, -9.99)); len(got) != 0 {
			t.Fatalf("point east of both = %v", got)
		}
		if got := hits(square(40.021, -9.995, 0.001)); len(got) != 1 || got[0] != east.ID {
			t.Fatalf("small polygon inside the east square = %v, want [%s]", got, east.ID)
		}
		if got := hits(square(39.99, -10, 0.01)); len(got) != 0 {
			t.Fatalf("polygon sharing only the west square's edge = %v (want none)", got)
		}
		if got := hits(json.RawMessage(`{"type": "Point", "coordinates": [40.005, -9.99]}`)); len(got) != 1 || got[0] != west.ID {
			t.Fatalf("raw point = %v, want [%s]", got, west.ID)
		}
		_, err = client.Projects.List(ctx, &ProjectListParams{Intersects: NewPoint(40.005, -9.99), ListParams: ListParams{Page: Int(2)}})
		if e, ok := AsError(err); !ok || !IsValidation(err) {
			t.Fatalf("intersects with page 2: %v", err)
		} else if _, named := e.DetailFor("query.page"); !named {
			t.Fatalf("details %+v do not name page", e.Details)
		}
		_, err = client.Projects.List(ctx, &ProjectListParams{Intersects: json.RawMessage(`{"type":"LineString","coordinates":[[0,0],[1,1]]}`)})
		if e, ok := AsError(err); !ok || !IsValidation(err) {
			t.Fatalf("intersects with a LineString: %v", err)
		} else if _, named := e.DetailFor("query.intersects"); !named {
			t.Fatalf("details %+v do not name intersects", e.Details)
		}

		// overlap_policy reject: an overlapping boundary is refused with 409 and nothing is stored
		strict, err := client.Account.Update(ctx, &AccountUpdateParams{OverlapPolicy: String(OverlapPolicyReject)})
		if err != nil || strict.OverlapPolicy != OverlapPolicyReject || strict.Name != "Go client renamed" {
			t.Fatalf("set reject = %+v, %v", strict, err)
		}
		defer func() {
			if _, err := client.Account.Update(ctx, &AccountUpdateParams{OverlapPolicy: String(OverlapPolicyWarn)}); err != nil {
				t.Errorf("resetting the overlap policy: %v", err)
			}
		}()
		_, err = client.Projects.Create(ctx, &ProjectCreateParams{Name: "Overlap refused", Geometry: square(40.005, -9.995, 0.005)})
		if e, ok := AsError(err); !ok || !IsConflict(err) || e.Status != 409 || !strings.Contains(e.Message, west.ID) {
			t.Fatalf("overlapping create under reject: %v", err)
		}
		if refused, err := client.Projects.List(ctx, &ProjectListParams{Search: String("Overlap refused")}); err != nil || len(refused.Data) != 0 {
			t.Fatalf("the refused project was stored: %+v, %v", refused, err)
		}
		_, err = client.Projects.Update(ctx, east.ID, &ProjectUpdateParams{Geometry: square(40.015, -10, 0.02)})
		if !IsConflict(err) {
			t.Fatalf("overlapping update under reject: %v", err)
		}
		if kept, err := client.Projects.Get(ctx, east.ID); err != nil || kept.AreaHectares != east.AreaHectares || kept.BBox[0] != 40.01 {
			t.Fatalf("after a refused update: %+v, %v", kept, err)
		}
		apart, err := client.Projects.Create(ctx, &ProjectCreateParams{Name: "Overlap apart", Geometry: square(41, -10, 0.01)})
		if err != nil || apart.Overlaps == nil || len(apart.Overlaps.Overlaps) != 0 {
			t.Fatalf("a boundary apart under reject = %+v, %v", apart, err)
		}
	})

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
