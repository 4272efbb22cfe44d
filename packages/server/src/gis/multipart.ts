/**
 * A `multipart/form-data` upload (a browser form, `curl -F file=@stand.kml`): its one file part
 * and its text fields, read with busboy.
 *
 * The body is already in memory (the pipeline reads at most `MAX_BODY_BYTES`), so busboy is given
 * it in slices and ended: busboy parses what it is given during `write()` (the file part is
 * buffered in its stream, whose high-water mark is above the body's size), and `end()` checks the
 * closing boundary, so every event has come, and `errored` says whether the form was cut or
 * malformed, when both calls return. The import routes need the answer before the request's
 * `Idempotency-Key` is claimed, in the pipeline's synchronous body hook (`rawBodyOf`).
 */
import busboy from "busboy"
import type { Readable } from "node:stream"

/** The file part of a form. */
export interface FormFile {
  readonly bytes: Uint8Array
  /** The part's file name (its base name; `filename*` is decoded). */
  readonly filename: string | undefined
  /** The part's media type as sent (busboy's `text/plain` when the part has none). */
  readonly mediaType: string | undefined
}

/** A form read, or why it cannot be: a problem in the spec's `details` shape. */
export type FormResult =
  | {
    readonly ok: true
    readonly file: FormFile
    /** The text fields (the first value of each name), at most `FORM_LIMITS.fields`. */
    readonly fields: Readonly<Record<string, string>>
    /** Names of the fields cut at `FORM_LIMITS.fieldBytes`. */
    readonly truncated: ReadonlyArray<string>
  }
  | { readonly ok: false; readonly message: string; readonly field: string; readonly detail: string }

/** The file part's field name. */
export const FILE_FIELD = "file"

/**
 * Text fields kept (the rest are ignored), the longest value kept of each, and the parts a form
 * may have (a form with more is refused, read no further than the part past the limit).
 */
export const FORM_LIMITS = { fields: 32, fieldBytes: 64 * 1024, parts: 64 } as const

/** How much of the body busboy is given at a time. */
const SLICE_BYTES = 64 * 1024

/** A part's headers are never longer than busboy's own limit (16 KiB); a bit more is passed to let it refuse them. */
const HEADER_SCAN_BYTES = 32 * 1024

/**
 * The form's outline for busboy: each part's headers as sent, its content replaced by the part's
 * number, and the contents themselves. Busboy's boundary search runs in JavaScript at a cost of
 * bytes × boundary length when the body is made of the boundary's characters (5 MB: 0.2–0.7 s of
 * the event loop); the delimiters are found here by `Buffer.indexOf`, and busboy reads only the
 * headers. A delimiter followed by neither CRLF nor `--` (which busboy would take as content) is
 * refused; the outline ends at the part past `FORM_LIMITS.parts`. Null when the content type has
 * no boundary (busboy says why).
 */
const outline = (contentType: string, body: Uint8Array): { readonly skeleton: Buffer; readonly contents: ReadonlyArray<Uint8Array> } | string | null => {
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType)
  const boundary = m?.[1] ?? m?.[2]
  if (!boundary) return null
  // busboy reads the body after a CRLF of its own, and looks for CRLF--boundary from there on
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.length)
  const delimiter = Buffer.from(`\r\n--${boundary}`)
  const pieces: Array<Uint8Array> = []
  const contents: Array<Uint8Array> = []
  const first = bytes.subarray(0, delimiter.length - 2).equals(delimiter.subarray(2)) ? -2 : bytes.indexOf(delimiter)
  // busboy refuses the form at the part past the limit: the parts after it are not looked at
  for (let parts = 0, at = first; at !== -1 && parts <= FORM_LIMITS.parts; parts++) {
    const start = at + delimiter.length
    const next = bytes.indexOf(delimiter, start)
    const segment = bytes.subarray(start, next < 0 ? bytes.length : next)
    pieces.push(delimiter)
    if (segment[0] === 0x2d && segment[1] === 0x2d) { // the closing delimiter: the epilogue is ignored
      pieces.push(segment.subarray(0, 2))
      break
    }
    if (segment.length > 0 && !(segment[0] === 0x0d && segment[1] === 0x0a)) return "a boundary delimiter is followed by neither CRLF nor \"--\""
    const headersEnd = segment.subarray(0, HEADER_SCAN_BYTES).indexOf("\r\n\r\n")
    if (headersEnd < 0) {
      pieces.push(segment.subarray(0, HEADER_SCAN_BYTES))
    } else {
      pieces.push(segment.subarray(0, headersEnd + 4), Buffer.from(String(contents.length)))
      contents.push(segment.subarray(headersEnd + 4))
    }
    at = next
  }
  return { skeleton: Buffer.concat(pieces).subarray(2), contents }
}

const problem = (field: string, detail: string, message = "The multipart form is not a single GIS file"): FormResult => ({ ok: false, message, field, detail })

/**
 * The form's one file part (field name `file`) and its text fields. More than one file part, none,
 * or a body that is not a well-formed `multipart/form-data` body is a problem.
 */
export const readForm = (contentType: string, body: Uint8Array): FormResult => {
  const outlined = outline(contentType, body)
  if (typeof outlined === "string") return problem("body", `is not a well-formed multipart/form-data body: ${outlined}`)
  // a part's content by the number busboy reads in its place
  const contentOf = (marker: string | Buffer | null) => outlined?.contents[Number(String(marker ?? ""))] ?? new Uint8Array()
  if (outlined) body = outlined.skeleton
  let parser: busboy.Busboy
  try {
    parser = busboy({
      headers: { "content-type": contentType },
      limits: { files: 1, fields: FORM_LIMITS.fields, fieldSize: FORM_LIMITS.fieldBytes, parts: FORM_LIMITS.parts },
      // the whole file stays in the part's buffer until it is read below
      fileHwm: body.length + 1
    })
  } catch (e) {
    return problem("content-type", `is not a multipart/form-data type with a boundary: ${e instanceof Error ? e.message : String(e)}`)
  }
  if (!outlined) return problem("content-type", "is not a multipart/form-data type with a boundary parameter")
  const files: Array<{ name: string; stream: Readable; filename: string | undefined; mimeType: string }> = []
  const fields: Record<string, string> = Object.create(null) as Record<string, string> // a field may be named __proto__
  const truncated: Array<string> = []
  let extraFile = false
  let error: Error | undefined
  parser.on("file", (name, stream, info) => {
    // errors of a part cut short come after this function returned: caught here, seen as `errored`
    stream.on("error", () => {})
    files.push({ name, stream, filename: info.filename, mimeType: info.mimeType })
  })
  parser.on("field", (name, marker) => {
    if (Object.hasOwn(fields, name)) return // the first value of a name is the one kept
    const value = contentOf(marker)
    fields[name] = Buffer.from(value.buffer, value.byteOffset, Math.min(value.length, FORM_LIMITS.fieldBytes)).toString("utf8")
    if (value.length > FORM_LIMITS.fieldBytes) truncated.push(name)
  })
  let tooManyParts = false
  parser.on("filesLimit", () => {
    extraFile = true
  })
  parser.on("partsLimit", () => {
    tooManyParts = true
  })
  parser.on("error", (e: Error) => {
    error ??= e
  })
  // Given in slices, so that reading stops at the part past the limit: a body of 60,000 empty
  // parts costs what the limit's worth of them costs.
  for (let at = 0; at < body.length && !tooManyParts && !error; at += SLICE_BYTES) {
    parser.write(body.subarray(at, Math.min(at + SLICE_BYTES, body.length)))
  }
  if (tooManyParts) {
    for (const f of files) f.stream.resume()
    return problem("body", `has more than ${FORM_LIMITS.parts} parts`, "The multipart form has too many parts")
  }
  parser.end()
  error ??= parser.errored ?? undefined
  const file = files[0]
  const bytes = file ? contentOf(file.stream.read() as Buffer | null).slice() : null
  for (const f of files) f.stream.resume() // lets the parser finish and free the part
  if (error) return problem("body", `is not a well-formed multipart/form-data body: ${error.message}`)
  if (extraFile || files.length > 1) return problem(FILE_FIELD, "exactly one file part is allowed; the form has more than one")
  if (!file) {
    return problem(FILE_FIELD, Object.hasOwn(fields, FILE_FIELD)
      ? "must be a file part (with a filename), not a text field"
      : "is required: the form needs one file part named \"file\"")
  }
  if (file.name !== FILE_FIELD) return problem(FILE_FIELD, `the file part must be named "file", not ${JSON.stringify(file.name)}`)
  return {
    ok: true,
    file: { bytes: bytes ?? new Uint8Array(), filename: file.filename, mediaType: file.mimeType },
    fields,
    truncated
  }
}
