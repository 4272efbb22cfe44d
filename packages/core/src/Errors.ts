/**
 * Every error Canopy answers, and the one table that says, for each, its spec error code, its
 * HTTP status, the headers its answer carries, what it means (for the API reference) and the class
 * the Promise API throws. The domain errors come first; then the refusals of the HTTP layer (an
 * unknown route, a method not allowed, a body too large, a missing credential, an origin not
 * allowed, a used idempotency key, an unavailable database, an unexpected failure). Adding an
 * error: its class here, its row in `table`, and the routes that may answer it; the server, its
 * OpenAPI document, the facade and the pages read everything else from the table.
 */
import { Schema } from "effect"
import type { FieldError } from "./FieldError.ts"

const FieldErrorSchema = Schema.Struct({ field: Schema.String, message: Schema.String })

/** The resource does not exist, or belongs to another account (never revealed). */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  resource: Schema.String,
  id: Schema.String
}) {
  override get message() {
    return `${this.resource} ${this.id} not found`
  }
}

/** A uniqueness or state conflict: duplicate slug, illegal transition, last owner. */
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", { message: Schema.String }) {}

/** The principal may not do this. */
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", { message: Schema.String }) {}

/** The input is well formed but invalid; every problem is in `details`. */
export class ValidationError extends Schema.TaggedError<ValidationError>()("ValidationError", {
  message: Schema.String,
  details: Schema.Array(FieldErrorSchema)
}) {}

/** A plan limit (hectares, members, webhooks) would be exceeded. */
export class LimitExceeded extends Schema.TaggedError<LimitExceeded>()("LimitExceeded", {
  metric: Schema.String,
  limit: Schema.Number,
  current: Schema.Number,
  requested: Schema.Number
}) {
  override get message() {
    return `this change would take ${this.metric} to ${this.requested}, over the plan's limit of ${this.limit}`
  }
}

/** Missing, malformed, unknown, revoked or expired credentials. */
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", { message: Schema.String }) {}

/** Too many requests; retry after `retryAfter` seconds. */
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  message: Schema.String,
  retryAfter: Schema.Number
}) {}

/** The query, the body or a header could not be read (malformed JSON, a wrong content type, a bad query parameter). */
export class BadRequest extends Schema.TaggedError<BadRequest>()("BadRequest", {
  message: Schema.String,
  details: Schema.Array(FieldErrorSchema)
}) {}

/** No route has this path. */
export class RouteNotFound extends Schema.TaggedError<RouteNotFound>()("RouteNotFound", { message: Schema.String }) {}

/** A route has this path, not with this method; `allowed` are the methods it has. */
export class MethodNotAllowed extends Schema.TaggedError<MethodNotAllowed>()("MethodNotAllowed", {
  message: Schema.String,
  allowed: Schema.Array(Schema.String)
}) {}

/** The request line and headers are over the server's header size (Node's parser refused them). */
export class HeadersTooLarge extends Schema.TaggedError<HeadersTooLarge>()("HeadersTooLarge", { message: Schema.String }) {}

/** The request was not received in time (Node's request timeout). */
export class RequestTimeout extends Schema.TaggedError<RequestTimeout>()("RequestTimeout", { message: Schema.String }) {}

/** The request body is over the size limit (it was not read to the end). */
export class BodyTooLarge extends Schema.TaggedError<BodyTooLarge>()("BodyTooLarge", {
  message: Schema.String,
  details: Schema.Array(FieldErrorSchema)
}) {}

/** No credential was presented, or not as `Bearer <token>` (`malformed`). */
export class CredentialsMissing extends Schema.TaggedError<CredentialsMissing>()("CredentialsMissing", {
  message: Schema.String,
  malformed: Schema.Boolean
}) {}

/** A cross-origin preflight from an origin that is not allowed. */
export class OriginNotAllowed extends Schema.TaggedError<OriginNotAllowed>()("OriginNotAllowed", { message: Schema.String }) {}

/** An `Idempotency-Key` already used with another request (method, path or body). */
export class IdempotencyKeyReused extends Schema.TaggedError<IdempotencyKeyReused>()("IdempotencyKeyReused", {
  message: Schema.String,
  details: Schema.Array(FieldErrorSchema)
}) {}

/** An `Idempotency-Key` whose first request is still at work. */
export class IdempotencyKeyInProgress extends Schema.TaggedError<IdempotencyKeyInProgress>()("IdempotencyKeyInProgress", {
  message: Schema.String,
  details: Schema.Array(FieldErrorSchema)
}) {}

/** The database is down, frozen or refuses writes. */
export class Unavailable extends Schema.TaggedError<Unavailable>()("Unavailable", { message: Schema.String }) {}

/** Something unexpected; the message holds no internals. */
export class Unexpected extends Schema.TaggedError<Unexpected>()("Unexpected", { message: Schema.String }) {}

/** The spec's error codes. */
export type Code = "VALIDATION_ERROR" | "NOT_FOUND" | "UNAUTHORIZED" | "FORBIDDEN" | "RATE_LIMITED" | "CONFLICT" | "INTERNAL_ERROR"

/** An error from Canopy's Promise API, with the spec's error code and, for validation errors, every problem. */
export class CanopyError extends Error {
  override readonly name: string = "CanopyError"
  readonly code: Code
  readonly details: ReadonlyArray<FieldError>
  /** `options.cause`: what went wrong underneath (an `InternalError`'s database failure, a defect), for the host's logs. */
  constructor(code: Code, message: string, details: ReadonlyArray<FieldError> = [], options?: ErrorOptions) {
    super(message, options)
    this.code = code
    this.details = details
  }
}
/** The resource does not exist (or belongs to another account). */
export class NotFoundError extends CanopyError {
  override readonly name = "NotFoundError"
}
/** Duplicate slug, illegal state transition, last owner. */
export class ConflictError extends CanopyError {
  override readonly name = "ConflictError"
}
/** Not permitted, or over a plan limit. */
export class ForbiddenError extends CanopyError {
  override readonly name = "ForbiddenError"
}
/** The input is invalid; see `details`. */
export class ValidationFailedError extends CanopyError {
  override readonly name = "ValidationFailedError"
}
/** Missing, invalid or revoked credentials. */
export class UnauthorizedError extends CanopyError {
  override readonly name = "UnauthorizedError"
}
/** Too many requests. */
export class RateLimitedError extends CanopyError {
  override readonly name = "RateLimitedError"
}
/** Something unexpected; the message holds no internals. */
export class InternalError extends CanopyError {
  override readonly name = "InternalError"
}

/** Seconds a client is asked to wait before retrying when the database is unavailable. */
export const UNAVAILABLE_RETRY_AFTER_S = 5

/** A wait in seconds as `Retry-After` writes it: whole seconds, at least 1. */
export const retryAfter = (seconds: number): string => String(Math.max(1, Math.ceil(seconds)))

/** A header an error's answer carries: its value for the error, and what it says (for the API reference). */
export interface ErrorHeader<E> {
  readonly value: (error: E) => string
  readonly description: string
  readonly schema: { readonly type: "string" | "integer"; readonly minimum?: number }
}

/** One row of the table: everything said about one error. */
export interface Row<E> {
  readonly error: abstract new(...args: ReadonlyArray<never>) => E
  readonly code: Code
  readonly status: number
  readonly thrown: typeof CanopyError
  /** What the answer means, for the API reference. */
  readonly description: string
  /** A message the answer may carry, for the API reference. */
  readonly example: string
  /** Headers the answer carries besides the common ones, by their name as the reference writes it. */
  readonly headers?: Readonly<Record<string, ErrorHeader<E>>>
}

/** A row, its headers typed by its error. */
const row = <E>(r: Row<E>): Row<E> => r

const RETRY_AFTER = { description: "Seconds to wait before retrying", schema: { type: "integer", minimum: 1 } } as const
const CHALLENGE = { description: "Bearer challenge", schema: { type: "string" } } as const

/** Every error: its class, the spec's code, the HTTP status, the headers, the reference's words, the class the Promise API throws. */
export const table = {
  NotFound: row({ error: NotFound, code: "NOT_FOUND", status: 404, thrown: NotFoundError, description: "No such resource in this account",
    example: "Project not found" }),
  Conflict: row({ error: Conflict, code: "CONFLICT", status: 409, thrown: ConflictError,
    description: "Duplicate slug, or a state transition that is not allowed", example: "A project with this slug already exists" }),
  Forbidden: row({ error: Forbidden, code: "FORBIDDEN", status: 403, thrown: ForbiddenError, description: "The credential lacks the permission",
    example: "this credential lacks the projects:write permission needed to projects create" }),
  LimitExceeded: row({ error: LimitExceeded, code: "FORBIDDEN", status: 403, thrown: ForbiddenError, description: "A plan limit would be exceeded",
    example: "this change would take hectares to 1200, over the plan's limit of 1000" }),
  ValidationError: row({ error: ValidationError, code: "VALIDATION_ERROR", status: 422, thrown: ValidationFailedError,
    description: "The body is well formed but invalid; `details` names every problem's field", example: "The request body is invalid" }),
  Unauthorized: row({ error: Unauthorized, code: "UNAUTHORIZED", status: 401, thrown: UnauthorizedError,
    description: "An invalid, expired or revoked credential", example: "Invalid or expired token",
    headers: { "WWW-Authenticate": { ...CHALLENGE, value: () => "Bearer error=\"invalid_token\"" } } }),
  RateLimited: row({ error: RateLimited, code: "RATE_LIMITED", status: 429, thrown: RateLimitedError, description: "Too many requests for the plan",
    example: "Rate limit exceeded: retry after 12 s", headers: { "Retry-After": { ...RETRY_AFTER, value: (e) => retryAfter(e.retryAfter) } } }),
  BadRequest: row({ error: BadRequest, code: "VALIDATION_ERROR", status: 400, thrown: ValidationFailedError,
    description: "The query or body could not be read (malformed JSON, wrong content type, bad query parameter or header)",
    example: "Invalid query parameters" }),
  RouteNotFound: row({ error: RouteNotFound, code: "NOT_FOUND", status: 404, thrown: NotFoundError, description: "No route has this path",
    example: "No route for GET /v1/nowhere" }),
  MethodNotAllowed: row({ error: MethodNotAllowed, code: "NOT_FOUND", status: 405, thrown: NotFoundError, description: "The path has no route for this method",
    example: "PATCH is not allowed on /v1/projects; allowed: GET, POST",
    headers: { Allow: { description: "The path's methods", schema: { type: "string" }, value: (e) => [...new Set(e.allowed)].join(", ") } } }),
  BodyTooLarge: row({ error: BodyTooLarge, code: "VALIDATION_ERROR", status: 413, thrown: ValidationFailedError,
    description: "The request body is over the size limit", example: "The request body exceeds 5242880 bytes" }),
  HeadersTooLarge: row({ error: HeadersTooLarge, code: "VALIDATION_ERROR", status: 431, thrown: ValidationFailedError,
    description: "The request line and headers are too large", example: "The request line and headers are too large" }),
  RequestTimeout: row({ error: RequestTimeout, code: "VALIDATION_ERROR", status: 408, thrown: ValidationFailedError,
    description: "The request was not received in time", example: "The request was not received in time" }),
  CredentialsMissing: row({ error: CredentialsMissing, code: "UNAUTHORIZED", status: 401, thrown: UnauthorizedError,
    description: "No credential, or not sent as `Authorization: Bearer <token>`", example: "Authentication required: send Authorization: Bearer <token>",
    headers: { "WWW-Authenticate": { ...CHALLENGE, value: (e) => e.malformed ? "Bearer error=\"invalid_request\"" : "Bearer" } } }),
  OriginNotAllowed: row({ error: OriginNotAllowed, code: "FORBIDDEN", status: 403, thrown: ForbiddenError,
    description: "A cross-origin request from an origin that is not allowed",
    example: "Cross-origin requests from https://elsewhere.example are not allowed" }),
  IdempotencyKeyReused: row({ error: IdempotencyKeyReused, code: "VALIDATION_ERROR", status: 422, thrown: ValidationFailedError,
    description: "The Idempotency-Key was used with another request",
    example: "This Idempotency-Key was used with another request (method, path or body); use a new key for a new request" }),
  IdempotencyKeyInProgress: row({ error: IdempotencyKeyInProgress, code: "CONFLICT", status: 409, thrown: ConflictError,
    description: "A request with this Idempotency-Key is still at work (`Retry-After: 1`)",
    example: "A request with this Idempotency-Key is in progress; retry after it completes",
    headers: { "Retry-After": { ...RETRY_AFTER, value: () => "1" } } }),
  Unavailable: row({ error: Unavailable, code: "INTERNAL_ERROR", status: 503, thrown: InternalError,
    description: "The database is unavailable or refuses writes; retry later", example: "The database is unavailable; retry later",
    headers: { "Retry-After": { ...RETRY_AFTER, value: () => String(UNAVAILABLE_RETRY_AFTER_S) } } }),
  Unexpected: row({ error: Unexpected, code: "INTERNAL_ERROR", status: 500, thrown: InternalError, description: "An unexpected error",
    example: "An unexpected error occurred; quote the request id when reporting it" })
} as const

type Table = typeof table

/** Each error's tag. */
export type Tag = keyof Table

/** The error of a row (or of several: their union). */
export type ErrorOf<T extends Tag> = T extends Tag ? Table[T]["error"] extends abstract new(...args: ReadonlyArray<never>) => infer E ? E : never : never

/** Any error of the table. */
export type AnyError = { [K in Tag]: ErrorOf<K> }[Tag]

const domainTags = ["NotFound", "Conflict", "Forbidden", "LimitExceeded", "ValidationError", "Unauthorized", "RateLimited"] as const

/** Any domain error (what the core's services fail with, besides storage failures). */
export type DomainError = { [K in typeof domainTags[number]]: ErrorOf<K> }[typeof domainTags[number]]

/** The spec's error code of an error. */
export const codeOf = (error: AnyError): Code => table[error._tag].code

/** The HTTP status of an error. */
export const statusOf = (error: AnyError): number => table[error._tag].status

/** The `details` of an error's answer: every problem, for the errors that name them. */
export const detailsOf = (error: AnyError): ReadonlyArray<FieldError> => ("details" in error ? error.details : [])

/** The headers of an error's answer (besides the common ones), by lowercase name. */
export const headersOf = (error: AnyError): Record<string, string> => {
  const out: Record<string, string> = {}
  const headers = table[error._tag].headers as Readonly<Record<string, ErrorHeader<AnyError>>> | undefined
  for (const [name, h] of Object.entries(headers ?? {})) out[name.toLowerCase()] = h.value(error)
  return out
}

/** The thrown (Promise API) form of an error. */
export const toCanopyError = (error: AnyError): CanopyError => new table[error._tag].thrown(codeOf(error), error.message, detailsOf(error))

/** Whether a value is one of the domain errors. */
export const isDomainError = (u: unknown): u is DomainError =>
  typeof u === "object" && u !== null && (domainTags as ReadonlyArray<unknown>).includes((u as { _tag?: unknown })._tag)

/** Whether a value is an error of the table (a domain error or a refusal of the HTTP layer). */
export const isError = (u: unknown): u is AnyError =>
  typeof u === "object" && u !== null && Object.hasOwn(table, (u as { _tag?: unknown })._tag as string) &&
  (u as object) instanceof (table[(u as AnyError)._tag].error as abstract new(...args: ReadonlyArray<never>) => unknown)
