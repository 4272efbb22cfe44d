/**
 * Where the site is, for what must name it: the OAuth issuer and endpoints, absolute links in
 * pages (invitations), and whether cookies carry `Secure`.
 *
 * - With a configured public URL (`--public-url` / `CANOPY_PUBLIC_URL`) everything derives from it,
 *   whatever a request says: its `Host` is chosen by the client, so an issuer or a link built from
 *   it is the client's to choose. Cookies are `Secure` exactly when it is `https://`.
 * - Without one, a request's origin is used only when its host is a loopback name or address
 *   (`localhost`, `*.localhost`, `127.0.0.0/8`, `[::1]`): development on one machine. Any other host
 *   gets no absolute URL: the OAuth metadata answers 404 saying to set the public URL, and pages
 *   show links as paths. Cookies are `Secure` when the request came over HTTPS.
 * - How a request came (`https`, and the host asked for) is the socket's, or `X-Forwarded-Proto` /
 *   `X-Forwarded-Host` when the connection comes from a trusted proxy (`--trusted-proxies`); from
 *   anyone else those headers are ignored. A forwarded host is no more trusted than `Host` (proxies
 *   pass the client's on), so it too yields an origin only when it is loopback.
 */
import { IpAllowlist } from "@canopy/core"
import type { IncomingMessage } from "node:http"
import type { ApiRequest } from "../http/handler.ts"

/** How a request reached the server, as far as it can be believed. */
export interface Transport {
  /** Whether the client spoke HTTPS: the socket's TLS, or a trusted proxy's `X-Forwarded-Proto`. */
  readonly https: boolean
  /** The host the client asked for: `Host`, or a trusted proxy's `X-Forwarded-Host`. */
  readonly host: string | undefined
}

const transports = new WeakMap<ApiRequest, () => Transport>()

/**
 * Records how `req` came (the Node adapter does, per request), worked out only if a page asks;
 * answers `req`.
 */
export const withTransport = (req: ApiRequest, transport: () => Transport): ApiRequest => {
  let known: Transport | undefined
  transports.set(req, () => (known ??= transport()))
  return req
}

/** How `req` came: as recorded, else plain HTTP to its `Host` (a pipeline used without the Node adapter). */
const transportOf = (req: ApiRequest): Transport => transports.get(req)?.() ?? { https: false, host: req.headers.host }

const first = (value: string | Array<string> | undefined) => {
  const v = (Array.isArray(value) ? value[0] : value)?.split(",")[0]?.trim()
  return v === "" ? undefined : v
}

/** How a Node request came: forwarded headers count only when its peer is a trusted proxy. */
export const nodeTransport = (req: IncomingMessage, trustedProxies: ReadonlyArray<string>): Transport => {
  const peer = IpAllowlist.normalizeAddress(req.socket.remoteAddress ?? "")
  const believed = trustedProxies.length > 0 && IpAllowlist.allows(trustedProxies, peer)
  const tls = (req.socket as { readonly encrypted?: boolean }).encrypted === true
  const proto = believed ? first(req.headers["x-forwarded-proto"])?.toLowerCase() : undefined
  const host = (believed ? first(req.headers["x-forwarded-host"]) : undefined) ?? first(req.headers.host)
  return { https: proto === undefined ? tls : proto === "https", host }
}

const HOST = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9.-]+))(?::(\d{1,5}))?$/
const IPV4_LOOPBACK = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/

/** Whether a `Host` value names this machine's loopback interface (and is well-formed). */
const isLoopbackHost = (host: string | undefined): boolean => {
  const m = host === undefined ? null : HOST.exec(host)
  if (!m || (m[3] !== undefined && Number(m[3]) > 65_535)) return false
  if (m[1] !== undefined) {
    try {
      return new URL(`http://[${m[1]}]/`).hostname === "[::1]" // the canonical form of every spelling of ::1
    } catch {
      return false
    }
  }
  const name = m[2]!.toLowerCase().replace(/\.$/, "")
  const v4 = IPV4_LOOPBACK.exec(name)
  if (v4) return v4.slice(1).every((octet) => Number(octet) <= 255)
  return name === "localhost" || (name.endsWith(".localhost") && !name.startsWith("."))
}

/**
 * A public URL as configured: `http(s)://host[:port][/path]`, without credentials, query or
 * fragment; answered without a trailing slash. Throws a readable Error otherwise.
 */
export const parsePublicUrl = (raw: string): string => {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new Error(`public URL ${JSON.stringify(raw)} is not an absolute URL (e.g. https://canopy.example.com)`)
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error(`public URL ${JSON.stringify(raw)} must start with https:// (or http://)`)
  if (url.username || url.password) throw new Error(`public URL ${JSON.stringify(raw)} must not hold credentials`)
  if (url.search || url.hash || raw.includes("?") || raw.includes("#")) throw new Error(`public URL ${JSON.stringify(raw)} must not have a query or a fragment`)
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`
}

/**
 * A base path as given (`/canopy`, `/canopy/`, `canopy`): answered as `/canopy`, or `""` for the
 * root. Throws a readable Error for anything but plain path segments.
 */
export const parseBasePath = (raw: string | undefined): string => {
  const trimmed = (raw ?? "").trim().replace(/^\/+|\/+$/g, "")
  if (trimmed === "") return ""
  if (!/^[A-Za-z0-9._~!$&'()*+,;=:@%-]+(?:\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)*$/.test(trimmed) || trimmed.split("/").some((s) => s === "." || s === "..")) {
    throw new Error(`base path ${JSON.stringify(raw)} must be a plain path such as /canopy (no query, fragment, dot segments or empty segments)`)
  }
  return `/${trimmed}`
}

/** The path of a public URL (`https://x.example/canopy` → `/canopy`; none → `""`). */
export const pathOfPublicUrl = (publicUrl: string | undefined): string =>
  publicUrl === undefined ? "" : new URL(parsePublicUrl(publicUrl)).pathname.replace(/\/+$/, "")

/** The site as pages and the OAuth metadata see it. */
export interface Site {
  /** The configured public URL (no trailing slash), if any. */
  readonly publicUrl: string | undefined
  /**
   * The path browsers reach Canopy under (`/canopy`, or `""` at the root): the public URL's path
   * when one is configured, else the mount's base path. Every link, form action, redirect and
   * cookie `Path` starts with it.
   */
  readonly basePath: string
  /** `p` (an absolute path of Canopy's: `/dashboard`) as browsers reach it: `/canopy/dashboard`. */
  readonly path: (p: string) => string
  /** The base of absolute URLs in answer to `req` (base path included), or undefined when none can be trusted. */
  readonly origin: (req: ApiRequest) => string | undefined
  /** Whether cookies set in answer to `req` carry `Secure`. */
  readonly secure: (req: ApiRequest) => boolean
}

/**
 * The site, given the configured public URL (validated by `parsePublicUrl`), if any, and the base
 * path Canopy is mounted under (`parseBasePath`), if any. With both, the public URL's path must
 * end with the base path (a proxy may add a prefix of its own before it, never another name).
 */
export const makeSite = (publicUrl: string | undefined, basePath?: string | undefined): Site => {
  const configured = publicUrl === undefined ? undefined : parsePublicUrl(publicUrl)
  const mount = parseBasePath(basePath)
  const base = configured !== undefined ? pathOfPublicUrl(configured) : mount
  if (mount !== "" && !base.endsWith(mount)) {
    throw new Error(`public URL ${JSON.stringify(configured)} must end with the base path ${mount} Canopy is mounted under (e.g. https://host.example${mount})`)
  }
  const path = (p: string) => `${base}${p}`
  if (configured !== undefined) {
    const secure = configured.startsWith("https:")
    return { publicUrl: configured, basePath: base, path, origin: () => configured, secure: () => secure }
  }
  return {
    publicUrl: undefined,
    basePath: base,
    path,
    origin: (req) => {
      const t = transportOf(req)
      return isLoopbackHost(t.host) ? `${t.https ? "https" : "http"}://${t.host!.toLowerCase()}${base}` : undefined
    },
    secure: (req) => transportOf(req).https
  }
}
