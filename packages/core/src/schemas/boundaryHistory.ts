/**
 * Boundary history: the list query of a project's boundary versions and the versions as returned
 * (docs/decisions.md, "Boundary history").
 */
import { Schema } from "effect"
import type * as Geometry from "../Geometry.ts"
import type { RawJson } from "../RawJson.ts"
import { BoundaryVia } from "../storage/boundaryHistory.ts"
import { Count, documented, Measure, type Ordering, pageFields, paginated, Timestamp } from "./common.ts"
import { boundaryJsonSchema } from "./geojson.ts"

/** Boundary versions: newest first, by version number. */
export const versionOrdering = (): Ordering => ({ sort: "version", order: "desc" })

/** GET /projects/{id}/boundaries */
export const ListBoundaryVersions = paginated(Schema.Struct({ ...pageFields }), versionOrdering)
export type ListBoundaryVersions = typeof ListBoundaryVersions.Type

/** Who made a change: the credential's kind, its user (when there is one) and the credential's id. */
export const ChangedBy = Schema.Struct({
  kind: Schema.String.annotate({ description: "api_key, service_token, oauth, member (the dashboard) or system (an operator)" }),
  user_id: Schema.NullOr(Schema.String),
  credential_id: Schema.NullOr(Schema.String)
}).annotate({ identifier: "BoundaryChangedBy" })

const summaryFields = {
  version: Count.annotate({ description: "1, 2, 3… per project, in the order the boundary changed" }),
  project_id: Schema.String,
  area_hectares_before: Measure.annotate({ description: "The project's hectares before this change" }),
  area_hectares_after: Measure.annotate({ description: "The project's hectares after it (this version's boundary)" }),
  via: BoundaryVia.annotate({
    description: "How the change came in: create (POST /v1/projects), import (POST /v1/projects/import), update (PUT /v1/projects/{id}), " +
      "boundary_file (PUT /v1/projects/{id}/boundary), dashboard, dashboard_file (the dashboard's upload), version_restore, or " +
      "initial (the boundary the project had before its history began)"
  }),
  file_format: Schema.NullOr(Schema.String).annotate({ description: "The file's format when the boundary came from a file" }),
  restored_from: Schema.NullOr(Count).annotate({ description: "The version a version_restore brought back" }),
  changed_by: Schema.NullOr(ChangedBy),
  created_at: Timestamp
}

/** A boundary version as lists return it (without its boundary). */
export const BoundaryVersionSummary = Schema.Struct(summaryFields).annotate({ identifier: "BoundaryVersionSummary" })
export type BoundaryVersionSummary = typeof BoundaryVersionSummary.Type

/** One boundary version, with the boundary it set (null: the change cleared it); its text inside the services, as a Project's. */
export const BoundaryVersion = Schema.Struct({
  ...summaryFields,
  geometry: Schema.NullOr(documented<Geometry.Boundary | RawJson>(boundaryJsonSchema)),
  bbox: Schema.NullOr(Schema.Tuple([Measure, Measure, Measure, Measure]))
}).annotate({ identifier: "BoundaryVersion" })
export type BoundaryVersion = typeof BoundaryVersion.Type
