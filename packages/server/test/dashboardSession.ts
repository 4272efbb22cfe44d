/**
 * A dashboard session over plain HTTP, for tests that post the dashboard's forms without a
 * browser: a member signed in through the sign-in form (its CSRF cookie first), and a `canopy serve`
 * process of its own over a database made beforehand, with its owner signed in.
 */
import { assert } from "@effect/vitest"
import type { ChildProcess } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { serve } from "../src/index.ts"
import { startServeProcess } from "@canopy/server/testing"

/** A signed-in member: the session cookie (`canopy_session=…`) and the CSRF token of its forms. */
export interface DashboardSession {
  readonly cookie: string
  readonly csrf: string
}

/** The decoded value of the cookie `name` a response sets, if it sets one. */
const cookieOf = (headers: Headers, name: string) => {
  for (const c of headers.getSetCookie()) if (c.startsWith(`${name}=`)) return decodeURIComponent(c.split(";")[0]!.slice(name.length + 1))
  return undefined
}

/** Signs `email` in to the dashboard at `base`; the CSRF token is read from the form page at `formPath`. */
export const dashboardSession = async (base: string, email: string, password: string, formPath = "/dashboard"): Promise<DashboardSession> => {
  const signInPage = await fetch(`${base}/dashboard`)
  const pre = cookieOf(signInPage.headers, "canopy_csrf")!
  const res = await fetch(`${base}/dashboard/sign-in`, {
    method: "POST",
    redirect: "manual",
    body: new URLSearchParams({ csrf: pre, email, password }),
    headers: { cookie: `canopy_csrf=${encodeURIComponent(pre)}` }
  })
  const session = cookieOf(res.headers, "canopy_session")
  assert.isDefined(session, `sign-in answered ${res.status}`)
  const cookie = `canopy_session=${encodeURIComponent(session!)}`
  const form = await (await fetch(`${base}${formPath}`, { headers: { cookie } })).text()
  return { cookie, csrf: /name="csrf" value="([^"]+)"/.exec(form)![1]!.replace(/&amp;/g, "&") }
}

/** A `canopy serve` process over a SQLite file holding one account, its owner signed in. */
export interface ServeWithOwner {
  readonly url: string
  readonly child: ChildProcess
  /** The account's admin API key. */
  readonly apiToken: string
  readonly session: DashboardSession
  /** Stops the process and removes its database. */
  readonly close: () => void
}

/**
 * Makes a database with one account (`email` its owner, with `password`), then serves it from a
 * process of its own, so that what a test client does (sending megabytes) never counts as the
 * server's time; the owner is signed in, the CSRF token read from `formPath`.
 */
export const serveWithOwner = async (account: { readonly name: string; readonly email: string; readonly password: string },
  formPath = "/dashboard"): Promise<ServeWithOwner> => {
  const dir = mkdtempSync(join(tmpdir(), "canopy-serve-owner-"))
  const db = join(dir, "canopy.db")
  const maker = await serve({ port: 0, host: "127.0.0.1", db, dispatcher: false })
  const b = await maker.canopy.bootstrap({ account_name: account.name, email: account.email, plan: "pro" })
  await maker.canopy.members.accept(b.password_token, { name: "Owner", password: account.password })
  await maker.close()
  const proc = await startServeProcess(["--db", db])
  const close = () => {
    proc.child.kill()
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    return { url: proc.url, child: proc.child, apiToken: b.api_key.token, session: await dashboardSession(proc.url, account.email, account.password, formPath),
      close }
  } catch (e) {
    close()
    throw e
  }
}
