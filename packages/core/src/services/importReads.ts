/**
 * The reads one chunk of an import's creates shares (see Imports). A chunk runs in one transaction
 * under the account's lock, so what the creates read again and again stays as first read: the
 * account (its plan, its overlap policy), the creating member, the usage alerts fired this period
 * (until the chunk marks one), and a box's neighbours (until the chunk writes a project). Each is
 * then read once per chunk instead of once or more per feature, and the lock is not asked for
 * again; outside a chunk every call goes to the store.
 */
import { Effect } from "effect"
import type { StorageShape } from "../Storage.ts"

/** The project reads that never change what `meeting` answers. */
const PROJECT_READS = new Set(["get", "list", "stats", "meeting", "cells"])

/** A storage whose reads of `accountId` are shared while `begin(accountId)` holds, until `end(accountId)`. */
export const importReads = (storage: StorageShape) => {
  /** Per account in a chunk: read results by key. */
  const chunks = new Map<string, Map<string, unknown>>()

  /** `read` answered from the chunk's memory of `key`, else from the store (and remembered). */
  const shared = <A, E>(accountId: string, key: string, read: () => Effect.Effect<A, E>): Effect.Effect<A, E> =>
    Effect.suspend(() => {
      const memory = chunks.get(accountId)
      if (!memory) return read()
      if (memory.has(key)) return Effect.succeed(memory.get(key) as A)
      return Effect.tap(read(), (value) => Effect.sync(() => memory.set(key, value)))
    })
  /** Forgets what `accountId`'s chunk read under keys starting with `prefix`. */
  const forget = (accountId: string, prefix: string) => {
    const memory = chunks.get(accountId)
    if (memory) { for (const key of memory.keys()) if (key.startsWith(prefix)) memory.delete(key) }
  }

  const projects = Object.fromEntries(
    Object.entries(storage.projects).map(([name, method]) => [name, PROJECT_READS.has(name) ? method : (accountOrRow: unknown, ...rest: Array<unknown>) => {
      const accountId = typeof accountOrRow === "string" ? accountOrRow : (accountOrRow as { account_id: string }).account_id
      forget(accountId, "meeting ")
      return (method as (...args: Array<unknown>) => unknown)(accountOrRow, ...rest)
    }])
  ) as unknown as StorageShape["projects"]

  const wrapped: StorageShape = {
    ...storage,
    // The chunk's transaction took the account's lock already.
    lockAccount: (accountId) => chunks.has(accountId) ? Effect.void : storage.lockAccount(accountId),
    accounts: { ...storage.accounts, get: (id) => shared(id, "account", () => storage.accounts.get(id)) },
    members: { ...storage.members, get: (accountId, id) => shared(accountId, `member ${id}`, () => storage.members.get(accountId, id)) },
    usage: {
      ...storage.usage,
      alerts: (accountId, period, metric) => shared(accountId, `alerts ${period} ${metric}`, () => storage.usage.alerts(accountId, period, metric)),
      markAlert: (accountId, period, metric, threshold) =>
        Effect.ensuring(storage.usage.markAlert(accountId, period, metric, threshold), Effect.sync(() => forget(accountId, `alerts ${period} ${metric}`)))
    },
    projects: {
      ...projects,
      // The same box asked again with a project excluded that the first answer did not hold (the
      // create's check inside its transaction, with its new id) answers the same rows.
      meeting: (accountId, bbox, options) => {
        const key = `meeting ${JSON.stringify([bbox, options.limit, options.sameBoundary ?? null])}`
        const read = () => storage.projects.meeting(accountId, bbox, { ...options, excludeId: undefined })
        return Effect.flatMap(shared(accountId, key, read), (rows) => {
          const kept = options.excludeId === undefined ? rows : rows.filter((r) => r.id !== options.excludeId)
          // One row fewer than a full answer: the store may hold one more; ask it.
          return kept.length < rows.length && rows.length >= options.limit ? storage.projects.meeting(accountId, bbox, options) : Effect.succeed(kept)
        })
      }
    }
  }

  return {
    storage: wrapped,
    /** Reads of `accountId` are shared from now on (its chunk's transaction holds the account's lock). */
    begin: (accountId: string) => void chunks.set(accountId, new Map()),
    /** The chunk ended: every read goes to the store again. */
    end: (accountId: string) => void chunks.delete(accountId)
  }
}
