/**
 * The spec's error body, and the decoding of request values into a value or every problem as
 * `{ field, message }`.
 */
import { Result, Schema } from "effect"
import type * as Errors from "../Errors.ts"
import { type FieldError, formatPath, fromSchemaError } from "../FieldError.ts"

/** Every error code (`Errors.Code`; the compiler checks the list is complete). */
const errorCodes = Object.keys({
  VALIDATION_ERROR: true,
  UNAUTHORIZED: true,
  FORBIDDEN: true,
  NOT_FOUND: true,
  CONFLICT: true,
  RATE_LIMITED: true,
  INTERNAL_ERROR: true
} as const satisfies Record<Errors.Code, true>) as ReadonlyArray<Errors.Code>

/** The spec's error body. */
export const ErrorBody = Schema.Struct({
  error: Schema.Struct({
    code: Schema.Literals(errorCodes),
    message: Schema.String,
    details: Schema.Array(Schema.Struct({ field: Schema.String, message: Schema.String }))
  }),
  meta: Schema.Struct({ request_id: Schema.String })
}).annotate({
  identifier: "Error",
  examples: [{ error: { code: "VALIDATION_ERROR", message: "The request body is invalid", details: [{ field: "name", message: "must not be empty" }] },
    meta: { request_id: "req_1a2b3c4d5e" } }]
})
export type ErrorBody = typeof ErrorBody.Type

// ---------------------------------------------------------------------------------------------
// Decoding

/**
 * Decodes a request value against a schema, reporting every problem with its field path
 * (below `prefix`, e.g. `["query"]`).
 */
export const decodeRequest = <S extends Schema.Decoder<unknown>>(schema: S) => {
  const decode = Schema.decodeUnknownResult(schema as Schema.Decoder<S["Type"]>)
  return (input: unknown, prefix: ReadonlyArray<PropertyKey> = []): Result.Result<S["Type"], ReadonlyArray<FieldError>> => {
    if (typeof input !== "object" || input === null || Array.isArray(input)) {
      return Result.fail([{ field: prefix.length ? String(prefix[0]) : "body", message: "must be a JSON object" }])
    }
    const unfit = textProblems(input, prefix)
    if (unfit.length > 0) return Result.fail(unfit)
    const result = decode(input, { errors: "all", onExcessProperty: "ignore" })
    return Result.isSuccess(result) ? Result.succeed(result.success) : Result.fail(fromSchemaError(result.failure, prefix))
  }
}

/** Deepest nesting of objects and arrays a request body or query may have. */
export const MAX_DEPTH = 32

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** Why a string cannot be stored as text on every store, or undefined when it can. */
const textProblem = (s: string): string | undefined =>
  s.includes("\u0000") ? "must not contain NUL characters (U+0000)"
    : loneSurrogate.test(s) ? "must be valid Unicode text (it holds a lone surrogate)"
    : undefined

/**
 * Problems no schema should meet: nesting deeper than `MAX_DEPTH`, and strings (values or keys)
 * holding NUL or lone surrogates, which PostgreSQL refuses and other stores would alter. Walks
 * without recursion, at most 10 problems; a top-level `geometry` is left to the boundary's own
 * checks (numbers only, fixed depth, and possibly 100,000 positions long).
 */
const textProblems = (input: object, prefix: ReadonlyArray<PropertyKey>): Array<FieldError> => {
  const problems: Array<FieldError> = []
  const stack: Array<readonly [unknown, ReadonlyArray<PropertyKey>]> = [[input, []]]
  while (stack.length > 0 && problems.length < 10) {
    const [value, path] = stack.pop()!
    const field = () => formatPath([...prefix, ...path]) || "body"
    if (typeof value === "string") {
      const problem = textProblem(value)
      if (problem) problems.push({ field: field(), message: problem })
    } else if (typeof value === "object" && value !== null) {
      if (path.length >= MAX_DEPTH) {
        problems.push({ field: field(), message: `nests deeper than ${MAX_DEPTH} levels` })
        continue
      }
      if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], [...path, i]])
      } else {
        for (const [key, child] of Object.entries(value)) {
          if (path.length === 0 && key === "geometry") continue
          const problem = textProblem(key)
          if (problem) problems.push({ field: formatPath([...prefix, ...path]) || "body", message: `has a key that ${problem}` })
          else stack.push([child, [...path, key]])
        }
      }
    }
  }
  return problems
}
