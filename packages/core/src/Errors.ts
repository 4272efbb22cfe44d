/**
 * Domain errors. Tagged, carrying what a caller needs to act, and no HTTP status: the server maps
 * them (NotFound → 404, Conflict → 409, Forbidden and LimitExceeded → 403, Validation → 422,
 * Unauthorized → 401, RateLimited → 429). `codeOf` gives the spec's error code for each.
 */
import { Schema } from "effect"

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

/** Any domain error. */
export type DomainError = NotFound | Conflict | Forbidden | ValidationError | LimitExceeded | Unauthorized | RateLimited

/** The spec's error codes. */
export type Code = "VALIDATION_ERROR" | "NOT_FOUND" | "UNAUTHORIZED" | "FORBIDDEN" | "RATE_LIMITED" | "CONFLICT" | "INTERNAL_ERROR"

/** The spec's error code of a domain error. */
export const codeOf = (error: DomainError): Code => {
  switch (error._tag) {
    case "NotFound": return "NOT_FOUND"
    case "Conflict": return "CONFLICT"
    case "Forbidden": return "FORBIDDEN"
    case "LimitExceeded": return "FORBIDDEN"
    case "ValidationError": return "VALIDATION_ERROR"
    case "Unauthorized": return "UNAUTHORIZED"
    case "RateLimited": return "RATE_LIMITED"
  }
}

const tags = new Set(["NotFound", "Conflict", "Forbidden", "ValidationError", "LimitExceeded", "Unauthorized", "RateLimited"])
/** Whether a value is one of the domain errors. */
export const isDomainError = (u: unknown): u is DomainError =>
  typeof u === "object" && u !== null && tags.has((u as { _tag?: unknown })._tag as string)
