package canopy

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// DefaultWebhookTolerance is how far a delivery's timestamp may be from the receiver's clock when
// VerifyWebhook is given a tolerance of 0.
const DefaultWebhookTolerance = 5 * time.Minute

// Errors of VerifyWebhook (wrapped; test them with errors.Is).
var (
	// ErrMissingSignature: the request carries neither an X-Service-Signature nor a
	// webhook-signature header.
	ErrMissingSignature = errors.New("canopy: webhook: no X-Service-Signature or webhook-signature header")
	// ErrInvalidSignature: a signature does not match the raw body under the secret.
	ErrInvalidSignature = errors.New("canopy: webhook: signature mismatch")
	// ErrTimestampOutOfTolerance: the delivery's timestamp is missing, malformed or too far from now.
	ErrTimestampOutOfTolerance = errors.New("canopy: webhook: timestamp outside the tolerance")
	// ErrInvalidPayload: the body is not an event envelope.
	ErrInvalidPayload = errors.New("canopy: webhook: body is not an event")
)

// Headers of a delivery.
const (
	HeaderSignature        = "X-Service-Signature"
	HeaderEventID          = "X-Service-Event-Id"
	HeaderEventType        = "X-Service-Event-Type"
	HeaderTimestamp        = "X-Service-Timestamp"
	HeaderWebhookID        = "Webhook-Id"
	HeaderWebhookTimestamp = "Webhook-Timestamp"
	HeaderWebhookSignature = "Webhook-Signature"
)

// SignPayload returns the X-Service-Signature value the service sends for payload:
// "sha256=" and the lowercase hex HMAC-SHA256 of the raw body, keyed by the secret's bytes.
func SignPayload(payload []byte, secret string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(payload)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// SignStandard returns the Standard Webhooks signature ("v1," and base64 of HMAC-SHA256 over
// "id.timestamp.body"), keyed by the base64 part of a "whsec_" secret (any other secret: its bytes).
func SignStandard(payload []byte, secret, id string, timestamp int64) string {
	m := hmac.New(sha256.New, standardKey(secret))
	m.Write([]byte(id + "." + strconv.FormatInt(timestamp, 10) + "."))
	m.Write(payload)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// standardKey decodes the part after "whsec_" as base64, as leniently as Node's Buffer does
// (padding optional, URL-safe alphabet accepted).
func standardKey(secret string) []byte {
	if !strings.HasPrefix(secret, "whsec_") {
		return []byte(secret)
	}
	s := strings.TrimRight(strings.TrimPrefix(secret, "whsec_"), "=")
	s = strings.NewReplacer("-", "+", "_", "/").Replace(s)
	key, err := base64.RawStdEncoding.DecodeString(s)
	if err != nil {
		return []byte(secret)
	}
	return key
}

// VerifyWebhook checks a delivery and returns its event. payload must be the raw request body,
// byte for byte (not re-serialised JSON); header the request's headers; secret the webhook's
// signing secret.
//
// The service sends two signatures: X-Service-Signature (HMAC of the body) and the Standard
// Webhooks webhook-signature (HMAC of id, timestamp and body, with webhook-id and
// webhook-timestamp). At least one must be present, and every one present must match, compared
// in constant time; a relay that keeps only one set of headers is accepted. The timestamp (webhook-timestamp, else
// X-Service-Timestamp) must be within tolerance of now: 0 means DefaultWebhookTolerance, a
// negative tolerance skips the check (e.g. to verify a stored delivery later).
func VerifyWebhook(payload []byte, header http.Header, secret string, tolerance time.Duration) (*Event, error) {
	return verifyWebhookAt(payload, header, secret, tolerance, time.Now())
}

func verifyWebhookAt(payload []byte, header http.Header, secret string, tolerance time.Duration, now time.Time) (*Event, error) {
	hasService := len(header.Values(HeaderSignature)) > 0
	hasStandard := len(header.Values(HeaderWebhookSignature)) > 0
	if !hasService && !hasStandard {
		return nil, ErrMissingSignature
	}
	if hasService && !hmac.Equal([]byte(strings.TrimSpace(header.Get(HeaderSignature))), []byte(SignPayload(payload, secret))) {
		return nil, fmt.Errorf("%w (%s)", ErrInvalidSignature, HeaderSignature)
	}

	stamp := header.Get(HeaderTimestamp)
	if hasStandard {
		std := header.Get(HeaderWebhookSignature)
		id := header.Get(HeaderWebhookID)
		ts := header.Get(HeaderWebhookTimestamp)
		seconds, err := strconv.ParseInt(strings.TrimSpace(ts), 10, 64)
		if err != nil || id == "" {
			return nil, fmt.Errorf("%w (%s without a valid webhook-id and webhook-timestamp)", ErrInvalidSignature, HeaderWebhookSignature)
		}
		expected := []byte(SignStandard(payload, secret, id, seconds))
		matched := false
		for _, part := range strings.Fields(std) {
			// every entry is compared, so the time taken does not depend on which one matched
			if hmac.Equal([]byte(part), expected) {
				matched = true
			}
		}
		if !matched {
			return nil, fmt.Errorf("%w (%s)", ErrInvalidSignature, HeaderWebhookSignature)
		}
		stamp = ts
	}

	if tolerance == 0 {
		tolerance = DefaultWebhookTolerance
	}
	if tolerance > 0 {
		seconds, err := strconv.ParseInt(strings.TrimSpace(stamp), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: no valid timestamp header", ErrTimestampOutOfTolerance)
		}
		skew := now.Sub(time.Unix(seconds, 0))
		if math.Abs(float64(skew)) > float64(tolerance) {
			return nil, fmt.Errorf("%w: the delivery is %s from now", ErrTimestampOutOfTolerance, skew.Round(time.Second))
		}
	}

	var event Event
	if err := json.Unmarshal(payload, &event); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidPayload, err)
	}
	if event.ID == "" || event.Type == "" {
		return nil, fmt.Errorf("%w: no id or type", ErrInvalidPayload)
	}
	return &event, nil
}
