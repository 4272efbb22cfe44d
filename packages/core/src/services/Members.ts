/**
 * Members of an account: list, invite, accept an invitation, change a role, remove. The last
 * active owner can be neither demoted nor removed; granting or taking the owner role needs the
 * `admin` permission; invitations count against the plan's member limit.
 */
import { Context, Effect, Layer, Schema } from "effect"
import * as Time from "../Time.ts"
import { Conflict, Forbidden, NotFound } from "../Errors.ts"
import * as Events from "../Events.ts"
import * as Ids from "../Ids.ts"
import * as Passwords from "../Passwords.ts"
import * as Permissions from "../Permissions.ts"
import { authorize, type Principal } from "../Principal.ts"
import * as Schemas from "../Schemas.ts"
import { Settings } from "../Settings.ts"
import { type MemberRow, Storage, type StorageShape } from "../Storage.ts"
import * as Tokens from "../Tokens.ts"
import { conflictOnDuplicate, decode, type Fx } from "./common.ts"
import { emit, nowIso } from "./Outbox.ts"
import * as UsageGuard from "./UsageGuard.ts"

/** The API view of a member row. */
export const toResource = (m: MemberRow): Schemas.Member => ({
  id: m.id,
  email: m.email,
  name: m.name,
  role: m.role,
  permissions: [...Permissions.byRole[m.role]],
  status: m.status,
  joined_at: m.joined_at,
  last_active_at: m.last_active_at
})

/** What an invitation returns: the invited member, and the one-time token for the invitation link. */
export interface Invited {
  readonly member: Schemas.Member
  readonly invitation: { readonly id: string; readonly token: string; readonly expires_at: string }
}

/** Body of accepting an invitation. */
const AcceptInvitation = Schema.Struct({
  name: Schemas.Name,
  password: Schema.String.pipe(Schema.check(Schema.makeFilter((s: string) =>
    (s.length >= Passwords.MIN_LENGTH && s.length <= Passwords.MAX_LENGTH) ||
    `must be ${Passwords.MIN_LENGTH} to ${Passwords.MAX_LENGTH} characters`
  )))
})

/** The Members service. */
export class Members extends Context.Service<Members, {
  readonly list: (principal: Principal) => Fx<{ readonly data: ReadonlyArray<Schemas.Member>; readonly meta: { readonly total: number } }>
  readonly invite: (principal: Principal, input: unknown) => Fx<Invited>
  /** Accepts an invitation by its token: sets name and password, activates the member. */
  readonly accept: (token: string, input: unknown) => Fx<Schemas.Member>
  readonly update: (principal: Principal, id: string, input: unknown) => Fx<Schemas.Member>
  readonly remove: (principal: Principal, id: string) => Fx<void>
  /** A one-time link token with which an existing member sets a password (the first owner). */
  readonly passwordLink: (accountId: string, userId: string) => Fx<{ readonly token: string; readonly expires_at: string }>
  /** A principal acting as a member, with the member's role permissions. */
  readonly principalFor: (accountId: string, userId: string) => Fx<Principal>
}>()("canopy/Members") {
  static readonly layer = Layer.effect(this, Effect.map(Storage, (storage) => make(storage)))
}

const decodeInvite = decode(Schemas.InviteMember)
const decodeUpdate = decode(Schemas.UpdateMember)
const decodeAccept = decode(AcceptInvitation)

const make = (storage: StorageShape) => {
  const provide = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provideService(effect, Storage, storage)

  const load = (accountId: string, id: string) =>
    Effect.flatMap(storage.members.get(accountId, id), (m) => m ? Effect.succeed(m) : Effect.fail(new NotFound({ resource: "member", id })))

  /** Refuses to leave the account without an active owner. */
  const keepAnOwner = (m: MemberRow) =>
    Effect.gen(function*() {
      if (m.role !== "owner" || m.status !== "active") return
      if ((yield* storage.members.countActiveWithRole(m.account_id, "owner")) <= 1) {
        return yield* new Conflict({ message: "the account's last owner cannot be removed or demoted" })
      }
    })

  const ownerGuard = (principal: Principal) =>
    Permissions.allows(principal.permissions, "admin")
      ? Effect.void
      : Effect.fail(new Forbidden({ message: "only an owner (admin permission) may grant or take the owner role" }))

  return Members.of({
    list: Effect.fn("Members.list")(function*(principal) {
      yield* authorize(principal, "members.list")
      const rows = yield* storage.members.list(principal.account_id)
      return { data: rows.map(toResource), meta: { total: rows.length } }
    }),

    invite: Effect.fn("Members.invite")(function*(principal, input) {
      yield* authorize(principal, "members.invite")
      const body = yield* decodeInvite(input)
      const settings = yield* Settings
      return yield* provide(UsageGuard.guarded(principal.account_id, Effect.gen(function*() {
        const now = yield* nowIso
        const count = yield* storage.members.count(principal.account_id)
        yield* UsageGuard.check(principal.account_id, "members", count, count + 1)
        const member: MemberRow = {
          id: Ids.make("user"),
          account_id: principal.account_id,
          email: body.email.toLowerCase(),
          name: null,
          role: body.role,
          status: "invited",
          password_hash: null,
          joined_at: null,
          last_active_at: null,
          created_at: now,
          updated_at: now
        }
        yield* storage.members.insert(member).pipe(conflictOnDuplicate(() => "this email is already a member of the account, or invited"))
        const token = Tokens.generate("invitation")
        const expires = new Date((yield* Time.nowMillis) + settings.invitationTtlMs).toISOString()
        const invitation = { id: Ids.make("invitation"), token, expires_at: expires }
        yield* storage.invitations.insert({
          id: invitation.id,
          account_id: principal.account_id,
          user_id: member.id,
          token_hash: Tokens.hash(token),
          expires_at: expires,
          accepted_at: null,
          created_at: now
        }).pipe(conflictOnDuplicate(() => "invitation token collision; try again"))
        yield* emit(principal.account_id, "member.invited", toResource(member))
        yield* UsageGuard.alert(principal.account_id, "members", count + 1)
        return { member: toResource(member), invitation }
      })))
    }),

    accept: Effect.fn("Members.accept")(function*(token, input) {
      const body = yield* decodeAccept(input)
      const passwordHash = yield* Passwords.hash(body.password)
      return yield* provide(storage.transaction(Effect.gen(function*() {
        const invitation = Tokens.kindOf(token) === "invitation" ? yield* storage.invitations.getByTokenHash(Tokens.hash(token)) : undefined
        if (!invitation) return yield* new NotFound({ resource: "invitation", id: "(token)" })
        const now = yield* nowIso
        if (invitation.accepted_at !== null) return yield* new Conflict({ message: "this invitation has already been used" })
        if (invitation.expires_at <= now) return yield* new Conflict({ message: "this invitation has expired; ask for a new one" })
        yield* storage.lockAccount(invitation.account_id)
        if (!(yield* storage.invitations.markAccepted(invitation.id, now))) {
          return yield* new Conflict({ message: "this invitation has already been used" })
        }
        const before = yield* storage.members.get(invitation.account_id, invitation.user_id)
        if (!before) return yield* new NotFound({ resource: "member", id: invitation.user_id })
        // An active member's link (the first owner's, from `canopy init`) only sets the password.
        const joining = before.status === "invited"
        const saved = yield* storage.members.update(invitation.account_id, invitation.user_id, {
          name: body.name,
          password_hash: passwordHash,
          updated_at: now,
          ...(joining ? { status: "active" as const, joined_at: now } : {})
        }).pipe(conflictOnDuplicate(() => "this member already exists"))
        if (!saved) return yield* new NotFound({ resource: "member", id: invitation.user_id })
        if (joining) yield* emit(invitation.account_id, "member.joined", Events.memberJoined(saved))
        return toResource(saved)
      })))
    }),

    update: Effect.fn("Members.update")(function*(principal, id, input) {
      yield* authorize(principal, "members.update")
      const body = yield* decodeUpdate(input)
      return yield* provide(storage.transaction(Effect.gen(function*() {
        yield* storage.lockAccount(principal.account_id)
        const m = yield* load(principal.account_id, id)
        if (m.role === body.role) return toResource(m)
        if (m.role === "owner" || body.role === "owner") yield* ownerGuard(principal)
        if (body.role !== "owner") yield* keepAnOwner(m)
        const saved = yield* storage.members.update(principal.account_id, id, { role: body.role, updated_at: yield* nowIso })
          .pipe(conflictOnDuplicate(() => "conflicting member"))
        if (!saved) return yield* new NotFound({ resource: "member", id })
        yield* emit(principal.account_id, "member.updated", { ...toResource(saved), previous_role: m.role })
        return toResource(saved)
      })))
    }),

    remove: Effect.fn("Members.remove")(function*(principal, id) {
      yield* authorize(principal, "members.remove")
      yield* provide(storage.transaction(Effect.gen(function*() {
        yield* storage.lockAccount(principal.account_id)
        const m = yield* load(principal.account_id, id)
        if (m.role === "owner") yield* ownerGuard(principal)
        yield* keepAnOwner(m)
        yield* storage.invitations.deleteForMember(principal.account_id, id)
        yield* storage.members.delete(principal.account_id, id)
        yield* emit(principal.account_id, "member.removed", toResource(m))
      })))
    }),

    passwordLink: Effect.fn("Members.passwordLink")(function*(accountId, userId) {
      yield* load(accountId, userId)
      const settings = yield* Settings
      const now = yield* Time.nowMillis
      const token = Tokens.generate("invitation")
      const expires = new Date(now + settings.invitationTtlMs).toISOString()
      yield* storage.invitations.insert({
        id: Ids.make("invitation"),
        account_id: accountId,
        user_id: userId,
        token_hash: Tokens.hash(token),
        expires_at: expires,
        accepted_at: null,
        created_at: new Date(now).toISOString()
      }).pipe(conflictOnDuplicate(() => "token collision; try again"))
      return { token, expires_at: expires }
    }),

    principalFor: Effect.fn("Members.principalFor")(function*(accountId, userId) {
      const m = yield* load(accountId, userId)
      if (m.status !== "active") return yield* new Forbidden({ message: "this member has not accepted the invitation yet" })
      return {
        kind: "member" as const,
        account_id: accountId,
        user_id: m.id,
        credential_id: null,
        permissions: Permissions.byRole[m.role],
        expires_at: null
      }
    })
  })
}
