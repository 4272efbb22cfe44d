/**
 * Files through the pipeline: the request body of a route that takes a file as it is (`rawBody`:
 * its bytes and media type, or a multipart form's file part), and the answer of a route that
 * answers one (`envelope: "file"`: written as it is, as an attachment, whole or streamed).
 */
import type { Effect } from "effect"
import type { Canopy } from "@canopy/core"
import { formFile, type RawBody } from "../api/importFile.ts"
import { FORM_LIMITS, readForm } from "../gis/multipart.ts"
import type { ApiResponse } from "./types.ts"

/** The form a file route also accepts: one file part named `file` (docs/gis.md, "Endpoints"). */
export const MULTIPART_MEDIA_TYPE = "multipart/form-data"

/** Runs an effect of a route with the server's runtime after the route answered (a streamed file's later pages). */
export type RunEffect = <A>(effect: Effect.Effect<A, unknown, Canopy.Services>) => Promise<A>

/**
 * A file answer: the handler writes it as it is, with `Content-Disposition: attachment`. Either
 * the whole `body`, or a `stream` the handler starts with its runtime once the headers are known.
 */
export interface FileAnswer {
  readonly contentType: string
  readonly filename: string
  readonly body?: string
  /** A binary file built whole (zipped Shapefile, GeoPackage): sent with its length, no charset. */
  readonly bytes?: Uint8Array
  readonly stream?: (run: RunEffect) => AsyncIterable<string | Uint8Array>
  readonly headers?: Readonly<Record<string, string>>
}

/** Why a raw body was refused: the 400's message and details. */
export interface BodyProblem {
  readonly ok: false
  readonly message: string
  readonly details: ReadonlyArray<{ readonly field: string; readonly message: string }>
}

/**
 * A route with `rawBody`: the file's bytes and media type, or the 400's message and details.
 * The body is the file itself, with one of the route's media types, or a `multipart/form-data`
 * form whose one file part (named `file`) is the file, its part's media type and file name the
 * format's hints; its other text fields are ignored but `name`. An empty raw body passes (the
 * route looks up its project first, then the module answers "the file is empty"). With
 * `nameFromForm` (the route's flag), a name is required: `?name=` or the form's `name` field.
 */
export const rawBodyOf = (
  accepted: ReadonlyArray<string>,
  req: {
    readonly headers: Readonly<Record<string, string | undefined>>
    readonly body: Uint8Array | undefined
    readonly query?: URLSearchParams
  },
  options: { readonly nameFromForm?: boolean | undefined } = {}
): { readonly ok: true; readonly body: RawBody } | BodyProblem => {
  const given = req.headers["content-type"]
  const mediaType = (given ?? "").split(";")[0]!.trim().toLowerCase()
  const bytes = req.body ?? new Uint8Array()
  let body: RawBody
  if (mediaType === MULTIPART_MEDIA_TYPE) {
    const form = readForm(given!, bytes)
    if (!form.ok) return { ok: false, message: form.message, details: [{ field: form.field, message: form.detail }] }
    if (form.truncated.includes("name")) {
      return { ok: false, message: "The multipart form's name field is too long",
        details: [{ field: "name", message: `must be at most ${FORM_LIMITS.fieldBytes} bytes` }] }
    }
    body = { ...formFile(form.file, accepted), name: form.fields.name }
  } else {
    if (bytes.length > 0 && !accepted.includes(mediaType)) {
      const allowed = [...accepted, MULTIPART_MEDIA_TYPE].join(", ")
      return {
        ok: false,
        message: `Content-Type must be one of ${allowed}`,
        details: [{ field: "content-type", message: `must be one of ${allowed}, got ${given ?? "none"}` }]
      }
    }
    body = { bytes, mediaType }
  }
  if (options.nameFromForm && !req.query?.has("name") && body.name === undefined) {
    return {
      ok: false,
      message: "Invalid query parameters",
      details: [{ field: "query.name",
        message: `is required: give ?name=…${
          mediaType === MULTIPART_MEDIA_TYPE ? " or a form field \"name\"" : " (or send a multipart form with a name field)"
        }` }]
    }
  }
  return { ok: true, body }
}

/**
 * A `file` envelope's answer: the file as it is, as an attachment, with the request's headers. A
 * streamed file is started with `run` (the server's runtime): chunked, no `Content-Length`.
 */
export const fileResponse = (
  status: number,
  requestId: string,
  file: FileAnswer,
  headers: Readonly<Record<string, string>>,
  run: RunEffect
): ApiResponse => {
  const common = { ...file.headers, "content-disposition": `attachment; filename="${file.filename}"`, "x-request-id": requestId }
  if (file.bytes) {
    return { status, headers: { ...common, "content-type": file.contentType, ...headers }, body: undefined, chunks: [file.bytes] }
  }
  return {
    status,
    headers: { ...common, "content-type": `${file.contentType}; charset=utf-8`, ...headers },
    body: file.stream ? undefined : file.body ?? "",
    ...(file.stream ? { stream: file.stream(run) } : {})
  }
}
