/**
 * Where a webhook may point (DECISIONS): `https://` only, and never at loopback, private,
 * link-local, CGNAT, unique-local, IPv4-mapped or metadata addresses. This checks what the URL
 * itself says (scheme, IP literals, `localhost`); the dispatcher checks again after resolving the
 * name, and connects only to the address it checked. A development setting allows `http://` and
 * local addresses.
 */

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/

/** Why an IPv4 address may not receive webhooks, or undefined when it may. */
export const blockedIpv4 = (ip: string): string | undefined => {
  const m = IPV4.exec(ip)
  if (!m) return undefined
  const [a, b] = [Number(m[1]), Number(m[2])]
  if (a === 127) return "a loopback address"
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return "a private address"
  if (a === 169 && b === 254) return "a link-local or cloud metadata address"
  if (a === 100 && b >= 64 && b <= 127) return "a carrier-grade NAT address"
  if (a === 0) return "an unspecified address"
  if (a >= 224) return "a multicast or reserved address"
  return undefined
}

/** Why an IPv6 address may not receive webhooks, or undefined when it may. */
export const blockedIpv6 = (raw: string): string | undefined => {
  const ip = raw.toLowerCase().replace(/^\[|\]$/g, "")
  if (!ip.includes(":")) return undefined
  if (ip === "::1" || ip === "0:0:0:0:0:0:0:1") return "a loopback address"
  if (ip === "::" ) return "an unspecified address"
  const mapped = /^(?:0{0,4}:){0,5}:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(ip) ?? /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(ip)
  if (mapped) return blockedIpv4(mapped[1]!) ?? "an IPv4-mapped address"
  if (/^::ffff:[0-9a-f]{1,4}:[0-9a-f]{1,4}$/.test(ip)) return "an IPv4-mapped address"
  if (/^f[cd][0-9a-f]{2}:/.test(ip)) return "a unique-local address"
  if (/^fe[89ab][0-9a-f]:/.test(ip)) return "a link-local address"
  if (/^ff[0-9a-f]{2}:/.test(ip)) return "a multicast address"
  if (ip.startsWith("fd00:ec2::254")) return "a cloud metadata address"
  return undefined
}

/** Why an address (v4 or v6) may not receive webhooks, or undefined when it may. */
export const blockedAddress = (ip: string): string | undefined => blockedIpv4(ip) ?? blockedIpv6(ip)

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
  const host = u.hostname.toLowerCase()
  if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".internal") || host === "metadata.google.internal") {
    return ["must not point at a local or internal host"]
  }
  const why = blockedAddress(host)
  return why ? [`must not point at ${why}`] : []
}
