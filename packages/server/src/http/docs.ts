/**
 * `/docs`: the API reference, rendered in the browser by Scalar (`@scalar/api-reference`, its
 * standalone bundle served by Canopy from node_modules: no CDN, works offline) from the OpenAPI
 * document at `/v1/openapi.json`. The page holds no script of its own: the configuration is a data
 * attribute, so its Content-Security-Policy allows scripts from Canopy only.
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { createHash } from "node:crypto"
import type { ApiRequest, ApiResponse } from "./types.ts"

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c]!)

/** Where the page is, and its script below it. */
export const PAGE_PATH = "/docs"
export const SCRIPT_PATH = "/docs/api-reference.js"

/**
 * The reference's bundle, read once on first use: its text, version (for the cache-busting URL)
 * and ETag.
 */
let bundle: { readonly body: string; readonly version: string; readonly etag: string } | undefined
const loadBundle = () => {
  if (!bundle) {
    // The package exports no path to its browser bundle: it sits beside the main entry's dist/.
    const require = createRequire(import.meta.url)
    const main = require.resolve("@scalar/api-reference")
    const dist = dirname(main).endsWith("dist") ? dirname(main) : join(dirname(main), "..")
    const body = readFileSync(join(dist, "browser", "standalone.js"), "utf8")
    const pkg = JSON.parse(readFileSync(join(dist, "..", "package.json"), "utf8")) as { version: string }
    bundle = { body, version: pkg.version, etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"` }
  }
  return bundle
}

/**
 * The page's policy: scripts only from Canopy (the bundle), its document fetched from Canopy,
 * inline styles (the renderer injects its own), images from Canopy or data: URLs; nothing else
 * loads, nothing frames it, no form leaves it.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'"
].join("; ")

/**
 * The HTML page for an OpenAPI document; `basePath` is the path Canopy is reached under
 * (`/canopy` when mounted there): the bundle and the document are fetched below it.
 */
export const page = (doc: Record<string, unknown>, basePath = ""): string => {
  const info = doc.info as { title: string }
  // Without JavaScript, the operations are still listed (and the document is a link away).
  const operations = Object.entries(doc.paths as Record<string, Record<string, { summary?: string }>>)
    .flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => `<li><code>${escape(method.toUpperCase())} ${escape(path)}</code> ${escape(op.summary ?? "")}</li>`)
    )
    .join("")
  const configuration = {
    url: `${basePath}/v1/openapi.json`,
    // Offline and private: no web fonts, no proxy, no hosted services.
    withDefaultFonts: false,
    hideClientButton: true,
    showDeveloperTools: "never",
    agent: { disabled: true },
    mcp: { disabled: true },
    telemetry: false,
    defaultOpenAllTags: true,
    documentDownloadType: "json"
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(info.title)} reference</title></head>
<body><noscript><h1>${escape(info.title)}</h1><p>The interactive reference needs JavaScript. The machine-readable document: <a href="${
    escape(basePath)
  }/v1/openapi.json">${escape(basePath)}/v1/openapi.json</a>.</p><ul>${operations}</ul></noscript>
<script id="api-reference" type="application/json" data-url="${escape(configuration.url)}" data-configuration="${
    escape(JSON.stringify(configuration))
  }"></script>
<script src="${escape(basePath)}${SCRIPT_PATH}?v=${escape(loadBundle().version)}"></script>
</body></html>`
}

/** The bundle: cached for a year (its URL changes with its version), revalidated by ETag. */
const script = async (req: ApiRequest): Promise<ApiResponse> => {
  const { body, etag } = loadBundle()
  const headers = {
    "content-type": "text/javascript; charset=utf-8",
    "cache-control": req.query.has("v") ? "public, max-age=31536000, immutable" : "public, max-age=3600",
    etag
  }
  if (req.headers["if-none-match"] === etag) return { status: 304, headers, body: undefined }
  return { status: 200, headers, body }
}

type ProtocolRoute = (req: ApiRequest, requestId: string) => Promise<ApiResponse>

/**
 * The reference's routes added to a table of protocol routes: its script, and its page (when the
 * table has one) answered with the page's policy and revalidated on each visit.
 */
export const withReference = (table: Readonly<Record<string, ProtocolRoute>> = {}): Readonly<Record<string, ProtocolRoute>> => {
  const pageRoute = table[`GET ${PAGE_PATH}`]
  return {
    ...table,
    [`GET ${SCRIPT_PATH}`]: script,
    ...(pageRoute
      ? {
        [`GET ${PAGE_PATH}`]: async (req: ApiRequest, requestId: string) => {
          const res = await pageRoute(req, requestId)
          return { ...res, headers: { ...res.headers, "content-security-policy": CONTENT_SECURITY_POLICY, "cache-control": "no-cache" } }
        }
      }
      : {})
  }
}
