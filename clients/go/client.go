package canopy

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Version is the version of this client, sent in the User-Agent header.
const Version = "0.1.0"

// DefaultBaseURL is the address `canopy serve` listens at by default (`npm start`). Pass your
// deployment's address with WithBaseURL.
const DefaultBaseURL = "http://127.0.0.1:8080/v1"

// Defaults of the retry policy and of the default http.Client's timeout per attempt (the same
// values as the TypeScript and Python clients).
const (
	DefaultTimeout       = 30 * time.Second
	DefaultMaxRetries    = 2
	DefaultBaseBackoff   = 500 * time.Millisecond
	DefaultMaxBackoff    = 8 * time.Second
	DefaultMaxRetryAfter = 60 * time.Second
)

// Client talks to one Canopy API with one credential. It is safe for concurrent use.
type Client struct {
	apiKey        string
	baseURL       string
	httpClient    *http.Client
	maxRetries    int
	baseBackoff   time.Duration
	maxBackoff    time.Duration
	maxRetryAfter time.Duration
	userAgent     string

	Projects *ProjectsService
	Assets   *AssetsService
	Members  *MembersService
	Account  *AccountService
	Usage    *UsageService
	Webhooks *WebhooksService
	Events   *EventsService
	Auth     *AuthService
	// Boundaries is a project's boundary history.
	Boundaries *BoundariesService
	// Imports are bulk imports of GIS files.
	Imports *ImportsService
}

// Option configures a Client.
type Option func(*Client)

// WithBaseURL sets the versioned API address ({base_url}, e.g. https://canopy.example.com/v1).
// An address without the /v1 segment gets it appended.
func WithBaseURL(u string) Option {
	return func(c *Client) {
		u = strings.TrimRight(u, "/")
		if !strings.HasSuffix(u, "/v1") {
			u += "/v1"
		}
		c.baseURL = u
	}
}

// WithHTTPClient sets the http.Client requests go through (timeouts, proxies, transports).
func WithHTTPClient(h *http.Client) Option {
	return func(c *Client) {
		if h != nil {
			c.httpClient = h
		}
	}
}

// WithMaxRetries sets how many times a failed request may be retried (0: never).
func WithMaxRetries(n int) Option {
	return func(c *Client) {
		if n < 0 {
			n = 0
		}
		c.maxRetries = n
	}
}

// WithBackoff sets the exponential backoff: the n-th retry waits about base·2ⁿ⁻¹ (with jitter),
// at most max. A Retry-After header given by the server is used instead when present.
func WithBackoff(base, max time.Duration) Option {
	return func(c *Client) {
		if base > 0 {
			c.baseBackoff = base
		}
		if max > 0 {
			c.maxBackoff = max
		}
	}
}

// WithMaxRetryAfter sets the longest Retry-After the client waits for before retrying; a longer
// one (such as a daily limit's wait until midnight) returns the 429 error at once.
func WithMaxRetryAfter(d time.Duration) Option {
	return func(c *Client) { c.maxRetryAfter = d }
}

// WithUserAgent prefixes the User-Agent header with an application's own name.
func WithUserAgent(ua string) Option {
	return func(c *Client) { c.userAgent = ua + " " + c.userAgent }
}

// NewClient returns a client authenticating with apiKey (an API key, service token or OAuth
// access token: all are sent as a Bearer token).
func NewClient(apiKey string, opts ...Option) *Client {
	c := &Client{
		apiKey:        apiKey,
		baseURL:       DefaultBaseURL,
		httpClient:    &http.Client{Timeout: DefaultTimeout},
		maxRetries:    DefaultMaxRetries,
		baseBackoff:   DefaultBaseBackoff,
		maxBackoff:    DefaultMaxBackoff,
		maxRetryAfter: DefaultMaxRetryAfter,
		userAgent:     "canopy-go/" + Version,
	}
	for _, o := range opts {
		o(c)
	}
	c.Projects = &ProjectsService{c}
	c.Assets = &AssetsService{c}
	c.Members = &MembersService{c}
	c.Account = &AccountService{c}
	c.Usage = &UsageService{c}
	c.Webhooks = &WebhooksService{c}
	c.Events = &EventsService{c}
	c.Auth = &AuthService{c}
	c.Boundaries = &BoundariesService{c}
	c.Imports = &ImportsService{c}
	return c
}

// BaseURL is the versioned API address the client sends requests to.
func (c *Client) BaseURL() string { return c.baseURL }

// RequestOption changes one call.
type RequestOption func(*requestConfig)

type requestConfig struct {
	idempotencyKey *string
	header         http.Header
	maxRetries     *int
}

// WithIdempotencyKey sends this Idempotency-Key on a POST instead of a generated one (e.g. a key
// you stored, to retry a call across process restarts). An empty key sends none, and the POST is
// then never retried.
func WithIdempotencyKey(key string) RequestOption {
	return func(r *requestConfig) { r.idempotencyKey = &key }
}

// WithHeader adds a header to one request.
func WithHeader(name, value string) RequestOption {
	return func(r *requestConfig) {
		if r.header == nil {
			r.header = http.Header{}
		}
		r.header.Add(name, value)
	}
}

// WithRequestMaxRetries overrides the client's retry count for one call.
func WithRequestMaxRetries(n int) RequestOption {
	return func(r *requestConfig) { r.maxRetries = &n }
}

// NewIdempotencyKey returns a random UUID v4 from crypto/rand.
func NewIdempotencyKey() string {
	var b [16]byte
	if _, err := io.ReadFull(rand.Reader, b[:]); err != nil {
		panic("canopy: crypto/rand failed: " + err.Error())
	}
	b[6] = (b[6] & 0x0f) | 0x40
	b[8] = (b[8] & 0x3f) | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// envelope is the single-resource response body.
type envelope struct {
	Data json.RawMessage `json:"data"`
	Meta ResponseMeta    `json:"meta"`
}

// ResponseMeta is the meta object of a single-resource response.
type ResponseMeta struct {
	RequestID string `json:"request_id"`
	Timestamp string `json:"timestamp"`
}

// rawBody is a request body sent as it is, with its media type (a file), instead of as JSON.
type rawBody struct {
	data        []byte
	contentType string
}

// do sends one logical request (with its retries) and decodes the body's data into out (nil: ignore
// the body). query may be nil; body is JSON-encoded when not nil.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, body interface{}, out interface{}, opts []RequestOption) error {
	raw, err := c.send(ctx, method, path, query, body, opts)
	if err != nil || out == nil || len(raw) == 0 {
		return err
	}
	var env envelope
	if err := json.Unmarshal(raw, &env); err != nil {
		return fmt.Errorf("canopy: %s %s: decoding the response: %w", method, path, err)
	}
	if err := json.Unmarshal(env.Data, out); err != nil {
		return fmt.Errorf("canopy: %s %s: decoding the response data: %w", method, path, err)
	}
	return nil
}

// doList decodes a list response ({data: [...], meta: {...}}) into out.
func (c *Client) doList(ctx context.Context, path string, query url.Values, out interface{}, opts []RequestOption) error {
	raw, err := c.send(ctx, http.MethodGet, path, query, nil, opts)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("canopy: GET %s: decoding the response: %w", path, err)
	}
	return nil
}

// send runs the request with the retry policy and returns the raw body of a 2xx response.
func (c *Client) send(ctx context.Context, method, path string, query url.Values, body interface{}, opts []RequestOption) ([]byte, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	var cfg requestConfig
	for _, o := range opts {
		o(&cfg)
	}
	var payload []byte
	contentType := "application/json"
	if file, ok := body.(rawBody); ok {
		payload, contentType = file.data, file.contentType
	} else if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return nil, fmt.Errorf("canopy: %s %s: encoding the request body: %w", method, path, err)
		}
	}
	idempotencyKey := ""
	if method == http.MethodPost {
		if cfg.idempotencyKey != nil {
			idempotencyKey = *cfg.idempotencyKey
		} else {
			idempotencyKey = NewIdempotencyKey()
		}
	}
	retryable := method != http.MethodPost || idempotencyKey != ""
	maxRetries := c.maxRetries
	if cfg.maxRetries != nil {
		maxRetries = *cfg.maxRetries
	}
	target := c.baseURL + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}

	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, method, target, nil)
		if err != nil {
			return nil, fmt.Errorf("canopy: %s %s: %w", method, path, err)
		}
		if payload != nil {
			req.Body = io.NopCloser(bytes.NewReader(payload))
			req.ContentLength = int64(len(payload))
			p := payload
			req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(p)), nil }
			req.Header.Set("Content-Type", contentType)
		}
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
		req.Header.Set("Accept", "application/json")
		req.Header.Set("User-Agent", c.userAgent)
		if idempotencyKey != "" {
			req.Header.Set("Idempotency-Key", idempotencyKey)
		}
		for k, vs := range cfg.header {
			for _, v := range vs {
				req.Header.Add(k, v)
			}
		}

		resp, err := c.httpClient.Do(req)
		var wait time.Duration
		var failure error
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return nil, &NetworkError{Method: method, Path: path, Err: ctxErr}
			}
			failure = &NetworkError{Method: method, Path: path, Err: err}
			if !retryable || attempt >= maxRetries {
				return nil, failure
			}
			wait = c.backoff(attempt)
		} else {
			raw, readErr := io.ReadAll(resp.Body)
			resp.Body.Close()
			if readErr != nil {
				if ctxErr := ctx.Err(); ctxErr != nil {
					return nil, &NetworkError{Method: method, Path: path, Err: ctxErr}
				}
				failure = &NetworkError{Method: method, Path: path, Err: readErr}
				if !retryable || attempt >= maxRetries {
					return nil, failure
				}
				wait = c.backoff(attempt)
			} else if resp.StatusCode >= 200 && resp.StatusCode < 300 {
				return raw, nil
			} else {
				apiErr := newError(resp, raw)
				if !retryable || attempt >= maxRetries || !c.shouldRetry(resp.StatusCode, apiErr, idempotencyKey != "") {
					return nil, apiErr
				}
				if apiErr.RetryAfter > 0 {
					if c.maxRetryAfter > 0 && apiErr.RetryAfter > c.maxRetryAfter {
						return nil, apiErr
					}
					wait = apiErr.RetryAfter + jitter(apiErr.RetryAfter/10)
				} else {
					wait = c.backoff(attempt)
				}
			}
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, &NetworkError{Method: method, Path: path, Err: ctx.Err()}
		case <-timer.C:
		}
	}
}

// shouldRetry: 429, 5xx, and the 409 "request with this Idempotency-Key is in progress" (told
// apart from a domain conflict by its Retry-After).
func (c *Client) shouldRetry(status int, e *Error, hasKey bool) bool {
	switch {
	case status == http.StatusTooManyRequests:
		return true
	case status >= 500:
		return true
	case status == http.StatusConflict && hasKey && e.RetryAfter > 0:
		return true
	}
	return false
}

// backoff is the wait before retry number attempt+1: base·2^attempt capped at max, "equal jitter"
// (half fixed, half random) so that clients failing together do not retry together.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.baseBackoff
	for i := 0; i < attempt && d < c.maxBackoff; i++ {
		d *= 2
	}
	if d > c.maxBackoff {
		d = c.maxBackoff
	}
	return d/2 + jitter(d/2)
}

// jitter is a uniformly random duration in [0, max].
func jitter(max time.Duration) time.Duration {
	if max <= 0 {
		return 0
	}
	n, err := rand.Int(rand.Reader, big.NewInt(int64(max)+1))
	if err != nil {
		return 0
	}
	return time.Duration(n.Int64())
}

// parseRetryAfter reads a Retry-After header: delay-seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
