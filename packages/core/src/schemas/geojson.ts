/**
 * GeoJSON as the API speaks it (RFC 7946), for the reference and the typed clients. What is
 * accepted is decided by `Geometry.problems` / `Geometry.pointProblems`; these schemas describe it.
 */
import { type JsonSchema, Schema } from "effect"
import * as Geometry from "../Geometry.ts"

/** A position: `[longitude, latitude]`, optionally followed by an altitude that Canopy keeps but ignores. */
export const GeoJsonPosition = Schema.Array(Schema.Finite).pipe(
  Schema.check(Schema.isMinLength(2), Schema.isMaxLength(3))
).annotate({ identifier: "GeoJsonPosition", description: "[longitude, latitude] (WGS84 degrees), optionally with an altitude", examples: [[-122.4, 37.8]] })

/** A closed linear ring of at least 4 positions (first equals last). */
const GeoJsonLinearRing = Schema.Array(GeoJsonPosition).pipe(Schema.check(Schema.isMinLength(4)))
  .annotate({ description: "A closed ring: at least 4 positions, the last equal to the first; the first ring is the exterior, the others holes" })

/** GeoJSON Polygon. */
export const GeoJsonPolygon = Schema.Struct({
  type: Schema.Literal("Polygon"),
  coordinates: Schema.Array(GeoJsonLinearRing).pipe(Schema.check(Schema.isMinLength(1)))
}).annotate({
  identifier: "GeoJsonPolygon",
  description: "GeoJSON Polygon (RFC 7946 §3.1.6)",
  examples: [{ type: "Polygon", coordinates: [[[-122.5, 37.7], [-122.4, 37.7], [-122.4, 37.8], [-122.5, 37.8], [-122.5, 37.7]]] }]
})

/** GeoJSON MultiPolygon. */
export const GeoJsonMultiPolygon = Schema.Struct({
  type: Schema.Literal("MultiPolygon"),
  coordinates: Schema.Array(Schema.Array(GeoJsonLinearRing).pipe(Schema.check(Schema.isMinLength(1)))).pipe(Schema.check(Schema.isMinLength(1)))
}).annotate({ identifier: "GeoJsonMultiPolygon", description: "GeoJSON MultiPolygon (RFC 7946 §3.1.7)" })

/** GeoJSON Point. */
export const GeoJsonPoint = Schema.Struct({ type: Schema.Literal("Point"), coordinates: GeoJsonPosition })
  .annotate({ identifier: "GeoJsonPoint", description: "GeoJSON Point (RFC 7946 §3.1.2)", examples: [{ type: "Point", coordinates: [-122.45, 37.75] }] })

/** The GeoJSON schemas the documented geometry fields refer to, by identifier. */
export const geoJsonSchemas = { GeoJsonPosition, GeoJsonPolygon, GeoJsonMultiPolygon, GeoJsonPoint } as const

const ref = (id: keyof typeof geoJsonSchemas) => ({ $ref: `#/$defs/${id}` })

/** How a boundary is documented: a reference to the Polygon or MultiPolygon schema. */
export const boundaryJsonSchema: JsonSchema.JsonSchema = { anyOf: [ref("GeoJsonPolygon"), ref("GeoJsonMultiPolygon")],
  description: "GeoJSON Polygon or MultiPolygon in WGS84" }
/** How a location is documented: a reference to the Point schema. */
export const pointJsonSchema: JsonSchema.JsonSchema = ref("GeoJsonPoint")

/**
 * A project boundary: GeoJSON Polygon or MultiPolygon, every problem reported at its path. The
 * check runs in place, synchronously, inside decoding: fine for a caller decoding a body itself.
 * The services decode with `DeferredBoundary` instead and check through `GeometryCheck`.
 */
export const Boundary = Schema.Any.pipe(
  Schema.check(Schema.makeFilter((u: unknown) => Geometry.problems(u).map((p) => ({ path: p.path, issue: p.message })))),
  Schema.refine((_u: unknown): _u is Geometry.Boundary => true, { toJsonSchema: () => boundaryJsonSchema })
)

/**
 * A boundary left unchecked by decoding: any value passes, untouched and uncopied. The project
 * services decode bodies with it, so that decoding stays cheap whatever the geometry's size, and
 * then check the value through `GeometryCheck` (which the server runs off the event loop, within
 * a time budget); the problems come out exactly as `Boundary` reports them.
 */
export const DeferredBoundary = Schema.Unknown

/** An asset location: GeoJSON Point. */
export const Point = Schema.Any.pipe(
  Schema.check(Schema.makeFilter((u: unknown) => Geometry.pointProblems(u).map((p) => ({ path: p.path, issue: p.message })))),
  Schema.refine((_u: unknown): _u is Geometry.Point => true, { toJsonSchema: () => pointJsonSchema })
)
