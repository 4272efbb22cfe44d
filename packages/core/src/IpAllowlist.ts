/**
 * Service-token IP allowlists: IPv4 addresses and CIDR ranges (spec). A socket address in the
 * IPv4-mapped IPv6 form (`::ffff:10.1.2.3`) is compared as the IPv4 address it carries.
 */

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/

/** An IPv4 address as an unsigned 32-bit integer, or undefined. */
export const parseIpv4 = (s: string): number | undefined => {
  const m = IPV4.exec(s)
  if (!m) return undefined
  const parts = m.slice(1).map(Number)
  if (parts.some((p, i) => p > 255 || (m[i + 1]!.length > 1 && m[i + 1]!.startsWith("0")))) return undefined
  return ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0
}

/** `a.b.c.d` or `a.b.c.d/n` → [network, mask], or undefined when malformed. */
export const parseEntry = (entry: string): readonly [number, number] | undefined => {
  const [addr, bits, ...rest] = entry.trim().split("/")
  if (rest.length > 0 || addr === undefined) return undefined
  const ip = parseIpv4(addr)
  if (ip === undefined) return undefined
  const n = bits === undefined ? 32 : /^\d{1,2}$/.test(bits) ? Number(bits) : NaN
  if (!(n >= 0 && n <= 32)) return undefined
  const mask = n === 0 ? 0 : (0xffffffff << (32 - n)) >>> 0
  return [(ip & mask) >>> 0, mask]
}

/** Whether an allowlist entry is well formed. */
export const isValidEntry = (entry: string): boolean => parseEntry(entry) !== undefined

/** The address as IPv4, unwrapping `::ffff:a.b.c.d`. */
export const normalizeAddress = (address: string): string =>
  address.toLowerCase().startsWith("::ffff:") && IPV4.test(address.slice(7)) ? address.slice(7) : address

/** Whether `address` is inside any entry of the allowlist. */
export const allows = (allowlist: ReadonlyArray<string>, address: string): boolean => {
  const ip = parseIpv4(normalizeAddress(address))
  if (ip === undefined) return false
  return allowlist.some((e) => {
    const p = parseEntry(e)
    return p !== undefined && ((ip & p[1]) >>> 0) === p[0]
  })
}
