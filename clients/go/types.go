package canopy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"time"
)

// String returns a pointer to v, for optional string fields of params.
func String(v string) *string { return &v }

// Int returns a pointer to v, for optional integer fields of params.
func Int(v int) *int { return &v }

// Bool returns a pointer to v, for optional boolean fields of params.
func Bool(v bool) *bool { return &v }

// Float64 returns a pointer to v.
func Float64(v float64) *float64 { return &v }

// Geometry is a project boundary: a GeoJSON Polygon or MultiPolygon. Positions are
// [longitude, latitude]; a ring is closed (its last position equals its first) and has at least
// 4 positions.
type Geometry struct {
	// Type is "Polygon" or "MultiPolygon".
	Type string
	// Polygon holds the rings when Type is "Polygon" (the first is the outer ring).
	Polygon [][][]float64
	// MultiPolygon holds the polygons when Type is "MultiPolygon".
	MultiPolygon [][][][]float64
}

// NewPolygon returns a Polygon geometry of the given rings (outer ring first, then holes).
func NewPolygon(rings ...[][]float64) *Geometry {
	return &Geometry{Type: "Polygon", Polygon: rings}
}

// NewMultiPolygon returns a MultiPolygon geometry.
func NewMultiPolygon(polygons ...[][][]float64) *Geometry {
	return &Geometry{Type: "MultiPolygon", MultiPolygon: polygons}
}

type geometryJSON struct {
	Type        string          `json:"type"`
	Coordinates json.RawMessage `json:"coordinates"`
}

// MarshalJSON writes GeoJSON.
func (g Geometry) MarshalJSON() ([]byte, error) {
	var coords interface{}
	switch g.Type {
	case "MultiPolygon":
		coords = g.MultiPolygon
	case "Polygon", "":
		coords = g.Polygon
		g.Type = "Polygon"
	default:
		return nil, fmt.Errorf("canopy: unsupported geometry type %q", g.Type)
	}
	c, err := json.Marshal(coords)
	if err != nil {
		return nil, err
	}
	return json.Marshal(geometryJSON{Type: g.Type, Coordinates: c})
}

// UnmarshalJSON reads GeoJSON.
func (g *Geometry) UnmarshalJSON(b []byte) error {
	var j geometryJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*g = Geometry{Type: j.Type}
	switch j.Type {
	case "Polygon":
		return json.Unmarshal(j.Coordinates, &g.Polygon)
	case "MultiPolygon":
		return json.Unmarshal(j.Coordinates, &g.MultiPolygon)
	default:
		return fmt.Errorf("canopy: unsupported geometry type %q", j.Type)
	}
}

// Point is a GeoJSON Point: Coordinates are [longitude, latitude].
type Point struct {
	Type        string    `json:"type"`
	Coordinates []float64 `json:"coordinates"`
}

// NewPoint returns a Point at longitude lon, latitude lat.
func NewPoint(lon, lat float64) *Point {
	return &Point{Type: "Point", Coordinates: []float64{lon, lat}}
}

// MarshalJSON writes GeoJSON, filling in the type.
func (p Point) MarshalJSON() ([]byte, error) {
	type plain Point
	p.Type = "Point"
	return json.Marshal(plain(p))
}

// Project statuses.
const (
	ProjectActive   = "active"
	ProjectArchived = "archived"
	ProjectDraft    = "draft"
)

// Project is a forest project.
type Project struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	Slug        string    `json:"slug"`
	Description *string   `json:"description"`
	Geometry    *Geometry `json:"geometry"`
	// AreaHectares is computed by the service from Geometry (0 without one).
	AreaHectares float64 `json:"area_hectares"`
	// BBox is [min longitude, min latitude, max longitude, max latitude], nil without geometry.
	BBox      []float64 `json:"bbox"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// Overlaps is set in the answer of a write (Create, Update, Restore…) that set, changed or
	// restored a boundary: the account's other active and draft projects whose boundaries share
	// at least 0.0001 ha with it. Nil on Get, on lists and on writes that did not touch a boundary.
	Overlaps *OverlapReport `json:"overlaps,omitempty"`
}

// ProjectOverlap is another project of the account whose boundary overlaps a project's.
type ProjectOverlap struct {
	ProjectID string `json:"project_id"`
	Name      string `json:"name"`
	// OverlapHectares is the shared area in geodesic hectares, rounded to 4 decimals.
	OverlapHectares float64 `json:"overlap_hectares"`
}

// OverlapReport lists the overlaps found by a write, largest first.
type OverlapReport struct {
	Overlaps []ProjectOverlap `json:"overlaps"`
	// Complete is false when not every nearby project was compared (too many of them, or the
	// time budget ran out).
	Complete bool `json:"complete"`
}

// BBox is a box in degrees: West and East are longitudes, South and North latitudes.
type BBox struct {
	West, South, East, North float64
}

// String formats the box as the API's bbox query value: "west,south,east,north".
func (b BBox) String() string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	return f(b.West) + "," + f(b.South) + "," + f(b.East) + "," + f(b.North)
}

// ProjectCreateParams is the body of POST /projects.
type ProjectCreateParams struct {
	Name        string    `json:"name"`
	Description *string   `json:"description,omitempty"`
	Geometry    *Geometry `json:"geometry,omitempty"`
	// Slug overrides the slug derived from the name.
	Slug *string `json:"slug,omitempty"`
	// Status is "active" (default) or "draft".
	Status *string `json:"status,omitempty"`
}

// ProjectUpdateParams is the body of PUT /projects/{id}: only the fields set are sent.
type ProjectUpdateParams struct {
	Name        *string   `json:"name,omitempty"`
	Description *string   `json:"description,omitempty"`
	Geometry    *Geometry `json:"geometry,omitempty"`
	Slug        *string   `json:"slug,omitempty"`
	Status      *string   `json:"status,omitempty"`
}

// ListParams are the paging parameters every list takes. Use either Page or Cursor.
type ListParams struct {
	Page    *int
	PerPage *int
	// Cursor is a previous page's Meta.NextCursor.
	Cursor *string
}

func (p *ListParams) values() url.Values {
	v := url.Values{}
	if p == nil {
		return v
	}
	if p.Page != nil {
		v.Set("page", strconv.Itoa(*p.Page))
	}
	if p.PerPage != nil {
		v.Set("per_page", strconv.Itoa(*p.PerPage))
	}
	if p.Cursor != nil {
		v.Set("cursor", *p.Cursor)
	}
	return v
}

func setOpt(v url.Values, key string, s *string) {
	if s != nil {
		v.Set(key, *s)
	}
}

// ProjectListParams are the query of GET /projects.
type ProjectListParams struct {
	ListParams
	// Status filters by status (active, archived, draft).
	Status *string
	// Search is a case-insensitive substring (3 to 200 characters) of name or description.
	Search *string
	// BBox keeps the projects whose bounding box shares at least one point with the box (edges
	// included); projects without a boundary never match.
	BBox *BBox
	// Intersects keeps the projects whose boundary meets a GeoJSON geometry, tested exactly: a
	// *Point finds those whose boundary covers it (inside or on an edge, not in a hole); a
	// *Geometry (Polygon or MultiPolygon, at most 1,000 positions) those sharing area with it
	// (sharing only an edge or a corner is no area). Any other json.Marshaler writing GeoJSON
	// (e.g. a json.RawMessage) is sent as it is, compacted. Projects without a boundary never
	// match. With it, one request tests at most 500 candidates, so a page may hold fewer rows
	// than PerPage, even none, while HasMore is true: walk it with ListAll or NextCursor (Page
	// beyond 1 is refused).
	Intersects json.Marshaler
	// Sort is name, created_at or area_hectares; Order is asc or desc.
	Sort  *string
	Order *string
}

func (p *ProjectListParams) values() (url.Values, error) {
	if p == nil {
		return url.Values{}, nil
	}
	v := p.ListParams.values()
	setOpt(v, "status", p.Status)
	setOpt(v, "search", p.Search)
	if p.BBox != nil {
		v.Set("bbox", p.BBox.String())
	}
	if p.Intersects != nil && !isNilPointer(p.Intersects) {
		g, err := compactGeoJSON(p.Intersects)
		if err != nil {
			return nil, err
		}
		v.Set("intersects", g)
	}
	setOpt(v, "sort", p.Sort)
	setOpt(v, "order", p.Order)
	return v, nil
}

// compactGeoJSON is the JSON of a geometry for the intersects query, without insignificant
// whitespace.
func compactGeoJSON(m json.Marshaler) (string, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("canopy: encoding intersects: %w", err)
	}
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return "", fmt.Errorf("canopy: encoding intersects: %w", err)
	}
	return out.String(), nil
}

// isNilPointer reports whether m holds a nil pointer (a typed nil such as (*Point)(nil)), which
// means no filter.
func isNilPointer(m json.Marshaler) bool {
	switch g := m.(type) {
	case *Point:
		return g == nil
	case *Geometry:
		return g == nil
	case json.RawMessage:
		return len(g) == 0
	}
	return false
}

// ListMeta is the meta object of a list.
type ListMeta struct {
	Total int `json:"total"`
	// TotalExact is false when counting stopped (filtered or searched lists).
	TotalExact *bool `json:"total_exact,omitempty"`
	// Page is nil on a page fetched by cursor.
	Page       *int `json:"page,omitempty"`
	PerPage    int  `json:"per_page,omitempty"`
	TotalPages int  `json:"total_pages,omitempty"`
	HasMore    bool `json:"has_more,omitempty"`
	// NextCursor fetches the next page (nil on the last page).
	NextCursor *string `json:"next_cursor,omitempty"`
	RequestID  string  `json:"request_id,omitempty"`
	Timestamp  string  `json:"timestamp,omitempty"`
}

// List is one page of a list.
type List[T any] struct {
	Data []T      `json:"data"`
	Meta ListMeta `json:"meta"`
}
