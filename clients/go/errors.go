package canopy

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Error codes of the API (docs/interface-spec.md §7).
const (
	CodeValidation   = "VALIDATION_ERROR"
	CodeNotFound     = "NOT_FOUND"
	CodeUnauthorized = "UNAUTHORIZED"
	CodeForbidden    = "FORBIDDEN"
	CodeRateLimited  = "RATE_LIMITED"
	CodeConflict     = "CONFLICT"
	CodeInternal     = "INTERNAL_ERROR"
)

// ErrorDetail is one validation problem: a field (possibly a dotted path such as
// geometry.coordinates[0]) and what is wrong with it.
type ErrorDetail struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Error is an answer of the API other than 2xx, read from its error body
// ({error: {code, message, details}, meta: {request_id}}).
type Error struct {
	// Status is the HTTP status code.
	Status int
	// Code is the API's error code (CodeValidation, CodeNotFound…); for a body that is not the
	// API's error body, a code derived from the status.
	Code    string
	Message string
	Details []ErrorDetail
	// RequestID names the request in the server's logs (meta.request_id, else X-Request-Id).
	RequestID string
	// RetryAfter is the Retry-After header's wait, 0 when absent.
	RetryAfter time.Duration
	// Header holds the response headers (rate-limit figures and the like).
	Header http.Header
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "canopy: %d %s: %s", e.Status, e.Code, e.Message)
	for i, d := range e.Details {
		if i == 0 {
			b.WriteString(" (")
		} else {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s: %s", d.Field, d.Message)
		if i == len(e.Details)-1 {
			b.WriteString(")")
		}
	}
	if e.RequestID != "" {
		fmt.Fprintf(&b, " [request %s]", e.RequestID)
	}
	return b.String()
}

// DetailFor returns the message of the first detail naming field, and whether there is one.
func (e *Error) DetailFor(field string) (string, bool) {
	for _, d := range e.Details {
		if d.Field == field {
			return d.Message, true
		}
	}
	return "", false
}

type errorBody struct {
	Error *struct {
		Code    string        `json:"code"`
		Message string        `json:"message"`
		Details []ErrorDetail `json:"details"`
	} `json:"error"`
	Meta struct {
		RequestID string `json:"request_id"`
	} `json:"meta"`
}

func newError(resp *http.Response, raw []byte) *Error {
	e := &Error{
		Status:     resp.StatusCode,
		Header:     resp.Header,
		RequestID:  resp.Header.Get("X-Request-Id"),
		RetryAfter: parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()),
	}
	var body errorBody
	if json.Unmarshal(raw, &body) == nil && body.Error != nil && body.Error.Code != "" {
		e.Code = body.Error.Code
		e.Message = body.Error.Message
		e.Details = body.Error.Details
		if body.Meta.RequestID != "" {
			e.RequestID = body.Meta.RequestID
		}
		return e
	}
	e.Code = codeForStatus(resp.StatusCode)
	e.Message = strings.TrimSpace(string(raw))
	if len(e.Message) > 200 {
		e.Message = e.Message[:200] + "…"
	}
	if e.Message == "" {
		e.Message = http.StatusText(resp.StatusCode)
	}
	return e
}

func codeForStatus(status int) string {
	switch {
	case status == 400 || status == 422:
		return CodeValidation
	case status == 401:
		return CodeUnauthorized
	case status == 403:
		return CodeForbidden
	case status == 404:
		return CodeNotFound
	case status == 409:
		return CodeConflict
	case status == 429:
		return CodeRateLimited
	default:
		return CodeInternal
	}
}

// NetworkError is a request that got no HTTP answer: a connection, TLS or timeout failure, or the
// context ending. It unwraps to the cause, so errors.Is(err, context.DeadlineExceeded) works.
type NetworkError struct {
	Method string
	Path   string
	Err    error
}

func (e *NetworkError) Error() string {
	return fmt.Sprintf("canopy: %s %s: %v", e.Method, e.Path, e.Err)
}

func (e *NetworkError) Unwrap() error { return e.Err }

// AsError returns the *Error in err's chain, if any.
func AsError(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

func hasCode(err error, code string) bool {
	e, ok := AsError(err)
	return ok && e.Code == code
}

// IsNotFound: the resource does not exist (404 NOT_FOUND).
func IsNotFound(err error) bool { return hasCode(err, CodeNotFound) }

// IsValidation: the request was refused as invalid (VALIDATION_ERROR, 400 or 422); see Details.
func IsValidation(err error) bool { return hasCode(err, CodeValidation) }

// IsConflict: a conflict such as a duplicate slug (409 CONFLICT).
func IsConflict(err error) bool { return hasCode(err, CodeConflict) }

// IsRateLimited: too many requests (429 RATE_LIMITED), after any retries.
func IsRateLimited(err error) bool { return hasCode(err, CodeRateLimited) }

// IsUnauthorized: the credential is missing, invalid, revoked or expired (401).
func IsUnauthorized(err error) bool { return hasCode(err, CodeUnauthorized) }

// IsForbidden: the credential lacks a permission (403 FORBIDDEN).
func IsForbidden(err error) bool { return hasCode(err, CodeForbidden) }

// IsNetwork: the request got no HTTP answer.
func IsNetwork(err error) bool {
	var e *NetworkError
	return errors.As(err, &e)
}
