/**
 * What a server adapter hands the pipeline and writes back, and the access log's line.
 */

/** A request as the pipeline sees it (what a server adapter extracts). */
export interface ApiRequest {
  readonly method: string
  /** Path below the mount point, starting with `/` (e.g. `/v1/projects`). */
  readonly path: string
  readonly query: URLSearchParams
  /** Header values by lowercase name. */
  readonly headers: Readonly<Record<string, string | undefined>>
  /** The raw body; undefined when there was none. */
  readonly body: Uint8Array | undefined
  /** True when the body exceeded the size limit (and was not read to the end). */
  readonly bodyTooLarge?: boolean
  /** The client address (after trusted-proxy handling). */
  readonly ip: string
}

/** A response to write. */
export interface ApiResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  /** The whole body; undefined when there is none or when `stream` gives it. */
  readonly body: string | undefined
  /**
   * A body produced while it is written (large exports): pulled one chunk at a time, each written
   * after the previous one drained (chunked transfer, no Content-Length). The adapter stops pulling
   * (calls `return`) when the client goes away. Set with `body: undefined`.
   */
  readonly stream?: AsyncIterable<string | Uint8Array> | undefined
  /**
   * A body already in memory, in pieces written one after another (with a Content-Length): a
   * large boundary's UTF-8 bytes between the strings around it, never joined into one string.
   * Set with `body: undefined`; `responseText` joins them where the whole text is wanted.
   */
  readonly chunks?: ReadonlyArray<string | Uint8Array> | undefined
}

/** The whole body of a response that has one in memory (`body`, or its `chunks` joined). */
export const responseText = (r: ApiResponse): string | undefined =>
  r.body ?? (r.chunks === undefined ? undefined
    : Buffer.concat(r.chunks.map((c) => (typeof c === "string" ? Buffer.from(c) : c))).toString("utf8"))

/** One structured access-log line (never a token). */
export interface AccessLogLine {
  readonly time: string
  readonly request_id: string
  readonly method: string
  readonly path: string
  /** The route's template (`/v1/projects/{project_id}`), the fixed path of a page, or `unmatched`. */
  readonly route: string
  readonly status: number
  readonly duration_ms: number
  readonly account_id?: string
  readonly error?: string
}

/** Largest accepted body (DECISIONS). */
export const MAX_BODY_BYTES = 5 * 1024 * 1024
