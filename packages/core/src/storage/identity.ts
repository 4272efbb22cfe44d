/**
 * Identity: accounts, their members, invitations and dashboard sessions.
 */
import { Schema } from "effect"
import { roles, type Role } from "../Permissions.ts"
import { plans } from "../Plans.ts"
import { type Duplicate, EpochMs, type Fx, type Patch, Timestamp } from "./common.ts"

export const AccountRow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  slug: Schema.String,
  plan: Schema.Literals(plans),
  /** What a write does when its boundary overlaps another project's (`Overlap.Policy`). */
  overlap_policy: Schema.Literals(["warn", "reject"]),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type AccountRow = typeof AccountRow.Type

export const MemberRow = Schema.Struct({
  id: Schema.String,
  account_id: Schema.String,
  /** Lowercase. */
  email: Schema.String,
  name: Schema.NullOr(Schema.String),
  role: Schema.Literals(roles),
  status: Schema.Literals(["active", "invited"]),
  password_hash: Schema.NullOr(Schema.String),
  joined_at: Schema.NullOr(Timestamp),
  last_active_at: Schema.NullOr(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type MemberRow = typeof MemberRow.Type

export const InvitationRow = Schema.Struct({
  id: Schema.String,
  account_id: Schema.String,
  user_id: Schema.String,
  token_hash: Schema.String,
  expires_at: Timestamp,
  accepted_at: Schema.NullOr(Timestamp),
  created_at: Timestamp
})
export type InvitationRow = typeof InvitationRow.Type

/** A signed-in member's web session (stored by the hash of its cookie value). */
export const SessionRow = Schema.Struct({
  token_hash: Schema.String,
  account_id: Schema.String,
  user_id: Schema.String,
  /** The session's CSRF token, echoed in every form. */
  csrf: Schema.String,
  expires_at: EpochMs,
  created_at: Timestamp
})
export type SessionRow = typeof SessionRow.Type

/** The identity area of the storage contract. */
export interface IdentityShape {
  readonly accounts: {
    readonly insert: (row: AccountRow) => Fx<void, Duplicate>
    readonly get: (id: string) => Fx<AccountRow | undefined>
    readonly update: (id: string, patch: Patch<AccountRow>) => Fx<AccountRow | undefined>
    /** How many accounts exist (first-start detection). */
    readonly count: Fx<number>
    /** Every account, oldest first, ties by id (operator tools). */
    readonly list: Fx<ReadonlyArray<AccountRow>>
  }

  readonly members: {
    readonly insert: (row: MemberRow) => Fx<void, Duplicate>
    readonly get: (accountId: string, id: string) => Fx<MemberRow | undefined>
    readonly getByEmail: (accountId: string, email: string) => Fx<MemberRow | undefined>
    /** Members with this email in any account, oldest first (signing in to the dashboard). */
    readonly findByEmail: (email: string) => Fx<ReadonlyArray<MemberRow>>
    /** Oldest first, ties by id. */
    readonly list: (accountId: string) => Fx<ReadonlyArray<MemberRow>>
    readonly update: (accountId: string, id: string, patch: Patch<MemberRow>) => Fx<MemberRow | undefined, Duplicate>
    readonly delete: (accountId: string, id: string) => Fx<boolean>
    /** Members holding `role` with status active. */
    readonly countActiveWithRole: (accountId: string, role: Role) => Fx<number>
    /** Every member, active or invited (from the running totals). */
    readonly count: (accountId: string) => Fx<number>
  }

  readonly invitations: {
    readonly insert: (row: InvitationRow) => Fx<void, Duplicate>
    /** By token hash, across accounts (the hash is the secret). */
    readonly getByTokenHash: (tokenHash: string) => Fx<InvitationRow | undefined>
    readonly markAccepted: (id: string, at: string) => Fx<boolean>
    /** Removes the invitations of a member (when the member is removed). */
    readonly deleteForMember: (accountId: string, userId: string) => Fx<void>
  }

  readonly sessions: {
    readonly insert: (row: SessionRow) => Fx<void, Duplicate>
    readonly get: (tokenHash: string) => Fx<SessionRow | undefined>
    readonly delete: (tokenHash: string) => Fx<void>
    /**
     * Deletes at most `limit` sessions that expired at or before `now` (epoch ms), oldest first;
     * answers how many went. The cost is bounded by `limit` (an index on the expiry), however
     * many sessions there are.
     */
    readonly purgeExpired: (now: number, limit: number) => Fx<number>
  }
}
