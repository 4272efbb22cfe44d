/** Credentials and OAuth over SQL. */
import { Effect } from "effect"
import type * as S from "../Storage.ts"
import { fromDb } from "./codec.ts"
import { type Context, onUnique, orStorage } from "./common.ts"
import { CREDENTIAL_BY_HASH } from "./requestPath.ts"

export const credentials = (c: Context): S.CredentialsShape => {
  const { sql, dialect, one, all, affected, insert, text, patchRow, transaction } = c
  return {
    credentials: {
      insert: (row) => onUnique("credential", "token_hash")(Effect.asVoid(insert("credentials", row))),
      getByHash: (hash) => one("credentials", text(CREDENTIAL_BY_HASH, [hash])),
      list: (accountId, kind) =>
        all("credentials", sql`select * from credentials where account_id = ${accountId} and kind = ${kind} order by created_at asc, id asc`),
      get: (accountId, id) => one("credentials", sql`select * from credentials where account_id = ${accountId} and id = ${id}`),
      revoke: (accountId, id, at) =>
        affected(sql`update credentials set revoked_at = ${at} where account_id = ${accountId} and id = ${id} and revoked_at is null returning id`),
      touch: (id, at) => orStorage(Effect.asVoid(sql`update credentials set last_used_at = ${at} where id = ${id}`))
    },

    oauth: {
      insertClient: (row) => onUnique("oauth client", "id")(Effect.asVoid(insert("oauth_clients", row))),
      getClient: (id) => one("oauth_clients", sql`select * from oauth_clients where id = ${id}`),
      listClients: (accountId) => all("oauth_clients", sql`select * from oauth_clients where account_id = ${accountId} order by created_at asc, id asc`),
      updateClient: (accountId, id, patch) =>
        one("oauth_clients", patchRow("oauth_clients", patch, sql.and([sql`account_id = ${accountId}`, sql`id = ${id}`]))),
      deleteClient: (accountId, id) => affected(sql`delete from oauth_clients where account_id = ${accountId} and id = ${id} returning id`),
      insertCode: (row) => onUnique("oauth code", "code_hash")(Effect.asVoid(insert("oauth_codes", row))),
      getCode: (hash) => one("oauth_codes", sql`select * from oauth_codes where code_hash = ${hash}`),
      useCode: (hash, now) =>
        transaction(orStorage(Effect.gen(function*() {
          const before = dialect === "pg"
            ? yield* sql`select * from oauth_codes where code_hash = ${hash} for update`
            : yield* sql`select * from oauth_codes where code_hash = ${hash}`
          const row = fromDb<S.OAuthCodeRow>("oauth_codes", before[0])
          if (row && row.used_at === null) yield* sql`update oauth_codes set used_at = ${now} where code_hash = ${hash}`
          return row
        }))),
      insertToken: (row) => onUnique("oauth token", "token_hash")(Effect.asVoid(insert("oauth_tokens", row))),
      getToken: (hash) => one("oauth_tokens", sql`select * from oauth_tokens where token_hash = ${hash}`),
      getTokenById: (id) => one("oauth_tokens", sql`select * from oauth_tokens where id = ${id}`),
      // The JSON text narrows the scan (LIKE, wildcards escaped); the decoded list decides exactly.
      originAllowed: (origin) =>
        Effect.map(
          all<S.OAuthClientRow>("oauth_clients",
            sql`select * from oauth_clients where allowed_origins like ${`%${JSON.stringify(origin).replace(/[\\%_]/g, "\\$&")}%`} escape '\\'`),
          (rows) => rows.some((x) => x.allowed_origins.includes(origin))
        ),
      rotate: (hash, now) => affected(sql`update oauth_tokens set rotated_at = ${now} where token_hash = ${hash} and rotated_at is null returning id`),
      revokeFamily: (familyId, now) =>
        orStorage(
          Effect.map(sql`update oauth_tokens set revoked_at = ${now} where family_id = ${familyId} and revoked_at is null returning id`, (r) => r.length)
        )
    }
  }
}
