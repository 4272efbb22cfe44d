/**
 * Comparing secrets (tokens, signatures, CSRF values, password hashes) in time that depends only
 * on their lengths, never on where they first differ: the one place Canopy calls
 * `crypto.timingSafeEqual`.
 */
import { timingSafeEqual } from "node:crypto"

/** Whether two byte strings are equal, compared in constant time; false when their lengths differ. */
export const equalBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && timingSafeEqual(a, b)

/** Whether two strings are equal as UTF-8, compared in constant time; false when their lengths differ. */
export const equal = (a: string, b: string): boolean => equalBytes(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"))
