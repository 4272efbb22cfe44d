import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { OAuth } from "../src/index.ts"
import type { Client } from "../src/OAuth.ts"

const confidential: Client = { client_id: "app_conf", redirect_uris: ["https://app.example.com/cb"], scopes: ["profile", "projects:read", "offline_access"],
  confidential: true }
const pub: Client = { ...confidential, client_id: "app_pub", confidential: false }
// RFC 7636 Appendix B
const VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
const CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
const base = { client_id: "app_conf", redirect_uri: "https://app.example.com/cb", response_type: "code", scope: "projects:read", state: "xyz" }

describe("OAuth", () => {
  it("PKCE S256 matches RFC 7636's example and rejects everything else", () => {
    assert.strictEqual(OAuth.challengeOf(VERIFIER), CHALLENGE)
    assert.isTrue(OAuth.verifyPkce(VERIFIER, CHALLENGE))
    assert.isFalse(OAuth.verifyPkce(`${VERIFIER.slice(0, -1)}j`, CHALLENGE))
    assert.isFalse(OAuth.verifyPkce(undefined, CHALLENGE))
    assert.isFalse(OAuth.verifyPkce("short", OAuth.challengeOf("short")), "verifiers are 43 to 128 characters")
    fc.assert(fc.property(fc.stringMatching(/^[A-Za-z0-9\-._~]{43,128}$/), (v) => {
      assert.isTrue(OAuth.verifyPkce(v, OAuth.challengeOf(v)))
    }), { numRuns: 100 })
  })

  it("unknown client or unregistered redirect URI: an error page, never a redirect", () => {
    assert.strictEqual(OAuth.checkAuthorize(base, undefined).kind, "error_page")
    assert.strictEqual(OAuth.checkAuthorize({ ...base, redirect_uri: "https://app.example.com/cb/" }, confidential).kind, "error_page")
    assert.strictEqual(OAuth.checkAuthorize({ ...base, redirect_uri: "https://evil.example.com/cb" }, confidential).kind, "error_page")
    assert.strictEqual(OAuth.checkAuthorize({ ...base, redirect_uri: undefined }, confidential).kind, "error_page")
  })

  it("other errors redirect with the error and the exact state", () => {
    const cases: Array<[Record<string, string | undefined>, string]> = [
      [{ response_type: "token" }, "unsupported_response_type"],
      [{ scope: "" }, "invalid_scope"],
      [{ scope: "projects:read nonsense" }, "invalid_scope"],
      [{ scope: "assets:write" }, "invalid_scope"],
      [{ code_challenge: CHALLENGE, code_challenge_method: "plain" }, "invalid_request"],
      [{ code_challenge: "tooshort", code_challenge_method: "S256" }, "invalid_request"],
      [{ code_challenge: CHALLENGE }, "invalid_request"]
    ]
    for (const [over, error] of cases) {
      const r = OAuth.checkAuthorize({ ...base, ...over }, confidential)
      assert.strictEqual(r.kind, "redirect_error", JSON.stringify(over))
      if (r.kind === "redirect_error") {
        assert.strictEqual(r.error, error)
        assert.strictEqual(r.state, "xyz")
      }
    }
  })

  it("public clients need PKCE; valid requests pass with their scopes", () => {
    const noPkce = OAuth.checkAuthorize({ ...base, client_id: "app_pub" }, pub)
    assert.strictEqual(noPkce.kind === "redirect_error" && noPkce.error, "invalid_request")
    const ok = OAuth.checkAuthorize({ ...base, client_id: "app_pub", scope: "offline_access projects:read", code_challenge: CHALLENGE,
      code_challenge_method: "S256" }, pub)
    assert.strictEqual(ok.kind, "ok")
    if (ok.kind === "ok") assert.deepStrictEqual(ok.scopes, ["projects:read", "offline_access"])
    assert.strictEqual(OAuth.checkAuthorize(base, confidential).kind, "ok")
  })

  it("redirects keep the registered URI's own query and add parameters", () => {
    assert.strictEqual(OAuth.withQuery("https://app.example.com/cb?tenant=7", { code: "c 1", state: "a&b", error: undefined }),
      "https://app.example.com/cb?tenant=7&code=c+1&state=a%26b")
  })

  it("client credentials from HTTP Basic (form-encoded, then base64)", () => {
    const header = `Basic ${Buffer.from("app%3Aone:s%2Bcret").toString("base64")}`
    assert.deepStrictEqual(OAuth.parseBasic(header), { client_id: "app:one", client_secret: "s+cret" })
    assert.isUndefined(OAuth.parseBasic("Bearer x"))
    assert.isUndefined(OAuth.parseBasic(`Basic ${Buffer.from("nocolon").toString("base64")}`))
  })

  it("token errors follow RFC 6749 §5.2 and are never cached", () => {
    const e = OAuth.tokenError("invalid_grant", "expired")
    assert.deepStrictEqual([e.status, e.body, e.headers["cache-control"]], [400, { error: "invalid_grant", error_description: "expired" }, "no-store"])
    const c = OAuth.tokenError("invalid_client", "bad secret", true)
    assert.deepStrictEqual([c.status, c.headers["www-authenticate"]], [401, "Basic realm=\"canopy\""])
  })

  it("codes: single use (a replay is flagged), 10 minutes, same client, exact redirect_uri, PKCE when challenged", () => {
    const now = Date.UTC(2026, 0, 1)
    const code = { client_id: "app_pub", redirect_uri: "https://app.example.com/cb", code_challenge: CHALLENGE, expires_at: now + OAuth.CODE_TTL_MS,
      used_at: null }
    const req = { client_id: "app_pub", redirect_uri: "https://app.example.com/cb", code_verifier: VERIFIER }
    assert.deepStrictEqual(OAuth.checkCodeExchange(code, req, now), { ok: true })
    const replay = OAuth.checkCodeExchange({ ...code, used_at: now }, req, now)
    assert.isTrue(!replay.ok && replay.replayed)
    for (const [c, r, at] of [
      [code, { ...req, client_id: "other" }, now],
      [code, { ...req, redirect_uri: "https://app.example.com/cb2" }, now],
      [code, { ...req, code_verifier: undefined }, now],
      [code, req, now + OAuth.CODE_TTL_MS],
      [undefined, req, now]
    ] as const) {
      const out = OAuth.checkCodeExchange(c, r, at)
      assert.isTrue(!out.ok && !out.replayed)
    }
  })

  it("refresh: rotation reuse revokes the family; expiry after 30 days unused; never wider scope", () => {
    const now = Date.UTC(2026, 0, 1)
    const token = { client_id: "app_conf", scopes: ["projects:read", "offline_access"] as const, rotated_at: null, revoked_at: null, last_used_at: now }
    assert.deepStrictEqual(OAuth.checkRefresh(token, { client_id: "app_conf", scope: undefined }, now), { ok: true,
      scopes: ["projects:read", "offline_access"] })
    const narrowed = OAuth.checkRefresh(token, { client_id: "app_conf", scope: "projects:read" }, now)
    assert.deepStrictEqual(narrowed, { ok: true, scopes: ["projects:read"] })
    const wider = OAuth.checkRefresh(token, { client_id: "app_conf", scope: "projects:read assets:read" }, now)
    assert.isTrue(!wider.ok && wider.error === "invalid_scope" && !wider.revokeFamily)
    const reused = OAuth.checkRefresh({ ...token, rotated_at: now }, { client_id: "app_conf", scope: undefined }, now)
    assert.isTrue(!reused.ok && reused.revokeFamily)
    const stale = OAuth.checkRefresh(token, { client_id: "app_conf", scope: undefined }, now + OAuth.REFRESH_TTL_MS)
    assert.isTrue(!stale.ok && !stale.revokeFamily)
    assert.isFalse(OAuth.checkRefresh(token, { client_id: "someone", scope: undefined }, now).ok)
    assert.isTrue(OAuth.issuesRefreshToken(["offline_access"]))
    assert.isFalse(OAuth.issuesRefreshToken(["projects:read"]))
  })

  it("property: a refresh never yields a scope the grant did not have", () => {
    fc.assert(
      fc.property(fc.subarray(["profile", "projects:read", "projects:write", "assets:read", "offline_access"] as const, { minLength: 1 }),
        fc.subarray(["profile", "projects:read", "projects:write", "assets:read", "assets:write", "members:read", "offline_access"] as const, { minLength: 1 }),
        (granted, asked) => {
          const r = OAuth.checkRefresh({ client_id: "c", scopes: granted, rotated_at: null, revoked_at: null, last_used_at: 0 }, { client_id: "c",
            scope: asked.join(" ") }, 1)
          if (r.ok) { for (const s of r.scopes) assert.include(granted as ReadonlyArray<string>, s) }
          else assert.isTrue(asked.some((s) => !(granted as ReadonlyArray<string>).includes(s)))
        })
    )
  })
})
