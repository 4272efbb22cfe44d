/**
 * A route's input: the query decoded against its schema, the body parsed as JSON (a large one
 * apart from the request's other work). A malformed input is a `BadRequest` (400).
 */
import { Errors, type FieldError, GeometryCheck, Schemas } from "@canopy/core"
import { Effect } from "effect"
import type { Route } from "../api/routes.ts"
import { rawBodyOf } from "./files.ts"
import type { ApiRequest } from "./types.ts"

/** The query, the body or a header could not be read: the table's `BadRequest` (400), made from its message and problems. */
export class BadRequest extends Errors.BadRequest {
  constructor(message: string, details: ReadonlyArray<FieldError.FieldError>) {
    super({ message, details })
  }
}

const isJsonContentType = (value: string | undefined) => {
  if (!value) return false
  const type = value.split(";")[0]!.trim().toLowerCase()
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"))
}

/** The query as given, once it decodes against the route's schema. */
export const decodeQuery = (route: Route, query: URLSearchParams) =>
  Effect.suspend(() => {
    const raw: Record<string, string> = {}
    for (const [k, v] of query) raw[k] = v
    if (!route.query) return Effect.succeed(raw)
    const r = Schemas.decodeRequest(route.query as never)(raw, ["query"])
    return r._tag === "Success" ? Effect.succeed(raw) : Effect.fail(new BadRequest("Invalid query parameters", r.failure))
  })

/** The body parsed as JSON (undefined for a route without one, `{}` when none was sent). */
export const parseBody = (route: Route, req: ApiRequest) =>
  Effect.suspend(() => {
    if (route.rawBody) { // a file upload (http/files.ts): its bytes and media type, as they came
      const raw = rawBodyOf(route.rawBody, req, { nameFromForm: route.nameFromForm })
      return raw.ok ? Effect.succeed(raw.body) : Effect.fail(new BadRequest(raw.message, raw.details))
    }
    if (!route.body) return Effect.succeed(undefined)
    const bytes = req.body
    if (!bytes || bytes.length === 0) return Effect.succeed({})
    if (!isJsonContentType(req.headers["content-type"])) {
      return Effect.fail(new BadRequest("Content-Type must be application/json", [
        { field: "content-type", message: `must be application/json, got ${req.headers["content-type"] ?? "none"}` }
      ]))
    }
    const parse = Effect.suspend(() => {
      const text = Buffer.from(bytes).toString("utf8")
      try {
        const value: unknown = JSON.parse(text)
        // A plain boundary is then stored as the text it was sent as, not serialised again.
        if (hasBoundary(route)) GeometryCheck.keepSource(value, text)
        return Effect.succeed(value)
      } catch (e) {
        return Effect.fail(new BadRequest("The request body is not valid JSON", [
          { field: "body", message: e instanceof SyntaxError ? e.message : "invalid JSON" }
        ]))
      }
    })
    // Nesting is refused before a body past `NESTING_SCAN_BYTES` is parsed: JSON.parse of 256 KB
    // of nested brackets takes 15–110 ms of the loop (5 MB: 1.5 s), and a geometry worker hands the
    // parsed rest of a large body back by structured clone, whose recursion a deeply nested value
    // overflows. A smaller body is parsed unscanned — the worst it can hold, 64 KB of nested
    // brackets, parses in under 5 ms — and the core's request decoding refuses its nesting, naming
    // the field; a 1,000-position boundary (40 KB) pays no scan.
    if (bytes.length >= NESTING_SCAN_BYTES && nestsDeeperThan(bytes, Schemas.MAX_DEPTH)) {
      return Effect.fail(
        new Errors.ValidationError({ message: "The request body is invalid",
          details: [{ field: "body", message: `nests deeper than ${Schemas.MAX_DEPTH} levels` }] })
      )
    }
    if (bytes.length < LARGE_BODY_BYTES) return parse
    // A large body with a boundary (100,000 positions: 25 ms to parse, 27 to serialise, and GC of
    // 200,000 arrays) is parsed where the boundary is checked, off the event loop, when the host
    // provides that; otherwise the parse at least has a turn of the loop of its own.
    return Effect.gen(function*() {
      const check = yield* GeometryCheck.GeometryCheck
      if (!check.parseBody || !hasBoundary(route)) return yield* Effect.yieldNow.pipe(Effect.andThen(parse), Effect.tap(() => Effect.yieldNow))
      const parsed = yield* check.parseBody(bytes, "geometry")
      // The worker's answer was taken in on a turn of the loop of its own; the request's database
      // work and response get the next one.
      yield* Effect.yieldNow
      if (parsed._tag === "Parsed") return parsed.body
      if (parsed._tag === "TooComplex") {
        return yield* new Errors.ValidationError({ message: "The request body is invalid", details: [{ field: "geometry", message: parsed.problem.message }] })
      }
      return yield* Effect.fail(new BadRequest("The request body is not valid JSON", [{ field: "body", message: parsed.message }]))
    })
  })

/** A JSON body from this size on is scanned for its nesting before it is parsed. */
export const NESTING_SCAN_BYTES = 64 * 1024

/** A body from this size on is parsed apart from the request's other work. */
export const LARGE_BODY_BYTES = 256 * 1024

/** Whether a route's body has a top-level `geometry` (a project boundary). */
const hasBoundary = (route: Route) => Object.hasOwn((route.body as { fields?: object } | undefined)?.fields ?? {}, "geometry")

/**
 * Whether JSON text nests objects and arrays more than `max` levels deep (the body itself is level
 * 1, so `max` = `Schemas.MAX_DEPTH` matches the core's own rule): one pass over the bytes, without
 * parsing or recursion, skipping strings. About 2 ms a megabyte.
 */
export const nestsDeeperThan = (bytes: Uint8Array, max: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!
    if (inString) {
      if (b === 0x5c) i++ // a backslash: the next byte is escaped
      else if (b === 0x22) inString = false
    } else if (b === 0x22) {
      inString = true
    } else if (b === 0x7b || b === 0x5b) {
      if (++depth > max) return true
    } else if (b === 0x7d || b === 0x5d) {
      depth--
    }
  }
  return false
}
