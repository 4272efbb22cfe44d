// Package canopy is the Go client of the Canopy REST API (v1): forest projects with GeoJSON
// boundaries, their assets, team members, account and usage, webhooks and events.
//
// It is a thin wrapper over the API described in docs/interface-spec.md, using the standard
// library only:
//
//	client := canopy.NewClient(os.Getenv("CANOPY_API_KEY"), canopy.WithBaseURL("https://canopy.example.com/v1"))
//	project, err := client.Projects.Create(ctx, &canopy.ProjectCreateParams{Name: "North block"})
//
// Every method takes a context; failed requests come back as *Error (the API's error body) or
// *NetworkError. Requests are retried with exponential backoff and jitter on 429 (honouring
// Retry-After), 5xx and network errors when that is safe: GET, PUT and DELETE always, POST when it
// carries an Idempotency-Key, which the client generates for every POST (one key per logical call,
// reused by its retries). Lists can be walked page by page or with an iterator (ListAll), and
// VerifyWebhook checks a delivery's signatures on its raw body.
package canopy
