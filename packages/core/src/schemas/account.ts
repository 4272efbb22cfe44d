/**
 * Accounts and their members: roles and plans, the request bodies, and the resources as returned
 * (the fields kept as the store keeps them are the rows' own schemas); `/auth/verify`'s answer.
 */
import { Schema, Struct } from "effect"
import * as Permissions from "../Permissions.ts"
import * as Plans from "../Plans.ts"
import { AccountRow, MemberRow } from "../storage/identity.ts"
import { Count, Email, literal, Measure, Name, NullableTimestamp, Timestamp } from "./common.ts"

/** Member roles. */
export const Role = literal(Permissions.roles)
/** Roles an invitation may grant. */
export const InvitableRole = literal(Permissions.invitableRoles)
/** Plans. */
export const Plan = literal(Plans.plans)

/** POST /account/members/invite */
export const InviteMember = Schema.Struct({ email: Email, role: InvitableRole })
export type InviteMember = typeof InviteMember.Type

/** PUT /account/members/{id} */
export const UpdateMember = Schema.Struct({ role: Role })
export type UpdateMember = typeof UpdateMember.Type

/** What a write does when its boundary overlaps another project's: report it, or refuse it (409). */
export const OverlapPolicy = literal(["warn", "reject"]).annotate({
  description:
    "warn: writes succeed and report overlaps (and emit project.overlap_detected); reject: a write whose boundary overlaps another active or draft project is refused with 409 CONFLICT"
})

/** PUT /account: any subset. */
export const UpdateAccount = Schema.Struct({ name: Schema.optionalKey(Name), overlap_policy: Schema.optionalKey(OverlapPolicy) })
export type UpdateAccount = typeof UpdateAccount.Type

/** Member (spec, plus `status`: active or invited). */
export const Member = Schema.Struct({
  ...Struct.pick(MemberRow.fields, ["id", "email", "name"]),
  role: Role,
  permissions: Schema.Array(Schema.String),
  status: literal(["active", "invited"]),
  joined_at: NullableTimestamp,
  last_active_at: NullableTimestamp
}).annotate({ identifier: "Member" })
export type Member = typeof Member.Type

/**
 * The answer to an invitation: the member (status `invited`) and the one-time invitation link's
 * token and expiry, for delivering the invitation yourself.
 */
export const InvitedMember = Schema.Struct({
  ...Member.fields,
  invitation: Schema.Struct({
    token: Schema.String.annotate({ description: "One-time token of the invitation link (/invitations/accept?token=…); shown only here" }),
    expires_at: Timestamp
  })
}).annotate({ identifier: "InvitedMember" })
export type InvitedMember = typeof InvitedMember.Type

/** Account (spec). */
export const Account = Schema.Struct({
  ...Struct.pick(AccountRow.fields, ["id", "name", "slug"]),
  type: Schema.Literal("team"),
  plan: Plan,
  overlap_policy: OverlapPolicy,
  usage: Schema.Struct({ hectares: Measure, projects: Count, members: Count }),
  created_at: Timestamp
}).annotate({ identifier: "Account" })
export type Account = typeof Account.Type

/** GET /account/usage (spec). */
export const UsageStatistics = Schema.Struct({
  period: Schema.Struct({ start: Timestamp, end: Timestamp }),
  hectares: Schema.Struct({ current: Measure, limit: Measure, percentage: Measure }),
  projects: Schema.Struct({ active: Count, archived: Count, total: Count }),
  members: Schema.Struct({ current: Count, limit: Count }),
  api_requests: Schema.Struct({ current: Count, limit: Count })
}).annotate({ identifier: "UsageStatistics" })
export type UsageStatistics = typeof UsageStatistics.Type

/** GET /auth/verify (spec). */
export const Verification = Schema.Struct({
  valid: Schema.Boolean,
  type: literal(["api_key", "service_token", "oauth"]),
  permissions: Schema.Array(Schema.String),
  account_id: Schema.String,
  expires_at: NullableTimestamp
}).annotate({ identifier: "Verification" })
export type Verification = typeof Verification.Type
