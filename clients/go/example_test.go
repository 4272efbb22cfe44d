package canopy_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"time"

	canopy "github.com/canopy/canopy-go"
)

// These examples are the README's snippets; `go vet` and `go test` compile them.

func Example() {
	ctx := context.Background()
	client := canopy.NewClient(os.Getenv("CANOPY_API_KEY"), canopy.WithBaseURL("http://127.0.0.1:8080/v1"))

	project, err := client.Projects.Create(ctx, &canopy.ProjectCreateParams{
		Name:        "Amazon Reforestation",
		Description: canopy.String("Riparian restoration, phase 1"),
		Geometry: canopy.NewPolygon([][]float64{
			{-62.2, -3.4}, {-62.18, -3.4}, {-62.18, -3.38}, {-62.2, -3.38}, {-62.2, -3.4},
		}),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s covers %.1f ha\n", project.Slug, project.AreaHectares)
}

func ExampleProjectsService_ListAll() {
	ctx := context.Background()
	client := canopy.NewClient(os.Getenv("CANOPY_API_KEY"))

	it := client.Projects.ListAll(ctx, &canopy.ProjectListParams{
		ListParams: canopy.ListParams{PerPage: canopy.Int(100)},
		Status:     canopy.String(canopy.ProjectActive),
		Sort:       canopy.String("area_hectares"),
		Order:      canopy.String("desc"),
	})
	for it.Next() {
		p := it.Current()
		fmt.Println(p.ID, p.Name, p.AreaHectares)
	}
	if err := it.Err(); err != nil {
		log.Fatal(err)
	}
}

func ExampleProjectListParams_intersects() {
	ctx := context.Background()
	client := canopy.NewClient(os.Getenv("CANOPY_API_KEY"))

	// the projects whose boundary covers a point; pages may be empty while has_more is true,
	// and ListAll goes on across them
	containing, err := client.Projects.ListAll(ctx, &canopy.ProjectListParams{
		Intersects: canopy.NewPoint(-122.45, 37.76),
	}).Collect()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(containing), "projects cover the point")
}

func ExampleError() {
	ctx := context.Background()
	client := canopy.NewClient(os.Getenv("CANOPY_API_KEY"))

	_, err := client.Projects.Create(ctx, &canopy.ProjectCreateParams{Name: ""})
	var apiErr *canopy.Error
	switch {
	case errors.As(err, &apiErr) && apiErr.Code == canopy.CodeValidation:
		for _, d := range apiErr.Details {
			fmt.Printf("%s: %s\n", d.Field, d.Message)
		}
	case canopy.IsNotFound(err), canopy.IsConflict(err):
		fmt.Println("refused:", err)
	case canopy.IsNetwork(err):
		fmt.Println("no answer:", err)
	case err != nil:
		log.Fatal(err) // the message carries the code and the request id
	}
}

func ExampleVerifyWebhook() {
	secret := os.Getenv("CANOPY_WEBHOOK_SECRET") // the Secret of the created webhook
	http.HandleFunc("/canopy/webhooks", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20)) // the raw body, byte for byte
		if err != nil {
			http.Error(w, "unreadable body", http.StatusBadRequest)
			return
		}
		event, err := canopy.VerifyWebhook(body, r.Header, secret, 5*time.Minute)
		if err != nil {
			http.Error(w, "invalid signature", http.StatusBadRequest)
			return
		}
		if event.Type == canopy.EventProjectCreated {
			var p canopy.ProjectEventData
			if err := event.DecodeData(&p); err == nil && p.CreatedBy != nil {
				log.Printf("project %s created by %s", p.Name, p.CreatedBy.Email)
			}
		}
		w.WriteHeader(http.StatusNoContent) // answer 2xx within 5 s; event.ID identifies duplicates
	})
}
