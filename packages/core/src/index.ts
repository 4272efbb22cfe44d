/**
 * @canopy/core: Canopy's pure domain. Each module is exported as a namespace.
 */
export * as Errors from "./Errors.ts"
export * as Events from "./Events.ts"
export * as FieldError from "./FieldError.ts"
export * as Geometry from "./Geometry.ts"
export * as Ids from "./Ids.ts"
export * as Lifecycle from "./Lifecycle.ts"
export * as Permissions from "./Permissions.ts"
export * as Plans from "./Plans.ts"
export * as RateLimit from "./RateLimit.ts"
export * as RetrySchedule from "./RetrySchedule.ts"
export * as Schemas from "./Schemas.ts"
export * as Signature from "./Signature.ts"
export * as Slug from "./Slug.ts"
export * as Usage from "./Usage.ts"
