import { assert, describe, it } from "@effect/vitest"
import { WebhookTarget } from "../src/index.ts"

/**
 * Every entry of the IANA special-purpose address registries (IPv4 and IPv6, as of 2025), plus
 * multicast, the deprecated site-local and IPv4-compatible ranges and the space IANA has not
 * allocated as global unicast: the first and the last address of each, written out here rather
 * than read from the library, so the library's tables are checked too.
 */
const blockedRanges: ReadonlyArray<readonly [range: string, first: string, last: string]> = [
  ["0.0.0.0/8 this network", "0.0.0.0", "0.255.255.255"],
  ["10.0.0.0/8 private", "10.0.0.0", "10.255.255.255"],
  ["100.64.0.0/10 CGNAT", "100.64.0.0", "100.127.255.255"],
  ["127.0.0.0/8 loopback", "127.0.0.0", "127.255.255.255"],
  ["169.254.0.0/16 link-local", "169.254.0.0", "169.254.255.255"],
  ["172.16.0.0/12 private", "172.16.0.0", "172.31.255.255"],
  ["192.0.0.0/24 IETF protocol assignments", "192.0.0.0", "192.0.0.255"],
  ["192.0.2.0/24 TEST-NET-1", "192.0.2.0", "192.0.2.255"],
  ["192.31.196.0/24 AS112", "192.31.196.0", "192.31.196.255"],
  ["192.52.193.0/24 AMT", "192.52.193.0", "192.52.193.255"],
  ["192.88.99.0/24 6to4 relay anycast", "192.88.99.0", "192.88.99.255"],
  ["192.168.0.0/16 private", "192.168.0.0", "192.168.255.255"],
  ["192.175.48.0/24 AS112 direct delegation", "192.175.48.0", "192.175.48.255"],
  ["198.18.0.0/15 benchmarking", "198.18.0.0", "198.19.255.255"],
  ["198.51.100.0/24 TEST-NET-2", "198.51.100.0", "198.51.100.255"],
  ["203.0.113.0/24 TEST-NET-3", "203.0.113.0", "203.0.113.255"],
  ["224.0.0.0/4 multicast", "224.0.0.0", "239.255.255.255"],
  ["240.0.0.0/4 reserved", "240.0.0.0", "255.255.255.254"],
  ["255.255.255.255/32 broadcast", "255.255.255.255", "255.255.255.255"],

  ["::/128 unspecified", "::", "::"],
  ["::1/128 loopback", "::1", "::1"],
  ["::/96 IPv4-compatible (deprecated)", "::7f00:1", "::ffff:ffff"],
  ["::ffff:0:0/96 IPv4-mapped", "::ffff:0.0.0.0", "::ffff:255.255.255.255"],
  ["::ffff:0:0:0/96 IPv4-translated", "::ffff:0:7f00:1", "::ffff:0:ffff:ffff"],
  ["64:ff9b::/96 NAT64", "64:ff9b::", "64:ff9b::ffff:ffff"],
  ["64:ff9b:1::/48 local-use NAT64", "64:ff9b:1::", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff"],
  ["100::/64 discard-only", "100::", "100::ffff:ffff:ffff:ffff"],
  ["100:0:0:1::/64 dummy prefix", "100:0:0:1::", "100:0:0:1:ffff:ffff:ffff:ffff"],
  ["2001::/23 IETF protocol assignments", "2001::", "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["2001::/32 Teredo", "2001::1", "2001:0:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["2001:1::1/128 PCP anycast", "2001:1::1", "2001:1::3"],
  ["2001:2::/48 benchmarking", "2001:2::", "2001:2:0:ffff:ffff:ffff:ffff:ffff"],
  ["2001:3::/32 AMT", "2001:3::", "2001:3:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["2001:4:112::/48 AS112-v6", "2001:4:112::", "2001:4:112:ffff:ffff:ffff:ffff:ffff"],
  ["2001:10::/28 ORCHID (deprecated)", "2001:10::", "2001:1f:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["2001:20::/28 ORCHIDv2", "2001:20::", "2001:2f:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["2001:30::/28 drone remote ID", "2001:30::", "2001:3f:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["2001:db8::/32 documentation", "2001:db8::", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["2002::/16 6to4", "2002:7f00:1::", "2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["2620:4f:8000::/48 AS112 direct delegation", "2620:4f:8000::", "2620:4f:8000:ffff:ffff:ffff:ffff:ffff"],
  ["3fff::/20 documentation", "3fff::", "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["5f00::/16 SRv6 SIDs", "5f00::", "5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["fc00::/7 unique-local", "fc00::", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["fd00:ec2::254 cloud metadata", "fd00:ec2::254", "fd00:ec2::254"],
  ["fe80::/10 link-local", "fe80::", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["fec0::/10 site-local (deprecated)", "fec0::", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["ff00::/8 multicast", "ff00::", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
  ["outside 2000::/3 (not allocated as global unicast)", "4000::1", "1::1"],
  ["outside 2000::/3 (not allocated as global unicast)", "e000::1", "8000::"]
]

/** Public unicast addresses, including the neighbours of blocked ranges. */
const allowed = [
  "8.8.8.8",
  "1.1.1.1",
  "93.184.215.14",
  "1.0.0.0",
  "9.255.255.255",
  "11.0.0.0",
  "100.63.255.255",
  "100.128.0.0",
  "126.255.255.255",
  "128.0.0.0",
  "169.253.255.255",
  "169.255.0.0",
  "172.15.255.255",
  "172.32.0.0",
  "192.0.1.0",
  "192.0.3.0",
  "192.88.98.255",
  "192.167.255.255",
  "192.169.0.0",
  "198.17.255.255",
  "198.20.0.0",
  "198.51.99.255",
  "203.0.112.255",
  "223.255.255.255",
  "2606:4700:4700::1111",
  "2001:4860:4860::8888",
  "2a00:1450:4001::1",
  "2001:200::1",
  "2003::1",
  "2620:4f:8001::1",
  "3fff:1000::1",
  "2000::1"
]

const url = (address: string) => `https://${address.includes(":") ? `[${address}]` : address}/hook`

describe("WebhookTarget: special-purpose addresses", () => {
  it("blocks the first and last address of every special-purpose range, as an address and in a URL", () => {
    for (const [range, first, last] of blockedRanges) {
      for (const address of [first, last]) {
        assert.isDefined(WebhookTarget.blockedAddress(address), `${address} (${range})`)
        const found = WebhookTarget.problems(url(address), { allowInsecure: false })
        assert.lengthOf(found, 1, `${url(address)} (${range})`)
        assert.match(found[0]!, /^must not point at /, `${url(address)} (${range})`)
      }
    }
  })

  it("blocks IPv4 embedded in IPv6 whatever the notation", () => {
    for (const host of ["[::127.0.0.1]", "[::ffff:0:127.0.0.1]", "[64:ff9b::127.0.0.1]", "[64:ff9b::10.0.0.1]", "[2002:7f00:1::1]", "[::ffff:127.0.0.1]",
      "[::ffff:7f00:1]", "[0:0:0:0:0:ffff:7f00:1]", "[::ffff:8.8.8.8]", "[64:ff9b::8.8.8.8]", "[2002:808:808::1]"]) {
      assert.lengthOf(WebhookTarget.problems(`https://${host}/x`, { allowInsecure: false }), 1, host)
    }
  })

  it("allows public unicast addresses", () => {
    for (const address of allowed) {
      assert.isUndefined(WebhookTarget.blockedAddress(address), address)
      assert.deepStrictEqual(WebhookTarget.problems(url(address), { allowInsecure: false }), [], address)
    }
  })

  it("blocks local host names with or without the trailing dot of a fully qualified name", () => {
    for (const host of ["localhost", "localhost.", "LocalHost.", "localhost..", "api.localhost", "api.localhost.", "metadata.google.internal",
      "metadata.google.internal.", "db.internal", "db.internal.", "printer.local.", "nas.home.arpa", "127.0.0.1.", "0x7f.1", "2130706433"]) {
      assert.lengthOf(WebhookTarget.problems(`https://${host}/x`, { allowInsecure: false }), 1, host)
    }
    for (const host of ["example.com", "example.com.", "hooks.localhost-example.com", "internal.example.com."]) {
      assert.deepStrictEqual(WebhookTarget.problems(`https://${host}/x`, { allowInsecure: false }), [], host)
    }
  })

  it("treats only IP literals as addresses: host names are for the resolver", () => {
    for (const name of ["example.com", "localhost", "hooks.example"]) assert.isUndefined(WebhookTarget.blockedAddress(name), name)
  })

  it("lifts the address checks for development only", () => {
    assert.deepStrictEqual(WebhookTarget.problems("http://[::127.0.0.1]:8080/x", { allowInsecure: true }), [])
    assert.deepStrictEqual(WebhookTarget.problems("http://localhost./x", { allowInsecure: true }), [])
  })
})
