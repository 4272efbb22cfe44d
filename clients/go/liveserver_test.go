package canopy

// The live server the scenario runs against: started with the repository's Node and stopped
// (with its files removed) when the test ends; a transport that records each attempt.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

type liveServer struct {
	base       string // http://127.0.0.1:PORT/v1
	mainKey    string // account on the pro plan
	limitedKey string // account on the free plan
}

// lineWriter collects a process's stderr and reports the `serving http://…` line.
type lineWriter struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	serving chan string
	sent    bool
}

var servingLine = regexp.MustCompile(`serving (http://[0-9.]+:[0-9]+)`)

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.buf.Len() < 1<<20 {
		w.buf.Write(p)
	}
	if !w.sent {
		if m := servingLine.FindStringSubmatch(w.buf.String()); m != nil {
			w.sent = true
			w.serving <- m[1]
		}
	}
	return len(p), nil
}

func (w *lineWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// repoPaths finds node and the canopy CLI, failing the test with what to do when they are missing.
func repoPaths(t *testing.T) (node, cli, root string) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatalf("locating the repository: %v", err)
	}
	cli = filepath.Join(root, "packages", "server", "bin", "canopy.js")
	if _, err := os.Stat(cli); err != nil {
		t.Fatalf("the Canopy repository was not found: %s is missing (%v). Run the tests from clients/go inside the repository.", cli, err)
	}
	node = os.Getenv("CANOPY_NODE")
	if node == "" {
		node = filepath.Join(root, "node_modules", ".bin", "node")
	}
	if _, err := os.Stat(node); err != nil {
		t.Fatalf("Node 24 was not found at %s (%v): run `npm ci` at the repository root (it installs Node 24 under node_modules), or set CANOPY_NODE to a Node >= 22.19 binary.", node, err)
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version failed: %v", node, err)
	}
	var major int
	if _, err := fmt.Sscanf(strings.TrimSpace(string(out)), "v%d", &major); err != nil || major < 22 {
		t.Fatalf("%s is Node %s; Canopy needs Node >= 22.19 (set CANOPY_NODE or run npm ci)", node, strings.TrimSpace(string(out)))
	}
	return node, cli, root
}

func initAccount(t *testing.T, node, cli, db, email, plan string) string {
	t.Helper()
	cmd := exec.Command(node, cli, "init", "--json", "--db", db, "--email", email, "--account-name", "Go client "+plan, "--plan", plan)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("canopy init failed: %v\n%s", err, stderr.String())
	}
	var res struct {
		AccountID string `json:"account_id"`
		APIKey    string `json:"api_key"`
	}
	if err := json.Unmarshal(out, &res); err != nil || res.APIKey == "" || !strings.HasPrefix(res.AccountID, "acc_") {
		t.Fatalf("canopy init --json printed something unexpected (%v)", err)
	}
	return res.APIKey
}

func startLiveServer(t *testing.T) *liveServer {
	t.Helper()
	node, cli, root := repoPaths(t)
	dir := t.TempDir() // removed after the server is stopped (cleanups run last-in first-out)
	db := filepath.Join(dir, "canopy.db")
	s := &liveServer{
		mainKey:    initAccount(t, node, cli, db, "owner-pro@example.com", "pro"),
		limitedKey: initAccount(t, node, cli, db, "owner-free@example.com", "free"),
	}

	cmd := exec.Command(node, cli, "serve", "--db", db, "--port", "0", "--host", "127.0.0.1", "--allow-insecure-webhooks")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CANOPY_GEOMETRY_WORKERS=1")
	stderr := &lineWriter{serving: make(chan string, 1)}
	cmd.Stderr = stderr
	cmd.Stdout = io.Discard // the JSON access log
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting canopy serve: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("canopy serve stderr:\n%s", stderr.String())
		}
	})
	select {
	case u := <-stderr.serving:
		s.base = u + "/v1"
	case err := <-exited:
		exited <- err
		t.Fatalf("canopy serve exited before serving (%v):\n%s", err, stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("canopy serve did not print `serving http://…` within 60 s:\n%s", stderr.String())
	}
	return s
}

// attempt is one HTTP exchange seen by recordingTransport.
type attempt struct {
	method, path, key string
	status            int
	retryAfter        string
	sent, answered    time.Time
}

// recordingTransport is an http.RoundTripper (the client's WithHTTPClient hook) that records
// every attempt, to check what the retry policy did on the wire.
type recordingTransport struct {
	mu       sync.Mutex
	attempts []attempt
}

func (r *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	a := attempt{method: req.Method, path: req.URL.Path, key: req.Header.Get("Idempotency-Key"), sent: time.Now()}
	resp, err := http.DefaultTransport.RoundTrip(req)
	a.answered = time.Now()
	if resp != nil {
		a.status = resp.StatusCode
		a.retryAfter = resp.Header.Get("Retry-After")
	}
	r.mu.Lock()
	r.attempts = append(r.attempts, a)
	r.mu.Unlock()
	return resp, err
}

func (r *recordingTransport) take() []attempt {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.attempts
	r.attempts = nil
	return out
}

func square(lon, lat, side float64) *Geometry {
	return NewPolygon([][]float64{{lon, lat}, {lon + side, lat}, {lon + side, lat + side}, {lon, lat + side}, {lon, lat}})
}
