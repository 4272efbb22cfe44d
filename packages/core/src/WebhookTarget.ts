/**
 * Where a webhook may point (DECISIONS): `https://` only, at a public unicast address. Refused:
 * every range of the IANA special-purpose address registries (IPv4 and IPv6: loopback, private,
 * link-local and metadata, CGNAT, unique-local, documentation, benchmarking, NAT64, 6to4, Teredo…,
 * as tabled by `ipaddr.js`), multicast and broadcast, and on IPv6 anything outside the global
 * unicast space 2000::/3 (IPv4-mapped and IPv4-compatible addresses, deprecated site-local…); and
 * the local host names (`localhost`, `*.localhost`, `*.internal`, `*.local`, `*.home.arpa`, with
 * or without a final dot). This checks what the URL itself says (scheme, IP literals, names); the
 * dispatcher checks again after resolving the name, and connects only to the address it checked.
 * A development setting allows `http://` and local addresses.
 */
import ipaddr, { type IPv4, type IPv6 } from "ipaddr.js"

/** The IANA IPv6 address space registry's global unicast allocation; the rest is reserved or local. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3")

/** How a refused range reads in an error message ("must not point at …"), by ipaddr.js range name. */
const described: Readonly<Record<string, string>> = {
  unspecified: "an unspecified address",
  broadcast: "a broadcast address",
  multicast: "a multicast address",
  linkLocal: "a link-local or cloud metadata address",
  loopback: "a loopback address",
  carrierGradeNat: "a carrier-grade NAT address",
  private: "a private address",
  reserved: "a reserved, documentation or benchmarking address",
  benchmarking: "a benchmarking address",
  uniqueLocal: "a unique-local or cloud metadata address",
  deprecatedSiteLocal: "a site-local address",
  ipv4Mapped: "an IPv4-mapped address",
  rfc6145: "an IPv4-translated address",
  rfc6052: "a NAT64 (IPv4-embedded) address",
  "6to4": "a 6to4 (IPv4-embedded) address",
  teredo: "a Teredo (IPv4-embedded) address"
}

/** Why a parsed address may not receive webhooks, or undefined when it may. */
const blocked = (address: IPv4 | IPv6): string | undefined => {
  const range: string = address.range()
  if (range !== "unicast") return described[range] ?? `a special-purpose address (${range})`
  if (address.kind() === "ipv6" && !address.match(GLOBAL_UNICAST_V6)) {
    return (address as IPv6).parts.slice(0, 6).every((p) => p === 0)
      ? "an IPv4-compatible address"
      : "an address outside the global unicast space"
  }
  return undefined
}

/** The address an IP literal names (IPv6 with or without brackets), or undefined for anything else. */
const parse = (raw: string) => {
  const ip = raw.startsWith("[") && raw.endsWith("]") ? raw.slice(1, -1) : raw
  return ipaddr.isValid(ip) ? ipaddr.parse(ip) : undefined
}

/** Why an address (v4 or v6) may not receive webhooks, or undefined when it may or is not an IP literal. */
export const blockedAddress = (ip: string): string | undefined => {
  const address = parse(ip)
  return address ? blocked(address) : undefined
}

/** A name only the local machine or network resolves (a final dot, as in `localhost.`, changes nothing). */
const isLocalName = (host: string) =>
  host === "localhost" || host.endsWith(".localhost") || host.endsWith(".internal") || host.endsWith(".local") ||
  host === "home.arpa" || host.endsWith(".home.arpa")

/** Problems with a webhook URL as written; empty when acceptable. */
export const problems = (url: string, options: { readonly allowInsecure: boolean }): ReadonlyArray<string> => {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    return ["must be an absolute URL"]
  }
  if (u.username || u.password) return ["must not contain credentials"]
  if (options.allowInsecure) return u.protocol === "https:" || u.protocol === "http:" ? [] : ["must be an http:// or https:// URL"]
  if (u.protocol !== "https:") return ["must be an https:// URL"]
  const host = u.hostname.toLowerCase().replace(/\.+$/, "")
  if (isLocalName(host)) return ["must not point at a local or internal host"]
  const why = blockedAddress(host)
  return why ? [`must not point at ${why}`] : []
}
