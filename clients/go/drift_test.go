package canopy

// The client's response types against the OpenAPI document a live server publishes at
// /v1/openapi.json: every property of a schema has a field (by its JSON name) and every field is a
// property of the schema, recursively through nested objects, arrays and pointers. A field added
// to the API but not to the client (or a client field the API does not have) fails here.

import (
	"encoding/json"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

// schemaDoc is the part of the OpenAPI document the comparison reads.
type schemaDoc struct {
	Components struct {
		Schemas map[string]map[string]interface{} `json:"schemas"`
	} `json:"components"`
}

// driftCases pairs each response type with its schema in components.schemas.
var driftCases = []struct {
	schema string
	value  interface{}
}{
	{"GeoJsonPoint", Point{}},
	{"Project", Project{}},
	{"ProjectOverlap", ProjectOverlap{}},
	{"OverlapReport", OverlapReport{}},
	{"Asset", Asset{}},
	{"Member", Member{}},
	{"Account", Account{}},
	{"UsageStatistics", Usage{}},
	{"Webhook", Webhook{}},
	{"DeliveryLog", DeliveryLog{}},
	{"Event", Event{}},
	{"ProjectCreatedEventData", ProjectEventData{}},
	{"ProjectOverlapDetectedEventData", ProjectOverlapEventData{}},
	{"Verification", TokenInfo{}},
	{"ListMeta", ListMeta{}},
	{"BoundaryVersionSummary", BoundaryVersionSummary{}},
	{"BoundaryVersion", BoundaryVersion{}},
	{"Import", Import{}},
	{"ImportFeatureResult", ImportFeatureResult{}},
	{"Error", errorBody{}},
}

var (
	timeType      = reflect.TypeOf(time.Time{})
	unmarshalType = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()
)

// resolve follows $ref and, for anyOf/oneOf, the one branch that is an object (nil when there
// are none or several, e.g. a Polygon-or-MultiPolygon geometry).
func resolve(doc *schemaDoc, s map[string]interface{}) map[string]interface{} {
	for depth := 0; s != nil && depth < 16; depth++ {
		if ref, ok := s["$ref"].(string); ok {
			s = doc.Components.Schemas[strings.TrimPrefix(ref, "#/components/schemas/")]
			continue
		}
		if s["properties"] != nil || s["items"] != nil {
			return s
		}
		var objects []map[string]interface{}
		for _, key := range []string{"anyOf", "oneOf"} {
			branches, _ := s[key].([]interface{})
			for _, b := range branches {
				if r := resolve(doc, asMap(b)); r != nil {
					objects = append(objects, r)
				}
			}
		}
		if len(objects) != 1 {
			return nil
		}
		return objects[0]
	}
	return nil
}

func asMap(v interface{}) map[string]interface{} {
	m, _ := v.(map[string]interface{})
	return m
}

// jsonFields answers a struct's fields by JSON name (embedded structs flattened).
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := strings.Split(f.Tag.Get("json"), ",")[0]
		if name == "-" || (f.PkgPath != "" && !f.Anonymous) {
			continue
		}
		if f.Anonymous && name == "" {
			for k, v := range jsonFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// compare reports, under path, the differences between the struct type t and the schema s.
func compare(doc *schemaDoc, path string, t reflect.Type, s map[string]interface{}, problems *[]string) {
	for t.Kind() == reflect.Ptr || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
		if s = resolve(doc, s); s == nil {
			return
		}
		if items := asMap(s["items"]); items != nil {
			s = items
		}
	}
	if t.Kind() != reflect.Struct || t == timeType || reflect.PtrTo(t).Implements(unmarshalType) {
		return // a scalar, a time, or a type with its own JSON form (Geometry)
	}
	if s = resolve(doc, s); s == nil {
		return
	}
	props := asMap(s["properties"])
	fields := jsonFields(t)
	for name := range props {
		if _, ok := fields[name]; !ok {
			*problems = append(*problems, path+"."+name+": in the OpenAPI document, not in the Go type "+t.String())
		}
	}
	for name, ft := range fields {
		prop, ok := props[name]
		if !ok {
			*problems = append(*problems, path+"."+name+": in the Go type "+t.String()+", not in the OpenAPI document")
			continue
		}
		compare(doc, path+"."+name, ft, asMap(prop), problems)
	}
}

func TestTypesMatchTheOpenAPIDocument(t *testing.T) {
	srv := startLiveServer(t)
	resp, err := http.Get(srv.base + "/openapi.json")
	if err != nil {
		t.Fatalf("GET /v1/openapi.json: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/openapi.json: %s", resp.Status)
	}
	var doc schemaDoc
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatalf("decoding the OpenAPI document: %v", err)
	}
	var problems []string
	for _, c := range driftCases {
		s, ok := doc.Components.Schemas[c.schema]
		if !ok || resolve(&doc, s) == nil {
			problems = append(problems, c.schema+": no such object schema in the OpenAPI document")
			continue
		}
		compare(&doc, c.schema, reflect.TypeOf(c.value), s, &problems)
	}
	sort.Strings(problems)
	if len(problems) > 0 {
		t.Fatalf("the Go types drifted from the OpenAPI document:\n  %s", strings.Join(problems, "\n  "))
	}
}

// The comparison itself finds a missing and an extra field, in a nested object too.
func TestDriftComparisonFindsDifferences(t *testing.T) {
	doc := &schemaDoc{}
	doc.Components.Schemas = map[string]map[string]interface{}{
		"Inner": {"type": "object", "properties": map[string]interface{}{"a": map[string]interface{}{}, "b": map[string]interface{}{}}},
	}
	schema := map[string]interface{}{"type": "object", "properties": map[string]interface{}{
		"id":    map[string]interface{}{"type": "string"},
		"inner": map[string]interface{}{"anyOf": []interface{}{map[string]interface{}{"$ref": "#/components/schemas/Inner"}, map[string]interface{}{"type": "null"}}},
	}}
	type inner struct {
		A string `json:"a"`
		C string `json:"c"`
	}
	type outer struct {
		ID    string   `json:"id"`
		Inner []*inner `json:"inner"`
		Extra int      `json:"extra,omitempty"`
	}
	var problems []string
	compare(doc, "T", reflect.TypeOf(outer{}), schema, &problems)
	sort.Strings(problems)
	want := []string{
		"T.extra: in the Go type canopy.outer, not in the OpenAPI document",
		"T.inner.b: in the OpenAPI document, not in the Go type canopy.inner",
		"T.inner.c: in the Go type canopy.inner, not in the OpenAPI document",
	}
	if !reflect.DeepEqual(problems, want) {
		t.Fatalf("problems = %q, want %q", problems, want)
	}
}
