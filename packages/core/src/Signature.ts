/**
 * Webhook signatures.
 *
 * - `sign`/`verify`: the spec's `X-Service-Signature: sha256=<lowercase hex>`, an HMAC-SHA256 of
 *   the raw body bytes keyed by the secret's UTF-8 bytes; verification in constant time.
 * - `standard`/`verifyStandard`: Standard Webhooks (`webhook-signature: v1,<base64>` over
 *   `id.timestamp.body`, keyed by the base64 part of a `whsec_` secret), so receivers can use the
 *   standard verification libraries.
 */
import { createHmac, randomBytes } from "node:crypto"
import * as ConstantTime from "./ConstantTime.ts"

const bytes = (x: string | Uint8Array): Buffer => (typeof x === "string" ? Buffer.from(x, "utf8") : Buffer.from(x))

/** `sha256=<hex>` for a raw body. */
export const sign = (secret: string, rawBody: string | Uint8Array): string =>
  `sha256=${createHmac("sha256", bytes(secret)).update(bytes(rawBody)).digest("hex")}`

/** Whether `header` is the signature of `rawBody` under `secret`, compared in constant time. */
export const verify = (secret: string, rawBody: string | Uint8Array, header: string): boolean => ConstantTime.equal(sign(secret, rawBody), header)

/** A new signing secret: `whsec_` and 32 random bytes in base64. */
export const generateSecret = (): string => `whsec_${randomBytes(32).toString("base64")}`

const standardKey = (secret: string): Buffer => secret.startsWith("whsec_") ? Buffer.from(secret.slice("whsec_".length), "base64") : bytes(secret)

/** The Standard Webhooks signature header value: `v1,<base64>`. */
export const standard = (secret: string, id: string, timestampSeconds: number, rawBody: string | Uint8Array): string =>
  `v1,${createHmac("sha256", standardKey(secret)).update(`${id}.${timestampSeconds}.`).update(bytes(rawBody)).digest("base64")}`

/** Whether any `v1,` entry of a Standard Webhooks signature header matches. */
export const verifyStandard = (secret: string, id: string, timestampSeconds: number, rawBody: string | Uint8Array, header: string): boolean => {
  const expected = standard(secret, id, timestampSeconds, rawBody)
  return header.split(" ").some((part) => ConstantTime.equal(part, expected))
}
