package canopy

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
)

// Overlaps returns one page of the account's other active and draft projects sharing area with
// this one, with the shared hectares, by name. A page may hold fewer items than PerPage, even
// none, while Meta.HasMore is true: walk it with OverlapsAll.
func (s *ProjectsService) Overlaps(ctx context.Context, id string, params *ListParams, opts ...RequestOption) (*List[ProjectOverlap], error) {
	var out List[ProjectOverlap]
	if err := s.c.doList(ctx, "/projects/"+esc(id)+"/overlaps", params.values(), &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// OverlapsAll iterates over every project sharing area with this one, page after page.
func (s *ProjectsService) OverlapsAll(ctx context.Context, id string, params *ListParams, opts ...RequestOption) *Iter[ProjectOverlap] {
	return newIter(ctx, params.values(), func(ctx context.Context, q url.Values) (*List[ProjectOverlap], error) {
		var out List[ProjectOverlap]
		err := s.c.doList(ctx, "/projects/"+esc(id)+"/overlaps", q, &out, opts)
		return &out, err
	})
}

// BoundariesService: /projects/{project_id}/boundaries, a project's boundary history (every
// change is a numbered version; the newest 50 are kept).
type BoundariesService struct{ c *Client }

func boundariesPath(projectID string) string { return "/projects/" + esc(projectID) + "/boundaries" }

// List returns one page of versions (who, when, how, hectares before and after), without the
// boundaries themselves.
func (s *BoundariesService) List(ctx context.Context, projectID string, params *ListParams, opts ...RequestOption) (*List[BoundaryVersionSummary], error) {
	var out List[BoundaryVersionSummary]
	if err := s.c.doList(ctx, boundariesPath(projectID), params.values(), &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListAll iterates over every version of the project's boundary, page after page.
func (s *BoundariesService) ListAll(ctx context.Context, projectID string, params *ListParams, opts ...RequestOption) *Iter[BoundaryVersionSummary] {
	return newIter(ctx, params.values(), func(ctx context.Context, q url.Values) (*List[BoundaryVersionSummary], error) {
		var out List[BoundaryVersionSummary]
		err := s.c.doList(ctx, boundariesPath(projectID), q, &out, opts)
		return &out, err
	})
}

// Get returns one version, with its boundary.
func (s *BoundariesService) Get(ctx context.Context, projectID string, version int, opts ...RequestOption) (*BoundaryVersion, error) {
	var out BoundaryVersion
	if err := s.c.do(ctx, http.MethodGet, boundariesPath(projectID)+"/"+strconv.Itoa(version), nil, nil, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// Restore sets the project's boundary back to a version's (a boundary update: plan limits and
// overlaps apply, and the restore becomes a new version); it returns the project.
func (s *BoundariesService) Restore(ctx context.Context, projectID string, version int, opts ...RequestOption) (*Project, error) {
	var out Project
	path := boundariesPath(projectID) + "/" + strconv.Itoa(version) + "/restore"
	if err := s.c.do(ctx, http.MethodPost, path, nil, nil, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// ImportsService: /imports, bulk imports whose projects are created in the background.
type ImportsService struct{ c *Client }

// Create sends a GIS file (its bytes, with its media type: GeoJSON, KML, KMZ, zipped Shapefile or
// GeoPackage) and returns the import, running (or completed, for a DryRun preview that stores
// nothing). Follow it with Get. A file that cannot be read is an error for which IsValidation holds.
func (s *ImportsService) Create(ctx context.Context, file []byte, params *ImportCreateParams, opts ...RequestOption) (*Import, error) {
	contentType := "application/geo+json"
	if params != nil && params.ContentType != "" {
		contentType = params.ContentType
	}
	var out Import
	if err := s.c.do(ctx, http.MethodPost, "/imports", params.values(), rawBody{file, contentType}, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// Get returns an import's status, progress, totals and a page of its per-feature results.
func (s *ImportsService) Get(ctx context.Context, id string, params *ImportGetParams, opts ...RequestOption) (*Import, error) {
	var out Import
	if err := s.c.do(ctx, http.MethodGet, "/imports/"+esc(id), params.values(), nil, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// Cancel stops a running import (the projects created stay); one that has ended is an error for which IsConflict holds.
func (s *ImportsService) Cancel(ctx context.Context, id string, opts ...RequestOption) (*Import, error) {
	var out Import
	if err := s.c.do(ctx, http.MethodPost, "/imports/"+esc(id)+"/cancel", nil, nil, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}
