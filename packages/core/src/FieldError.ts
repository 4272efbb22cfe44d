/**
 * The spec's validation `details` entries, and the one place where a decode failure becomes a
 * list of them: `{ field, message }` per problem, every problem reported, with dotted and indexed
 * field paths such as `geometry.coordinates[0][3]`.
 */
import { type Schema, SchemaIssue } from "effect"

/** One validation problem, as it appears in an error body's `details`. */
export interface FieldError {
  readonly field: string
  readonly message: string
}

/** A path into a request value: property names and array indexes. */
export type Path = ReadonlyArray<PropertyKey>

/** `["geometry", "coordinates", 0, 3]` → `geometry.coordinates[0][3]`. */
export const formatPath = (path: Path): string => {
  let out = ""
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`
    else {
      const name = String(key)
      if (/^\d+$/.test(name)) out += `[${name}]`
      else out += out === "" ? name : `.${name}`
    }
  }
  return out
}

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/** Every problem in a decode failure, with paths below `prefix` (e.g. `["query"]`). */
export const fromIssue = (issue: SchemaIssue.Issue, prefix: Path = []): Array<FieldError> =>
  formatter(issue).issues.map((i) => ({
    field: formatPath([...prefix, ...(i.path ?? []).map((p) => (typeof p === "object" && p !== null ? p.key : p))]),
    message: i.message
  }))

/** Every problem in a `Schema.SchemaError`. */
export const fromSchemaError = (error: Schema.SchemaError, prefix: Path = []): Array<FieldError> => fromIssue(error.issue, prefix)
