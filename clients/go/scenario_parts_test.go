package canopy

// Two parts of the scripted scenario against a real `canopy serve` (integration_test.go runs them
// in order on its server): webhook delivery and overlaps.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// checkWebhookDelivery: a webhook to a local receiver (created, listed, updated), its deliveries
// verified with its signing secret, its delivery logs, and its deletion.
func checkWebhookDelivery(ctx context.Context, t *testing.T, client *Client) {
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
}

// checkOverlaps: overlap reports on create and update, the bbox filter, and the reject policy
// refusing an overlapping boundary (409) while one apart is created.
func checkOverlaps(ctx context.Context, t *testing.T, client *Client) {
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
}
