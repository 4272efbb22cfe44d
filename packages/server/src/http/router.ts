/**
 * Matching a method and path against the route table.
 */
import { type Route, routes } from "../api/routes.ts"

interface Compiled {
  readonly route: Route
  readonly segments: ReadonlyArray<string>
}

const compiled: ReadonlyArray<Compiled> = routes.map((route) => ({ route, segments: `/v1${route.path}`.split("/").slice(1) }))

/** The route for a method and path, or why there is none (404, or 405 with the allowed methods). */
export const match = (method: string, path: string):
  | { readonly route: Route; readonly params: Record<string, string> }
  | { readonly allowed: ReadonlyArray<string> } => {
  const parts = path.split("/").slice(1)
  if (parts.length > 1 && parts.at(-1) === "") parts.pop()
  const allowed: Array<string> = []
  for (const c of compiled) {
    if (c.segments.length !== parts.length) continue
    const params: Record<string, string> = {}
    let ok = true
    for (let i = 0; i < parts.length && ok; i++) {
      const seg = c.segments[i]!
      if (seg.startsWith("{")) {
        // `{name}` or `{name}.ext`: the parameter is the part without the extension
        const close = seg.indexOf("}")
        const suffix = seg.slice(close + 1)
        const part = parts[i]!
        if (!part.endsWith(suffix) || part.length === suffix.length) ok = false
        else {
          try {
            params[seg.slice(1, close)] = decodeURIComponent(part.slice(0, part.length - suffix.length))
          } catch {
            ok = false
          }
        }
      } else ok = seg === parts[i]
    }
    if (!ok) continue
    if (c.route.method === method || (method === "HEAD" && c.route.method === "GET")) return { route: c.route, params }
    allowed.push(c.route.method)
  }
  return { allowed }
}
