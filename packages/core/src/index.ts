/**
 * @canopy/core: Canopy's pure domain, its storage contract and services. Each module is exported
 * as a namespace; `createCanopy` is the Promise facade for applications that do not use Effect.
 */
export * as Canopy from "./Canopy.ts"
export {
  type Canopy as CanopyClient, CanopyError, ConflictError, createCanopy, ForbiddenError, InternalError, memoryStorage,
  NotFoundError, RateLimitedError, type StorageProvider, UnauthorizedError, ValidationFailedError
} from "./Canopy.ts"
export * as Errors from "./Errors.ts"
export * as Events from "./Events.ts"
export * as FieldError from "./FieldError.ts"
export * as Geometry from "./Geometry.ts"
export * as Ids from "./Ids.ts"
export * as IpAllowlist from "./IpAllowlist.ts"
export * as Lifecycle from "./Lifecycle.ts"
export * as MemoryStorage from "./MemoryStorage.ts"
export * as Passwords from "./Passwords.ts"
export * as Permissions from "./Permissions.ts"
export * as Plans from "./Plans.ts"
export * as Principal from "./Principal.ts"
export * as RateLimit from "./RateLimit.ts"
export * as RetrySchedule from "./RetrySchedule.ts"
export * as Schemas from "./Schemas.ts"
export * as Settings from "./Settings.ts"
export * as Signature from "./Signature.ts"
export * as Slug from "./Slug.ts"
export * as SqlStorage from "./sql/SqlStorage.ts"
export * as Storage from "./Storage.ts"
export * as Time from "./Time.ts"
export * as Tokens from "./Tokens.ts"
export * as Usage from "./Usage.ts"
export * as WebhookTarget from "./WebhookTarget.ts"
export { Accounts } from "./services/Accounts.ts"
export { Assets } from "./services/Assets.ts"
export { Credentials } from "./services/Credentials.ts"
export { Members } from "./services/Members.ts"
export { Projects } from "./services/Projects.ts"
export { Webhooks } from "./services/Webhooks.ts"
