/** Identity over SQL: accounts, members, invitations, sessions. */
import { Effect } from "effect"
import type * as S from "../Storage.ts"
import { fromDb } from "./codec.ts"
import { type Context, forgetting, memo, memoKey, onUnique, orStorage } from "./common.ts"

export const identity = (c: Context): S.IdentityShape => {
  const { sql, one, all, count, affected, insert, patchRow, totals, skipLocked } = c
  return {
    accounts: {
      insert: (row) => forgetting(onUnique("account", "id")(Effect.asVoid(insert("accounts", row)))),
      get: (id) => memo(memoKey.account(id), one("accounts", sql`select * from accounts where id = ${id}`)),
      update: (id, patch) => forgetting(one("accounts", patchRow("accounts", patch, sql.and([sql`id = ${id}`])))),
      count: count(sql`select count(*) as n from accounts`),
      list: all("accounts", sql`select * from accounts order by created_at asc, id asc`)
    },

    members: {
      insert: (row) => forgetting(onUnique("member", "email")(Effect.asVoid(insert("members", row))), memoKey.totalsOf(row.account_id)),
      get: (accountId, id) => one("members", sql`select * from members where account_id = ${accountId} and id = ${id}`),
      getByEmail: (accountId, email) => one("members", sql`select * from members where account_id = ${accountId} and email = ${email}`),
      findByEmail: (email) => all("members", sql`select * from members where email = ${email} order by created_at asc, id asc`),
      list: (accountId) => all("members", sql`select * from members where account_id = ${accountId} order by created_at asc, id asc`),
      update: (accountId, id, patch) =>
        onUnique("member", "email")(
          Effect.map(patchRow("members", patch, sql.and([sql`account_id = ${accountId}`, sql`id = ${id}`])), (r) => fromDb<S.MemberRow>("members", r[0]))
        ),
      delete: (accountId, id) =>
        forgetting(affected(sql`delete from members where account_id = ${accountId} and id = ${id} returning id`), memoKey.totalsOf(accountId)),
      countActiveWithRole: (accountId, role) =>
        count(sql`select count(*) as n from members where account_id = ${accountId} and role = ${role} and status = 'active'`),
      count: (accountId) => Effect.map(totals(accountId), (t) => t.members)
    },

    invitations: {
      insert: (row) => onUnique("invitation", "token_hash")(Effect.asVoid(insert("invitations", row))),
      getByTokenHash: (hash) => one("invitations", sql`select * from invitations where token_hash = ${hash}`),
      markAccepted: (id, at) => affected(sql`update invitations set accepted_at = ${at} where id = ${id} and accepted_at is null returning id`),
      deleteForMember: (accountId, userId) => orStorage(Effect.asVoid(sql`delete from invitations where account_id = ${accountId} and user_id = ${userId}`))
    },

    sessions: {
      insert: (row) => onUnique("session", "token_hash")(Effect.asVoid(insert("sessions", row))),
      get: (hash) => one("sessions", sql`select * from sessions where token_hash = ${hash}`),
      delete: (hash) => orStorage(Effect.asVoid(sql`delete from sessions where token_hash = ${hash}`)),
      purgeExpired: (now, limit) =>
        orStorage(Effect.map(sql`delete from sessions where expires_at <= ${now} and token_hash in (
            select token_hash from sessions where expires_at <= ${now} order by expires_at limit ${limit} ${skipLocked})
          returning token_hash`, (rows) => rows.length))
    }
  }
}
