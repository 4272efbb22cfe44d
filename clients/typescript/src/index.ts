/**
 * `@canopy/client`: Canopy's official TypeScript/JavaScript client. Types generated from the
 * OpenAPI document; retries with idempotency keys; auto-pagination; webhook verification and
 * OAuth (PKCE) helpers with WebCrypto. Node ≥ 20 and browsers.
 */
export { apiRoot, Canopy, type CanopyOptions, type RequestOptions, VERSION } from "./client.ts"
export { APIConnectionError, APITimeoutError, AuthenticationError, BadRequestError, CanopyError, type CanopyErrorInit, ConflictError, InternalServerError,
  NotFoundError, OAuthError, PermissionDeniedError, RateLimitError, ValidationError, WebhookVerificationError } from "./errors.ts"
export type { RetryInfo } from "./http.ts"
export { type AuthorizationRequest, type AuthorizationUrlOptions, authorizationUrl, codeChallengeOf, exchangeCode, refreshToken,
  type TokenResponse } from "./oauth.ts"
export type { components, operations, paths } from "./schema.ts"
export type * from "./types.ts"
export { constantTimeEqual, type HeadersLike, type RawBody, signPayload, signStandard, verifyWebhook, type VerifyOptions } from "./webhooks.ts"
