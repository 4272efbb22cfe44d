/** Identity in memory: accounts, members, invitations, sessions. */
import { Effect } from "effect"
import * as S from "../Storage.ts"
import { byKeyThenId, clone, type Ctx, owned } from "./common.ts"

export const identity = (db: Ctx): S.IdentityShape => ({
  accounts: {
    insert: (row) =>
      db.locked(() => {
        if (db.t.accounts.has(row.id)) return Effect.fail(new S.Duplicate({ entity: "account", field: "id" }))
        db.t.accounts.set(row.id, clone(row))
        return Effect.void
      }),
    get: (id) => db.locked(() => clone(db.t.accounts.get(id))),
    update: (id, patch) => db.locked(() => db.update(db.t.accounts, db.t.accounts.get(id), patch)),
    count: db.locked(() => db.t.accounts.size),
    list: db.locked(() => [...db.t.accounts.values()].sort(byKeyThenId((a) => a.created_at, false)).map(clone))
  },

  members: {
    insert: (row) =>
      db.locked(() => {
        for (const m of db.t.members.values()) {
          if (m.account_id === row.account_id && m.email === row.email) return Effect.fail(new S.Duplicate({ entity: "member", field: "email" }))
        }
        db.t.members.set(row.id, clone(row))
        return Effect.void
      }),
    get: (accountId, id) => db.locked(() => clone(owned(db.t.members.get(id), accountId))),
    getByEmail: (accountId, email) => db.locked(() => clone([...db.t.members.values()].find((m) => m.account_id === accountId && m.email === email))),
    findByEmail: (email) =>
      db.locked(() => [...db.t.members.values()].filter((m) => m.email === email).sort(byKeyThenId((m) => m.created_at, false)).map(clone)),
    list: (accountId) =>
      db.locked(() =>
        [...db.t.members.values()].filter((m) => m.account_id === accountId)
          .sort(byKeyThenId((m) => m.created_at, false)).map(clone)
      ),
    update: (accountId, id, patch) =>
      db.locked(() => {
        const row = owned(db.t.members.get(id), accountId)
        if (row && patch.email !== undefined && patch.email !== row.email) {
          for (const m of db.t.members.values()) {
            if (m.account_id === accountId && m.email === patch.email) return Effect.fail(new S.Duplicate({ entity: "member", field: "email" }))
          }
        }
        return Effect.succeed(db.update(db.t.members, row, patch))
      }),
    delete: (accountId, id) => db.locked(() => !!owned(db.t.members.get(id), accountId) && db.t.members.delete(id)),
    countActiveWithRole: (accountId, role) =>
      db.locked(() => [...db.t.members.values()].filter((m) => m.account_id === accountId && m.role === role && m.status === "active").length),
    count: (accountId) => db.locked(() => [...db.t.members.values()].filter((m) => m.account_id === accountId).length)
  },

  invitations: {
    insert: (row) =>
      db.locked(() => {
        for (const i of db.t.invitations.values()) {
          if (i.token_hash === row.token_hash) return Effect.fail(new S.Duplicate({ entity: "invitation", field: "token_hash" }))
        }
        db.t.invitations.set(row.id, clone(row))
        return Effect.void
      }),
    getByTokenHash: (hash) => db.locked(() => clone([...db.t.invitations.values()].find((i) => i.token_hash === hash))),
    markAccepted: (id, at) =>
      db.locked(() => {
        const row = db.t.invitations.get(id)
        if (!row || row.accepted_at !== null) return false
        db.t.invitations.set(id, { ...row, accepted_at: at })
        return true
      }),
    deleteForMember: (accountId, userId) =>
      db.locked(() => {
        for (const [id, i] of db.t.invitations) if (i.account_id === accountId && i.user_id === userId) db.t.invitations.delete(id)
      })
  },

  sessions: {
    insert: (row) =>
      db.locked(() => {
        if (db.t.sessions.has(row.token_hash)) return Effect.fail(new S.Duplicate({ entity: "session", field: "token_hash" }))
        db.t.sessions.set(row.token_hash, clone(row))
        return Effect.void
      }),
    get: (hash) => db.locked(() => clone(db.t.sessions.get(hash))),
    delete: (hash) => db.locked(() => void db.t.sessions.delete(hash)),
    purgeExpired: (now, limit) =>
      db.locked(() => {
        const expired = [...db.t.sessions.values()].filter((x) => x.expires_at <= now)
          .sort((a, b) => a.expires_at - b.expires_at).slice(0, limit)
        for (const x of expired) db.t.sessions.delete(x.token_hash)
        return expired.length
      })
  }
})
