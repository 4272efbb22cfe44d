/**
 * Schemas for every resource and every request body and query of the spec, with DECISIONS'
 * limits. Request schemas decode what a caller sends; `decodeRequest` runs one and answers either
 * the value or every problem as `{ field, message }`. Written by area under `schemas/`; this
 * module is their one entry point (`Schemas.X`).
 */
export { Description, Email, limits, ListCursor, Metadata, Name, newestFirst, Order, type Ordering, Page, paginated, PerPage,
  SearchTerm } from "./schemas/common.ts"
export { Boundary, DeferredBoundary, GeoJsonMultiPolygon, GeoJsonPoint, GeoJsonPolygon, GeoJsonPosition, geoJsonSchemas, Point } from "./schemas/geojson.ts"
export * from "./schemas/projects.ts"
export * from "./schemas/boundaryHistory.ts"
export * from "./schemas/account.ts"
export * from "./schemas/webhooks.ts"
export * from "./schemas/errors.ts"
export * from "./schemas/events.ts"
