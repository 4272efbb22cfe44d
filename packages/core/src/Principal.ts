/**
 * Who is calling: the account, the user (when there is one), the credential, and the permissions
 * it holds. Every domain operation takes a principal; `authorize` checks the operation's
 * permission from `Permissions.required`.
 */
import { Effect } from "effect"
import { Forbidden } from "./Errors.ts"
import * as Permissions from "./Permissions.ts"
import type { Verification } from "./Schemas.ts"

/** An authenticated caller. */
export interface Principal {
  /** `system`: an operator acting through the CLI or an embedding application, with no credential. */
  readonly kind: "api_key" | "service_token" | "oauth" | "member" | "system"
  readonly account_id: string
  /** The user acting, for OAuth tokens and members; the key's creator for keys, when known. */
  readonly user_id: string | null
  readonly credential_id: string | null
  readonly permissions: ReadonlyArray<Permissions.Permission>
  readonly expires_at: string | null
}

/** An operator acting on an account with full permissions (CLI, embedding application). */
export const system = (accountId: string): Principal => ({
  kind: "system",
  account_id: accountId,
  user_id: null,
  credential_id: null,
  permissions: ["admin"],
  expires_at: null
})

/** Fails with Forbidden unless the principal may perform the operation. */
export const authorize = (principal: Principal, operation: Permissions.Operation): Effect.Effect<void, Forbidden> =>
  Permissions.mayPerform(principal.permissions, operation)
    ? Effect.void
    : Effect.fail(
      new Forbidden({ message: `this credential lacks the ${Permissions.required[operation]} permission needed to ${operation.replace(".", " ")}` })
    )

/**
 * What `GET /v1/auth/verify` answers for a principal (spec): the credential's kind as the API names
 * it (a member or system principal is reported as `api_key`: neither reaches the API with a bearer
 * token of its own), its permissions, account and expiry.
 */
export const verification = (principal: Principal): Verification => ({
  valid: true,
  type: principal.kind === "service_token" || principal.kind === "oauth" ? principal.kind : "api_key",
  permissions: [...principal.permissions],
  account_id: principal.account_id,
  expires_at: principal.expires_at
})
