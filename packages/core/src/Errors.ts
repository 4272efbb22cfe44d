/**
 * Domain errors, and the one table that says, for each, its spec error code, its HTTP status and
 * the class the Promise API throws. Adding an error: its class here, its row in `table`; the
 * server, the facade and the pages read everything else from the table.
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

/** The spec's error codes. */
export type Code = "VALIDATION_ERROR" | "NOT_FOUND" | "UNAUTHORIZED" | "FORBIDDEN" | "RATE_LIMITED" | "CONFLICT" | "INTERNAL_ERROR"

/** An error from Canopy's Promise API, with the spec's error code and, for validation errors, every problem. */
export class CanopyError extends Error {
  override readonly name: string = "CanopyError"
  readonly code: Code
  readonly details: ReadonlyArray<FieldError>
  constructor(code: Code, message: string, details: ReadonlyArray<FieldError> = []) {
    super(message)
    this.code = code
    this.details = details
  }
}
/** The resource does not exist (or belongs to another account). */
export class NotFoundError extends CanopyError { override readonly name = "NotFoundError" }
/** Duplicate slug, illegal state transition, last owner. */
export class ConflictError extends CanopyError { override readonly name = "ConflictError" }
/** Not permitted, or over a plan limit. */
export class ForbiddenError extends CanopyError { override readonly name = "ForbiddenError" }
/** The input is invalid; see `details`. */
export class ValidationFailedError extends CanopyError { override readonly name = "ValidationFailedError" }
/** Missing, invalid or revoked credentials. */
export class UnauthorizedError extends CanopyError { override readonly name = "UnauthorizedError" }
/** Too many requests. */
export class RateLimitedError extends CanopyError { override readonly name = "RateLimitedError" }
/** Something unexpected; the message holds no internals. */
export class InternalError extends CanopyError { override readonly name = "InternalError" }

/** Each domain error: its class, the spec's code, the HTTP status, and the class the Promise API throws. */
export const table = {
  NotFound: { error: NotFound, code: "NOT_FOUND", status: 404, thrown: NotFoundError },
  Conflict: { error: Conflict, code: "CONFLICT", status: 409, thrown: ConflictError },
  Forbidden: { error: Forbidden, code: "FORBIDDEN", status: 403, thrown: ForbiddenError },
  LimitExceeded: { error: LimitExceeded, code: "FORBIDDEN", status: 403, thrown: ForbiddenError },
  ValidationError: { error: ValidationError, code: "VALIDATION_ERROR", status: 422, thrown: ValidationFailedError },
  Unauthorized: { error: Unauthorized, code: "UNAUTHORIZED", status: 401, thrown: UnauthorizedError },
  RateLimited: { error: RateLimited, code: "RATE_LIMITED", status: 429, thrown: RateLimitedError }
} as const satisfies Record<string, { readonly error: { readonly prototype: { readonly _tag: string } }; readonly code: Code; readonly status: number; readonly thrown: typeof CanopyError }>

type Table = typeof table

/** Any domain error. */
export type DomainError = { [K in keyof Table]: InstanceType<Table[K]["error"]> }[keyof Table]

/** The spec's error code of a domain error. */
export const codeOf = (error: DomainError): Code => table[error._tag].code

/** The HTTP status of a domain error. */
export const statusOf = (error: DomainError): number => table[error._tag].status

/** The thrown (Promise API) form of a domain error. */
export const toCanopyError = (error: DomainError): CanopyError =>
  new table[error._tag].thrown(codeOf(error), error.message, error._tag === "ValidationError" ? error.details : [])

/** Whether a value is one of the domain errors. */
export const isDomainError = (u: unknown): u is DomainError =>
  typeof u === "object" && u !== null && Object.hasOwn(table, (u as { _tag?: unknown })._tag as string)
