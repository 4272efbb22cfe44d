package canopy

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// These tests run the client against local HTTP servers (real sockets) that misbehave in ways the
// real Canopy server cannot be made to on demand: 5xx answers and dropped connections.

type seen struct {
	mu       sync.Mutex
	keys     []string
	bodies   []string
	methods  []string
	attempts int
}

func (s *seen) add(r *http.Request) int {
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.attempts++
	s.keys = append(s.keys, r.Header.Get("Idempotency-Key"))
	s.bodies = append(s.bodies, string(b))
	s.methods = append(s.methods, r.Method)
	return s.attempts
}

func writeJSON(w http.ResponseWriter, status int, v interface{}) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func errBody(code, msg string) map[string]interface{} {
	return map[string]interface{}{"error": map[string]interface{}{"code": code, "message": msg, "details": []interface{}{}}, "meta": map[string]string{"request_id": "req_test"}}
}

func fastClient(url string, opts ...Option) *Client {
	return NewClient("cnp_key_test", append([]Option{WithBaseURL(url), WithBackoff(5*time.Millisecond, 20*time.Millisecond)}, opts...)...)
}

func TestPostIsRetriedOn5xxWithOneIdempotencyKey(t *testing.T) {
	var s seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n := s.add(r); n < 3 {
			writeJSON(w, 503, errBody(CodeInternal, "The database is unavailable; retry later"))
			return
		}
		writeJSON(w, 201, map[string]interface{}{"data": map[string]interface{}{"id": "proj_1", "name": "A", "slug": "a", "status": "active", "created_at": "2026-11-23T12:00:00Z", "updated_at": "2026-11-23T12:00:00Z"}, "meta": map[string]string{"request_id": "req_1"}})
	}))
	defer srv.Close()
	p, err := fastClient(srv.URL).Projects.Create(context.Background(), &ProjectCreateParams{Name: "A"})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if p.ID != "proj_1" || s.attempts != 3 {
		t.Fatalf("project %+v after %d attempts", p, s.attempts)
	}
	if s.keys[0] == "" || s.keys[0] != s.keys[1] || s.keys[1] != s.keys[2] {
		t.Fatalf("idempotency keys across retries: %q", s.keys)
	}
	if s.bodies[0] != `{"name":"A"}` || s.bodies[2] != s.bodies[0] {
		t.Fatalf("bodies across retries: %q", s.bodies)
	}
	// another logical POST gets another key
	s.attempts = 2
	if _, err := fastClient(srv.URL).Projects.Create(context.Background(), &ProjectCreateParams{Name: "A"}); err != nil {
		t.Fatal(err)
	}
	if s.keys[len(s.keys)-1] == s.keys[0] {
		t.Fatalf("two logical POSTs shared the key %s", s.keys[0])
	}
}

func TestRetriesGiveUpWithTheLastError(t *testing.T) {
	var s seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.add(r)
		writeJSON(w, 500, errBody(CodeInternal, "boom"))
	}))
	defer srv.Close()
	_, err := fastClient(srv.URL, WithMaxRetries(2)).Projects.Get(context.Background(), "proj_1")
	e, ok := AsError(err)
	if !ok || e.Status != 500 || e.Code != CodeInternal || e.Message != "boom" || e.RequestID != "req_test" {
		t.Fatalf("err = %#v", err)
	}
	if s.attempts != 3 {
		t.Fatalf("attempts = %d, want 3 (1 + 2 retries)", s.attempts)
	}
}

func TestPostWithoutIdempotencyKeyIsNotRetried(t *testing.T) {
	var s seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.add(r)
		writeJSON(w, 503, errBody(CodeInternal, "unavailable"))
	}))
	defer srv.Close()
	_, err := fastClient(srv.URL).Projects.Create(context.Background(), &ProjectCreateParams{Name: "A"}, WithIdempotencyKey(""))
	if e, ok := AsError(err); !ok || e.Status != 503 {
		t.Fatalf("err = %v", err)
	}
	if s.attempts != 1 || s.keys[0] != "" {
		t.Fatalf("attempts = %d, keys %q", s.attempts, s.keys)
	}
	// a caller's own key is sent as given
	s = seen{}
	_, _ = fastClient(srv.URL, WithMaxRetries(1)).Projects.Create(context.Background(), &ProjectCreateParams{Name: "A"}, WithIdempotencyKey("my-key-1"))
	if s.attempts != 2 || s.keys[0] != "my-key-1" || s.keys[1] != "my-key-1" {
		t.Fatalf("attempts = %d, keys %q", s.attempts, s.keys)
	}
}

func TestClientErrorsAreNotRetried(t *testing.T) {
	var s seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.add(r)
		writeJSON(w, 409, errBody(CodeConflict, "slug taken"))
	}))
	defer srv.Close()
	_, err := fastClient(srv.URL).Projects.Create(context.Background(), &ProjectCreateParams{Name: "A"})
	if !IsConflict(err) || s.attempts != 1 {
		t.Fatalf("err = %v after %d attempts", err, s.attempts)
	}
}

func TestNetworkErrorsAreRetriedAndWrapped(t *testing.T) {
	// a listener that accepts connections and closes them at once, twice, then serves
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	drops := 0
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]interface{}{"data": map[string]interface{}{"valid": true, "type": "api_key", "permissions": []string{"admin"}, "account_id": "acc_1", "expires_at": nil}})
	})}
	dropping := &droppingListener{Listener: ln, drop: func() bool {
		mu.Lock()
		defer mu.Unlock()
		drops++
		return drops <= 2
	}}
	go func() { _ = srv.Serve(dropping) }()
	defer srv.Close()
	base := "http://" + ln.Addr().String()
	// fresh connections every time, so each drop is a new network error
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	info, err := fastClient(base, WithHTTPClient(hc)).Auth.Verify(context.Background())
	if err != nil || !info.Valid || info.AccountID != "acc_1" {
		t.Fatalf("verify: %+v, %v", info, err)
	}
	mu.Lock()
	if drops != 3 {
		t.Fatalf("connections = %d, want 3", drops)
	}
	drops = -100 // drop everything from now on
	mu.Unlock()
	_, err = fastClient(base, WithHTTPClient(hc), WithMaxRetries(1)).Auth.Verify(context.Background())
	var ne *NetworkError
	if !errors.As(err, &ne) || !IsNetwork(err) || ne.Method != "GET" || ne.Path != "/auth/verify" {
		t.Fatalf("err = %#v", err)
	}
	if _, isAPI := AsError(err); isAPI {
		t.Fatalf("a network error reads as an API error: %v", err)
	}
}

type droppingListener struct {
	net.Listener
	drop func() bool
}

func (l *droppingListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.drop() {
			c.Close()
			continue
		}
		return c, nil
	}
}

func TestContextCancellationStopsTheWait(t *testing.T) {
	var s seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.add(r)
		w.Header().Set("Retry-After", "30")
		writeJSON(w, 429, errBody(CodeRateLimited, "Rate limit exceeded: retry after 30 s"))
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := fastClient(srv.URL).Projects.List(ctx, nil)
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("the client waited %s although the context ended after 300ms", took)
	}
	if !errors.Is(err, context.DeadlineExceeded) || s.attempts != 1 {
		t.Fatalf("err = %v after %d attempts", err, s.attempts)
	}
	// a Retry-After beyond the client's limit is not waited for at all
	start = time.Now()
	_, err = fastClient(srv.URL, WithMaxRetryAfter(10*time.Second)).Projects.List(context.Background(), nil)
	e, ok := AsError(err)
	if !ok || !IsRateLimited(err) || e.RetryAfter != 30*time.Second || time.Since(start) > 5*time.Second {
		t.Fatalf("err = %v (retry after %v) after %s", err, e, time.Since(start))
	}
}

func TestNonJSONErrorBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(502)
		_, _ = io.WriteString(w, "<html>Bad Gateway</html>")
	}))
	defer srv.Close()
	_, err := fastClient(srv.URL, WithMaxRetries(0)).Account.Get(context.Background())
	e, ok := AsError(err)
	if !ok || e.Status != 502 || e.Code != CodeInternal || !strings.Contains(e.Message, "Bad Gateway") {
		t.Fatalf("err = %#v", err)
	}
}

func TestBackoffGrowsAndIsCapped(t *testing.T) {
	c := NewClient("k", WithBackoff(100*time.Millisecond, time.Second))
	for attempt, want := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		want *= time.Millisecond
		for i := 0; i < 50; i++ {
			d := c.backoff(attempt)
			if d < want/2 || d > want {
				t.Fatalf("backoff(%d) = %s, want within [%s, %s]", attempt, d, want/2, want)
			}
		}
	}
	if got := parseRetryAfter("2", time.Now()); got != 2*time.Second {
		t.Fatalf("Retry-After 2 = %s", got)
	}
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	if got := parseRetryAfter("Mon, 23 Nov 2026 12:00:07 GMT", now); got != 7*time.Second {
		t.Fatalf("Retry-After date = %s", got)
	}
	if k1, k2 := NewIdempotencyKey(), NewIdempotencyKey(); k1 == k2 || len(k1) != 36 || k1[14] != '4' {
		t.Fatalf("keys %s %s", k1, k2)
	}
}

func TestBaseURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://canopy.example.com":      "https://canopy.example.com/v1",
		"https://canopy.example.com/":     "https://canopy.example.com/v1",
		"https://canopy.example.com/v1/":  "https://canopy.example.com/v1",
		"http://127.0.0.1:8080/canopy/v1": "http://127.0.0.1:8080/canopy/v1",
	} {
		if got := NewClient("k", WithBaseURL(in)).BaseURL(); got != want {
			t.Errorf("WithBaseURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// The defaults are the TypeScript and Python clients' too: 2 retries, 30 s per attempt.
func TestDefaultsMatchTheOtherClients(t *testing.T) {
	var s seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.add(r)
		writeJSON(w, 503, errBody(CodeInternal, "unavailable"))
	}))
	defer srv.Close()
	c := fastClient(srv.URL)
	if _, err := c.Projects.Get(context.Background(), "proj_1"); err == nil {
		t.Fatal("a request answered 503 every time succeeded")
	}
	if s.attempts != 3 {
		t.Fatalf("attempts = %d, want 3 (1 + the default 2 retries)", s.attempts)
	}
	if c.httpClient.Timeout != 30*time.Second {
		t.Fatalf("default timeout per attempt = %s, want 30s", c.httpClient.Timeout)
	}
}
