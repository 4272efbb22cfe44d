package canopy

import (
	"net/url"
	"strconv"
	"time"
)

// BoundaryChangedBy is who changed a project's boundary.
type BoundaryChangedBy struct {
	// Kind is api_key, service_token, oauth, member (the dashboard) or system (an operator).
	Kind         string  `json:"kind"`
	UserID       *string `json:"user_id"`
	CredentialID *string `json:"credential_id"`
}

// BoundaryVersionSummary is one change of a project's boundary, without the boundary itself.
type BoundaryVersionSummary struct {
	// Version is 1, 2, 3… per project, in the order the boundary changed.
	Version            int     `json:"version"`
	ProjectID          string  `json:"project_id"`
	AreaHectaresBefore float64 `json:"area_hectares_before"`
	AreaHectaresAfter  float64 `json:"area_hectares_after"`
	// Via is initial, create, import, update, boundary_file, dashboard, dashboard_file or version_restore.
	Via        string  `json:"via"`
	FileFormat *string `json:"file_format"`
	// RestoredFrom is the version a version_restore brought back.
	RestoredFrom *int               `json:"restored_from"`
	ChangedBy    *BoundaryChangedBy `json:"changed_by"`
	CreatedAt    time.Time          `json:"created_at"`
}

// BoundaryVersion is one version of a project's boundary, with its geometry.
type BoundaryVersion struct {
	BoundaryVersionSummary
	Geometry *Geometry `json:"geometry"`
	BBox     []float64 `json:"bbox"`
}

// Import statuses.
const (
	ImportRunning   = "running"
	ImportCompleted = "completed"
	ImportFailed    = "failed"
	ImportCancelled = "cancelled"
)

// ImportFile describes an import's file.
type ImportFile struct {
	Name      *string `json:"name"`
	Format    *string `json:"format"`
	SourceCRS *string `json:"source_crs"`
}

// ImportProgress counts an import's features so far.
type ImportProgress struct {
	FeaturesRead int `json:"features_read"`
	// Done is the features dealt with so far.
	Done    int `json:"done"`
	Created int `json:"created"`
	Refused int `json:"refused"`
}

// ImportTotals sums an import up.
type ImportTotals struct {
	Features int `json:"features"`
	Created  int `json:"created"`
	Refused  int `json:"refused"`
	// Hectares of the projects created (a preview: that would be).
	Hectares float64 `json:"hectares"`
}

// ImportFeatureResult is what became of one feature of the file.
type ImportFeatureResult struct {
	// Position is the feature's place in the file, from 0.
	Position int    `json:"position"`
	Feature  string `json:"feature"`
	// Outcome is created, refused (see Problems) or valid (a preview: it would be created).
	Outcome      string        `json:"outcome"`
	Name         *string       `json:"name"`
	ProjectID    *string       `json:"project_id"`
	AreaHectares *float64      `json:"area_hectares"`
	Problems     []ErrorDetail `json:"problems"`
	// Overlaps is set for a preview's valid feature: the account's active and draft projects it
	// would share hectares with, as its create would report them.
	Overlaps *OverlapReport `json:"overlaps,omitempty"`
}

// Import is a bulk import: a file's features become projects in the background.
type Import struct {
	ID string `json:"id"`
	// Status is running, completed, failed or cancelled.
	Status string `json:"status"`
	// Mode is per_feature or merge.
	Mode string `json:"mode"`
	// DryRun marks a preview: the results say what an import would do; nothing was stored.
	DryRun   bool           `json:"dry_run"`
	File     ImportFile     `json:"file"`
	Progress ImportProgress `json:"progress"`
	Totals   ImportTotals   `json:"totals"`
	Error    *string        `json:"error"`
	// Results are the per-feature results in file order, a page at a time.
	Results []ImportFeatureResult `json:"results"`
	// NextResultsAfter is ImportGetParams.ResultsAfter for the next page of results; nil at the end.
	NextResultsAfter *int       `json:"next_results_after"`
	CreatedAt        time.Time  `json:"created_at"`
	UpdatedAt        time.Time  `json:"updated_at"`
	CompletedAt      *time.Time `json:"completed_at"`
}

// ImportCreateParams are the options of POST /imports.
type ImportCreateParams struct {
	// ContentType is the file's media type (default application/geo+json).
	ContentType string
	// Mode is per_feature (the default: each feature its own project) or merge (one project).
	Mode *string
	// NameField and DescriptionField name the feature properties a project's name and description come from.
	NameField        *string
	DescriptionField *string
	// DryRun asks for a preview: nothing is stored but the preview itself.
	DryRun bool
	// Name is the project's name with Mode merge.
	Name *string
}

func (p *ImportCreateParams) values() url.Values {
	v := url.Values{}
	if p == nil {
		return v
	}
	setOpt(v, "mode", p.Mode)
	setOpt(v, "name_field", p.NameField)
	setOpt(v, "description_field", p.DescriptionField)
	setOpt(v, "name", p.Name)
	if p.DryRun {
		v.Set("dry_run", "true")
	}
	return v
}

// ImportGetParams page an import's results.
type ImportGetParams struct {
	// ResultsAfter is a previous answer's NextResultsAfter.
	ResultsAfter *int
	// ResultsPerPage is at most 1,000 (default 100).
	ResultsPerPage *int
}

func (p *ImportGetParams) values() url.Values {
	v := url.Values{}
	if p == nil {
		return v
	}
	if p.ResultsAfter != nil {
		v.Set("results_after", strconv.Itoa(*p.ResultsAfter))
	}
	if p.ResultsPerPage != nil {
		v.Set("results_per_page", strconv.Itoa(*p.ResultsPerPage))
	}
	return v
}
