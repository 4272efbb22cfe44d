/** Credentials and OAuth in memory. */
import { Effect } from "effect"
import * as S from "../Storage.ts"
import { byKeyThenId, clone, type Ctx, owned } from "./common.ts"

export const credentials = (db: Ctx): S.CredentialsShape => ({
  credentials: {
    insert: (row) =>
      db.locked(() => {
        for (const c of db.t.credentials.values()) {
          if (c.token_hash === row.token_hash) return Effect.fail(new S.Duplicate({ entity: "credential", field: "token_hash" }))
        }
        db.t.credentials.set(row.id, clone(row))
        return Effect.void
      }),
    getByHash: (hash) => db.locked(() => clone([...db.t.credentials.values()].find((c) => c.token_hash === hash))),
    list: (accountId, kind) =>
      db.locked(() =>
        [...db.t.credentials.values()].filter((c) => c.account_id === accountId && c.kind === kind)
          .sort(byKeyThenId((c) => c.created_at, false)).map(clone)
      ),
    get: (accountId, id) => db.locked(() => clone(owned(db.t.credentials.get(id), accountId))),
    revoke: (accountId, id, at) =>
      db.locked(() => {
        const c = owned(db.t.credentials.get(id), accountId)
        if (!c || c.revoked_at !== null) return false
        db.t.credentials.set(id, { ...c, revoked_at: at })
        return true
      }),
    touch: (id, at) =>
      db.locked(() => {
        const c = db.t.credentials.get(id)
        if (c) db.t.credentials.set(id, { ...c, last_used_at: at })
      })
  },

  oauth: {
    insertClient: (row) =>
      db.locked(() => {
        if (db.t.oauthClients.has(row.id)) return Effect.fail(new S.Duplicate({ entity: "oauth client", field: "id" }))
        db.t.oauthClients.set(row.id, clone(row))
        return Effect.void
      }),
    getClient: (id) => db.locked(() => clone(db.t.oauthClients.get(id))),
    listClients: (accountId) =>
      db.locked(() => [...db.t.oauthClients.values()].filter((c) => c.account_id === accountId).sort(byKeyThenId((c) => c.created_at, false)).map(clone)),
    updateClient: (accountId, id, patch) => db.locked(() => db.update(db.t.oauthClients, owned(db.t.oauthClients.get(id), accountId), patch)),
    deleteClient: (accountId, id) => db.locked(() => !!owned(db.t.oauthClients.get(id), accountId) && db.t.oauthClients.delete(id)),
    insertCode: (row) =>
      db.locked(() => {
        if (db.t.oauthCodes.has(row.code_hash)) return Effect.fail(new S.Duplicate({ entity: "oauth code", field: "code_hash" }))
        db.t.oauthCodes.set(row.code_hash, clone(row))
        return Effect.void
      }),
    getCode: (hash) => db.locked(() => clone(db.t.oauthCodes.get(hash))),
    useCode: (hash, now) =>
      db.locked(() => {
        const c = db.t.oauthCodes.get(hash)
        if (!c) return undefined
        if (c.used_at === null) db.t.oauthCodes.set(hash, { ...c, used_at: now })
        return clone(c)
      }),
    insertToken: (row) =>
      db.locked(() => {
        for (const x of db.t.oauthTokens.values())
          if (x.token_hash === row.token_hash)
            return Effect.fail(
              new S.Duplicate({ entity: "oauth token", field: "token_hash" })
            )
        db.t.oauthTokens.set(row.id, clone(row))
        return Effect.void
      }),
    getToken: (hash) => db.locked(() => clone([...db.t.oauthTokens.values()].find((x) => x.token_hash === hash))),
    getTokenById: (id) => db.locked(() => clone(db.t.oauthTokens.get(id))),
    originAllowed: (origin) => db.locked(() => [...db.t.oauthClients.values()].some((c) => c.allowed_origins.includes(origin))),
    rotate: (hash, now) =>
      db.locked(() => {
        const x = [...db.t.oauthTokens.values()].find((y) => y.token_hash === hash)
        if (!x || x.rotated_at !== null) return false
        db.t.oauthTokens.set(x.id, { ...x, rotated_at: now })
        return true
      }),
    revokeFamily: (familyId, now) =>
      db.locked(() => {
        let n = 0
        for (const x of db.t.oauthTokens.values()) {
          if (x.family_id === familyId && x.revoked_at === null) {
            db.t.oauthTokens.set(x.id, { ...x, revoked_at: now })
            n++
          }
        }
        return n
      })
  }
})
