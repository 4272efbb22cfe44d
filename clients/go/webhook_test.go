package canopy

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A delivery signed by the service's own code: generated once with Node 24 from
// packages/core/src/Signature.ts and packages/core/src/Delivery.ts (Delivery.headers(event, secret,
// body, ts)), which is what the dispatcher sends; the values are pasted here unchanged.
const (
	vectorSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	vectorBody      = `{"id":"evt_test0001","type":"project.created","created_at":"2026-11-23T12:00:00.000Z","data":{"id":"proj_abc","name":"North block","slug":"north-block","description":null,"area_hectares":491.5243,"status":"active","created_at":"2026-11-23T12:00:00.000Z","created_by":{"id":"user_x","email":"o@example.com"}},"account":{"id":"acc_y","name":"Acme Forestry"}}`
	vectorTimestamp = 1795435200
	vectorSignature = "sha256=7b9b813d7d4af2976b415f50e22d3114d0bca153654fea991cfdae6718aabacc"
	vectorStandard  = "v1,gQQ56w/RAl13KNZ5EtI0SZckFxRRRp87BpGdhgaQIiQ="
	// Signature.sign("plain-secret", body) and Signature.standard("plain-secret", "evt_test0001", ts, body)
	vectorPlainSignature = "sha256=73cd62664e2246a17926e6bd12189a10837da21afb14a990c43d55f5ba7284ce"
	vectorPlainStandard  = "v1,xAH4WI0cpEuxkBzNHtPHAo/+91TUchoJ394Az4xuML4="
)

func vectorHeader() http.Header {
	h := http.Header{}
	h.Set("content-type", "application/json")
	h.Set("x-service-signature", vectorSignature)
	h.Set("x-service-event-id", "evt_test0001")
	h.Set("x-service-event-type", "project.created")
	h.Set("x-service-timestamp", "1795435200")
	h.Set("webhook-id", "evt_test0001")
	h.Set("webhook-timestamp", "1795435200")
	h.Set("webhook-signature", vectorStandard)
	return h
}

var vectorTime = time.Unix(vectorTimestamp, 0)

// standardOnly removes the X-Service-* signature and timestamp, leaving the Standard Webhooks set.
func standardOnly(h http.Header) {
	h.Del("x-service-signature")
	h.Del("x-service-timestamp")
}

func TestSignaturesMatchTheServerVector(t *testing.T) {
	if got := SignPayload([]byte(vectorBody), vectorSecret); got != vectorSignature {
		t.Fatalf("SignPayload = %s, want %s", got, vectorSignature)
	}
	if got := SignStandard([]byte(vectorBody), vectorSecret, "evt_test0001", vectorTimestamp); got != vectorStandard {
		t.Fatalf("SignStandard = %s, want %s", got, vectorStandard)
	}
	if got := SignPayload([]byte(vectorBody), "plain-secret"); got != vectorPlainSignature {
		t.Fatalf("SignPayload(plain) = %s, want %s", got, vectorPlainSignature)
	}
	if got := SignStandard([]byte(vectorBody), "plain-secret", "evt_test0001", vectorTimestamp); got != vectorPlainStandard {
		t.Fatalf("SignStandard(plain) = %s, want %s", got, vectorPlainStandard)
	}
}

func TestVerifyWebhookAcceptsTheVector(t *testing.T) {
	ev, err := verifyWebhookAt([]byte(vectorBody), vectorHeader(), vectorSecret, time.Minute, vectorTime.Add(30*time.Second))
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if ev.ID != "evt_test0001" || ev.Type != EventProjectCreated || ev.Account.ID != "acc_y" {
		t.Fatalf("event = %+v", ev)
	}
	var data ProjectEventData
	if err := ev.DecodeData(&data); err != nil || data.ID != "proj_abc" || data.AreaHectares != 491.5243 || data.CreatedBy == nil || data.CreatedBy.Email != "o@example.com" {
		t.Fatalf("data = %+v, %v", data, err)
	}
	// only the spec's header (no Standard Webhooks set) is enough too
	h := vectorHeader()
	h.Del("webhook-signature")
	h.Del("webhook-id")
	h.Del("webhook-timestamp")
	if _, err := verifyWebhookAt([]byte(vectorBody), h, vectorSecret, time.Minute, vectorTime); err != nil {
		t.Fatalf("verify with X-Service-Signature only: %v", err)
	}
	// only the Standard Webhooks headers (a relay that dropped the X-Service-* set) are enough too
	h = vectorHeader()
	standardOnly(h)
	if ev, err := verifyWebhookAt([]byte(vectorBody), h, vectorSecret, time.Minute, vectorTime); err != nil || ev.ID != "evt_test0001" {
		t.Fatalf("verify with webhook-signature only: %v", err)
	}
	// the plain (non-whsec_) secret's vectors verify through either header alone
	h = vectorHeader()
	h.Set("x-service-signature", vectorPlainSignature)
	h.Del("webhook-signature")
	if _, err := verifyWebhookAt([]byte(vectorBody), h, "plain-secret", time.Minute, vectorTime); err != nil {
		t.Fatalf("plain secret, X-Service-Signature only: %v", err)
	}
	h = vectorHeader()
	standardOnly(h)
	h.Set("webhook-signature", vectorPlainStandard)
	if _, err := verifyWebhookAt([]byte(vectorBody), h, "plain-secret", time.Minute, vectorTime); err != nil {
		t.Fatalf("plain secret, webhook-signature only: %v", err)
	}
	// several Standard signatures (key rotation): any one may match
	h = vectorHeader()
	h.Set("webhook-signature", "v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA= "+vectorStandard)
	if _, err := verifyWebhookAt([]byte(vectorBody), h, vectorSecret, time.Minute, vectorTime); err != nil {
		t.Fatalf("verify with two standard signatures: %v", err)
	}
}

func TestVerifyWebhookRefuses(t *testing.T) {
	body := []byte(vectorBody)
	cases := []struct {
		name   string
		body   []byte
		secret string
		edit   func(http.Header)
		at     time.Time
		want   error
	}{
		{"tampered body", []byte(strings.Replace(vectorBody, "North block", "North b1ock", 1)), vectorSecret, nil, vectorTime, ErrInvalidSignature},
		{"re-serialised body", []byte(strings.Replace(vectorBody, `,"`, `, "`, 1)), vectorSecret, nil, vectorTime, ErrInvalidSignature},
		{"wrong secret", body, "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", nil, vectorTime, ErrInvalidSignature},
		{"no signature header", body, vectorSecret, func(h http.Header) {
			h.Del("x-service-signature")
			h.Del("webhook-signature")
		}, vectorTime, ErrMissingSignature},
		{"empty X-Service-Signature beside a valid standard one", body, vectorSecret, func(h http.Header) { h.Set("x-service-signature", "") }, vectorTime, ErrInvalidSignature},
		{"bad X-Service-Signature beside a valid standard one", body, vectorSecret, func(h http.Header) { h.Set("x-service-signature", vectorPlainSignature) }, vectorTime, ErrInvalidSignature},
		{"standard headers only, tampered body", []byte(strings.Replace(vectorBody, "North block", "North b1ock", 1)), vectorSecret, standardOnly, vectorTime, ErrInvalidSignature},
		{"standard headers only, no webhook-id", body, vectorSecret, func(h http.Header) {
			standardOnly(h)
			h.Del("webhook-id")
		}, vectorTime, ErrInvalidSignature},
		{"uppercase hex", body, vectorSecret, func(h http.Header) { h.Set("x-service-signature", strings.ToUpper(vectorSignature)) }, vectorTime, ErrInvalidSignature},
		{"truncated signature", body, vectorSecret, func(h http.Header) { h.Set("x-service-signature", vectorSignature[:40]) }, vectorTime, ErrInvalidSignature},
		{"bad standard signature", body, vectorSecret, func(h http.Header) { h.Set("webhook-signature", "v1,AAAA") }, vectorTime, ErrInvalidSignature},
		{"tampered timestamp", body, vectorSecret, func(h http.Header) { h.Set("webhook-timestamp", "1795435260") }, vectorTime, ErrInvalidSignature},
		{"tampered event id", body, vectorSecret, func(h http.Header) { h.Set("webhook-id", "evt_other") }, vectorTime, ErrInvalidSignature},
		{"too old", body, vectorSecret, nil, vectorTime.Add(6 * time.Minute), ErrTimestampOutOfTolerance},
		{"from the future", body, vectorSecret, nil, vectorTime.Add(-6 * time.Minute), ErrTimestampOutOfTolerance},
		{"no timestamp", body, vectorSecret, func(h http.Header) {
			h.Del("webhook-signature")
			h.Del("x-service-timestamp")
		}, vectorTime, ErrTimestampOutOfTolerance},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := vectorHeader()
			if c.edit != nil {
				c.edit(h)
			}
			ev, err := verifyWebhookAt(c.body, h, c.secret, 0, c.at)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if ev != nil {
				t.Fatalf("an event came back with the error: %+v", ev)
			}
		})
	}
	// a negative tolerance skips the clock check, not the signature
	if _, err := verifyWebhookAt(body, vectorHeader(), vectorSecret, -1, vectorTime.Add(48*time.Hour)); err != nil {
		t.Fatalf("negative tolerance: %v", err)
	}
}
