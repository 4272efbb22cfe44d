/**
 * Checking a project boundary: validation and, when it is valid, the work of storing it — RFC 7946
 * winding, geodesic area, bounding box. It is a service so that a host can run it elsewhere than
 * on the caller's fiber: the server sends large boundaries to worker threads with a time budget
 * (packages/server/src/geometry/). The default, used when nothing is provided, runs inline.
 *
 * `decodeBody` is how the Projects service uses it: the body is decoded with the geometry left
 * unchecked (`Schemas.DeferredBoundary`), the geometry goes through the check, and every problem
 * is reported as a full decode with `Schemas.Boundary` would report it — same fields, same
 * messages, same order.
 */
import { Context, Effect, Layer, Result, type Schema } from "effect"
import { RateLimited, ValidationError } from "./Errors.ts"
import { type FieldError, formatPath } from "./FieldError.ts"
import * as Geometry from "./Geometry.ts"
import { boundarySource } from "./internal/boundarySource.ts"
import * as Overlap from "./Overlap.ts"
import { RawJson } from "./RawJson.ts"
import * as Schemas from "./Schemas.ts"

/**
 * A valid boundary as stored: normalised winding (as its JSON text, which is what is stored and
 * answered), area rounded as the API returns it, bbox.
 */
export interface Measured {
  readonly geometry: RawJson
  readonly area_hectares: number
  readonly bbox: Geometry.BBox
}

/** The outcome of a check: measured, or every problem (paths relative to the value). */
export type Verdict =
  | ({ readonly _tag: "Valid" } & Measured)
  | { readonly _tag: "Invalid"; readonly problems: ReadonlyArray<Geometry.Problem> }

/** Validates and measures a boundary, synchronously: what the inline check does. */
export const evaluate = (value: unknown): Verdict => {
  const problems = Geometry.problems(value)
  if (problems.length > 0) return { _tag: "Invalid", problems }
  const geometry = Geometry.normalize(value as Geometry.Boundary)
  const source = sameRings(value as Geometry.Boundary, geometry) ? sources.get(value as object) : undefined
  const kept =
    source !== undefined && source.length <= MAX_SOURCE_CHARS_PER_POSITION * Geometry.countPositions(geometry.coordinates, geometry.type === "Polygon" ? 1 : 2)
      ? source : undefined
  return {
    _tag: "Valid",
    geometry: storedText(geometry, kept),
    area_hectares: Geometry.roundHectares(Geometry.areaHectares(geometry)),
    bbox: Geometry.bbox(geometry)
  }
}

/** Whether normalising kept every ring as it was (none needed turning round). */
const sameRings = (sent: Geometry.Boundary, normalized: Geometry.Boundary): boolean => {
  if (sent.type === "Polygon") return sent.coordinates.every((r, i) => r === normalized.coordinates[i])
  return sent.coordinates.every((rings, p) => rings.every((r, i) => r === (normalized as Geometry.MultiPolygon).coordinates[p]![i]))
}

/**
 * A boundary sent as text longer than this many characters a position (numbers spelled with many
 * more digits than a double holds) is stored as `JSON.stringify` writes it, so that no stored
 * boundary is much longer than its positions need (~40 characters each, 17 digits a number).
 */
export const MAX_SOURCE_CHARS_PER_POSITION = 80

/** Boundaries parsed from request bodies, and the compact text each was sent as (`keepSource`). */
const sources = new WeakMap<object, string>()

/**
 * Remembers the text a JSON body's boundary field (default `geometry`) was sent as, read from the
 * text `body` was parsed from (internal/boundarySource.ts), for `evaluate`: a valid boundary that
 * normalising leaves as it was is then stored as that text without its whitespace, its numbers
 * spelled as they were sent, instead of being serialised again (~0.4 ms for 1,000 positions). A
 * boundary not recognised as plain is serialised as before. `json` must be the text `body` was
 * parsed from, and the boundary must not be changed afterwards.
 */
export const keepSource = (body: unknown, json: string, field = "geometry"): void => {
  if (!isRecord(body)) return
  const value = body[field]
  if (!isRecord(value)) return
  let text: string | undefined
  try {
    text = boundarySource(json, field)
  } catch {
    return // a body the reading cannot take (none known) is serialised as before
  }
  if (text !== undefined) sources.set(value, text)
}

/**
 * A boundary already checked where its request body was parsed (off the event loop): its verdict.
 * Only code can make one (JSON cannot), so a body field holding one was checked by the host.
 */
export class Prepared {
  readonly verdict: Verdict
  constructor(verdict: Verdict) {
    this.verdict = verdict
  }
}

/**
 * A JSON request body parsed by `parseBody`: the value (its boundary field a `Prepared`); why it is
 * not JSON; or, when the work ran out of its time budget, the boundary's problem alone.
 */
export type ParsedBody =
  | { readonly _tag: "Parsed"; readonly body: unknown }
  | { readonly _tag: "NotJson"; readonly message: string }
  | { readonly _tag: "TooComplex"; readonly problem: Geometry.Problem }

/** The area two stored boundaries share, or that measuring it ran out of its time budget. */
export type Shared =
  | { readonly _tag: "Shared"; readonly hectares: number }
  | { readonly _tag: "TooComplex" }

/**
 * Boundaries parsed for the measures, by their text's object (a write's own is compared with each
 * neighbour). Kept apart from `RawJson.value()`, which is what a library caller's result is
 * materialised from: a checked value shares its positions with the caller's input, and a result
 * must not.
 */
const parsedTexts = new WeakMap<RawJson, Geometry.Boundary>()

/**
 * A stored boundary's value for the measures: its text parsed once per `RawJson`, or, for a
 * boundary checked in this thread (`storedText`), the checked value itself, never parsed back.
 */
export const parsedBoundary = (r: RawJson): Geometry.Boundary => {
  let g = parsedTexts.get(r)
  if (!g) parsedTexts.set(r, g = JSON.parse(r.text) as Geometry.Boundary)
  return g
}

/**
 * A checked, normalised boundary as it is stored: its JSON text (`source`, the text it was sent as,
 * when that is known; else serialised), with the value kept for `parsedBoundary`, so that a
 * write's comparisons with its neighbours do not parse its own boundary back from the text just
 * written (~0.2 ms for 1,000 positions).
 */
export const storedText = (geometry: Geometry.Boundary, source?: string): RawJson => {
  const text = source === undefined ? RawJson.of(geometry) : new RawJson(source)
  parsedTexts.set(text, geometry)
  return text
}

/**
 * Measures the area two valid stored boundaries share, synchronously: what the inline check does.
 * Each text is parsed once and the larger boundary prepared once (`Overlap.sharedHectaresPrepared`),
 * so a write compared with many neighbours reads and prepares its own boundary once; a pair whose
 * pieces do not close goes to the clipper.
 */
export const measureShared = (a: RawJson, b: RawJson): Shared => {
  try {
    const ga = parsedBoundary(a), gb = parsedBoundary(b)
    let hectares: number
    try {
      hectares = Overlap.sharedHectaresPrepared(ga, gb)
    } catch {
      hectares = Overlap.clippedHectares(ga, gb)
    }
    return { _tag: "Shared", hectares }
  } catch {
    // The clipper gave up on this pair: reported like a comparison out of budget (incomplete).
    return { _tag: "TooComplex" }
  }
}

/** Whether a valid stored boundary covers a position (`Overlap.coversPoint`), synchronously. */
export const measureCovers = (b: RawJson, position: Geometry.Position): boolean => Overlap.coversPoint(JSON.parse(b.text) as Geometry.Boundary, position)

/** What a geometry check implementation provides. */
export interface GeometryCheckShape {
  /**
   * The verdict on a boundary. An implementation with a time budget answers `tooComplex` when
   * the budget runs out; one with a bounded queue fails with `RateLimited` when it is full.
   */
  readonly check: (value: unknown) => Effect.Effect<Verdict, RateLimited>
  /**
   * Parses a large JSON body and checks its top-level `field` (a boundary) in the same place, so
   * that neither the parse nor the boundary's values ever reach the caller's thread: the field
   * comes back as a `Prepared`. Optional: without it, bodies are parsed by the caller.
   */
  readonly parseBody?: (bytes: Uint8Array, field: string) => Effect.Effect<ParsedBody, RateLimited>
  /**
   * The area two valid stored boundaries share (`Overlap.sharedHectares`). An implementation with a
   * time budget answers `TooComplex` when it runs out (its own, or `limitMs` when that is shorter). Optional: without it, measured inline.
   */
  readonly shared?: (a: RawJson, b: RawJson, limitMs?: number) => Effect.Effect<Shared, RateLimited>
  /**
   * Whether a valid stored boundary covers a position (`Overlap.coversPoint`); `undefined` when
   * the time budget ran out. Optional: without it, tested inline.
   */
  readonly covers?: (b: RawJson, position: Geometry.Position, limitMs?: number) => Effect.Effect<boolean | undefined, RateLimited>
}

/** The inline check: `evaluate` and `measureShared` on the calling fiber. */
export const inline: GeometryCheckShape = {
  check: (value) => Effect.sync(() => evaluate(value)),
  shared: (a, b) => Effect.sync(() => measureShared(a, b)),
  covers: (b, position) => Effect.sync(() => measureCovers(b, position))
}

/** Whether a stored boundary covers a position, through the provided implementation (inline without one). */
export const covers = (b: RawJson, position: Geometry.Position, limitMs?: number): Effect.Effect<boolean | undefined, RateLimited> =>
  Effect.gen(function*() {
    const impl = yield* GeometryCheck
    return yield* (impl.covers ?? inline.covers!)(b, position, limitMs)
  })

/** The area two stored boundaries share, through the provided implementation (inline without one). */
export const shared = (a: RawJson, b: RawJson, limitMs?: number): Effect.Effect<Shared, RateLimited> =>
  Effect.gen(function*() {
    const impl = yield* GeometryCheck
    return yield* (impl.shared ?? inline.shared!)(a, b, limitMs)
  })

/** The geometry check service; a reference with the inline check, so providing it is optional. */
export const GeometryCheck = Context.Reference<GeometryCheckShape>("canopy/GeometryCheck", { defaultValue: () => inline })

/** Provides a geometry check implementation. */
export const layer = (shape: GeometryCheckShape): Layer.Layer<never> => Layer.succeed(GeometryCheck, shape)

/** The problem of a boundary whose check ran out of its time budget. */
export const tooComplexProblem = (budgetMs: number): Geometry.Problem => ({
  path: [],
  message: `is too complex to validate within ${budgetMs / 1000} s; simplify the boundary (fewer positions, or fewer edges passing close to one another)`
})

/** The verdict when a check ran out of its time budget (a 422 on `geometry`). */
export const tooComplex = (budgetMs: number): Verdict => ({ _tag: "Invalid", problems: [tooComplexProblem(budgetMs)] })

/** The failure when too many large boundaries are already waiting to be checked (a 429). */
export const busy = (retryAfterSeconds = 1): RateLimited =>
  new RateLimited({
    message: `Too many large geometries are being validated right now; retry after ${retryAfterSeconds} s`,
    retryAfter: retryAfterSeconds
  })

/** A decoded body and its checked geometry: `undefined` when the body has none, `null` when it clears it. */
export interface Checked<A> {
  readonly body: A
  readonly geometry: Measured | null | undefined
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const topField = (field: string): string => /^[^.[]*/.exec(field)![0]

/**
 * Decodes a request body whose `field` (default `geometry`) the schema leaves unchecked, then
 * checks that field through `GeometryCheck`. Fails with a `ValidationError` listing every problem
 * of the body, the geometry's placed where the schema's field order puts them (as a decode with
 * the checked schema would list them); or with `RateLimited` when the check is saturated.
 */
export const decodeBody = <S extends Schema.Decoder<unknown> & { readonly fields: object }>(schema: S, field = "geometry") => {
  const run = Schemas.decodeRequest(schema)
  const order = Object.keys(schema.fields)
  const at = order.indexOf(field)
  const rank = (p: FieldError) => {
    const i = order.indexOf(topField(p.field))
    return i < 0 ? order.length : i
  }
  return (input: unknown): Effect.Effect<Checked<S["Type"]>, ValidationError | RateLimited> =>
    Effect.gen(function*() {
      const decoded = run(input)
      const present = isRecord(input) && Object.hasOwn(input, field)
      const value = present ? input[field] : undefined
      const verdict = !present || value === null ? undefined
        : value instanceof Prepared ? value.verdict
        : yield* (yield* GeometryCheck).check(value)
      const problems: ReadonlyArray<FieldError> = verdict?._tag === "Invalid"
        ? verdict.problems.map((p) => ({ field: formatPath([field, ...p.path]), message: p.message }))
        : []
      if (Result.isSuccess(decoded) && problems.length === 0) {
        const geometry = verdict?._tag === "Valid"
          ? { geometry: verdict.geometry, area_hectares: verdict.area_hectares, bbox: verdict.bbox }
          : present ? null : undefined
        return { body: decoded.success, geometry }
      }
      const others = Result.isFailure(decoded) ? decoded.failure : []
      return yield* new ValidationError({
        message: "The request body is invalid",
        details: [...others.filter((p) => rank(p) < at), ...problems, ...others.filter((p) => rank(p) >= at)]
      })
    })
}
